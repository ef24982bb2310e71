//! Veto evaluators: calls that always ask, whatever grant exists, because the person could not take them
//! back (`transfer_ownership`, a permanent `delete_file`, `empty_trash`). They propose no constraint and
//! satisfy none; like every evaluator, they still read the arguments as the tool does, so arguments the tool
//! would reject are a veto too.

use serde::de::DeserializeOwned;

use super::{Evaluator, VetoOnly, VetoOnlyRule};

pub const TRANSFER_OWNERSHIP: &str = "Transferring ownership always asks: it cannot be undone by you.";
pub const PERMANENT_DELETE: &str =
    "Deleting a file permanently always asks: it skips the trash, so it cannot be undone.";
pub const EMPTY_TRASH: &str =
    "Emptying the trash always asks: every file in it is deleted for good and cannot be restored.";

type When<A> = Box<dyn Fn(&A) -> bool + Send + Sync>;

struct VetoRule<A> {
    name: &'static str,
    reason: &'static str,
    when: When<A>,
}

impl<A> VetoOnlyRule<A> for VetoRule<A> {
    fn kind(&self) -> &'static str {
        self.name
    }

    fn veto(&self, args: &A, _account: Option<&str>) -> Option<String> {
        (self.when)(args).then(|| self.reason.to_owned())
    }
}

impl<A: DeserializeOwned + 'static> Evaluator<A> {
    /// Vetoes standing approval, with `reason`, for the calls `when` picks; named `name` (its kind).
    pub fn veto_when(
        name: &'static str,
        reason: &'static str,
        when: impl Fn(&A) -> bool + Send + Sync + 'static,
    ) -> Self {
        Self::from_rule(VetoOnly(VetoRule { name, reason, when: Box::new(when) }))
    }

    /// Vetoes standing approval for every call of the tool.
    pub fn always_ask(name: &'static str, reason: &'static str) -> Self {
        Self::veto_when(name, reason, |_| true)
    }

    /// `transfer_ownership`: always asks.
    pub fn transfer_ownership() -> Self {
        Self::always_ask("transfer_ownership", TRANSFER_OWNERSHIP)
    }

    /// A delete that `permanent` says skips the trash always asks; one into the trash may be granted.
    pub fn permanent_delete(permanent: impl Fn(&A) -> bool + Send + Sync + 'static) -> Self {
        Self::veto_when("permanent_delete", PERMANENT_DELETE, permanent)
    }

    /// `empty_trash`: always asks. Ready for when the tool is declared.
    pub fn empty_trash() -> Self {
        Self::always_ask("empty_trash", EMPTY_TRASH)
    }
}

#[cfg(test)]
mod tests {
    use crate::approval::model::Constraint;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoArgs {}

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct DeleteArgs {
        #[serde(default)]
        permanent: bool,
    }

    #[test]
    fn empty_trash_always_asks_and_offers_nothing() {
        let e = Evaluator::<NoArgs>::empty_trash().bind("empty_trash");
        assert_eq!(e.kind(), "empty_trash");
        assert!(!e.constrains());
        let veto = e.standing_approval(&json!({}), None).unwrap_err();
        assert_eq!(veto.evaluator, "empty_trash");
        assert_eq!(veto.reason, EMPTY_TRASH);
        assert_eq!(e.propose(&json!({})).unwrap(), None);
        let any = Constraint { kind: "empty_trash".into(), value: String::new() };
        assert!(!e.satisfies(&any, &json!({})).unwrap());
    }

    #[test]
    fn arguments_the_tool_rejects_are_a_veto_too() {
        let e = Evaluator::<NoArgs>::empty_trash().bind("empty_trash");
        let veto = e.standing_approval(&json!({ "surprise": 1 }), None).unwrap_err();
        assert!(veto.reason.contains("could not be checked"), "{veto}");
        assert!(veto.reason.contains("surprise"), "{veto}");
        assert!(e.propose(&json!({ "surprise": 1 })).is_err());
    }

    #[test]
    fn a_conditional_veto_lets_the_other_calls_through() {
        let e = Evaluator::permanent_delete(|a: &DeleteArgs| a.permanent).bind("delete");
        assert_eq!(e.standing_approval(&json!({}), None), Ok(()));
        assert_eq!(e.standing_approval(&json!({ "permanent": true }), None).unwrap_err().reason, PERMANENT_DELETE);
        assert!(e.standing_approval(&json!({ "permanent": "yes" }), None).is_err());
    }
}
