//! The gate every tool call passes: it gathers the facts, takes the decision ([`decide`]), shows the card and
//! waits for the person when the decision is to ask, turns the answer into a run, a refusal or a new grant,
//! and writes the audit record. The engine calls it for every call, from every transport.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::broker::{Broker, Dismissal, PendingCard, Waited};
use super::card::{self, Answer, CardCall};
use super::decide::{Decision, Deny, Facts, ForbiddenBy, GrantStores, decide};
use super::evaluator::{self, OnTheEvent};
use super::fingerprint::fingerprint;
use super::gated_tool::GatedTool;
use super::model::{AnswerChannel, AuditEntry, Caller, DecisionSource, Grant};
use super::policy::Policy;
use super::preview::{PREVIEW_AT_MOST, PREVIEW_WITHIN, PreviewRead, PreviewState};
use super::redact;
use super::sentence::{Said, Sentence};
use super::store::{NeverAllow, PendingAudit, Store, StoreError};
use crate::catalog::Access;

/// How long an answered question is remembered: the same call again within it is a retry.
pub const DEFAULT_RETRY_WINDOW: Duration = Duration::from_secs(10 * 60);

/// At most this many answered questions are remembered for the retry rule, the oldest forgotten first, so
/// an assistant sending endless distinct calls can't grow the memory. A forgotten answer only means the next
/// identical call is asked as a first one (with *Always allow…* offered again): never that it runs unasked.
pub const MAX_REMEMBERED_ANSWERS: usize = 1024;

/// What the engine knows about a call when it arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallMeta {
    pub caller: Caller,
    /// The client marked the call as a retry (`_meta` `io.gatehouse/retry: true`).
    pub retry_marked: bool,
    /// The transport's identity of the request (connection and JSON-RPC id). The engine answers a re-send
    /// of the same request with the first run's reply, never a second run (see [`crate::resend`]); the gate
    /// itself takes no decision from it.
    pub request: Option<String>,
    /// Where the assistant's process is (see `crate::process`): a terminal answer from it or a program it
    /// started is refused. Never read from the wire: a relay could say anything, so the host finds it itself.
    #[serde(skip)]
    pub origin: Option<crate::process::Origin>,
}

impl Default for Caller {
    fn default() -> Self {
        Caller { agent: None, interactive: true }
    }
}

/// A call as the retry rule recognises it: agent, tool, canonical arguments.
pub type CallKey = (Option<super::model::Agent>, String, String);

/// The call `tool(args)` from `meta`'s caller as the retry rule and the re-send memory recognise it.
pub fn call_key(tool: &str, args: &Value, meta: &CallMeta) -> CallKey {
    (meta.caller.agent.clone(), tool.to_owned(), redact::canonical_text(args))
}

/// How many cards one call may show while its target keeps changing under it: past this, it is refused.
pub const MAX_ASKS: u32 = 3;

/// What a card asked again says first.
const ASKED_AGAIN: &str =
    "You are asked again: what this changes is no longer what you saw. Here is what it holds now.";

/// What the gate reads from Google about a call, around the decision: the name of a target a card mentions
/// (a spreadsheet, a document, a file, a folder), so the person reads "Budget 2026" rather than an id
/// (`None` when it can't be found quickly: the card then shows the id), and, before deciding, who is on an
/// event a call changes or cancels ([`TargetNames::event_attendees`]). Reads only: they need no approval.
pub trait TargetNames: Send + Sync {
    fn name<'a>(&'a self, id: &'a str) -> futures::future::BoxFuture<'a, Option<String>>;

    /// The name of the calendar `id` ("Team"), the same way; `None` by default.
    fn calendar_name<'a>(&'a self, _id: &'a str) -> futures::future::BoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }

    /// The call's preview of the change being read from Google, when its tool declares one
    /// ([`GatedTool::previewed`]); `None` by default, or when nothing can read it here.
    fn preview(&self, _tool: &GatedTool, _args: &Value) -> Option<PreviewRead> {
        None
    }

    /// The addresses of the people on the event `event` of the calendar `calendar`, read before deciding a
    /// call Google emails them about (an update or a delete), or why they could not all be read. By default
    /// they can't: such a call is then asked, never covered by a grant.
    fn event_attendees<'a>(
        &'a self,
        _calendar: &'a str,
        _event: &'a str,
    ) -> futures::future::BoxFuture<'a, OnTheEvent> {
        Box::pin(async { OnTheEvent::Unread(NO_EVENT_READS.to_owned()) })
    }
}

/// Why an event's attendees were not read where nothing reads them (no [`TargetNames`], or one that can't).
const NO_EVENT_READS: &str = "Gatehouse has no way to read events here";

/// The constraint kinds whose value is a Drive file id.
const NAMED_KINDS: [&str; 4] = ["spreadsheet", "document", "file", "folder"];

use super::words::named;

/// What the gate lets happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permit {
    Run { source: DecisionSource },
    Refuse { source: DecisionSource, message: String },
}

/// The refusal of a call nobody answered because every card was dismissed, or is while paused.
pub(crate) fn dismissed(name: &str, why: Dismissal) -> Permit {
    match why {
        Dismissal::Paused => Permit::Refuse {
            source: DecisionSource::Paused,
            message: format!(
                "{name} was not run: the person has paused every assistant in Gatehouse. Ask them to resume it from the tray menu."
            ),
        },
        Dismissal::ShuttingDown => Permit::Refuse {
            source: DecisionSource::Shutdown,
            message: format!(
                "{name} was not run: Gatehouse was closed before the person answered. Try again once Gatehouse is running."
            ),
        },
    }
}

/// The approval side of the engine: policy, grant store, pending cards and the retry memory.
pub struct Approvals {
    store: Option<Store>,
    policy: Policy,
    /// The policy's `allow` rules as grants, with today's tool fingerprints.
    platform: Vec<Arc<Grant>>,
    /// The policy's deny rules. The person's *never allow* rules live in the store and join these per call.
    denies: Vec<Deny>,
    fingerprints: HashMap<&'static str, String>,
    broker: Broker,
    /// When each call (agent, tool, canonical arguments) was last answered by the person.
    answered: Mutex<HashMap<CallKey, DateTime<Utc>>>,
    retry_window: Duration,
    paused: AtomicBool,
    names: Option<Arc<dyn TargetNames>>,
    /// How many audit records of abandoned calls are still being written (see [`Approvals::audit_detached`]).
    detached: tokio::sync::watch::Sender<usize>,
}

impl Approvals {
    /// The gate for `tools`, with `store` for standing approvals and the audit log (`None`: only the policy's
    /// platform grants apply, no card offers *Always allow…*, and the audit goes to the log only).
    pub fn new<T: AsRef<GatedTool>>(store: Option<Store>, policy: Policy, tools: &[T]) -> Self {
        let fingerprints: HashMap<&'static str, String> =
            tools.iter().map(AsRef::as_ref).map(|tool| (tool.meta.name, fingerprint(tool))).collect();
        let pairs: Vec<(&str, String)> = fingerprints.iter().map(|(name, print)| (*name, print.clone())).collect();
        let platform = policy.platform_grants(&pairs, Utc::now()).into_iter().map(Arc::new).collect();
        let denies = policy
            .deny_rules()
            .iter()
            .map(|rule| Deny {
                rule: rule.rule_name(),
                by: ForbiddenBy::Policy,
                tool: rule.tool.clone(),
                agent: rule.agent.clone(),
                constraint: rule.constraint.clone(),
                expires: rule.expires,
            })
            .collect();
        Self {
            store,
            policy,
            platform,
            denies,
            fingerprints,
            broker: Broker::new(),
            answered: Mutex::new(HashMap::new()),
            retry_window: DEFAULT_RETRY_WINDOW,
            paused: AtomicBool::new(false),
            names: None,
            detached: tokio::sync::watch::channel(0).0,
        }
    }

    /// The same gate, naming the targets its cards show through `names`.
    pub fn with_target_names(mut self, names: Arc<dyn TargetNames>) -> Self {
        self.names = Some(names);
        self
    }

    /// The card's target in words, and the offered constraint's label: by the target's name when it can be
    /// found, else by its id. The target is the call's own (its first constraining evaluator's proposal), so a
    /// card that offers no *Always allow* still says what the call touches.
    async fn target_words(
        &self,
        tool: &GatedTool,
        args: &Value,
        offered: Option<&super::model::Constraint>,
    ) -> (Option<String>, Option<String>) {
        let own = tool
            .evaluators()
            .iter()
            .filter(|evaluator| evaluator.constrains())
            .find_map(|evaluator| evaluator.propose(args).ok().flatten());
        let Some(target) = offered.cloned().or(own) else { return (None, None) };
        let (target_words, offered_label) = self.named_target(&target).await;
        (Some(target_words), offered.map(|_| offered_label))
    }

    /// A card's target in words (`“Budget 2026” (spreadsheet 1AbC)`, or the evaluators' description when the
    /// name can't be found), and the label of a limit to it (`only this spreadsheet: “Budget 2026”`): the one
    /// wording every card uses, Gatehouse's own and Google's forms alike.
    pub(crate) async fn named_target(&self, target: &super::model::Constraint) -> (String, String) {
        let described = evaluator::constraint_words(target);
        let name = self.target_name(target).await;
        let label = named(&described, name.as_deref());
        let words = match name {
            Some(name) => format!("“{name}” ({} {})", target.kind, target.value),
            None => described.trim_start_matches("only ").to_owned(),
        };
        (words, label)
    }

    /// The name of the file a constraint names ("Budget 2026"), when it names one and it can be found quickly
    /// (within the engine's cap): the one lookup the cards, the grant lists and the activity log share.
    pub async fn target_name(&self, target: &super::model::Constraint) -> Option<String> {
        match (&self.names, NAMED_KINDS.contains(&target.kind.as_str())) {
            (Some(names), true) => names.name(&target.value).await,
            (Some(names), false) if target.kind == "calendar" => names.calendar_name(&target.value).await,
            _ => None,
        }
    }

    /// A grant's or rule's limit in words, naming its target as the card that offered it did ("only this
    /// spreadsheet: “Budget 2026”"), so a list of standing approvals reads like the cards that made them.
    pub async fn limit_words(&self, constraint: Option<&super::model::Constraint>) -> String {
        let described = super::words::limit_words(constraint);
        let name = match constraint {
            Some(constraint) => self.target_name(constraint).await,
            None => None,
        };
        named(&described, name.as_deref())
    }

    /// The pending cards and their answers.
    pub fn broker(&self) -> &Broker {
        &self.broker
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Pauses (or resumes) every assistant: while paused every gated call is refused, and what is pending is
    /// denied.
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
        if paused {
            self.broker.dismiss_all(Dismissal::Paused);
        }
    }

    /// Whether every assistant is paused (see [`Approvals::set_paused`]).
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// The fingerprint a grant of `tool` must carry to cover its call: today's declaration's, and for a tool
    /// that runs on one of Google's definitions (discovered, or routed to Google's server for this call) that
    /// definition's too, so a grant stops covering a tool Google changed.
    pub fn print_of(&self, tool: &GatedTool) -> String {
        match tool.google() {
            Some(_) => fingerprint(tool),
            None => self.fingerprints.get(tool.meta.name).cloned().unwrap_or_default(),
        }
    }

    /// Whether the tool's calls pass through the decision: every write, and reads when the policy gates them.
    pub fn is_gated(&self, tool: &GatedTool) -> bool {
        matches!(tool.meta.access, Access::Write(_)) || self.policy.gate_reads()
    }

    /// Why the caller's name can't be accepted, as the refusal the assistant gets, or `None`. Every call of
    /// every transport is checked here, on the process that decides it (a host checks what its relays say):
    /// a name too long or with control characters is refused, and so is a self-reported name that is a
    /// registered assistant's — that assistant's calls are known by its token, and another program saying
    /// its name must not look like it on a card or in the log.
    pub fn refuse_caller(&self, caller: &Caller) -> Option<Permit> {
        let agent = caller.agent.as_ref()?;
        let shown = crate::shown::cut_line(&agent.name, super::model::MAX_AGENT_NAME, "names are cut here");
        if let Err(why) = super::model::check_agent_name(&agent.name) {
            return Some(Permit::Refuse {
                source: DecisionSource::AgentName,
                message: format!(
                    "Gatehouse refused the call: the assistant's name “{shown}” (its clientInfo.name) can't be used: {why}. Names are at most 64 characters with no control characters; configure the assistant with a plain name."
                ),
            });
        }
        let registered = self.store.as_ref().is_some_and(|store| store.is_registered_name(&agent.name));
        if agent.self_reported && registered {
            return Some(Permit::Refuse {
                source: DecisionSource::AgentName,
                message: format!(
                    "Gatehouse refused the call: “{shown}” is the name of an assistant registered in Gatehouse, and this connection did not present its token. Connect with that assistant's token over HTTP (`gatehouse assistants`), or give this client another name."
                ),
            });
        }
        None
    }

    /// Decides a call, asking the person when the rules say so. Every call is decided afresh: the gate
    /// takes no decision from an earlier request, not even one with the same JSON-RPC id (the engine answers
    /// a re-send from the first run's reply instead, after [`Approvals::screen`]).
    pub async fn permit(&self, tool: &GatedTool, args: &Value, meta: &CallMeta, account: Option<&str>) -> Permit {
        self.permit_answered(tool, args, meta, account).await.0
    }

    /// [`permit`](Approvals::permit), with where the person answered the card when one was answered (for the
    /// audit record).
    pub async fn permit_answered(
        &self,
        tool: &GatedTool,
        args: &Value,
        meta: &CallMeta,
        account: Option<&str>,
    ) -> (Permit, Option<AnswerChannel>) {
        if !self.is_gated(tool) {
            return (Permit::Run { source: DecisionSource::NotGated }, None);
        }
        if let Some(refused) = self.screen(tool, args, meta, account) {
            return (refused, None);
        }
        let now = Utc::now();
        let key = call_key(tool.meta.name, args, meta);
        self.decide_call(tool, args, meta, account, key, now).await
    }

    /// The refusals that come before anything else, for a gated call: every assistant paused, or a deny rule
    /// (the policy's, or the signed-in person's *never allow*) forbidding it. `None` when neither applies or
    /// the tool is not gated. The engine asks this before answering a re-sent request from its first run's
    /// reply, so a pause or a rule added since the first run is honoured.
    pub fn screen(&self, tool: &GatedTool, args: &Value, meta: &CallMeta, account: Option<&str>) -> Option<Permit> {
        if !self.is_gated(tool) {
            return None;
        }
        let name = tool.meta.name;
        if self.paused.load(Ordering::SeqCst) {
            return Some(dismissed(name, Dismissal::Paused));
        }
        let person_denies = self.person_denies(name, account);
        let print = self.print_of(tool);
        let facts = Facts {
            tool: name,
            fingerprint: &print,
            args,
            evaluators: tool.evaluators(),
            caller: &meta.caller,
            retry: false,
            always_ask: false,
            account,
            // Only the deny rules are asked of these facts: they never depend on the event's attendees.
            on_event: None,
            now: Utc::now(),
            denies: person_denies.as_deref().unwrap_or(&self.denies),
            grants: GrantStores::None,
        };
        match super::decide::deny_rule(&facts)? {
            Decision::Refused { source, message } => Some(Permit::Refuse { source, message }),
            Decision::Covered { .. } | Decision::Ask { .. } => None,
        }
    }

    async fn decide_call(
        &self,
        tool: &GatedTool,
        args: &Value,
        meta: &CallMeta,
        account: Option<&str>,
        key: CallKey,
        now: DateTime<Utc>,
    ) -> (Permit, Option<AnswerChannel>) {
        let name = tool.meta.name;
        let retry = meta.retry_marked || self.answered_recently(&key, now);
        let print = self.print_of(tool);
        let stored = self.store.as_ref().map(|store| store.candidates(name));
        // The index's snapshot as it is (shared, not copied), unless the policy adds platform grants for the tool.
        // The policy's allow rules name the tool, not a definition: they follow Google's definition of today.
        let platform: Vec<Arc<Grant>> = self
            .platform
            .iter()
            .filter(|grant| grant.tool == name)
            .map(|grant| match tool.google() {
                Some(_) => Arc::new(Grant { fingerprint: print.clone(), ..Grant::clone(grant) }),
                None => Arc::clone(grant),
            })
            .collect();
        let combined: Vec<Arc<Grant>>;
        let candidates: &[Arc<Grant>] = match (&stored, platform.is_empty()) {
            (Some(stored), true) => stored,
            (stored, _) => {
                combined = stored.iter().flat_map(|list| list.iter()).cloned().chain(platform).collect();
                &combined
            }
        };
        let person_denies;
        let denies = match self.person_denies(name, account) {
            Some(person) => {
                person_denies = person;
                &person_denies
            }
            None => &self.denies,
        };
        let on_event = self.read_event_attendees(tool, args).await;
        let facts = Facts {
            tool: name,
            fingerprint: &print,
            args,
            evaluators: tool.evaluators(),
            caller: &meta.caller,
            retry,
            always_ask: self.policy.is_always_ask(name),
            account,
            on_event: on_event.as_ref(),
            now,
            denies,
            grants: if self.store.is_some() || !self.platform.is_empty() {
                GrantStores::One(candidates)
            } else {
                GrantStores::None
            },
        };
        match decide(&facts) {
            Decision::Refused { source, message } => (Permit::Refuse { source, message }, None),
            Decision::Covered { grant, source } => {
                self.record_use(&grant, now).await;
                (Permit::Run { source }, None)
            }
            Decision::Ask { mut grantable, mut constraint, mut why_not_grantable } => {
                // Platform grants live in the policy, so they may apply without a store; but a card must not
                // offer Always allow when there is no store to keep the grant in.
                if grantable && self.store.is_none() {
                    (grantable, constraint) = (false, None);
                    why_not_grantable = Some("Gatehouse has no store for standing approvals right now.".to_owned());
                }
                if let Some(why) = &why_not_grantable {
                    tracing::debug!(tool = name, "no standing approval offered: {why}");
                }
                let (permit, channel) = self
                    .ask(tool, args, meta, account, &print, (grantable, why_not_grantable), constraint, retry)
                    .await;
                // A question the person answered; one that timed out was never seen answered, so is no retry.
                if !matches!(permit, Permit::Refuse { source: DecisionSource::Timeout, .. }) {
                    self.remember_answer(key, Utc::now());
                }
                (permit, channel)
            }
        }
    }

    /// Who is on the event the call changes or cancels, read from Google before the decision, when one of
    /// the tool's evaluators names such an event (`update_event`, `delete_event`: Google emails them the
    /// change); `None` for every other call. The decision judges what is read; it never reads itself.
    async fn read_event_attendees(&self, tool: &GatedTool, args: &Value) -> Option<OnTheEvent> {
        let (calendar, event) = evaluator::event_told(tool.evaluators(), args)?;
        let on_event = match &self.names {
            Some(names) => names.event_attendees(&calendar, &event).await,
            None => OnTheEvent::Unread(NO_EVENT_READS.to_owned()),
        };
        if let OnTheEvent::Unread(why) = &on_event {
            tracing::info!(tool = tool.meta.name, "the event's attendees could not be read, so the call asks: {why}");
        }
        Some(on_event)
    }

    /// The policy's deny rules followed by the signed-in account's *never allow* rules for `tool`, or `None`
    /// when that account has none for it (the common case: then the policy's are used as they are, and
    /// nothing is allocated). Another account's rules never apply, like its grants.
    fn person_denies(&self, tool: &str, account: Option<&str>) -> Option<Vec<Deny>> {
        let (store, account) = (self.store.as_ref()?, account?);
        let rules = store.never_allows();
        let mine = |rule: &&NeverAllow| rule.tool == tool && rule.owner_account.eq_ignore_ascii_case(account);
        if !rules.iter().any(|rule| mine(&rule)) {
            return None;
        }
        let person = rules.iter().filter(mine).map(|rule| Deny {
            rule: rule.id.clone(),
            by: ForbiddenBy::Person,
            tool: rule.tool.clone(),
            agent: rule.agent.clone(),
            constraint: rule.constraint.clone(),
            expires: Some(rule.expires),
        });
        Some(self.denies.iter().cloned().chain(person).collect())
    }

    #[allow(clippy::too_many_arguments)]
    async fn ask(
        &self,
        tool: &GatedTool,
        args: &Value,
        meta: &CallMeta,
        account: Option<&str>,
        print: &str,
        (grantable, why_not_grantable): (bool, Option<String>),
        constraint: Option<super::model::Constraint>,
        retry: bool,
    ) -> (Permit, Option<AnswerChannel>) {
        let name = tool.meta.name;
        // The card's words and its preview are read from Google at once, so the card waits for the slowest
        // only (names within the engine's cap, the preview within PREVIEW_WITHIN).
        let said = tool.said(args);
        let ((target, label), sentence, (mut preview, mut later)) = tokio::join!(
            self.target_words(tool, args, constraint.as_ref()),
            self.sentence(&said),
            self.preview_within(tool, args),
        );
        let proposed: Vec<_> = constraint.into_iter().zip(label).collect();
        let offer = card::offer(grantable, meta.caller.agent.as_ref(), self.policy.max_days(), proposed);
        let timeout = self.policy.approval_timeout();
        // The assistant's process, found while it still holds the connection (for a terminal answer's check).
        // Finding an HTTP client's process scans `/proc`: off the runtime's threads.
        let origin = match meta.origin {
            Some(origin) => tokio::task::spawn_blocking(move || origin.pid()).await.ok().flatten(),
            None => None,
        };
        let mut asked_again = None;
        let mut asked = 0;
        loop {
            asked += 1;
            let now = Utc::now();
            let pending = PendingCard {
                id: 0,
                agent: meta.caller.agent.clone(),
                tool: name.to_owned(),
                title: tool.meta.title.to_owned(),
                target: target.clone(),
                arguments: redact::preview(args),
                offer: offer.clone(),
                retry,
                why_not_grantable: why_not_grantable.clone(),
                created: now,
                deadline: now + chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::MAX),
                form: None,
                sentence: sentence.clone(),
                preview: preview.clone(),
                asked_again: asked_again.clone(),
            };
            let (waited, shown) = self.broker.ask_updating(pending, timeout, origin, later.take()).await;
            let (raw, channel) = match waited {
                Waited::Answered(raw, channel) => (raw, channel),
                Waited::Dismissed(why) => return (dismissed(name, why), None),
                Waited::TimedOut => {
                    tracing::info!(tool = name, "the person did not answer in time: not approved");
                    let refusal = Permit::Refuse {
                        source: DecisionSource::Timeout,
                        message: format!(
                            "The person did not confirm {name} in time ({} seconds), so it was not run. Ask them to watch for Gatehouse's approval card, then try again.",
                            timeout.as_secs()
                        ),
                    };
                    return (refusal, None);
                }
            };
            let (answer, invalid) = card::parse_answer(&offer, &raw);
            if let Some(invalid) = invalid {
                tracing::warn!(
                    tool = name,
                    "the answer chose something the card did not offer ({invalid}): running once, no grant"
                );
            }
            if answer == Answer::Deny {
                let message =
                    format!("The person declined {name}, so it was not run. Do not retry it unless they ask you to.");
                return (Permit::Refuse { source: DecisionSource::Person, message }, Some(channel));
            }
            // Approved as the card showed it: a target that changed since is asked about again, with what it
            // holds now (the answer covered what the person saw, not this).
            if let Some(current) = self.changed_since(tool, args, &shown).await {
                if asked >= MAX_ASKS {
                    tracing::info!(tool = name, "the target kept changing while the person was asked: not run");
                    let message = format!(
                        "{name} was not run: what it would change kept changing while the person was asked ({MAX_ASKS} times). Try again once nobody else is editing it."
                    );
                    return (Permit::Refuse { source: DecisionSource::Person, message }, Some(channel));
                }
                tracing::info!(tool = name, "the target changed since its preview: asking again");
                asked_again = Some(ASKED_AGAIN.to_owned());
                preview = current;
                continue;
            }
            if let Answer::Always(choice) = answer {
                self.create_grant(name, meta, account, print, &offer, &choice, now).await;
            }
            return (Permit::Run { source: DecisionSource::Person }, Some(channel));
        }
    }

    /// The card's sentence with its files and calendars named (see [`Said::named`]): looked up at once, each
    /// within the engine's cap; one not found in time is said by its id.
    async fn sentence(&self, said: &Said) -> Sentence {
        let Some(names) = &self.names else { return said.named(|_| None) };
        let files =
            futures::future::join_all(said.files().into_iter().map(|id| async move { (id, names.name(id).await) }));
        let calendars = futures::future::join_all(
            said.calendars().into_iter().map(|id| async move { (id, names.calendar_name(id).await) }),
        );
        let (files, calendars) = tokio::join!(files, calendars);
        let found: HashMap<&str, String> =
            files.into_iter().chain(calendars).filter_map(|(id, name)| Some((id, name?))).collect();
        said.named(|id| found.get(id).cloned())
    }

    /// The call's preview, read within [`PREVIEW_WITHIN`]: its state for the card, and, when Google is slower,
    /// the rest of the read for the card to fill in (past [`PREVIEW_AT_MOST`] it says it could not be read).
    async fn preview_within(
        &self,
        tool: &GatedTool,
        args: &Value,
    ) -> (PreviewState, Option<futures::future::BoxFuture<'static, PreviewState>>) {
        let Some(mut read) = self.names.as_ref().and_then(|names| names.preview(tool, args)) else {
            return (PreviewState::None, None);
        };
        match tokio::time::timeout(PREVIEW_WITHIN, &mut read).await {
            Ok(read) => (PreviewState::of(read), None),
            Err(_) => {
                let rest = Box::pin(async move {
                    match tokio::time::timeout(PREVIEW_AT_MOST.saturating_sub(PREVIEW_WITHIN), read).await {
                        Ok(read) => PreviewState::of(read),
                        Err(_) => PreviewState::Unread { why: "Google did not answer in time".to_owned() },
                    }
                });
                (PreviewState::Reading, Some(rest))
            }
        }
    }

    /// What the call's target holds now, when it is no longer what the card `shown` previewed and the
    /// preview guards it ([`super::preview::Preview::guards_the_target`]); `None` when it is unchanged, or
    /// when the card showed no such preview (nothing to hold the call to). A target that can't be read again
    /// counts as changed: the person is asked again, the card saying it could not be read.
    async fn changed_since(&self, tool: &GatedTool, args: &Value, shown: &PreviewState) -> Option<PreviewState> {
        let PreviewState::Ready { preview } = shown else { return None };
        if !preview.guards_the_target() {
            return None;
        }
        let read = self.names.as_ref().and_then(|names| names.preview(tool, args))?;
        let now = match tokio::time::timeout(PREVIEW_WITHIN, read).await {
            Ok(read) => PreviewState::of(read),
            Err(_) => PreviewState::Unread { why: "Google did not answer in time".to_owned() },
        };
        match &now {
            PreviewState::Ready { preview: now } if now == preview => None,
            _ => Some(now),
        }
    }

    /// Makes the grant the person chose. Any failure (no signed-in account, an invalid choice, the store)
    /// leaves the call approved once, and the log says why.
    #[allow(clippy::too_many_arguments)]
    async fn create_grant(
        &self,
        tool: &str,
        meta: &CallMeta,
        account: Option<&str>,
        print: &str,
        offer: &card::CardOffer,
        choice: &card::Choice,
        now: DateTime<Utc>,
    ) {
        let (Some(store), Some(account)) = (&self.store, account) else {
            tracing::warn!(tool, "no grant store or no signed-in account: the call runs once, no grant is kept");
            return;
        };
        let call = CardCall { owner_email: account, tool, agent: meta.caller.agent.as_ref(), fingerprint: print };
        let mut grant = match card::grant_from_choice(&call, offer, choice, now, uuid::Uuid::new_v4().to_string()) {
            Ok(grant) => grant,
            Err(invalid) => {
                tracing::warn!(tool, "the choice could not become a grant ({invalid}): running once");
                return;
            }
        };
        // The target's name as the card showed it, kept with the grant so the lists name it the same way.
        if let Some(constraint) = &grant.constraint {
            grant.target_name = self.target_name(constraint).await;
        }
        match store.insert_grant(&grant).await {
            Ok(()) => tracing::info!(tool, grant = %grant.id, "standing approval granted"),
            Err(error) => tracing::warn!(tool, "the grant could not be saved ({error}): running once"),
        }
    }

    /// Records a grant's use. A failure is logged and the call still runs: the audit log is the record.
    async fn record_use(&self, grant: &str, now: DateTime<Utc>) {
        let Some(store) = &self.store else { return };
        if self.platform.iter().any(|platform| platform.id == grant) {
            return;
        }
        if let Err(error) = store.record_use(grant, now).await {
            tracing::warn!(grant, "recording the grant's use failed ({error}); the call runs");
        }
    }

    fn answered_recently(&self, key: &CallKey, now: DateTime<Utc>) -> bool {
        let window = chrono::Duration::from_std(self.retry_window).unwrap_or(chrono::Duration::MAX);
        let answered = self.answered.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        answered.get(key).is_some_and(|at| now - *at < window)
    }

    fn remember_answer(&self, key: CallKey, now: DateTime<Utc>) {
        let window = chrono::Duration::from_std(self.retry_window).unwrap_or(chrono::Duration::MAX);
        let mut answered = self.answered.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        answered.retain(|_, at| now - *at < window);
        while answered.len() >= MAX_REMEMBERED_ANSWERS {
            let Some(oldest) = answered.iter().min_by_key(|(_, at)| **at).map(|(key, _)| key.clone()) else { break };
            answered.remove(&oldest);
        }
        answered.insert(key, now);
    }

    /// Records a call that changes something before it is sent (see [`Store::begin_audit`]): `Ok(None)` when
    /// there is no store (the audit goes to the log only), an error when the record could not be written, in
    /// which case the call must not run.
    pub async fn begin_audit(&self, entry: &AuditEntry) -> Result<Option<PendingAudit>, StoreError> {
        match &self.store {
            Some(store) => store.begin_audit(entry).await.map(Some),
            None => Ok(None),
        }
    }

    /// Appends the call's audit record. A failure is logged: the call already happened.
    pub async fn audit(&self, entry: AuditEntry) {
        self.finish_audit(entry, None).await;
    }

    /// Appends the call's audit record, completing its pending record when it had one ([`Approvals::begin_audit`]).
    /// A failure is logged: the call already happened (a pending record left behind is recorded as interrupted
    /// when a store is next opened).
    pub async fn finish_audit(&self, entry: AuditEntry, pending: Option<PendingAudit>) {
        tracing::info!(
            tool = %entry.tool,
            agent = %entry.agent.as_ref().map(super::words::agent_words).unwrap_or_else(|| "unknown".to_owned()),
            source = %entry.source,
            outcome = ?entry.outcome,
            "audit"
        );
        let Some(store) = &self.store else { return };
        let written = match pending {
            Some(pending) => store.complete_audit(pending, entry).await.map(drop),
            // A read nobody decided waits for the next group commit; every other record is on disk first.
            None => store.record_audit(entry).await,
        };
        if let Err(error) = written {
            tracing::error!("the audit record could not be written: {error}");
        }
    }

    /// Appends the record of a call whose future was dropped (its assistant cancelled it or went away), from
    /// code that cannot wait: the write runs on its own task, and [`Approvals::settle`] waits for it.
    pub fn audit_detached(self: &Arc<Self>, entry: AuditEntry, pending: Option<PendingAudit>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!(tool = %entry.tool, source = %entry.source, "the audit record could not be written: no runtime");
            return;
        };
        self.detached.send_modify(|writing| *writing += 1);
        let approvals = Arc::clone(self);
        runtime.spawn(async move {
            // Counted down even if the task is dropped unfinished (the runtime stopping).
            let _written = DetachedWrite(&approvals.detached);
            approvals.finish_audit(entry, pending).await;
        });
    }

    /// Waits until the records of abandoned calls are written, and commits the reads' records waiting for
    /// their group commit, so a process that stops next loses none.
    pub async fn settle(&self) {
        let mut writing = self.detached.subscribe();
        let _ = writing.wait_for(|writing| *writing == 0).await;
        if let Some(store) = &self.store
            && let Err(error) = store.flush_audit().await
        {
            tracing::error!("stopping before the audit records of recent reads were written: {error}");
        }
    }
}

/// One detached audit write under way; counted down when it ends.
struct DetachedWrite<'a>(&'a tokio::sync::watch::Sender<usize>);

impl Drop for DetachedWrite<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|writing| *writing = writing.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::approval::card::RawAnswer;
    use crate::tools::all_tools;

    async fn answer_next_card(approvals: &Approvals, answer: RawAnswer) -> PendingCard {
        for _ in 0..400 {
            if let Some(card) = approvals.broker().pending().into_iter().next() {
                approvals.broker().answer(card.id, answer).expect("pending");
                return card;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no card appeared");
    }

    /// Changed on purpose (issue 15, item 1): this test used to be
    /// `a_transport_resend_reuses_the_first_decision_and_a_new_request_is_a_retry`, and asserted that the same
    /// request id got the first decision again without a card — so a re-sent write ran twice. The gate now
    /// takes no decision from an earlier request (the engine answers a re-send from the first run's reply,
    /// see `crate::resend`): the same id again is decided afresh, as a retry, and a deny rule refuses it.
    #[tokio::test]
    async fn the_gate_takes_no_decision_from_an_earlier_request_and_a_repeat_is_a_retry() {
        let tools = all_tools();
        let approvals = Arc::new(Approvals::new(None, Policy::default(), &tools));
        let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").cloned().expect("update_cells");
        let args = json!({ "spreadsheet_id": "S1", "sheet": "Sales", "range": "A1", "data": [["x"]] });
        let meta = |request: &str| CallMeta {
            caller: Caller { agent: Some(super::super::model::Agent::registered("claude")), interactive: true },
            retry_marked: false,
            request: Some(request.to_owned()),
            origin: None,
        };

        let first = tokio::spawn({
            let (approvals, tool, args, meta) = (approvals.clone(), tool.clone(), args.clone(), meta("c1/1"));
            async move { approvals.permit(&tool, &args, &meta, Some("ada@example.com")).await }
        });
        answer_next_card(&approvals, RawAnswer::AllowOnce).await;
        assert_eq!(first.await.unwrap(), Permit::Run { source: DecisionSource::Person });

        // The same request id again: asked again, as a retry (without Always allow).
        for request in ["c1/1", "c1/2"] {
            let again = tokio::spawn({
                let (approvals, tool, args, meta) = (approvals.clone(), tool.clone(), args.clone(), meta(request));
                async move { approvals.permit(&tool, &args, &meta, Some("ada@example.com")).await }
            });
            let card = answer_next_card(&approvals, RawAnswer::Deny).await;
            assert!(card.retry && !card.offer.grantable, "{card:?}");
            assert!(matches!(again.await.unwrap(), Permit::Refuse { source: DecisionSource::Person, .. }));
        }

        // Paused: refused before anything, by the same screen the engine asks before answering a re-send.
        approvals.set_paused(true);
        let screened = approvals.screen(&tool, &args, &meta("c1/1"), Some("ada@example.com"));
        assert!(matches!(screened, Some(Permit::Refuse { source: DecisionSource::Paused, .. })), "{screened:?}");
    }

    #[test]
    fn the_retry_memory_is_bounded() {
        let tools = all_tools();
        let approvals = Approvals::new(None, Policy::default(), &tools);
        let now = Utc::now();
        for i in 0..MAX_REMEMBERED_ANSWERS + 50 {
            approvals.remember_answer((None, "update_cells".into(), i.to_string()), now);
        }
        let answered = approvals.answered.lock().unwrap();
        assert_eq!(answered.len(), MAX_REMEMBERED_ANSWERS);
    }
}
