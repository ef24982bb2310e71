//! Evaluators: per-tool code that judges a call's arguments for standing approval (docs/approvals.md,
//! "Evaluator"). Each one (1) may veto standing approval, (2) proposes the constraint a card may offer and
//! (3) checks whether a call satisfies a stored constraint.
//!
//! They are declared on the tool itself ([`ToolDef::evaluated`](crate::tools::ToolDef::evaluated)) with the
//! tool's own argument type, and read the raw JSON through the tool's own parsing (`registry::parse_args`):
//! arguments the tool would reject cannot be judged, and an evaluator that cannot judge is a veto. Nothing
//! here talks to Google or the store.
//!
//! The kinds live in their own modules: [`target`] (spreadsheet, document, file, folder, calendar),
//! [`email_domain`] (sharing, and invitations or event changes that Google mails outside the person's
//! organisation) and [`veto`] (what always asks). [`combined`] applies a tool's evaluators together.
//!
//! One judgement needs what is not in the arguments: the people already on an event that a call changes or
//! cancels. An evaluator only names the event ([`ArgEvaluator::event_told`]); the gate reads its attendees
//! before deciding and hands them to the decision as a fact ([`OnTheEvent`]).

pub mod combined;
pub mod email_domain;
pub mod target;
pub mod veto;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::model::Constraint;
use crate::catalog::parse_args_ref;

pub use combined::{
    event_told, offered_constraint, satisfied, satisfied_prepared, standing_approval, standing_approval_read,
};
pub use email_domain::{OnTheEvent, Recipient};

/// A refusal of standing approval for one call: the call asks the person (or is refused when nobody can be
/// asked), and its card offers no *Always allow*.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Veto {
    /// The kind of the evaluator that refused (`transfer_ownership`, `spreadsheet`, …).
    pub evaluator: &'static str,
    /// Why, in plain words, for the card and the log.
    pub reason: String,
}

/// An evaluator could not judge a call. The decision then falls on the side that asks: it is a veto for
/// standing approval, offers no constraint and satisfies none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The arguments don't parse as the tool's own: the tool's message, naming the argument at fault.
    #[error("{0}")]
    Arguments(String),
    /// They parse, but what the evaluator judges is unusable (an empty id, an address without a domain).
    #[error("The {evaluator} check of {tool} could not judge the call: {reason}")]
    Unjudgeable { tool: &'static str, evaluator: &'static str, reason: String },
}

/// One evaluator of one tool, over the tool's raw JSON arguments. Every method parses them as the tool does
/// first, and fails (closed) when they don't parse.
pub trait ArgEvaluator: Send + Sync {
    /// The constraint kind it produces and checks (`spreadsheet`, `document`, `file`, `folder`,
    /// `email_domain`), or, for an evaluator that only vetoes, its name (`transfer_ownership`, …).
    fn kind(&self) -> &'static str;

    /// Whether it can ever propose a constraint: `false` for an evaluator that only vetoes. A tool whose
    /// evaluators include more than one that constrains offers no constraint (see [`offered_constraint`]).
    fn constrains(&self) -> bool;

    /// `Ok` when a grant may cover this call; a [`Veto`] when the call must always ask, or when the
    /// evaluator cannot judge it (arguments that don't parse, an unusable value). `account` is the
    /// signed-in Google account (`None` when unknown): who counts as outside it (see
    /// [`email_domain::outside`]) depends on it.
    fn standing_approval(&self, args: &Value, account: Option<&str>) -> Result<(), Veto>;

    /// The event (calendar id, event id) whose attendees Google emails about this call, when the call
    /// changes or cancels an existing event: the gate reads them from Google before deciding, and
    /// [`email_domain::event_attendees_veto`] judges them. `None` for every other evaluator, and when the
    /// arguments don't parse (then [`ArgEvaluator::standing_approval`] vetoes already).
    fn event_told(&self, _args: &Value) -> Option<(String, String)> {
        None
    }

    /// The constraint a card may offer for this call (`None` when it names no single target to limit to).
    fn propose(&self, args: &Value) -> Result<Option<Constraint>, EvalError>;

    /// Whether the call stays within `constraint`; `false` for a constraint of another kind.
    fn satisfies(&self, constraint: &Constraint, args: &Value) -> Result<bool, EvalError>;

    /// The call's arguments, read once, to check many stored constraints against (a decision may weigh
    /// hundreds of grants for one call; parsing the arguments for each would dominate it).
    fn prepare<'a>(&'a self, args: &Value) -> Result<Box<dyn PreparedCall + 'a>, EvalError>;
}

/// One evaluator's view of one call, its arguments already parsed (see [`ArgEvaluator::prepare`]).
pub trait PreparedCall {
    /// The evaluator's kind.
    fn kind(&self) -> &'static str;

    /// Exactly [`ArgEvaluator::satisfies`] for the prepared arguments.
    fn satisfies(&self, constraint: &Constraint) -> Result<bool, EvalError>;
}

/// One kind's judgement over arguments already parsed into the tool's type `A`. Errors are reasons in plain
/// words; [`Bound`] adds the tool and the kind.
pub(crate) trait Rule<A>: Send + Sync {
    fn kind(&self) -> &'static str;

    /// `false` for a rule that only vetoes.
    fn constrains(&self) -> bool {
        true
    }

    /// Why standing approval is refused for these (well-formed) arguments, if it is; `account` is the
    /// signed-in Google account, when known.
    fn veto(&self, _args: &A, _account: Option<&str>) -> Option<String> {
        None
    }

    /// The event whose attendees Google emails about the call (see [`ArgEvaluator::event_told`]).
    fn event_told(&self, _args: &A) -> Option<(String, String)> {
        None
    }

    fn propose(&self, args: &A) -> Result<Option<Constraint>, String>;

    fn satisfies(&self, constraint: &Constraint, args: &A) -> Result<bool, String>;
}

/// A rule that only vetoes standing approval (see [`VetoOnly`]): what it vetoes, and the event it names.
pub(crate) trait VetoOnlyRule<A>: Send + Sync {
    fn kind(&self) -> &'static str;

    /// As [`Rule::veto`].
    fn veto(&self, _args: &A, _account: Option<&str>) -> Option<String> {
        None
    }

    /// As [`Rule::event_told`].
    fn event_told(&self, _args: &A) -> Option<(String, String)> {
        None
    }
}

/// A [`VetoOnlyRule`] as a [`Rule`]: it constrains nothing, proposes nothing and satisfies no constraint, so
/// a grant never covers a call through it; it can only take standing approval away.
pub(crate) struct VetoOnly<R>(pub R);

impl<A, R: VetoOnlyRule<A>> Rule<A> for VetoOnly<R> {
    fn kind(&self) -> &'static str {
        self.0.kind()
    }

    fn constrains(&self) -> bool {
        false
    }

    fn veto(&self, args: &A, account: Option<&str>) -> Option<String> {
        self.0.veto(args, account)
    }

    fn event_told(&self, args: &A) -> Option<(String, String)> {
        self.0.event_told(args)
    }

    fn propose(&self, _args: &A) -> Result<Option<Constraint>, String> {
        Ok(None)
    }

    fn satisfies(&self, _constraint: &Constraint, _args: &A) -> Result<bool, String> {
        Ok(false)
    }
}

/// An evaluator as a tool declares it, typed by the tool's argument struct `A`: built with the kind
/// constructors ([`Evaluator::spreadsheet`], [`Evaluator::email_domain`], [`Evaluator::transfer_ownership`]…)
/// and bound to its tool by [`ToolDef::evaluated`](crate::tools::ToolDef::evaluated).
pub struct Evaluator<A> {
    rule: Arc<dyn Rule<A>>,
}

impl<A: DeserializeOwned + 'static> Evaluator<A> {
    pub(crate) fn from_rule(rule: impl Rule<A> + 'static) -> Self {
        Self { rule: Arc::new(rule) }
    }

    /// This evaluator for the tool `tool`, reading raw arguments with the tool's own parsing.
    pub(crate) fn bind(self, tool: &'static str) -> Arc<dyn ArgEvaluator> {
        Arc::new(Bound { tool, rule: self.rule })
    }
}

/// The adapter from raw JSON to a typed [`Rule`]: parse exactly as the tool does, then judge.
struct Bound<A> {
    tool: &'static str,
    rule: Arc<dyn Rule<A>>,
}

impl<A: DeserializeOwned> Bound<A> {
    fn parse(&self, args: &Value) -> Result<A, EvalError> {
        parse_args_ref(self.tool, args).map_err(|error| EvalError::Arguments(error.to_string()))
    }

    fn unjudgeable(&self, reason: String) -> EvalError {
        EvalError::Unjudgeable { tool: self.tool, evaluator: self.rule.kind(), reason }
    }
}

impl<A: DeserializeOwned> ArgEvaluator for Bound<A> {
    fn kind(&self) -> &'static str {
        self.rule.kind()
    }

    fn constrains(&self) -> bool {
        self.rule.constrains()
    }

    fn standing_approval(&self, args: &Value, account: Option<&str>) -> Result<(), Veto> {
        let failed = |error: EvalError| Veto {
            evaluator: self.rule.kind(),
            reason: format!("This call always asks because its arguments could not be checked. {error}"),
        };
        let parsed = self.parse(args).map_err(failed)?;
        // An evaluator that cannot judge the call (say, an empty id) must not let a grant cover it.
        self.rule.propose(&parsed).map_err(|reason| failed(self.unjudgeable(reason)))?;
        match self.rule.veto(&parsed, account) {
            Some(reason) => Err(Veto { evaluator: self.rule.kind(), reason }),
            None => Ok(()),
        }
    }

    fn event_told(&self, args: &Value) -> Option<(String, String)> {
        self.rule.event_told(&self.parse(args).ok()?)
    }

    fn propose(&self, args: &Value) -> Result<Option<Constraint>, EvalError> {
        let parsed = self.parse(args)?;
        self.rule.propose(&parsed).map_err(|reason| self.unjudgeable(reason))
    }

    fn satisfies(&self, constraint: &Constraint, args: &Value) -> Result<bool, EvalError> {
        let parsed = self.parse(args)?;
        self.rule.satisfies(constraint, &parsed).map_err(|reason| self.unjudgeable(reason))
    }

    fn prepare<'a>(&'a self, args: &Value) -> Result<Box<dyn PreparedCall + 'a>, EvalError> {
        Ok(Box::new(Prepared { bound: self, args: self.parse(args)? }))
    }
}

/// A [`Bound`] evaluator with one call's arguments parsed.
struct Prepared<'a, A> {
    bound: &'a Bound<A>,
    args: A,
}

impl<A: DeserializeOwned> PreparedCall for Prepared<'_, A> {
    fn kind(&self) -> &'static str {
        self.bound.rule.kind()
    }

    fn satisfies(&self, constraint: &Constraint) -> Result<bool, EvalError> {
        self.bound.rule.satisfies(constraint, &self.args).map_err(|reason| self.bound.unjudgeable(reason))
    }
}

/// An id as a card shows it before the name is known: short ids whole, long ones cut to their start.
pub(crate) fn short_id(id: &str) -> String {
    const SHOWN: usize = 6;
    if id.chars().count() <= SHOWN + 2 {
        id.to_owned()
    } else {
        format!("{}…", id.chars().take(SHOWN).collect::<String>())
    }
}

/// A constraint in words, for the card and the grant list ("only this spreadsheet (1AbC2d…)"); the caller may
/// replace the id by the file's name once it knows it. Each kind has one wording whichever tool's grant or rule
/// carries it, so the words need no tool; a kind no evaluator makes (a policy file's typo, say) gets its bare
/// kind and id.
pub fn constraint_words(constraint: &Constraint) -> String {
    if let Some(target) = target::Target::of_kind(&constraint.kind) {
        return format!("{} ({})", target.words(), short_id(&constraint.value));
    }
    if constraint.kind == email_domain::KIND {
        return format!("only people at {}", constraint.value);
    }
    format!("only {} {}", constraint.kind, short_id(&constraint.value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_ids_are_cut_short_ids_are_whole() {
        assert_eq!(short_id("1AbCdEfGhIjK"), "1AbCdE…");
        assert_eq!(short_id("root"), "root");
        assert_eq!(short_id("12345678"), "12345678");
    }
}
