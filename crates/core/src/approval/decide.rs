//! The decision for one gated call (docs/approvals.md, "Deciding a gated call"), rule by rule, as a pure function
//! of what is known at that moment: no I/O, no clock, no store. The gate gathers the facts, calls [`decide`]
//! and carries the result out, so every rule here can be tested on its own.
//!
//! Everything uncertain falls on the side that asks or refuses: an evaluator that fails is a veto, a grant
//! store that is missing or ambiguous covers nothing, and every field of every grant the store returns is
//! checked again here — a store that returns too much can never widen a decision.

use std::cell::OnceCell;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::evaluator::{self, ArgEvaluator, EvalError, OnTheEvent, PreparedCall, Veto};
use super::model::{Caller, Constraint, DecisionSource, Grant, Owner};
use super::policy::platform_grant_rule;

/// Who forbade a call: the administrator's policy or the person's own *never allow*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForbiddenBy {
    Policy,
    Person,
}

/// A deny rule, from the policy file or the person's *never allow* list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deny {
    /// The rule's name, for the audit source `deny:<rule>`.
    pub rule: String,
    pub by: ForbiddenBy,
    /// The tool's name, or `*` for every tool.
    pub tool: String,
    /// `None` = every agent. A name: every caller of that name, registered or self-reported — a refusal that
    /// matches more only refuses more.
    pub agent: Option<String>,
    /// `None` = any arguments; else only calls the tool's evaluator says satisfy it.
    pub constraint: Option<Constraint>,
    /// `None` = forever; a person's *never allow* always has one.
    pub expires: Option<DateTime<Utc>>,
}

/// The grant stores the decision may use. A standing approval needs exactly one: with none, or with an
/// ambiguous setup (two stores that could disagree), no grant ever applies.
#[derive(Debug, Clone, Copy)]
pub enum GrantStores<'a> {
    None,
    /// The one store's candidate grants for the call (person's and platform's, in any order), shared with
    /// the store's index rather than copied.
    One(&'a [Arc<Grant>]),
    Ambiguous,
}

/// What is known about the call when it is decided.
pub struct Facts<'a> {
    pub tool: &'a str,
    /// The fingerprint of the tool's definition now.
    pub fingerprint: &'a str,
    pub args: &'a Value,
    pub evaluators: &'a [Arc<dyn ArgEvaluator>],
    pub caller: &'a Caller,
    /// The call repeats one already decided (see `retry`).
    pub retry: bool,
    /// The policy lists the tool as *always ask*.
    pub always_ask: bool,
    /// The signed-in Google account, whose `USER` grants apply.
    pub account: Option<&'a str>,
    /// The people already on the event the call changes or cancels, read from Google by the gate before
    /// deciding (Google emails them about it); `None` when nothing was read. For a tool whose evaluators
    /// name such an event, `None` is a veto: the decision never assumes an event has nobody outside on it.
    pub on_event: Option<&'a OnTheEvent>,
    pub now: DateTime<Utc>,
    pub denies: &'a [Deny],
    pub grants: GrantStores<'a>,
}

/// The outcome of [`decide`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Refused without asking: the message says who refused and why, for the assistant to relay.
    Refused { source: DecisionSource, message: String },
    /// A standing approval covers the call: run it, and record the grant's use.
    Covered { grant: String, source: DecisionSource },
    /// Ask the person. `grantable` says whether the card may offer *Always allow…*; `constraint` is the one it
    /// may offer (from the tool's only constraining evaluator).
    Ask { grantable: bool, constraint: Option<Constraint>, why_not_grantable: Option<String> },
}

/// Decides a gated call (see the module documentation).
pub fn decide(facts: &Facts<'_>) -> Decision {
    let judge = Judge::new(facts);
    // 1. Deny rules first.
    if let Some(refused) = denied_by(facts, &judge) {
        return refused;
    }
    // 2. Standing approval.
    // An *always ask* tool is asked every time: like an evaluator's veto, it stops any grant from covering it.
    let veto = match facts.always_ask {
        true => Some(Veto {
            evaluator: "always_ask",
            reason: "The administrator asks for this tool to be approved every time.".to_owned(),
        }),
        false => evaluator::standing_approval_read(facts.evaluators, facts.args, facts.account, facts.on_event).err(),
    };
    if let (GrantStores::One(grants), false, None) = (facts.grants, facts.retry, &veto) {
        let person = grants.iter().filter(|grant| matches!(grant.owner, Owner::User(_)));
        let platform = grants.iter().filter(|grant| grant.owner == Owner::Platform);
        if let Some(grant) = person.chain(platform).find(|grant| applies(grant, facts, &judge)) {
            let source = match grant.owner {
                // The audit source names the policy's rule (`policy:<rule>`), not the grant's id.
                Owner::Platform => {
                    DecisionSource::Policy(platform_grant_rule(&grant.id).unwrap_or(&grant.id).to_owned())
                }
                Owner::User(_) => DecisionSource::Grant(grant.id.clone()),
            };
            return Decision::Covered { grant: grant.id.clone(), source };
        }
    }
    // 3. Nobody to ask.
    if !facts.caller.interactive {
        return Decision::Refused {
            source: DecisionSource::Unattended,
            message: format!(
                "{} was not run: it came from an unattended assistant, and no standing approval covers it. A person must approve it in Gatehouse, or an administrator must allow it in the policy file.",
                facts.tool
            ),
        };
    }
    // 4. Ask.
    let why_not_grantable = match (facts.grants, &veto) {
        (_, Some(Veto { reason, .. })) => Some(reason.clone()),
        (GrantStores::None, _) => Some("Gatehouse has no store for standing approvals right now.".to_owned()),
        (GrantStores::Ambiguous, _) => {
            Some("Gatehouse found more than one store for standing approvals, so it offers none.".to_owned())
        }
        _ if facts.always_ask => Some("The administrator asks for this tool to be approved every time.".to_owned()),
        _ if facts.retry => Some("This repeats a request you already answered, so it asks again.".to_owned()),
        _ => None,
    };
    let grantable = why_not_grantable.is_none();
    let constraint =
        if grantable { evaluator::offered_constraint(facts.evaluators, facts.args).ok().flatten() } else { None };
    Decision::Ask { grantable, constraint, why_not_grantable }
}

/// Rule 1 on its own: the refusal of the first deny rule (the policy's, then the person's *never allow*) that
/// matches the call, if any. The gate also asks this of a re-sent request before answering it from the first
/// run's reply (see [`crate::resend`]), so a rule added since is honoured.
pub fn deny_rule(facts: &Facts<'_>) -> Option<Decision> {
    denied_by(facts, &Judge::new(facts))
}

fn denied_by(facts: &Facts<'_>, judge: &Judge<'_>) -> Option<Decision> {
    let deny = facts.denies.iter().find(|deny| forbids(deny, facts, judge))?;
    Some(Decision::Refused { source: DecisionSource::Deny(deny.rule.clone()), message: forbidden(deny, facts) })
}

/// Whether a deny rule matches the call. An evaluator that cannot judge a deny's constraint counts as a match:
/// refusing is the safe side.
fn forbids(deny: &Deny, facts: &Facts<'_>, judge: &Judge<'_>) -> bool {
    (deny.tool == "*" || deny.tool == facts.tool)
        && deny
            .agent
            .as_ref()
            .is_none_or(|agent| facts.caller.agent.as_ref().is_some_and(|caller| &caller.name == agent))
        && deny.expires.is_none_or(|expires| facts.now < expires)
        && deny.constraint.as_ref().is_none_or(|constraint| judge.satisfied(constraint).unwrap_or(true))
}

fn forbidden(deny: &Deny, facts: &Facts<'_>) -> String {
    match deny.by {
        ForbiddenBy::Policy => format!(
            "{} was not run: the administrator's policy forbids it (rule {}). Ask your administrator if it should be allowed.",
            facts.tool, deny.rule
        ),
        ForbiddenBy::Person => format!(
            "{} was not run: the person chose never to allow it{}. They can change that in Gatehouse › Permissions.",
            facts.tool,
            deny.expires.map(|until| format!(" (until {})", until.format("%Y-%m-%d %H:%M UTC"))).unwrap_or_default()
        ),
    }
}

/// Rule 2's checks for one grant, every field against the call.
fn applies(grant: &Grant, facts: &Facts<'_>, judge: &Judge<'_>) -> bool {
    let owner = match &grant.owner {
        Owner::Platform => true,
        Owner::User(email) => facts.account.is_some_and(|account| account.eq_ignore_ascii_case(email)),
    };
    owner
        && grant.tool == facts.tool
        && grant.expires.is_some_and(|expires| facts.now < expires)
        && grant.revoked.is_none()
        // The same name is not enough: a grant for a registered assistant never covers a client that only says
        // it is that assistant, nor the other way round.
        && grant.agent.as_ref().is_none_or(|agent| facts.caller.agent.as_ref() == Some(agent))
        && (grant.unattended || facts.caller.interactive)
        && grant.constraint.as_ref().is_none_or(|constraint| judge.satisfied(constraint).unwrap_or(false))
        && grant.fingerprint == facts.fingerprint
}

/// Whether the call satisfies constraints, its arguments parsed by the tool's evaluators once (on the first
/// constraint met), however many grants and deny rules carry one.
struct Judge<'a> {
    facts: &'a Facts<'a>,
    prepared: OnceCell<Result<Vec<Box<dyn PreparedCall + 'a>>, EvalError>>,
}

impl<'a> Judge<'a> {
    fn new(facts: &'a Facts<'a>) -> Self {
        Self { facts, prepared: OnceCell::new() }
    }

    /// [`evaluator::satisfied`] for this call; an error when the arguments can't be judged.
    fn satisfied(&self, constraint: &Constraint) -> Result<bool, EvalError> {
        let prepared = self
            .prepared
            .get_or_init(|| self.facts.evaluators.iter().map(|evaluator| evaluator.prepare(self.facts.args)).collect());
        match prepared {
            Ok(prepared) => evaluator::satisfied_prepared(prepared, constraint),
            Err(error) => Err(error.clone()),
        }
    }
}
