//! Target evaluators: the one spreadsheet, document, file, folder or calendar a call works on, named by an id in its
//! arguments. A grant limited to a target covers only calls naming that same id.
//!
//! Ids are compared exactly as given: the tool sends them to Google unchanged, so an id the evaluator would
//! tidy up could name something else than the one the tool reaches.

use serde::de::DeserializeOwned;

use super::{Evaluator, Rule};
use crate::approval::model::Constraint;

/// What a target evaluator limits grants to; its constraint kind is [`Target::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Spreadsheet,
    Document,
    File,
    /// The folder a call creates, copies, uploads or moves into.
    Folder,
    /// A Google Calendar: the one a call adds events to, changes or shares.
    Calendar,
}

impl Target {
    pub const fn kind(self) -> &'static str {
        match self {
            Target::Spreadsheet => "spreadsheet",
            Target::Document => "document",
            Target::File => "file",
            Target::Folder => "folder",
            Target::Calendar => "calendar",
        }
    }

    /// The target whose constraint kind is `kind`, if any.
    pub fn of_kind(kind: &str) -> Option<Self> {
        [Target::Spreadsheet, Target::Document, Target::File, Target::Folder, Target::Calendar]
            .into_iter()
            .find(|target| target.kind() == kind)
    }

    /// The words before the id on a card ([`super::constraint_words`]).
    pub(super) const fn words(self) -> &'static str {
        match self {
            Target::Spreadsheet => "only this spreadsheet",
            Target::Document => "only this document",
            Target::File => "only this file",
            Target::Folder => "only into this folder",
            Target::Calendar => "only this calendar",
        }
    }
}

type Required<A> = Box<dyn for<'a> Fn(&'a A) -> &'a str + Send + Sync>;
type Optional<A> = Box<dyn for<'a> Fn(&'a A) -> Option<&'a str> + Send + Sync>;

/// Where the id comes from.
enum Pick<A> {
    /// An argument the tool requires: an empty one cannot be judged.
    Required(Required<A>),
    /// An optional folder whose absence means a default the arguments don't name (the configured
    /// `DRIVE_FOLDER_ID`, else the top of My Drive or next to the original). Absent or blank, the call
    /// proposes no constraint and satisfies none: a grant "only into this folder" never covers a call that
    /// leaves the choice to configuration. Proposing `root` instead would be wrong whenever a default folder
    /// is configured, and the evaluator cannot see the configuration.
    OrDefault(Optional<A>),
}

struct TargetRule<A> {
    target: Target,
    pick: Pick<A>,
}

impl<A> TargetRule<A> {
    /// The id the call names; `None` when an optional folder is left to the default.
    fn id<'a>(&self, args: &'a A) -> Result<Option<&'a str>, String> {
        match &self.pick {
            Pick::Required(pick) => {
                let id = pick(args);
                if id.trim().is_empty() {
                    Err(format!("the {} id is empty; the tool needs one.", self.target.kind()))
                } else {
                    Ok(Some(id))
                }
            }
            Pick::OrDefault(pick) => Ok(pick(args).filter(|id| !id.trim().is_empty())),
        }
    }
}

impl<A> Rule<A> for TargetRule<A> {
    fn kind(&self) -> &'static str {
        self.target.kind()
    }

    fn propose(&self, args: &A) -> Result<Option<Constraint>, String> {
        Ok(self.id(args)?.map(|id| Constraint { kind: self.kind().to_owned(), value: id.to_owned() }))
    }

    fn satisfies(&self, constraint: &Constraint, args: &A) -> Result<bool, String> {
        let id = self.id(args)?;
        Ok(constraint.kind == self.kind() && id == Some(constraint.value.as_str()))
    }
}

impl<A: DeserializeOwned + 'static> Evaluator<A> {
    fn target(target: Target, pick: Pick<A>) -> Self {
        Self::from_rule(TargetRule { target, pick })
    }

    /// Limits grants to the spreadsheet whose id `pick` reads from the arguments.
    pub fn spreadsheet(pick: impl for<'a> Fn(&'a A) -> &'a str + Send + Sync + 'static) -> Self {
        Self::target(Target::Spreadsheet, Pick::Required(Box::new(pick)))
    }

    /// Limits grants to the Google Doc whose id `pick` reads from the arguments.
    pub fn document(pick: impl for<'a> Fn(&'a A) -> &'a str + Send + Sync + 'static) -> Self {
        Self::target(Target::Document, Pick::Required(Box::new(pick)))
    }

    /// Limits grants to the Drive file (or folder, as the thing acted on) whose id `pick` reads.
    pub fn file(pick: impl for<'a> Fn(&'a A) -> &'a str + Send + Sync + 'static) -> Self {
        Self::target(Target::File, Pick::Required(Box::new(pick)))
    }

    /// Limits grants to the folder a call puts something into, named by a required argument.
    pub fn folder(pick: impl for<'a> Fn(&'a A) -> &'a str + Send + Sync + 'static) -> Self {
        Self::target(Target::Folder, Pick::Required(Box::new(pick)))
    }

    /// Limits grants to the calendar whose id `pick` reads from the arguments.
    pub fn calendar(pick: impl for<'a> Fn(&'a A) -> &'a str + Send + Sync + 'static) -> Self {
        Self::target(Target::Calendar, Pick::Required(Box::new(pick)))
    }

    /// Limits grants to the folder a call puts something into, named by an optional argument whose absence
    /// means a configured default. Such a call proposes no constraint and satisfies no folder constraint
    /// (see the module docs): the folder it reaches is not in its arguments.
    pub fn folder_or_default(pick: impl for<'a> Fn(&'a A) -> Option<&'a str> + Send + Sync + 'static) -> Self {
        Self::target(Target::Folder, Pick::OrDefault(Box::new(pick)))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::approval::evaluator::EvalError;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        sheet_id: String,
        #[serde(default)]
        folder: Option<String>,
    }

    fn constraint(kind: &str, value: &str) -> Constraint {
        Constraint { kind: kind.to_owned(), value: value.to_owned() }
    }

    #[test]
    fn a_required_id_is_proposed_and_checked_exactly() {
        let e = Evaluator::spreadsheet(|a: &Args| &a.sheet_id).bind("t");
        let args = json!({ "sheet_id": "S1" });
        assert_eq!(e.standing_approval(&args, None), Ok(()));
        assert_eq!(e.propose(&args).unwrap(), Some(constraint("spreadsheet", "S1")));
        assert!(e.satisfies(&constraint("spreadsheet", "S1"), &args).unwrap());
        assert!(!e.satisfies(&constraint("spreadsheet", "S2"), &args).unwrap());
        assert!(!e.satisfies(&constraint("spreadsheet", "s1"), &args).unwrap());
        assert!(!e.satisfies(&constraint("folder", "S1"), &args).unwrap(), "another kind never satisfies");
        assert!(!e.satisfies(&constraint("spreadsheet", "S1"), &json!({ "sheet_id": " S1" })).unwrap());
    }

    #[test]
    fn an_empty_required_id_cannot_be_judged() {
        let e = Evaluator::file(|a: &Args| &a.sheet_id).bind("t");
        let args = json!({ "sheet_id": "  " });
        assert!(matches!(e.propose(&args), Err(EvalError::Unjudgeable { evaluator: "file", .. })));
        assert!(e.satisfies(&constraint("file", "  "), &args).is_err());
        let veto = e.standing_approval(&args, None).unwrap_err();
        assert_eq!(veto.evaluator, "file");
        assert!(veto.reason.contains("file id is empty"), "{veto}");
    }

    #[test]
    fn an_absent_optional_folder_proposes_nothing_and_satisfies_nothing() {
        let e = Evaluator::folder_or_default(|a: &Args| a.folder.as_deref()).bind("t");
        for args in [json!({ "sheet_id": "S" }), json!({ "sheet_id": "S", "folder": " " })] {
            assert_eq!(e.standing_approval(&args, None), Ok(()));
            assert_eq!(e.propose(&args).unwrap(), None);
            assert!(!e.satisfies(&constraint("folder", "root"), &args).unwrap());
            assert!(!e.satisfies(&constraint("folder", " "), &args).unwrap());
        }
        let args = json!({ "sheet_id": "S", "folder": "F1" });
        assert_eq!(e.propose(&args).unwrap(), Some(constraint("folder", "F1")));
        assert!(e.satisfies(&constraint("folder", "F1"), &args).unwrap());
    }

    #[test]
    fn cards_say_what_the_limit_is() {
        let words = |kind, id| super::super::constraint_words(&constraint(kind, id));
        assert_eq!(words("spreadsheet", "1AbCdEfGhIjK"), "only this spreadsheet (1AbCdE…)");
        assert_eq!(words("document", "D1"), "only this document (D1)");
        assert_eq!(words("file", "F1"), "only this file (F1)");
        assert_eq!(words("folder", "root"), "only into this folder (root)");
        assert_eq!(words("calendar", "primary"), "only this calendar (primary)");
        // A kind no evaluator makes (a policy file's typo): the bare kind and id.
        assert_eq!(words("sheet", "1AbCdEfGhIjK"), "only sheet 1AbCdE…");
    }

    #[test]
    fn every_target_is_found_by_its_kind() {
        for target in [Target::Spreadsheet, Target::Document, Target::File, Target::Folder, Target::Calendar] {
            assert_eq!(Target::of_kind(target.kind()), Some(target));
        }
        assert_eq!(Target::of_kind("email_domain"), None);
    }
}
