//! The subset of Gmail's search syntax (`q`) the emulator understands. Terms are separated by spaces and
//! must all match (Gmail's implicit AND); `"quoted phrases"` are one term; a leading `-` negates a term.
//!
//! - `from:x`, `to:x` (To, Cc and Bcc), `cc:x`, `subject:x`: `x` appears in that header (any case);
//! - `is:unread`, `is:read`, `is:starred`, `is:important`;
//! - `label:name` (by label name or id, any case; `-` and `_` stand for spaces, as in Gmail), `in:inbox`,
//!   `in:sent`, `in:trash`, `in:spam`, `in:drafts`, `in:anywhere`;
//! - `has:attachment`;
//! - anything else: words looked for in the subject, the senders and recipients, and the plain-text body.
//!
//! `OR`, braces, dates (`after:`, `before:`, `newer_than:`) and sizes are not understood: such a term is
//! matched as a plain word, so it finds nothing rather than everything.

use super::mime::Part;
use super::{Label, Message};

/// One term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Header(&'static [&'static str], String),
    Label(String),
    HasAttachment,
    /// `in:anywhere`: lifts the default exclusion of spam and trash.
    Anywhere,
    Word(String),
}

/// A parsed `q`.
#[derive(Debug, Clone, Default)]
pub struct Query {
    terms: Vec<(bool, Term)>,
}

impl Query {
    pub fn parse(q: &str) -> Self {
        let mut terms = Vec::new();
        for token in tokens(q) {
            let (negated, token) = match token.strip_prefix('-') {
                Some(rest) if !rest.is_empty() => (true, rest.to_owned()),
                _ => (false, token),
            };
            let lower = token.to_lowercase();
            let term = match lower.split_once(':') {
                Some(("from", v)) => Term::Header(&["from"], v.to_owned()),
                Some(("to", v)) => Term::Header(&["to", "cc", "bcc"], v.to_owned()),
                Some(("cc", v)) => Term::Header(&["cc"], v.to_owned()),
                Some(("subject", v)) => Term::Header(&["subject"], v.trim_matches('"').to_owned()),
                Some(("is", "unread")) => Term::Label("UNREAD".into()),
                Some(("is", "read")) => {
                    terms.push((!negated, Term::Label("UNREAD".into())));
                    continue;
                }
                Some(("is", "starred")) => Term::Label("STARRED".into()),
                Some(("is", "important")) => Term::Label("IMPORTANT".into()),
                Some(("in", "anywhere")) => Term::Anywhere,
                Some(("in", "drafts")) => Term::Label("DRAFT".into()),
                Some(("in" | "label", v)) => Term::Label(v.to_owned()),
                Some(("has", "attachment")) => Term::HasAttachment,
                _ => Term::Word(lower.trim_matches('"').to_owned()),
            };
            terms.push((negated, term));
        }
        Self { terms }
    }

    /// Whether the query lifts Gmail's default exclusion of spam and trash (`in:anywhere`, `in:trash`,
    /// `in:spam`, `label:trash`).
    pub fn includes_spam_trash(&self) -> bool {
        self.terms.iter().any(|(negated, term)| {
            !negated
                && match term {
                    Term::Anywhere => true,
                    Term::Label(name) => matches!(name.as_str(), "trash" | "spam"),
                    _ => false,
                }
        })
    }

    /// Whether `message` (parsed as `part`) matches every term.
    pub(crate) fn matches(&self, message: &Message, part: &Part, labels: &[Label]) -> bool {
        self.terms.iter().all(|(negated, term)| term_matches(term, message, part, labels) != *negated)
    }
}

fn term_matches(term: &Term, message: &Message, part: &Part, labels: &[Label]) -> bool {
    match term {
        Term::Header(names, wanted) => names
            .iter()
            .filter_map(|name| part.header(name))
            .any(|value| value.to_lowercase().contains(wanted.as_str())),
        Term::Label(wanted) => {
            let spaced = wanted.replace(['-', '_'], " ");
            labels
                .iter()
                .filter(|label| {
                    label.id.eq_ignore_ascii_case(wanted)
                        || label.name.eq_ignore_ascii_case(wanted)
                        || label.name.eq_ignore_ascii_case(&spaced)
                })
                .any(|label| message.has_label(&label.id))
        }
        Term::HasAttachment => part.has_attachment(),
        Term::Anywhere => true,
        Term::Word(word) => {
            let mut haystack = String::new();
            for name in ["subject", "from", "to", "cc"] {
                if let Some(value) = part.header(name) {
                    haystack.push_str(value);
                    haystack.push('\n');
                }
            }
            haystack.push_str(&part.plain_text().unwrap_or_default());
            haystack.to_lowercase().contains(word.as_str())
        }
    }
}

/// Splits on spaces, keeping `"quoted phrases"` (also after `subject:`) together.
fn tokens(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for ch in q.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                current.push(ch);
            }
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gmail::mime;

    fn message(labels: &[&str]) -> Message {
        Message {
            id: "m".into(),
            thread_id: "m".into(),
            label_ids: labels.iter().map(|l| (*l).to_owned()).collect(),
            raw: Vec::new(),
            internal_date: 0,
            history_id: 1,
        }
    }

    fn labels() -> Vec<Label> {
        ["INBOX", "UNREAD", "TRASH"]
            .iter()
            .map(|id| Label { id: (*id).into(), name: (*id).into(), system: true })
            .chain([Label { id: "Label_1".into(), name: "Project X".into(), system: false }])
            .collect()
    }

    #[test]
    fn operators_and_words_all_apply() {
        let raw = "From: Alex <alex@example.com>\r\nTo: ada@example.com\r\nSubject: Quarterly budget\r\n\r\nNumbers attached.\r\n";
        let part = mime::parse(raw.as_bytes());
        let m = message(&["INBOX", "UNREAD", "Label_1"]);
        let labels = labels();
        let hit = |q: &str| Query::parse(q).matches(&m, &part, &labels);
        assert!(hit("from:alex subject:budget is:unread"));
        assert!(hit("label:project-x in:inbox numbers"));
        assert!(hit("\"quarterly budget\" to:ada@example.com"));
        assert!(!hit("is:read"));
        assert!(!hit("from:bob"));
        assert!(!hit("-label:inbox"));
        assert!(!hit("has:attachment"));
        assert!(Query::parse("in:trash").includes_spam_trash());
        assert!(!Query::parse("budget").includes_spam_trash());
    }
}
