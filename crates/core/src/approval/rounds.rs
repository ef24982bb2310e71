//! A call to one of Google's MCP servers run in rounds, with each approval form Google asks for shown to the
//! person on a card (issue 17, item 3; docs/approvals.md, "Google's own approval forms").
//!
//! Google answers a consequential `tools/call` with forms first (an `InputRequiredResult`); the client repeats
//! the same call with the person's answers. [`Approvals::run_in_rounds`] drives that: the MCP client gives it
//! one round as a closure, and it asks each form on a card ([`Approvals::ask_form`]), repeats the call with
//! [`Repeat`], and stops after rmcp's [`DEFAULT_MRTR_MAX_ROUNDS`]. A form is answered only by the person,
//! on the channels Gatehouse's own cards are answered on: never by a grant, a policy allow, the model, the MCP
//! connection or a timeout (no answer is *cancel*, *Deny* is *decline*). Each answer is one audit record.
//!
//! This is no decision of Gatehouse's own: deny rules, *never allow*, pause and tool sets apply before the call
//! leaves Gatehouse ([`Approvals::permit`]); what happens here is Google's question, asked after.

use std::future::Future;
use std::sync::Arc;

use chrono::Utc;
use rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;
use serde_json::{Value, json};

use super::Approvals;
use super::broker::{Dismissal, PendingCard, Waited};
use super::card;
use super::evaluator::ArgEvaluator;
use super::form::FormCard;
use super::gate::Permit;
use super::model::{AnswerChannel, AuditEntry, CallOutcome, Caller, Constraint, DecisionSource, Verdict};
use super::redact;
use crate::google::mcp::form::{FormAnswer, GoogleForm, Repeat, Round};

/// Why a form's card offers no *Always allow*, as the card and `gatehouse approvals` say it.
pub const FORM_NOT_GRANTABLE: &str =
    "Google asks for its form each time, so Gatehouse keeps no standing approval for it: no grant or rule answers it.";

/// The call a form is asked about, as its card shows it.
#[derive(Clone)]
pub struct FormCall<'a> {
    /// The assistant that made the call (registered, or self-reported).
    pub caller: &'a Caller,
    /// The tool's name as the assistant called it.
    pub tool: &'a str,
    /// The tool in plain words ("Update cells").
    pub title: &'a str,
    /// The call's arguments (redacted for the card and the log here).
    pub arguments: &'a Value,
    /// What the call touches (a spreadsheet, a file), named on the card as Gatehouse's cards name it.
    pub target: Option<Constraint>,
    /// Gatehouse's own decision already allowed the call, and Google asks too.
    pub google_asks_too: bool,
}

impl<'a> FormCall<'a> {
    /// The call of `tool` (`title` in plain words), its target proposed by the tool's own constraining
    /// evaluators, as its card would name it (for a tool of Gatehouse's: `ToolDef::evaluators`).
    pub fn new(
        caller: &'a Caller,
        (tool, title): (&'a str, &'a str),
        arguments: &'a Value,
        evaluators: &'a [Arc<dyn ArgEvaluator>],
        google_asks_too: bool,
    ) -> Self {
        let target = evaluators
            .iter()
            .filter(|evaluator| evaluator.constrains())
            .find_map(|evaluator| evaluator.propose(arguments).ok().flatten());
        FormCall { caller, tool, title, arguments, target, google_asks_too }
    }
}

/// How a form's card ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormEnded {
    /// The person answered it (accepted or declined).
    Person,
    /// Nobody answered before the timeout: *cancel*.
    TimedOut,
    /// Every card was dismissed unanswered (pause, quit): *cancel*.
    Dismissed(Dismissal),
    /// The call came from an unattended assistant (an automation): nobody is there to answer, so the form
    /// is cancelled without a card, at once.
    Unattended,
    /// Gatehouse could not show the form whole, so it was cancelled without asking; the reason in words.
    Unshowable(String),
}

/// A form's answer and how it was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct FormAsked {
    pub answer: FormAnswer,
    pub ended: FormEnded,
    /// Where the person answered (the card, its notification, a terminal), when they did.
    pub channel: Option<AnswerChannel>,
}

/// Why a call in rounds ended without Google's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotApproved {
    /// A form ended without *accept* (declined, timed out, dismissed, unshowable).
    Form(FormEnded),
    /// Google kept asking past [`DEFAULT_MRTR_MAX_ROUNDS`] rounds.
    TooManyRounds,
}

impl NotApproved {
    /// The source the call's audit record gives this end, as for Gatehouse's own cards (`person` for a
    /// decline, `timeout`, `paused`, `shutdown`); `None` where nobody decided (an unshowable form, endless
    /// rounds).
    pub fn source(&self) -> Option<DecisionSource> {
        match self {
            NotApproved::Form(FormEnded::Person) => Some(DecisionSource::Person),
            NotApproved::Form(FormEnded::TimedOut) => Some(DecisionSource::Timeout),
            NotApproved::Form(FormEnded::Dismissed(Dismissal::Paused)) => Some(DecisionSource::Paused),
            NotApproved::Form(FormEnded::Dismissed(Dismissal::ShuttingDown)) => Some(DecisionSource::Shutdown),
            NotApproved::Form(FormEnded::Unattended) => Some(DecisionSource::Unattended),
            NotApproved::Form(FormEnded::Unshowable(_)) | NotApproved::TooManyRounds => None,
        }
    }
}

/// How a call in rounds ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Rounds<T> {
    /// Google answered the call (every form it asked was accepted, or it asked none).
    Done(T),
    /// The person did not approve (or could not be asked): Google did not run the call. `message` is for the
    /// assistant to relay.
    NotApproved { why: NotApproved, message: String },
}

impl Approvals {
    /// Runs a call to Google's MCP server in rounds. `round` does one round: the first time with `None`, then
    /// with the person's answers ([`Repeat`]) to the forms the previous round asked. Every form is asked on a
    /// card; the first one the person does not accept ends the call — Google is still told the answer (so its
    /// state for the call ends; forms after it are cancelled unasked), and the assistant gets words to relay.
    /// At most [`DEFAULT_MRTR_MAX_ROUNDS`] rounds (rmcp's own cap). An error of `round` ends the call with it.
    pub async fn run_in_rounds<T, E, F, Fut>(&self, call: &FormCall<'_>, mut round: F) -> Result<Rounds<T>, E>
    where
        F: FnMut(Option<Repeat>) -> Fut,
        Fut: Future<Output = Result<Round<T>, E>>,
    {
        let mut repeat = None;
        for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
            let (forms, request_state) = match round(repeat.take()).await? {
                Round::Done(result) => return Ok(Rounds::Done(result)),
                Round::AsksPerson { forms, request_state } => (forms, request_state),
            };
            let mut answers = Vec::with_capacity(forms.len());
            let mut stopped = None;
            for form in forms {
                let answer = match stopped {
                    Some(_) => FormAnswer::Cancel,
                    None => {
                        let asked = self.ask_form(call, &form).await;
                        if !matches!(asked.answer, FormAnswer::Accept(_)) {
                            stopped = Some(asked.ended);
                        }
                        asked.answer
                    }
                };
                answers.push((form, answer));
            }
            let next = Repeat::new(&answers, request_state);
            if let Some(ended) = stopped {
                // Whatever Google answers to a decline or a cancel, the call was not approved.
                if round(Some(next)).await.is_err() {
                    tracing::debug!(tool = call.tool, "Google's answer to the refused form was an error; ignored");
                }
                let message = self.not_approved_words(call, &ended);
                return Ok(Rounds::NotApproved { why: NotApproved::Form(ended), message });
            }
            repeat = Some(next);
        }
        tracing::warn!(tool = call.tool, rounds = DEFAULT_MRTR_MAX_ROUNDS, "Google kept asking for forms: stopped");
        let message = format!(
            "Google kept asking for approval of {} ({}) for {DEFAULT_MRTR_MAX_ROUNDS} rounds without finishing the call, so Gatehouse stopped asking. Google did not report it done; check before trying again.",
            call.title, call.tool
        );
        Ok(Rounds::NotApproved { why: NotApproved::TooManyRounds, message })
    }

    /// Asks the person Google's `form` about `call` on a card, and records the answer in the audit log. The
    /// card offers no *Always allow*; no grant or policy is consulted. No answer in time, a pause or quitting
    /// is *cancel*; a form Gatehouse can't show whole is cancelled without a card.
    pub async fn ask_form(&self, call: &FormCall<'_>, form: &GoogleForm) -> FormAsked {
        let started = std::time::Instant::now();
        let target = match &call.target {
            Some(target) => Some(self.named_target(target).await.0),
            None => None,
        };
        let asked = self.ask_form_card(call, form, target.clone()).await;
        if let FormEnded::Unshowable(why) = &asked.ended {
            tracing::warn!(tool = call.tool, "Google's form could not be shown ({why}): cancelled");
        }
        self.audit_form(call, form, &asked, target, started).await;
        asked
    }

    async fn ask_form_card(&self, call: &FormCall<'_>, form: &GoogleForm, target: Option<String>) -> FormAsked {
        let cancelled = |ended| FormAsked { answer: FormAnswer::Cancel, ended, channel: None };
        if self.is_paused() {
            return cancelled(FormEnded::Dismissed(Dismissal::Paused));
        }
        if !call.caller.interactive {
            return cancelled(FormEnded::Unattended);
        }
        let card = match FormCard::from_form(form, call.google_asks_too) {
            Ok(card) => card,
            Err(why) => return cancelled(FormEnded::Unshowable(why.to_string())),
        };
        let timeout = self.policy().approval_timeout();
        let now = Utc::now();
        let pending = PendingCard {
            id: 0,
            agent: call.caller.agent.clone(),
            tool: call.tool.to_owned(),
            title: call.title.to_owned(),
            target,
            arguments: redact::preview(call.arguments),
            offer: card::offer(false, call.caller.agent.as_ref(), 0, Vec::new()),
            retry: false,
            why_not_grantable: Some(FORM_NOT_GRANTABLE.to_owned()),
            created: now,
            deadline: now + chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::MAX),
            form: Some(card.clone()),
            sentence: Default::default(),
            preview: Default::default(),
            asked_again: None,
        };
        match self.broker().ask(pending, timeout).await {
            // The broker took only an answer that fits the form, so this reads it again the same way.
            Waited::Answered(raw, channel) => match card.read_answer(&raw) {
                Ok(answer) => FormAsked { answer, ended: FormEnded::Person, channel: Some(channel) },
                Err(why) => cancelled(FormEnded::Unshowable(why.to_string())),
            },
            Waited::TimedOut => cancelled(FormEnded::TimedOut),
            Waited::Dismissed(why) => cancelled(FormEnded::Dismissed(why)),
        }
    }

    /// One audit record of a form's answer, beside the call's own: who answered (`person`, `timeout`,
    /// `paused`, `shutdown`), accepted (allowed, `ok`: the answer was sent) or not (denied, refused), with
    /// Google's message and the content sent. A form that could not be shown is logged, not recorded: nobody
    /// answered it.
    async fn audit_form(
        &self,
        call: &FormCall<'_>,
        form: &GoogleForm,
        asked: &FormAsked,
        target: Option<String>,
        started: std::time::Instant,
    ) {
        let source = match &asked.ended {
            FormEnded::Person => DecisionSource::Person,
            FormEnded::TimedOut => DecisionSource::Timeout,
            FormEnded::Dismissed(Dismissal::Paused) => DecisionSource::Paused,
            FormEnded::Dismissed(Dismissal::ShuttingDown) => DecisionSource::Shutdown,
            FormEnded::Unattended => DecisionSource::Unattended,
            FormEnded::Unshowable(_) => return,
        };
        let (answer, content, verdict, outcome) = match &asked.answer {
            FormAnswer::Accept(content) => {
                ("accept", Value::Object(content.clone()), Verdict::Allowed, CallOutcome::Ok)
            }
            FormAnswer::Decline => ("decline", Value::Null, Verdict::Denied, CallOutcome::Refused),
            FormAnswer::Cancel => ("cancel", Value::Null, Verdict::Denied, CallOutcome::Refused),
        };
        let recorded = json!({
            "google_form": { "message": form.message, "answer": answer, "content": content },
            "arguments": call.arguments,
        });
        let entry = AuditEntry {
            time: Utc::now(),
            agent: call.caller.agent.clone(),
            tool: call.tool.to_owned(),
            arguments: redact::for_audit(&recorded),
            target,
            verdict,
            source,
            outcome,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            answered_via: asked.channel.clone(),
        };
        self.audit(entry).await;
    }

    /// What the assistant is told when a form ended without *accept*.
    fn not_approved_words(&self, call: &FormCall<'_>, ended: &FormEnded) -> String {
        let (title, tool) = (call.title, call.tool);
        match ended {
            FormEnded::Person => format!(
                "The person declined Google's approval form for {title} ({tool}), so Google did not run it. Do not retry it unless they ask you to."
            ),
            FormEnded::TimedOut => format!(
                "The person did not answer Google's approval form for {title} ({tool}) in time ({} seconds), so Google did not run it. Ask them to watch for Gatehouse's approval card, then try again.",
                self.policy().approval_timeout().as_secs()
            ),
            FormEnded::Dismissed(why) => match super::gate::dismissed(tool, *why) {
                Permit::Refuse { message, .. } => message,
                Permit::Run { .. } => format!("{tool} was not run."),
            },
            FormEnded::Unattended => format!(
                "Google asks a person to approve {title} ({tool}) on a form, and this call came from an unattended assistant, so nobody was asked and Google did not run it. A person must make this change, from an assistant they are using."
            ),
            FormEnded::Unshowable(why) => format!(
                "Google asked the person to approve {title} ({tool}) with a form Gatehouse can't show ({why}), so Gatehouse cancelled it and Google did not run it. Tell the person: they can do this in Google's own app instead."
            ),
        }
    }
}
