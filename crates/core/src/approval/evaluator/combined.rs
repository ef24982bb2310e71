//! A tool's evaluators taken together, as the decision needs them (docs/approvals.md, "Deciding a gated call"
//! rule 2 and "The card and its answer"). A tool without an evaluator allows standing approval, offers no
//! constraint and satisfies none.

use std::sync::Arc;

use serde_json::Value;

use super::email_domain::{self, OnTheEvent};
use super::{ArgEvaluator, EvalError, PreparedCall, Veto};
use crate::approval::model::Constraint;

/// `Ok` when every evaluator allows standing approval for the call; otherwise the first veto (an evaluator
/// that fails is one). `account` is the signed-in Google account, `None` when unknown (then every invitee
/// counts as outside: see [`super::email_domain::outside`]).
pub fn standing_approval(
    evaluators: &[Arc<dyn ArgEvaluator>],
    args: &Value,
    account: Option<&str>,
) -> Result<(), Veto> {
    evaluators.iter().try_for_each(|evaluator| evaluator.standing_approval(args, account))
}

/// [`standing_approval`], then the veto for the people on the event the call changes or cancels, when one
/// of the evaluators names such an event ([`event_told`]): `on_event` is what the gate read of them, `None`
/// when it read nothing (a veto then, so a decision without the read never lets a grant cover the call).
pub fn standing_approval_read(
    evaluators: &[Arc<dyn ArgEvaluator>],
    args: &Value,
    account: Option<&str>,
    on_event: Option<&OnTheEvent>,
) -> Result<(), Veto> {
    standing_approval(evaluators, args, account)?;
    match event_attendees(evaluators).next() {
        Some(_) => email_domain::event_attendees_veto(account, on_event).map_or(Ok(()), Err),
        None => Ok(()),
    }
}

/// The event (calendar id, event id) whose attendees Google emails about the call, when an evaluator names
/// one: the gate reads them before deciding.
pub fn event_told(evaluators: &[Arc<dyn ArgEvaluator>], args: &Value) -> Option<(String, String)> {
    event_attendees(evaluators).find_map(|evaluator| evaluator.event_told(args))
}

/// The tool's evaluators of the event's attendees, picked by kind: nothing parses the arguments of the
/// (many) tools that have none, on every gated call.
fn event_attendees(evaluators: &[Arc<dyn ArgEvaluator>]) -> impl Iterator<Item = &Arc<dyn ArgEvaluator>> {
    evaluators.iter().filter(|evaluator| evaluator.kind() == email_domain::EVENT_ATTENDEES)
}

/// The constraint the card may offer: the proposal of the tool's only constraining evaluator. A tool claimed
/// by several constraining evaluators (a copy from a file into a folder) offers none, even when only one of
/// them proposes for this call: a grant limited to one of its targets would leave the other open without
/// the card saying so. Evaluators that only veto don't count. Any evaluator failing is an error.
pub fn offered_constraint(evaluators: &[Arc<dyn ArgEvaluator>], args: &Value) -> Result<Option<Constraint>, EvalError> {
    let mut proposals = Vec::new();
    for evaluator in evaluators {
        let proposal = evaluator.propose(args)?;
        if evaluator.constrains() {
            proposals.push(proposal);
        }
    }
    Ok(match <[_; 1]>::try_from(proposals) {
        Ok([only]) => only,
        Err(_) => None,
    })
}

/// Whether the call satisfies `constraint`: at least one evaluator of its kind exists and every one of that
/// kind says so (a `spreadsheet` constraint on a copy between two spreadsheets holds only when both are that
/// spreadsheet). A constraint no evaluator of the tool knows is never satisfied.
pub fn satisfied(
    evaluators: &[Arc<dyn ArgEvaluator>],
    constraint: &Constraint,
    args: &Value,
) -> Result<bool, EvalError> {
    let mut judged = false;
    for evaluator in evaluators.iter().filter(|evaluator| evaluator.kind() == constraint.kind) {
        if !evaluator.satisfies(constraint, args)? {
            return Ok(false);
        }
        judged = true;
    }
    Ok(judged)
}

/// [`satisfied`] over arguments prepared once ([`ArgEvaluator::prepare`]): the same rule, without parsing
/// the arguments again for each constraint.
pub fn satisfied_prepared(prepared: &[Box<dyn PreparedCall + '_>], constraint: &Constraint) -> Result<bool, EvalError> {
    let mut judged = false;
    for call in prepared.iter().filter(|call| call.kind() == constraint.kind) {
        if !call.satisfies(constraint)? {
            return Ok(false);
        }
        judged = true;
    }
    Ok(judged)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::approval::evaluator::Evaluator;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Copy {
        from: String,
        into: String,
        #[serde(default)]
        folder: Option<String>,
        #[serde(default)]
        forever: bool,
    }

    fn constraint(kind: &str, value: &str) -> Constraint {
        Constraint { kind: kind.to_owned(), value: value.to_owned() }
    }

    fn copy_between_spreadsheets() -> Vec<Arc<dyn ArgEvaluator>> {
        vec![
            Evaluator::spreadsheet(|a: &Copy| &a.from).bind("copy"),
            Evaluator::spreadsheet(|a: &Copy| &a.into).bind("copy"),
        ]
    }

    #[test]
    fn no_evaluator_allows_and_offers_nothing() {
        let none: Vec<Arc<dyn ArgEvaluator>> = Vec::new();
        assert_eq!(standing_approval(&none, &json!({}), None), Ok(()));
        assert_eq!(offered_constraint(&none, &json!({})).unwrap(), None);
        assert!(!satisfied(&none, &constraint("file", "F"), &json!({})).unwrap());
    }

    #[test]
    fn several_constraining_evaluators_offer_nothing_and_all_must_hold() {
        let evaluators = copy_between_spreadsheets();
        let same = json!({ "from": "S", "into": "S" });
        assert_eq!(offered_constraint(&evaluators, &same).unwrap(), None, "even when they agree");
        assert!(satisfied(&evaluators, &constraint("spreadsheet", "S"), &same).unwrap());
        let out = json!({ "from": "S", "into": "T" });
        assert!(!satisfied(&evaluators, &constraint("spreadsheet", "S"), &out).unwrap());
        assert!(!satisfied(&evaluators, &constraint("spreadsheet", "T"), &out).unwrap());
    }

    #[test]
    fn a_failing_evaluator_fails_the_whole() {
        let evaluators = copy_between_spreadsheets();
        let bad = json!({ "from": "S", "into": "" });
        assert_eq!(standing_approval(&evaluators, &bad, None).unwrap_err().evaluator, "spreadsheet");
        assert!(offered_constraint(&evaluators, &bad).is_err());
        assert!(satisfied(&evaluators, &constraint("spreadsheet", "S"), &bad).is_err());
    }

    #[test]
    fn a_veto_beside_a_target_leaves_the_target_offered() {
        let evaluators = vec![
            Evaluator::spreadsheet(|a: &Copy| &a.from).bind("move"),
            Evaluator::veto_when("forever", "Forever always asks.", |a: &Copy| a.forever).bind("move"),
        ];
        let args = json!({ "from": "S", "into": "T" });
        assert_eq!(standing_approval(&evaluators, &args, None), Ok(()));
        assert_eq!(offered_constraint(&evaluators, &args).unwrap(), Some(constraint("spreadsheet", "S")));
        let forever = json!({ "from": "S", "into": "T", "forever": true });
        assert_eq!(standing_approval(&evaluators, &forever, None).unwrap_err().reason, "Forever always asks.");
    }

    #[test]
    fn one_proposal_among_two_claims_is_still_not_offered() {
        let evaluators = vec![
            Evaluator::file(|a: &Copy| &a.from).bind("copy_file"),
            Evaluator::folder_or_default(|a: &Copy| a.folder.as_deref()).bind("copy_file"),
        ];
        let args = json!({ "from": "F", "into": "x" });
        assert_eq!(evaluators[0].propose(&args).unwrap(), Some(constraint("file", "F")));
        assert_eq!(offered_constraint(&evaluators, &args).unwrap(), None);
        // A policy's constraint of either kind is still judged by its own evaluator.
        assert!(satisfied(&evaluators, &constraint("file", "F"), &args).unwrap());
        assert!(!satisfied(&evaluators, &constraint("folder", "D"), &args).unwrap());
    }
}
