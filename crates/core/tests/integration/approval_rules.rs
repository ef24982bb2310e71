//! The rules of docs/approvals.md, one test per rule, each named after the rule it holds the engine to.
//!
//! The first half drives the pure decision (`decide`) with facts built by hand around the real tools and
//! their real evaluators, so every rule of "Deciding a gated call" is checked on its own. The second half
//! drives the gate (`Approvals::permit`) with a real SQLite store and a parsed policy: a card appears, the
//! test answers it as the person would, and the permit and the store afterwards show what the rule says.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use gatehouse_core::approval::broker::{AnswerError, PendingCard};
use gatehouse_core::approval::card::{RawAnswer, RawChoice};
use gatehouse_core::approval::decide::{Decision, Deny, Facts, ForbiddenBy, GrantStores, decide};
use gatehouse_core::approval::evaluator::veto::{PERMANENT_DELETE, TRANSFER_OWNERSHIP};
use gatehouse_core::approval::fingerprint::fingerprint;
use gatehouse_core::approval::model::{Agent, Caller, Constraint, DecisionSource, Grant, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::Store;
use gatehouse_core::approval::{Approvals, CallMeta, Permit};
use gatehouse_core::tools::{ToolDef, all_tools};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

// --- Builders ---------------------------------------------------------------------------------------------

const ANA: &str = "ana@example.com";
const BOB: &str = "bob@example.com";
const AGENT: &str = "claude-desktop";
const SHEET: &str = "1AbCdEfGhIjK";
const OTHER_SHEET: &str = "2XyZ";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
}

fn tool(name: &str) -> ToolDef {
    all_tools().into_iter().find(|tool| tool.meta.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// The fingerprint of the tool's definition today.
fn print(name: &str) -> String {
    fingerprint(&tool(name))
}

fn constraint(kind: &str, value: &str) -> Constraint {
    Constraint { kind: kind.into(), value: value.into() }
}

/// `update_cells` arguments on `spreadsheet`.
fn cells(spreadsheet: &str) -> Value {
    json!({ "spreadsheet_id": spreadsheet, "sheet": "Budget", "range": "A1", "data": [[1, "x"]] })
}

fn delete(file: &str, permanent: bool) -> Value {
    json!({ "file_id": file, "permanent": permanent })
}

/// `share_file` arguments giving each address read access.
fn share(emails: &[&str]) -> Value {
    let permissions: Vec<Value> =
        emails.iter().map(|email| json!({ "role": "reader", "email_address": email })).collect();
    json!({ "file_id": "F1", "permissions": permissions })
}

/// A grant that covers every interactive call of `tool` by Ana, from any agent, for a week, with today's
/// definition: each test changes the one field its rule is about.
fn grant(id: &str, tool: &str) -> Grant {
    Grant {
        id: id.into(),
        owner: Owner::User(ANA.into()),
        tool: tool.into(),
        agent: None,
        constraint: None,
        target_name: None,
        unattended: false,
        created: now() - TimeDelta::days(1),
        expires: Some(now() + TimeDelta::days(7)),
        revoked: None,
        last_used: None,
        use_count: 0,
        fingerprint: print(tool),
    }
}

/// A platform grant as the policy makes it (id `policy:<rule>:<tool>`).
fn platform(rule: &str, tool: &str) -> Grant {
    Grant { owner: Owner::Platform, ..grant(&format!("policy:{rule}:{tool}"), tool) }
}

fn policy_deny(rule: &str, tool: &str) -> Deny {
    Deny { rule: rule.into(), by: ForbiddenBy::Policy, tool: tool.into(), agent: None, constraint: None, expires: None }
}

/// The grant stores a decision sees.
enum Stores {
    None,
    One(Vec<Grant>),
    Ambiguous,
}

/// A gated call, owning every fact `decide` borrows: by default an interactive call from [`AGENT`] while Ana
/// is signed in, with one grant store holding no grant.
struct Call {
    tool: ToolDef,
    fingerprint: String,
    args: Value,
    caller: Caller,
    retry: bool,
    always_ask: bool,
    account: Option<String>,
    now: DateTime<Utc>,
    denies: Vec<Deny>,
    stores: Stores,
}

impl Call {
    fn new(tool_name: &str, args: Value) -> Self {
        Call {
            tool: tool(tool_name),
            fingerprint: print(tool_name),
            args,
            caller: Caller { agent: Some(Agent::registered(AGENT)), interactive: true },
            retry: false,
            always_ask: false,
            account: Some(ANA.into()),
            now: now(),
            denies: Vec::new(),
            stores: Stores::One(Vec::new()),
        }
    }

    fn grants(self, grants: impl IntoIterator<Item = Grant>) -> Self {
        Call { stores: Stores::One(grants.into_iter().collect()), ..self }
    }

    fn stores(self, stores: Stores) -> Self {
        Call { stores, ..self }
    }

    fn denies(self, denies: impl IntoIterator<Item = Deny>) -> Self {
        Call { denies: denies.into_iter().collect(), ..self }
    }

    fn agent(self, agent: Option<&str>) -> Self {
        Call { caller: Caller { agent: agent.map(Agent::registered), ..self.caller }, ..self }
    }

    fn unattended(self) -> Self {
        Call { caller: Caller { interactive: false, ..self.caller }, ..self }
    }

    fn account(self, account: Option<&str>) -> Self {
        Call { account: account.map(Into::into), ..self }
    }

    fn at(self, now: DateTime<Utc>) -> Self {
        Call { now, ..self }
    }

    fn retry(self) -> Self {
        Call { retry: true, ..self }
    }

    fn always_ask(self) -> Self {
        Call { always_ask: true, ..self }
    }

    fn decide(&self) -> Decision {
        let shared: Vec<Arc<Grant>> = match &self.stores {
            Stores::One(grants) => grants.iter().cloned().map(Arc::new).collect(),
            Stores::None | Stores::Ambiguous => Vec::new(),
        };
        let grants = match &self.stores {
            Stores::None => GrantStores::None,
            Stores::One(_) => GrantStores::One(&shared),
            Stores::Ambiguous => GrantStores::Ambiguous,
        };
        decide(&Facts {
            tool: self.tool.meta.name,
            fingerprint: &self.fingerprint,
            args: &self.args,
            evaluators: self.tool.evaluators(),
            caller: &self.caller,
            retry: self.retry,
            always_ask: self.always_ask,
            account: self.account.as_deref(),
            on_event: None,
            now: self.now,
            denies: &self.denies,
            grants,
        })
    }
}

/// An `update_cells` call on [`SHEET`].
fn sheet_call() -> Call {
    Call::new("update_cells", cells(SHEET))
}

fn covered(id: &str) -> Decision {
    Decision::Covered { grant: id.into(), source: DecisionSource::Grant(id.into()) }
}

/// The person is asked, and may be offered *Always allow…* with `constraint`.
fn asked_grantable(constraint: Option<Constraint>) -> Decision {
    Decision::Ask { grantable: true, constraint, why_not_grantable: None }
}

/// What an `update_cells` call on [`SHEET`] that no grant covers decides.
fn asked_for_the_sheet() -> Decision {
    asked_grantable(Some(constraint("spreadsheet", SHEET)))
}

/// The reason the card offers no *Always allow…*; panics unless the decision is to ask without it.
#[track_caller]
fn asked_not_grantable(decision: Decision) -> String {
    match decision {
        Decision::Ask { grantable: false, constraint: None, why_not_grantable: Some(why) } => why,
        other => panic!("expected a card without Always allow, got {other:?}"),
    }
}

/// The source and message of a refusal; panics unless the decision refuses.
#[track_caller]
fn refused(decision: Decision) -> (DecisionSource, String) {
    match decision {
        Decision::Refused { source, message } => (source, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// --- 1. Deny rules first ----------------------------------------------------------------------------------

#[test]
fn deny_rules_come_first_even_over_a_grant() {
    let call = sheet_call().grants([grant("mine", "update_cells")]);
    assert_eq!(call.decide(), covered("mine"), "the grant alone covers the call");
    let unattended_platform = Grant { unattended: true, ..platform("bots", "update_cells") };
    let denied = sheet_call()
        .grants([grant("mine", "update_cells"), unattended_platform.clone()])
        .denies([policy_deny("no-sheets", "update_cells")]);
    assert_eq!(refused(denied.decide()).0, DecisionSource::Deny("no-sheets".into()));
    let unattended = sheet_call().unattended().grants([unattended_platform]).denies([policy_deny("no-sheets", "*")]);
    assert_eq!(refused(unattended.decide()).0, DecisionSource::Deny("no-sheets".into()), "`*` denies every tool");
    // A deny for another tool, or for another agent, leaves the grant to cover the call.
    let elsewhere = sheet_call().grants([grant("mine", "update_cells")]).denies([
        policy_deny("no-deletes", "delete_file"),
        Deny { agent: Some("nightly-report".into()), ..policy_deny("not-nightly", "update_cells") },
    ]);
    assert_eq!(elsewhere.decide(), covered("mine"));
}

#[test]
fn a_policy_deny_names_the_rule() {
    let call = sheet_call().denies([policy_deny("deny[3]", "update_cells")]);
    let (source, message) = refused(call.decide());
    assert_eq!(source, DecisionSource::Deny("deny[3]".into()));
    assert_eq!(source.to_string(), "deny:deny[3]");
    assert!(message.starts_with("update_cells was not run"), "{message}");
    assert!(message.contains("the administrator's policy forbids it (rule deny[3])"), "{message}");
}

#[test]
fn a_persons_never_allow_expires() {
    let until = now() + TimeDelta::hours(1);
    let never = Deny {
        rule: "never-1".into(),
        by: ForbiddenBy::Person,
        tool: "update_cells".into(),
        agent: None,
        constraint: None,
        expires: Some(until),
    };
    let (source, message) = refused(sheet_call().denies([never.clone()]).decide());
    assert_eq!(source, DecisionSource::Deny("never-1".into()));
    assert!(message.contains("the person chose never to allow it (until 2026-03-01 13:00 UTC)"), "{message}");
    assert!(!message.contains("administrator"), "the person forbade it, not the administrator: {message}");
    for at in [until, until + TimeDelta::seconds(1)] {
        assert_eq!(sheet_call().denies([never.clone()]).at(at).decide(), asked_for_the_sheet(), "at {at}");
    }
}

#[test]
fn deny_with_a_constraint_matches_only_calls_satisfying_it() {
    let deny = Deny { constraint: Some(constraint("spreadsheet", SHEET)), ..policy_deny("payroll", "update_cells") };
    let (source, _) = refused(sheet_call().denies([deny.clone()]).decide());
    assert_eq!(source, DecisionSource::Deny("payroll".into()));
    let other = Call::new("update_cells", cells(OTHER_SHEET)).denies([deny.clone()]);
    assert_eq!(other.decide(), asked_grantable(Some(constraint("spreadsheet", OTHER_SHEET))));
    // Arguments the evaluator cannot judge might name the denied spreadsheet: refusing is the safe side.
    let unjudgeable = Call::new("update_cells", cells("  ")).denies([deny]);
    assert_eq!(refused(unjudgeable.decide()).0, DecisionSource::Deny("payroll".into()));
}

// --- 2. Standing approval ---------------------------------------------------------------------------------

#[test]
fn no_grant_store_means_no_grant_applies() {
    let mine = grant("mine", "update_cells");
    let why = asked_not_grantable(sheet_call().stores(Stores::None).decide());
    assert!(why.contains("no store for standing approvals"), "{why}");
    let (source, _) = refused(sheet_call().stores(Stores::None).unattended().decide());
    assert_eq!(source, DecisionSource::Unattended);
    // The same grant covers the call once there is a store.
    assert_eq!(sheet_call().grants([mine]).decide(), covered("mine"));
}

#[test]
fn an_ambiguous_store_setup_means_no_grant_applies() {
    let why = asked_not_grantable(sheet_call().stores(Stores::Ambiguous).decide());
    assert!(why.contains("more than one store"), "{why}");
    let (source, _) = refused(sheet_call().stores(Stores::Ambiguous).unattended().decide());
    assert_eq!(source, DecisionSource::Unattended);
}

#[test]
fn a_retry_is_never_covered_and_never_offered_always_allow() {
    let mine = grant("mine", "update_cells");
    let everyone = Grant { unattended: true, ..platform("bots", "update_cells") };
    let why = asked_not_grantable(sheet_call().grants([mine.clone(), everyone.clone()]).retry().decide());
    assert!(why.contains("repeats a request you already answered"), "{why}");
    let (source, _) = refused(sheet_call().grants([everyone]).unattended().retry().decide());
    assert_eq!(source, DecisionSource::Unattended, "an unattended retry cannot be asked about");
    assert_eq!(sheet_call().grants([mine]).decide(), covered("mine"), "the same call, not a retry");
}

#[test]
fn an_evaluator_veto_blocks_standing_approval() {
    // transfer_ownership always asks, whatever grant exists.
    let transfer = json!({ "file_id": "F1", "new_owner_email": "bob@example.com" });
    let owned = Call::new("transfer_ownership", transfer.clone()).grants([grant("t", "transfer_ownership")]);
    assert_eq!(asked_not_grantable(owned.decide()), TRANSFER_OWNERSHIP);
    let unattended = Call::new("transfer_ownership", transfer)
        .unattended()
        .grants([Grant { unattended: true, ..platform("bots", "transfer_ownership") }]);
    assert_eq!(refused(unattended.decide()).0, DecisionSource::Unattended);

    // A permanent delete always asks; a delete into the trash may be covered by the same grant.
    let deletes = grant("d", "delete_file");
    let permanent = Call::new("delete_file", delete("F1", true)).grants([deletes.clone()]);
    assert_eq!(asked_not_grantable(permanent.decide()), PERMANENT_DELETE);
    let trash = Call::new("delete_file", delete("F1", false)).grants([deletes.clone()]);
    assert_eq!(trash.decide(), covered("d"));

    // An evaluator that fails (arguments the tool would reject, or an empty id) is a veto.
    for bad in [
        json!({ "file_id": "F1", "permanent": "yes" }),
        json!({ "file_id": "F1", "surprise": 1 }),
        json!({ "file_id": "" }),
        json!({}),
    ] {
        let why = asked_not_grantable(Call::new("delete_file", bad.clone()).grants([deletes.clone()]).decide());
        assert!(why.contains("could not be checked"), "{bad}: {why}");
    }
}

#[test]
fn a_tool_without_an_evaluator_allows_standing_approval() {
    let read = tool("get_sheet_data");
    assert!(read.evaluators().is_empty(), "get_sheet_data has no evaluator");
    let args = json!({ "spreadsheet_id": SHEET, "sheet": "Budget" });
    let call = Call::new("get_sheet_data", args.clone()).grants([grant("reads", "get_sheet_data")]);
    assert_eq!(call.decide(), covered("reads"));
    assert_eq!(Call::new("get_sheet_data", args).decide(), asked_grantable(None), "nothing to constrain to");
}

#[test]
fn a_grant_for_another_tool_never_applies() {
    // Another tool's grant, even carrying this tool's fingerprint, as a careless store might return it.
    let clear = Grant { fingerprint: print("update_cells"), ..grant("clear", "clear_values") };
    assert_eq!(sheet_call().grants([clear.clone()]).decide(), asked_for_the_sheet());
    let (source, _) = refused(sheet_call().grants([Grant { unattended: true, ..clear }]).unattended().decide());
    assert_eq!(source, DecisionSource::Unattended);
}

#[test]
fn a_grant_of_another_signed_in_account_never_applies() {
    let mine = grant("mine", "update_cells");
    assert_eq!(sheet_call().grants([mine.clone()]).decide(), covered("mine"));
    assert_eq!(sheet_call().grants([mine.clone()]).account(Some(BOB)).decide(), asked_for_the_sheet());
    assert_eq!(sheet_call().grants([mine]).account(None).decide(), asked_for_the_sheet(), "signed out");
}

#[test]
fn platform_grants_apply_to_every_user() {
    let everyone = platform("team", "update_cells");
    for account in [Some(ANA), Some(BOB), None] {
        let decision = sheet_call().grants([everyone.clone()]).account(account).decide();
        assert_eq!(
            decision,
            Decision::Covered { grant: everyone.id.clone(), source: DecisionSource::Policy("team".into()) },
            "signed in as {account:?}"
        );
    }
}

#[test]
fn expiry_equal_to_now_does_not_apply() {
    let ending = |expires: DateTime<Utc>| Grant { expires: Some(expires), ..grant("g", "update_cells") };
    assert_eq!(sheet_call().grants([ending(now())]).decide(), asked_for_the_sheet());
    assert_eq!(sheet_call().grants([ending(now() - TimeDelta::seconds(1))]).decide(), asked_for_the_sheet());
    assert_eq!(sheet_call().grants([ending(now() + TimeDelta::nanoseconds(1))]).decide(), covered("g"));
    let everyone = Grant { expires: Some(now()), unattended: true, ..platform("bots", "update_cells") };
    assert_eq!(refused(sheet_call().unattended().grants([everyone]).decide()).0, DecisionSource::Unattended);
}

#[test]
fn a_grant_without_expiry_never_applies() {
    let forever = Grant { expires: None, ..grant("forever", "update_cells") };
    assert_eq!(sheet_call().grants([forever.clone()]).decide(), asked_for_the_sheet());
    let platform_forever = Grant { expires: None, unattended: true, ..platform("bots", "update_cells") };
    let (source, _) = refused(sheet_call().unattended().grants([forever, platform_forever]).decide());
    assert_eq!(source, DecisionSource::Unattended);
}

#[test]
fn a_revoked_grant_never_applies() {
    // Revoked is revoked, whatever time it carries (a clock set back must not revive it).
    for revoked in [now() - TimeDelta::hours(1), now(), now() + TimeDelta::days(1)] {
        let grant = Grant { revoked: Some(revoked), ..grant("g", "update_cells") };
        assert_eq!(sheet_call().grants([grant]).decide(), asked_for_the_sheet(), "revoked at {revoked}");
    }
}

#[test]
fn a_grant_for_another_agent_never_applies() {
    let theirs = Grant { agent: Some(Agent::registered("other-assistant")), ..grant("theirs", "update_cells") };
    assert_eq!(sheet_call().grants([theirs.clone()]).decide(), asked_for_the_sheet());
    assert_eq!(sheet_call().grants([theirs]).agent(None).decide(), asked_for_the_sheet(), "unknown caller");
    let ours = Grant { agent: Some(Agent::registered(AGENT)), ..grant("ours", "update_cells") };
    assert_eq!(sheet_call().grants([ours.clone()]).decide(), covered("ours"));
    assert_eq!(sheet_call().grants([ours]).agent(None).decide(), asked_for_the_sheet(), "unknown is not ours");
}

#[test]
fn an_agentless_grant_covers_any_agent() {
    for agent in [Some(AGENT), Some("other-assistant"), None] {
        let decision = sheet_call().grants([grant("any", "update_cells")]).agent(agent).decide();
        assert_eq!(decision, covered("any"), "agent {agent:?}");
    }
}

#[test]
fn an_interactive_only_grant_never_covers_an_unattended_call() {
    let mine = grant("mine", "update_cells");
    let everyone = platform("team", "update_cells");
    assert!(!mine.unattended && !everyone.unattended);
    assert_eq!(sheet_call().grants([mine.clone()]).decide(), covered("mine"));
    let (source, message) = refused(sheet_call().unattended().grants([mine, everyone]).decide());
    assert_eq!(source, DecisionSource::Unattended);
    assert!(message.contains("unattended"), "{message}");
}

#[test]
fn an_unattended_grant_covers_both() {
    let both = Grant { unattended: true, ..platform("bots", "update_cells") };
    let expected = Decision::Covered { grant: both.id.clone(), source: DecisionSource::Policy("bots".into()) };
    assert_eq!(sheet_call().grants([both.clone()]).decide(), expected, "interactive");
    assert_eq!(sheet_call().unattended().grants([both]).decide(), expected, "unattended");
}

#[test]
fn a_constrained_grant_covers_only_calls_satisfying_it() {
    let only_sheet = Grant { constraint: Some(constraint("spreadsheet", SHEET)), ..grant("sheet", "update_cells") };
    assert_eq!(sheet_call().grants([only_sheet.clone()]).decide(), covered("sheet"));
    let other = Call::new("update_cells", cells(OTHER_SHEET)).grants([only_sheet.clone()]);
    assert_eq!(other.decide(), asked_grantable(Some(constraint("spreadsheet", OTHER_SHEET))));
    // The same id under another kind is another constraint; an id is compared exactly.
    let folder = Grant { constraint: Some(constraint("folder", SHEET)), ..grant("folder", "update_cells") };
    assert_eq!(sheet_call().grants([folder]).decide(), asked_for_the_sheet());
    let spaced = Call::new("update_cells", cells(&format!(" {SHEET}"))).grants([only_sheet]);
    assert!(matches!(spaced.decide(), Decision::Ask { .. }));

    // Sharing: every recipient must be at the granted domain.
    let domain = Grant { constraint: Some(constraint("email_domain", "example.com")), ..grant("share", "share_file") };
    let sharing = |emails: &[&str]| Call::new("share_file", share(emails)).grants([domain.clone()]).decide();
    assert_eq!(sharing(&["ann@example.com", "bob@EXAMPLE.com"]), covered("share"));
    assert!(matches!(sharing(&["eve@evil.example"]), Decision::Ask { .. }));
    assert!(matches!(sharing(&["ann@example.com", "eve@evil.example"]), Decision::Ask { .. }));
    assert!(matches!(sharing(&["ann@mail.example.com"]), Decision::Ask { .. }), "a subdomain is another domain");
    let anyone = json!({ "file_id": "F1", "permissions": [{ "type": "anyone", "role": "reader" }] });
    assert!(matches!(Call::new("share_file", anyone).grants([domain]).decide(), Decision::Ask { .. }));
}

#[test]
fn a_changed_tool_definition_asks_again() {
    let stale = Grant { fingerprint: print("clear_values"), ..grant("stale", "update_cells") };
    assert_ne!(stale.fingerprint, print("update_cells"));
    // A new card may grant the tool as it is now.
    assert_eq!(sheet_call().grants([stale.clone()]).decide(), asked_for_the_sheet());
    let stale_platform = Grant { fingerprint: "old".into(), unattended: true, ..platform("bots", "update_cells") };
    let (source, _) = refused(sheet_call().unattended().grants([stale, stale_platform]).decide());
    assert_eq!(source, DecisionSource::Unattended);
}

#[test]
fn a_store_that_returns_a_wider_grant_than_asked_is_rechecked_and_refused() {
    // The grant that covers the call exactly: Ana's, this tool, this agent, this spreadsheet, unattended too.
    let right = Grant {
        agent: Some(Agent::registered(AGENT)),
        constraint: Some(constraint("spreadsheet", SHEET)),
        unattended: true,
        ..grant("right", "update_cells")
    };
    let call = || sheet_call().unattended();
    assert_eq!(call().grants([right.clone()]).decide(), covered("right"), "the control covers the call");

    // Each candidate is wrong in exactly one field.
    let wrong = |what: &str, change: fn(&mut Grant)| {
        let mut grant = Grant { id: format!("wrong-{what}"), ..right.clone() };
        change(&mut grant);
        (what.to_owned(), grant)
    };
    let wrongs = [
        wrong("tool", |g| g.tool = "clear_values".into()),
        wrong("owner", |g| g.owner = Owner::User(BOB.into())),
        wrong("agent", |g| g.agent = Some(Agent::registered("other-assistant"))),
        wrong("expired", |g| g.expires = Some(now())),
        wrong("no-expiry", |g| g.expires = None),
        wrong("revoked", |g| g.revoked = Some(now() - TimeDelta::minutes(1))),
        wrong("constraint", |g| g.constraint = Some(constraint("spreadsheet", OTHER_SHEET))),
        wrong("constraint-kind", |g| g.constraint = Some(constraint("folder", SHEET))),
        wrong("fingerprint", |g| g.fingerprint = print("clear_values")),
        wrong("unattended", |g| g.unattended = false),
    ];
    for (what, grant) in &wrongs {
        let (source, _) = refused(call().grants([grant.clone()]).decide());
        assert_eq!(source, DecisionSource::Unattended, "a grant wrong in its {what} must not cover the call");
    }
    let all: Vec<Grant> = wrongs.iter().map(|(_, grant)| grant.clone()).collect();
    assert_eq!(refused(call().grants(all.clone()).decide()).0, DecisionSource::Unattended);
    // Interactive, every one but the interactive-only grant still leaves the person to be asked.
    let interactive: Vec<Grant> = all.into_iter().filter(|grant| grant.id != "wrong-unattended").collect();
    assert_eq!(sheet_call().grants(interactive).decide(), asked_for_the_sheet());
}

#[test]
fn the_persons_grants_come_before_platform_grants() {
    let team = platform("team", "update_cells");
    let mine = grant("mine", "update_cells");
    // Platform first in the store's order: the person's own grant still wins.
    assert_eq!(sheet_call().grants([team.clone(), mine.clone()]).decide(), covered("mine"));
    // When the person's grant does not apply, the platform grant does.
    let revoked = Grant { revoked: Some(now()), ..mine };
    assert_eq!(
        sheet_call().grants([team.clone(), revoked]).decide(),
        Decision::Covered { grant: team.id, source: DecisionSource::Policy("team".into()) }
    );
}

// --- 3. Nobody to ask -------------------------------------------------------------------------------------

#[test]
fn an_unattended_call_with_no_grant_is_refused_at_once() {
    let (source, message) = refused(sheet_call().unattended().decide());
    assert_eq!(source, DecisionSource::Unattended);
    assert!(message.starts_with("update_cells was not run"), "{message}");
    assert!(message.contains("A person must approve it"), "{message}");
    assert!(message.contains("an administrator must allow it"), "{message}");
}

// --- 4. Ask -----------------------------------------------------------------------------------------------

#[test]
fn otherwise_the_person_is_asked() {
    assert_eq!(sheet_call().decide(), asked_for_the_sheet());
    let delete = Call::new("delete_file", delete("F1", false)).agent(None);
    assert_eq!(delete.decide(), asked_grantable(Some(constraint("file", "F1"))));
}

#[test]
fn always_ask_tools_are_not_grantable() {
    let why = asked_not_grantable(sheet_call().always_ask().decide());
    assert!(why.contains("approved every time"), "{why}");
}

#[test]
fn always_ask_tools_are_never_covered_by_a_grant() {
    let call = || sheet_call().grants([grant("mine", "update_cells"), platform("bots", "update_cells")]);
    assert_eq!(call().decide(), covered("mine"));
    let why = asked_not_grantable(call().always_ask().decide());
    assert!(why.contains("approved every time"), "{why}");
}

#[test]
fn the_card_offers_a_constraint_only_from_a_single_constraining_evaluator() {
    let offered = |tool: &str, args: Value| match Call::new(tool, args).decide() {
        Decision::Ask { grantable: true, constraint, .. } => constraint,
        other => panic!("{tool}: expected a grantable card, got {other:?}"),
    };
    assert_eq!(offered("update_cells", cells(SHEET)), Some(constraint("spreadsheet", SHEET)));
    // A veto-only evaluator beside the target does not count.
    assert_eq!(offered("delete_file", delete("F1", false)), Some(constraint("file", "F1")));
    assert_eq!(
        offered("share_file", share(&["ann@example.com", "bob@Example.com"])),
        Some(constraint("email_domain", "example.com"))
    );
    // Two constraining evaluators can't agree on one constraint, even when their targets are equal.
    let copy =
        |into: &str| json!({ "src_spreadsheet": SHEET, "src_sheet": "A", "dst_spreadsheet": into, "dst_sheet": "B" });
    assert_eq!(offered("copy_sheet", copy(SHEET)), None);
    assert_eq!(offered("copy_sheet", copy(OTHER_SHEET)), None);
    assert_eq!(offered("copy_file", json!({ "file_id": "F1", "folder_id": "D1" })), None);
    assert_eq!(offered("copy_file", json!({ "file_id": "F1" })), None, "one proposal among two claims");
    // One evaluator proposing nothing (several domains) offers nothing.
    assert_eq!(offered("share_file", share(&["ann@example.com", "eve@evil.example"])), None);
}

// --- The gate: a real store, a parsed policy, the person's answers ------------------------------------------

/// Waits this long for a decision that must not ask, so a wrong card fails the test instead of hanging it.
const NO_CARD: Duration = Duration::from_secs(10);

fn policy(text: &str) -> Policy {
    let tools = all_tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.meta.name).collect();
    Policy::parse(text, Path::new("policy.toml"), &names).unwrap()
}

fn interactive(agent: Option<&str>) -> CallMeta {
    CallMeta {
        caller: Caller { agent: agent.map(Agent::registered), interactive: true },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

fn unattended(agent: &str) -> CallMeta {
    CallMeta {
        caller: Caller { agent: Some(Agent::registered(agent)), interactive: false },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

fn always(scope: &str, days: &str, limit: &str) -> RawAnswer {
    RawAnswer::Always(RawChoice { scope: scope.into(), days: days.into(), limit: limit.into() })
}

/// The gate over a fresh store in a temporary folder, with every tool of the build.
struct Gate {
    approvals: Arc<Approvals>,
    store: Store,
    _home: tempfile::TempDir,
}

impl Gate {
    async fn new(policy_text: &str) -> Gate {
        let home = tempfile::tempdir().unwrap();
        let store = crate::support::open_store(&home.path().join("gatehouse.db")).await.unwrap();
        let approvals = Arc::new(Approvals::new(Some(store.clone()), policy(policy_text), &all_tools()));
        Gate { approvals, store, _home: home }
    }

    /// Starts a call by Ana; it may wait for a card.
    fn call(&self, tool_name: &str, args: Value, meta: CallMeta) -> JoinHandle<Permit> {
        spawn_call(&self.approvals, tool_name, args, meta, Some(ANA))
    }

    /// A call by Ana that must be decided without a card.
    async fn decided(&self, tool_name: &str, args: Value, meta: CallMeta) -> Permit {
        let call = self.call(tool_name, args, meta);
        tokio::time::timeout(NO_CARD, call).await.expect("decided without asking the person").unwrap()
    }

    async fn cards(&self, count: usize) -> Vec<PendingCard> {
        cards(&self.approvals, count).await
    }

    /// The one pending card.
    async fn card(&self) -> PendingCard {
        self.cards(1).await.remove(0)
    }

    fn answer(&self, card: &PendingCard, answer: RawAnswer) {
        self.approvals.broker().answer(card.id, answer).unwrap();
    }

    async fn grants(&self) -> Vec<Grant> {
        self.store.list_grants().await.unwrap()
    }
}

fn spawn_call(
    approvals: &Arc<Approvals>,
    tool_name: &str,
    args: Value,
    meta: CallMeta,
    account: Option<&str>,
) -> JoinHandle<Permit> {
    let approvals = Arc::clone(approvals);
    let tool = tool(tool_name);
    let account = account.map(str::to_owned);
    tokio::spawn(async move { approvals.permit(&tool, &args, &meta, account.as_deref()).await })
}

/// Polls until exactly `count` cards are pending.
async fn cards(approvals: &Approvals, count: usize) -> Vec<PendingCard> {
    for _ in 0..1000 {
        let pending = approvals.broker().pending();
        if pending.len() == count {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("expected {count} pending cards, have {:?}", approvals.broker().pending());
}

fn run_by_person() -> Permit {
    Permit::Run { source: DecisionSource::Person }
}

#[track_caller]
fn declined(permit: Permit) -> String {
    match permit {
        Permit::Refuse { source: DecisionSource::Person, message } => message,
        other => panic!("expected the person's refusal, got {other:?}"),
    }
}

/// A grant in the store that covers Ana's calls of `tool` from now on.
fn live_grant(id: &str, tool: &str) -> Grant {
    Grant {
        created: Utc::now() - TimeDelta::hours(1),
        expires: Some(Utc::now() + TimeDelta::days(1)),
        ..grant(id, tool)
    }
}

#[tokio::test]
async fn the_first_answer_wins() {
    let gate = Gate::new("").await;
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    gate.answer(&card, RawAnswer::Deny);
    for later in [RawAnswer::AllowOnce, always("TOOL", "30", "ANY")] {
        assert_eq!(gate.approvals.broker().answer(card.id, later), Err(AnswerError::NotPending(card.id)));
    }
    let message = declined(call.await.unwrap());
    assert!(message.contains("declined update_cells"), "{message}");
    assert!(gate.grants().await.is_empty(), "the later Always allow made no grant");
    assert!(gate.approvals.broker().pending().is_empty());
}

#[tokio::test]
async fn an_always_answer_creates_a_grant_whose_every_field_comes_from_the_pending_call() {
    let gate = Gate::new("").await;
    let before = Utc::now();
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    assert_eq!(
        (card.tool.as_str(), card.title.as_str(), card.agent.as_ref().map(|agent| agent.name.as_str())),
        ("update_cells", "Update cells", Some(AGENT))
    );
    assert!(card.offer.grantable && !card.retry);
    assert_eq!(card.offer.durations, [1, 7, 30]);
    assert_eq!(
        card.offer.constraint.as_ref().map(|offered| &offered.constraint),
        Some(&constraint("spreadsheet", SHEET))
    );
    gate.answer(&card, always("AGENT", "7", "CONSTRAINED"));
    assert_eq!(call.await.unwrap(), run_by_person());
    let after = Utc::now();

    let [made] = <[Grant; 1]>::try_from(gate.grants().await).unwrap();
    assert_eq!(made.owner, Owner::User(ANA.into()));
    assert_eq!(made.tool, "update_cells");
    assert_eq!(made.agent, Some(Agent::registered(AGENT)));
    assert_eq!(made.constraint, Some(constraint("spreadsheet", SHEET)));
    assert!(!made.unattended);
    assert!(before <= made.created && made.created <= after, "created {} not within the call", made.created);
    assert_eq!(made.expires, Some(made.created + TimeDelta::days(7)));
    assert_eq!((made.revoked, made.last_used, made.use_count), (None, None, 0));
    assert_eq!(made.fingerprint, print("update_cells"));

    // TOOL scope and ANY: no agent, no constraint; the days chosen.
    let call = gate.call("update_cells", cells(OTHER_SHEET), interactive(Some(AGENT)));
    gate.answer(&gate.card().await, always("TOOL", "30", "ANY"));
    assert_eq!(call.await.unwrap(), run_by_person());
    let made = gate.grants().await.into_iter().find(|grant| grant.id != made.id).unwrap();
    assert_eq!((made.agent, made.constraint, made.unattended), (None, None, false));
    assert_eq!(made.expires, Some(made.created + TimeDelta::days(30)));
    assert_eq!(made.owner, Owner::User(ANA.into()));
}

#[tokio::test]
async fn the_next_identical_scope_call_runs_without_asking() {
    let gate = Gate::new("").await;
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    gate.answer(&gate.card().await, always("AGENT", "1", "CONSTRAINED"));
    assert_eq!(call.await.unwrap(), run_by_person());
    let id = gate.grants().await[0].id.clone();

    // Another write to the same spreadsheet by the same assistant: within the grant's scope.
    let next = json!({ "spreadsheet_id": SHEET, "sheet": "Budget", "range": "B2", "data": [[2]] });
    let permit = gate.decided("update_cells", next, interactive(Some(AGENT))).await;
    assert_eq!(permit, Permit::Run { source: DecisionSource::Grant(id.clone()) });
    let used = gate.store.get_grant(&id).await.unwrap().unwrap();
    assert_eq!(used.use_count, 1);
    assert!(used.last_used.is_some());
    assert_eq!(gate.store.candidates("update_cells")[0].use_count, 1, "the index follows");

    // Outside the scope (another spreadsheet, another assistant) it asks.
    let elsewhere = gate.call("update_cells", cells(OTHER_SHEET), interactive(Some(AGENT)));
    gate.answer(&gate.card().await, RawAnswer::Deny);
    declined(elsewhere.await.unwrap());
    let someone_else = gate.call("update_cells", cells(SHEET), interactive(Some("other-assistant")));
    gate.answer(&gate.card().await, RawAnswer::AllowOnce);
    assert_eq!(someone_else.await.unwrap(), run_by_person());
    assert_eq!(gate.store.get_grant(&id).await.unwrap().unwrap().use_count, 1);
}

#[tokio::test]
async fn an_invalid_choice_runs_the_call_once_and_creates_no_grant() {
    let gate = Gate::new("max_days = 30").await;
    // Each answer chooses something its card did not offer.
    let cases = [
        ("90 days", cells("S-days"), Some(AGENT), always("TOOL", "90", "ANY")),
        ("AGENT without an agent", cells("S-agent"), None, always("AGENT", "7", "ANY")),
        ("a word not offered", cells("S-word"), Some(AGENT), always("TOOL", "7", "any")),
        (
            "CONSTRAINED without a constraint",
            json!({ "src_spreadsheet": "A", "src_sheet": "x", "dst_spreadsheet": "B", "dst_sheet": "y" }),
            Some(AGENT),
            always("TOOL", "7", "CONSTRAINED"),
        ),
    ];
    for (what, args, agent, answer) in cases {
        let tool_name = if args.get("src_spreadsheet").is_some() { "copy_sheet" } else { "update_cells" };
        let call = gate.call(tool_name, args, interactive(agent));
        let card = gate.card().await;
        assert!(card.offer.grantable, "{what}: the card offered Always allow");
        gate.answer(&card, answer);
        assert_eq!(call.await.unwrap(), run_by_person(), "{what}: the person approved, so it runs once");
        assert!(gate.grants().await.is_empty(), "{what}: no grant");
    }
}

#[tokio::test]
async fn a_grant_the_store_cannot_save_still_runs_the_call_once() {
    let gate = Gate::new("").await;
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    gate.store.close().await;
    gate.answer(&card, always("TOOL", "7", "ANY"));
    assert_eq!(call.await.unwrap(), run_by_person());
    assert!(gate.store.candidates("update_cells").is_empty(), "no grant was kept");
}

#[tokio::test]
async fn no_answer_before_the_timeout_is_not_approved() {
    let gate = Gate::new("approval_timeout_secs = 1").await;
    let started = std::time::Instant::now();
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    gate.card().await;
    let permit = tokio::time::timeout(Duration::from_secs(10), call).await.unwrap().unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1));
    match permit {
        Permit::Refuse { source: DecisionSource::Timeout, message } => {
            assert!(message.contains("did not confirm update_cells in time"), "{message}");
            assert!(message.contains("was not run"), "{message}");
        }
        other => panic!("expected a timeout refusal, got {other:?}"),
    }
    assert!(gate.approvals.broker().pending().is_empty(), "the card went away");
    assert!(gate.grants().await.is_empty());
}

#[tokio::test]
async fn a_repeat_of_an_answered_call_within_the_window_is_a_retry() {
    let gate = Gate::new("").await;
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    gate.answer(&gate.card().await, always("TOOL", "7", "ANY"));
    assert_eq!(call.await.unwrap(), run_by_person());
    let id = gate.grants().await[0].id.clone();

    // The same call again asks, even though the new grant covers it, and offers no Always allow.
    let again = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    assert!(card.retry);
    assert!(!card.offer.grantable && card.offer.durations.is_empty() && card.offer.constraint.is_none());
    gate.answer(&card, always("TOOL", "30", "ANY"));
    assert_eq!(again.await.unwrap(), run_by_person(), "approved once; the Always answer was not offered");
    assert_eq!(gate.grants().await.len(), 1, "no second grant");
    assert_eq!(gate.store.get_grant(&id).await.unwrap().unwrap().use_count, 0, "the grant did not cover it");

    // Keys sorted differently are the same arguments; another call is not a retry and the grant covers it.
    let reordered = json!({ "data": [[1, "x"]], "range": "A1", "sheet": "Budget", "spreadsheet_id": SHEET });
    let again = gate.call("update_cells", reordered, interactive(Some(AGENT)));
    let card = gate.card().await;
    assert!(card.retry);
    gate.answer(&card, RawAnswer::Deny);
    declined(again.await.unwrap());
    let permit = gate.decided("update_cells", cells(OTHER_SHEET), interactive(Some(AGENT))).await;
    assert_eq!(permit, Permit::Run { source: DecisionSource::Grant(id) });
}

#[tokio::test]
async fn a_call_marked_retry_by_the_client_asks_and_offers_no_always() {
    let gate = Gate::new("").await;
    let mine = live_grant("mine", "update_cells");
    gate.store.insert_grant(&mine).await.unwrap();
    let covered = gate.decided("update_cells", cells(SHEET), interactive(Some(AGENT))).await;
    assert_eq!(covered, Permit::Run { source: DecisionSource::Grant("mine".into()) }, "not marked: covered");

    let marked = CallMeta { retry_marked: true, ..interactive(Some(AGENT)) };
    let call = gate.call("update_cells", cells(OTHER_SHEET), marked);
    let card = gate.card().await;
    assert!(card.retry && !card.offer.grantable && card.offer.choices().is_empty());
    gate.answer(&card, RawAnswer::AllowOnce);
    assert_eq!(call.await.unwrap(), run_by_person());
    assert_eq!(gate.store.get_grant("mine").await.unwrap().unwrap().use_count, 1, "only the unmarked call used it");
}

#[tokio::test]
async fn many_pending_calls_are_answered_without_crossing() {
    let gate = Gate::new("").await;
    let sheet = |i: usize| format!("S{i:02}");
    let calls: Vec<(usize, JoinHandle<Permit>)> =
        (0..20).map(|i| (i, gate.call("update_cells", cells(&sheet(i)), interactive(Some(AGENT))))).collect();
    let pending = gate.cards(20).await;
    for card in &pending {
        let spreadsheet = card.arguments["spreadsheet_id"].as_str().unwrap();
        let i: usize = spreadsheet.trim_start_matches('S').parse().unwrap();
        let answer = match i % 3 {
            0 => RawAnswer::Deny,
            1 => RawAnswer::AllowOnce,
            _ => always("AGENT", "1", "CONSTRAINED"),
        };
        gate.answer(card, answer);
    }
    for (i, call) in calls {
        let permit = call.await.unwrap();
        if i % 3 == 0 {
            declined(permit);
        } else {
            assert_eq!(permit, run_by_person(), "call {i}");
        }
    }
    let mut granted: Vec<String> = gate
        .grants()
        .await
        .into_iter()
        .map(|grant| grant.constraint.map(|constraint| constraint.value).unwrap_or_default())
        .collect();
    granted.sort();
    let expected: Vec<String> = (0..20).filter(|i| i % 3 == 2).map(sheet).collect();
    assert_eq!(granted, expected, "each Always allow made the grant for its own call");
}

#[tokio::test]
async fn pausing_refuses_every_gated_call_and_what_is_pending_as_paused() {
    let gate = Gate::new("").await;
    gate.store.insert_grant(&live_grant("deletes", "delete_file")).await.unwrap();
    let pending = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    gate.card().await;
    gate.approvals.set_paused(true);
    let paused = |permit: Permit| match permit {
        Permit::Refuse { source: DecisionSource::Paused, message } => {
            assert!(message.contains("paused every assistant"), "{message}");
        }
        other => panic!("expected a refusal while paused, got {other:?}"),
    };
    // What waited is refused for the pause, not as the person's Deny.
    paused(pending.await.unwrap());
    assert!(gate.approvals.broker().pending().is_empty());

    paused(gate.decided("update_cells", cells(OTHER_SHEET), interactive(Some(AGENT))).await);
    paused(gate.decided("delete_file", delete("F1", false), interactive(Some(AGENT))).await);
    let read = gate.decided("get_sheet_data", json!({ "spreadsheet_id": SHEET }), interactive(Some(AGENT))).await;
    assert_eq!(read, Permit::Run { source: DecisionSource::NotGated }, "reads are not gated");
    assert_eq!(gate.store.get_grant("deletes").await.unwrap().unwrap().use_count, 0);

    gate.approvals.set_paused(false);
    let permit = gate.decided("delete_file", delete("F1", false), interactive(Some(AGENT))).await;
    assert_eq!(permit, Permit::Run { source: DecisionSource::Grant("deletes".into()) });
}

#[tokio::test]
async fn reads_are_not_gated_unless_the_policy_says_so() {
    let read = || json!({ "spreadsheet_id": SHEET, "sheet": "Budget" });
    let open = Gate::new("").await;
    assert_eq!(
        open.decided("get_sheet_data", read(), unattended("nightly-report")).await,
        Permit::Run { source: DecisionSource::NotGated }
    );

    let gated = Gate::new("gate_reads = true").await;
    let call = gated.call("get_sheet_data", read(), interactive(Some(AGENT)));
    let card = gated.card().await;
    assert_eq!(card.tool, "get_sheet_data");
    gated.answer(&card, RawAnswer::AllowOnce);
    assert_eq!(call.await.unwrap(), run_by_person());
    let (source, message) = match gated.decided("get_sheet_data", read(), unattended("nightly-report")).await {
        Permit::Refuse { source, message } => (source, message),
        other => panic!("expected the unattended read to be refused, got {other:?}"),
    };
    assert_eq!(source, DecisionSource::Unattended, "{message}");
}

#[tokio::test]
async fn a_policy_allow_rule_is_a_platform_grant_that_can_cover_unattended_calls() {
    let gate = Gate::new(&format!(
        r#"
        [[allow]]
        name = "nightly"
        tool = "update_cells"
        agent = "nightly-report"
        constraint = {{ kind = "spreadsheet", value = "{SHEET}" }}
        unattended = true
        expires = "2099-01-01T00:00:00Z"

        [[allow]]
        name = "chat-only"
        tool = "delete_file"
        expires = "2099-01-01T00:00:00Z"

        [[allow]]
        name = "ended"
        tool = "clear_values"
        unattended = true
        expires = "2020-01-01T00:00:00Z"
        "#
    ))
    .await;
    let nightly = gate.decided("update_cells", cells(SHEET), unattended("nightly-report")).await;
    assert_eq!(nightly, Permit::Run { source: DecisionSource::Policy("nightly".into()) });
    assert_eq!(DecisionSource::Policy("nightly".into()).to_string(), "policy:nightly");
    // For every user, signed in or not.
    let bob = spawn_call(&gate.approvals, "update_cells", cells(SHEET), unattended("nightly-report"), Some(BOB));
    assert_eq!(bob.await.unwrap(), Permit::Run { source: DecisionSource::Policy("nightly".into()) });

    let refused_unattended = |permit: Permit| {
        assert!(matches!(permit, Permit::Refuse { source: DecisionSource::Unattended, .. }), "{permit:?}");
    };
    refused_unattended(gate.decided("update_cells", cells(OTHER_SHEET), unattended("nightly-report")).await);
    refused_unattended(gate.decided("update_cells", cells(SHEET), unattended("other-bot")).await);
    // Without `unattended = true` the rule covers interactive calls only; an ended rule covers nothing.
    refused_unattended(gate.decided("delete_file", delete("F1", false), unattended("nightly-report")).await);
    let chat = gate.decided("delete_file", delete("F1", false), interactive(Some(AGENT))).await;
    assert_eq!(chat, Permit::Run { source: DecisionSource::Policy("chat-only".into()) });
    refused_unattended(
        gate.decided(
            "clear_values",
            json!({ "spreadsheet_id": SHEET, "sheet": "Budget", "range": "A1:B2" }),
            unattended("nightly-report"),
        )
        .await,
    );
    assert!(gate.grants().await.is_empty(), "platform grants live in the policy, not the store");
}

#[tokio::test]
async fn a_policy_deny_rule_refuses_through_the_gate_before_any_grant() {
    let gate = Gate::new("[[deny]]\nname = \"no-deletes\"\ntool = \"delete_file\"\n").await;
    gate.store.insert_grant(&live_grant("deletes", "delete_file")).await.unwrap();
    match gate.decided("delete_file", delete("F1", false), interactive(Some(AGENT))).await {
        Permit::Refuse { source, message } => {
            assert_eq!(source, DecisionSource::Deny("no-deletes".into()));
            assert!(message.contains("(rule no-deletes)"), "{message}");
        }
        other => panic!("expected the policy's refusal, got {other:?}"),
    }
    assert_eq!(gate.store.get_grant("deletes").await.unwrap().unwrap().use_count, 0);
}

#[tokio::test]
async fn the_store_can_never_widen_a_decision_through_the_gate() {
    let gate = Gate::new("").await;
    let right = Grant {
        agent: Some(Agent::registered("nightly-report")),
        unattended: true,
        ..live_grant("right", "update_cells")
    };
    let wrongs = [
        Grant { id: "owner".into(), owner: Owner::User(BOB.into()), ..right.clone() },
        Grant { id: "agent".into(), agent: Some(Agent::registered("other-bot")), ..right.clone() },
        Grant { id: "expired".into(), expires: Some(Utc::now() - TimeDelta::seconds(1)), ..right.clone() },
        Grant { id: "no-expiry".into(), expires: None, ..right.clone() },
        Grant { id: "constraint".into(), constraint: Some(constraint("spreadsheet", OTHER_SHEET)), ..right.clone() },
        Grant { id: "fingerprint".into(), fingerprint: "a-definition-since-changed".into(), ..right.clone() },
        Grant { id: "interactive-only".into(), unattended: false, ..right.clone() },
    ];
    for grant in &wrongs {
        gate.store.insert_grant(grant).await.unwrap();
    }
    assert_eq!(gate.store.candidates("update_cells").len(), wrongs.len(), "the store hands every one out");
    let permit = gate.decided("update_cells", cells(SHEET), unattended("nightly-report")).await;
    assert!(matches!(permit, Permit::Refuse { source: DecisionSource::Unattended, .. }), "{permit:?}");

    gate.store.insert_grant(&right).await.unwrap();
    let permit = gate.decided("update_cells", cells(SHEET), unattended("nightly-report")).await;
    assert_eq!(permit, Permit::Run { source: DecisionSource::Grant("right".into()) });
}

#[tokio::test]
async fn a_changed_tool_definition_asks_again_through_the_gate() {
    let gate = Gate::new("").await;
    let stale =
        Grant { fingerprint: "the-definition-granted-last-month".into(), ..live_grant("stale", "update_cells") };
    gate.store.insert_grant(&stale).await.unwrap();
    let call = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    assert!(card.offer.grantable, "the tool as it is now may be granted again");
    gate.answer(&card, RawAnswer::AllowOnce);
    assert_eq!(call.await.unwrap(), run_by_person());
    assert_eq!(gate.store.get_grant("stale").await.unwrap().unwrap().use_count, 0);
}

#[tokio::test]
async fn without_a_grant_store_no_card_offers_always_allow() {
    // The policy's platform grants still apply (they live in the policy); this one is for another assistant.
    let rules = r#"
        [[allow]]
        name = "chat"
        tool = "update_cells"
        agent = "some-other-assistant"
        expires = "2099-01-01T00:00:00Z"
        "#;
    let approvals = Arc::new(Approvals::new(None, policy(rules), &all_tools()));
    let call = spawn_call(&approvals, "update_cells", cells(SHEET), interactive(Some(AGENT)), Some(ANA));
    let card = cards(&approvals, 1).await.remove(0);
    assert!(!card.offer.grantable && card.offer.choices().is_empty(), "nowhere to keep a grant: {:?}", card.offer);
    approvals.broker().answer(card.id, always("TOOL", "7", "ANY")).unwrap();
    assert_eq!(call.await.unwrap(), run_by_person(), "approved once");
}

// --- Who is calling: a registered assistant (its token) or a name a client gave of itself (issue 15, item 5) --

fn says_it_is(agent: &str) -> CallMeta {
    CallMeta {
        caller: Caller { agent: Some(Agent::self_reported(agent)), interactive: true },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

#[test]
fn a_grant_for_a_registered_assistant_never_covers_a_client_that_only_says_its_name() {
    let registered = Grant { agent: Some(Agent::registered(AGENT)), ..grant("registered", "update_cells") };
    let said = Grant { agent: Some(Agent::self_reported(AGENT)), ..grant("said", "update_cells") };
    let claims =
        |call: Call| Call { caller: Caller { agent: Some(Agent::self_reported(AGENT)), ..call.caller }, ..call };
    assert_eq!(sheet_call().grants([registered.clone()]).decide(), covered("registered"));
    assert_eq!(
        claims(sheet_call()).grants([registered]).decide(),
        asked_for_the_sheet(),
        "the name alone is not enough"
    );
    assert_eq!(claims(sheet_call()).grants([said.clone()]).decide(), covered("said"));
    assert_eq!(sheet_call().grants([said]).decide(), asked_for_the_sheet(), "nor the other way round");
}

#[test]
fn a_deny_rule_for_a_name_refuses_it_however_the_assistant_is_known() {
    let deny = Deny { agent: Some(AGENT.into()), ..policy_deny("no-claude", "update_cells") };
    let claims =
        |call: Call| Call { caller: Caller { agent: Some(Agent::self_reported(AGENT)), ..call.caller }, ..call };
    for call in [sheet_call(), claims(sheet_call())] {
        let (source, _) = refused(call.denies([deny.clone()]).decide());
        assert_eq!(source, DecisionSource::Deny("no-claude".into()));
    }
}

#[tokio::test]
async fn a_policy_agent_rule_is_for_the_registered_assistant_unless_it_opts_into_self_reported_names() {
    let gate = Gate::new(
        r#"
        [[allow]]
        name = "registered-bot"
        tool = "update_cells"
        agent = "nightly-report"
        unattended = true
        expires = "2099-01-01T00:00:00Z"

        [[allow]]
        name = "stdio-bot"
        tool = "clear_values"
        agent = "stdio-report"
        agent_self_reported = true
        unattended = true
        expires = "2099-01-01T00:00:00Z"
        "#,
    )
    .await;
    let registered = gate.decided("update_cells", cells(SHEET), unattended("nightly-report")).await;
    assert_eq!(registered, Permit::Run { source: DecisionSource::Policy("registered-bot".into()) });
    let mut said = says_it_is("nightly-report");
    said.caller.interactive = false;
    let refused = gate.decided("update_cells", cells(SHEET), said).await;
    assert!(matches!(refused, Permit::Refuse { source: DecisionSource::Unattended, .. }), "{refused:?}");

    let clear = json!({ "spreadsheet_id": SHEET, "sheet": "Budget", "range": "A1:B2" });
    let mut said = says_it_is("stdio-report");
    said.caller.interactive = false;
    let opted_in = gate.decided("clear_values", clear.clone(), said).await;
    assert_eq!(opted_in, Permit::Run { source: DecisionSource::Policy("stdio-bot".into()) });
    let not_registered = gate.decided("clear_values", clear, unattended("stdio-report")).await;
    assert!(matches!(not_registered, Permit::Refuse { source: DecisionSource::Unattended, .. }), "{not_registered:?}");
}

#[tokio::test]
async fn a_card_and_its_grant_keep_which_identity_asked() {
    let gate = Gate::new("").await;
    let waiting = gate.call("update_cells", cells(SHEET), says_it_is(AGENT));
    let card = gate.card().await;
    assert_eq!(card.agent, Some(Agent::self_reported(AGENT)));
    assert_eq!(card.offer.agent, Some(Agent::self_reported(AGENT)));
    gate.answer(&card, always("AGENT", "7", "ANY"));
    assert_eq!(waiting.await.unwrap(), Permit::Run { source: DecisionSource::Person });
    let [made] = gate.grants().await.try_into().expect("one grant");
    assert_eq!(made.agent, Some(Agent::self_reported(AGENT)), "stored as the identity that asked");
    // The registered assistant of that name is another identity: it is asked.
    let asked = gate.call("update_cells", cells(SHEET), interactive(Some(AGENT)));
    let card = gate.card().await;
    assert_eq!(card.agent, Some(Agent::registered(AGENT)));
    gate.answer(&card, RawAnswer::Deny);
    assert!(matches!(asked.await.unwrap(), Permit::Refuse { source: DecisionSource::Person, .. }));
}

#[tokio::test]
async fn a_self_reported_name_that_is_a_registered_assistants_or_is_not_plain_is_refused() {
    let gate = Gate::new("").await;
    gate.store.add_assistant("Claude-Desktop", true, Utc::now()).await.unwrap();
    let refusal = |caller: Caller| match gate.approvals.refuse_caller(&caller) {
        Some(Permit::Refuse { source, message }) => {
            assert_eq!(source, DecisionSource::AgentName);
            message
        }
        other => panic!("expected a refusal for {caller:?}, got {other:?}"),
    };
    let message = refusal(Caller { agent: Some(Agent::self_reported("claude-desktop")), interactive: true });
    assert!(message.contains("registered in Gatehouse") && message.contains("token"), "{message}");
    assert_eq!(
        gate.approvals.refuse_caller(&Caller { agent: Some(Agent::registered("Claude-Desktop")), interactive: true }),
        None
    );
    assert_eq!(
        gate.approvals.refuse_caller(&Caller { agent: Some(Agent::self_reported("cursor")), interactive: true }),
        None
    );
    assert_eq!(gate.approvals.refuse_caller(&Caller { agent: None, interactive: true }), None);

    let long = refusal(Caller { agent: Some(Agent::self_reported("x".repeat(65))), interactive: true });
    assert!(long.contains("longer than 64 characters"), "{long}");
    assert!(long.len() < 600, "the name is not echoed whole: {long}");
    assert!(
        gate.approvals
            .refuse_caller(&Caller { agent: Some(Agent::self_reported("x".repeat(64))), interactive: true })
            .is_none()
    );
    let forged =
        refusal(Caller { agent: Some(Agent::self_reported("claude\n\u{1b}[8mList files")), interactive: true });
    assert!(forged.contains("control character"), "{forged}");
    assert!(!forged.chars().any(char::is_control), "the refusal shows the name escaped: {forged:?}");
    let bidi = refusal(Caller { agent: Some(Agent::self_reported("claude\u{202e}")), interactive: true });
    assert!(bidi.contains("invisible character"), "{bidi}");
}

/// Names the one spreadsheet the tests use, as the engine's lookup would.
struct SheetNames;

impl gatehouse_core::approval::gate::TargetNames for SheetNames {
    fn name<'a>(&'a self, id: &'a str) -> futures::future::BoxFuture<'a, Option<String>> {
        Box::pin(async move { (id == SHEET).then(|| "Budget 2026".to_owned()) })
    }
}

/// `gatehouse grants` names a constrained grant's target by the name its card showed, not by a cut id
/// (issue 15): the grant keeps that name.
#[tokio::test]
async fn a_grant_made_on_a_card_keeps_its_targets_name_for_the_lists() {
    let home = tempfile::tempdir().unwrap();
    let store = crate::support::open_store(&home.path().join("gatehouse.db")).await.unwrap();
    let approvals = Arc::new(
        Approvals::new(Some(store.clone()), Policy::default(), &all_tools()).with_target_names(Arc::new(SheetNames)),
    );
    let waiting = spawn_call(&approvals, "update_cells", cells(SHEET), interactive(Some(AGENT)), Some(ANA));
    let card = cards(&approvals, 1).await.remove(0);
    approvals.broker().answer(card.id, always("TOOL", "7", "CONSTRAINED")).unwrap();
    assert_eq!(waiting.await.unwrap(), Permit::Run { source: DecisionSource::Person });
    let [made] = store.list_grants().await.unwrap().try_into().expect("one grant");
    assert_eq!(made.target_name.as_deref(), Some("Budget 2026"));
    let words = gatehouse_core::approval::words::grant_limit_words(&made);
    assert!(words.starts_with("only this spreadsheet") && words.ends_with(": “Budget 2026”"), "{words}");
}
