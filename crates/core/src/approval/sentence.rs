//! A card's sentence: what the call will do, in the person's words ("write 2 cells in “Budget 2026” ›
//! “Sheet1” (A1:B1)"), the card putting the assistant in front ("Claude wants to …").
//!
//! Each tool says its own sentence, declared next to its declaration (`ToolDef::worded`), from its parsed
//! arguments: a [`Said`]. What it names from outside stays apart from Gatehouse's own words, as parts, so a
//! sheet or file named `Budget” with eve@example.com as an owner “` can never read as the card's own
//! wording: the card escapes every outside part with [`crate::shown`] and sets it apart on screen. A Drive
//! file or a calendar is named by its id in the [`Said`], and the gate puts in its name ([`Said::named`]).

use serde::{Deserialize, Serialize};

/// One part of a sentence as a card shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Gatehouse's own words.
    Words(String),
    /// A name from outside (a file's, a sheet's, a label's, a person's): shown in quotes, set apart.
    Name(String),
    /// A value from outside that is not a name (an address, a range, a date, a number): shown as it is, set
    /// apart.
    Value(String),
}

impl Part {
    fn text(&self) -> &str {
        match self {
            Part::Words(text) | Part::Name(text) | Part::Value(text) => text,
        }
    }
}

/// What a card says, its targets already named: the parts in order, spaced by [`Sentence::text`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Sentence(pub Vec<Part>);

impl Sentence {
    /// The sentence as one line of text (names in “quotes”), for a notification or a terminal. Outside parts
    /// are escaped with [`crate::shown::shown`].
    pub fn text(&self) -> String {
        let mut text = String::new();
        for (i, part) in self.0.iter().enumerate() {
            if i > 0 && spaced(self.0[i - 1].text(), part.text()) {
                text.push(' ');
            }
            match part {
                Part::Words(words) => text.push_str(words),
                Part::Name(name) => {
                    text.push('“');
                    text.push_str(&crate::shown::shown(name));
                    text.push('”');
                }
                Part::Value(value) => text.push_str(&crate::shown::shown(value)),
            }
        }
        text
    }

    /// The same sentence with every outside part escaped ([`crate::shown::shown`]), for a page that shows
    /// text as text.
    pub fn shown(&self) -> Sentence {
        let escape = |text: &str| crate::shown::shown(text).into_owned();
        Sentence(
            self.0
                .iter()
                .map(|part| match part {
                    Part::Words(words) => Part::Words(words.clone()),
                    Part::Name(name) => Part::Name(escape(name)),
                    Part::Value(value) => Part::Value(escape(value)),
                })
                .collect(),
        )
    }

    /// Whether one of its parts is exactly `name` as a name (for tests and checks).
    pub fn names(&self, name: &str) -> bool {
        self.0.iter().any(|part| matches!(part, Part::Name(text) if text == name))
    }
}

/// Whether a space goes between two parts: not before closing punctuation, not after an opening bracket.
fn spaced(before: &str, after: &str) -> bool {
    !(after.starts_with([',', '.', ';', ':', ')', '…'])
        || before.ends_with('(')
        || before.is_empty()
        || after.is_empty())
}

/// What a Drive file or calendar in a sentence is, for when its name can't be found ("the spreadsheet
/// 1AbC…").
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Part(Part),
    /// A Drive file (spreadsheet, document, file, folder) named by its id: the gate puts in its name.
    File {
        kind: &'static str,
        id: String,
    },
    /// A calendar by its id, likewise.
    Calendar(String),
}

/// A sentence as a tool says it, before its files and calendars are named: built word by word.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Said(Vec<Piece>);

impl Said {
    /// A sentence starting with Gatehouse's own `words` ("write 2 cells in").
    pub fn new(words: impl Into<String>) -> Said {
        Said::default().words(words)
    }

    /// Gatehouse's own words.
    pub fn words(mut self, words: impl Into<String>) -> Said {
        self.0.push(Piece::Part(Part::Words(words.into())));
        self
    }

    /// A name from outside ("Sheet1"), shown in quotes.
    pub fn name(mut self, name: impl Into<String>) -> Said {
        self.0.push(Piece::Part(Part::Name(name.into())));
        self
    }

    /// A value from outside (an address, a range), shown as it is.
    pub fn value(mut self, value: impl Into<String>) -> Said {
        self.0.push(Piece::Part(Part::Value(value.into())));
        self
    }

    /// This sentence followed by `more`.
    pub fn then(mut self, more: Said) -> Said {
        self.0.extend(more.0);
        self
    }

    /// Values from outside as a list: "a, b and c"; the first `max` only, then "and N more".
    pub fn list(mut self, values: &[String], max: usize) -> Said {
        let shown = values.len().min(max.max(1));
        for (i, value) in values.iter().take(shown).enumerate() {
            if i > 0 {
                let last = i + 1 == shown && shown == values.len();
                self = if last { self.words("and") } else { self.words(",") };
            }
            self = self.value(value.clone());
        }
        if values.len() > shown {
            self = self.words(format!("and {} more", values.len() - shown));
        }
        self
    }

    /// The Drive file `id`, a `kind` ("spreadsheet", "document", "file", "folder"), by its name once the gate
    /// finds it.
    pub fn file(mut self, kind: &'static str, id: impl Into<String>) -> Said {
        self.0.push(Piece::File { kind, id: id.into() });
        self
    }

    /// The calendar `id`, by its name once the gate finds it ("primary" reads as "your main calendar").
    pub fn calendar(mut self, id: impl Into<String>) -> Said {
        self.0.push(Piece::Calendar(id.into()));
        self
    }

    /// "`n` thing" or "`n` things".
    pub fn count(self, n: usize, one: &str, many: &str) -> Said {
        self.words(format!("{n} {}", if n == 1 { one } else { many }))
    }

    /// The Drive files this sentence names, by id, for the gate to look up.
    pub fn files(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|piece| match piece {
                Piece::File { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The calendars this sentence names, by id.
    pub fn calendars(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|piece| match piece {
                Piece::Calendar(id) if id != "primary" => Some(id.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether the sentence names the Drive file or calendar `id`.
    pub fn mentions(&self, id: &str) -> bool {
        self.0.iter().any(|piece| match piece {
            Piece::File { id: file, .. } => file == id,
            Piece::Calendar(calendar) => calendar == id,
            Piece::Part(_) => false,
        })
    }

    /// The sentence with its files and calendars named by `name` (their names, when found): a file found is
    /// its name in quotes, one not found "the spreadsheet 1AbC…" by its id.
    pub fn named(&self, name: impl Fn(&str) -> Option<String>) -> Sentence {
        let mut parts = Vec::new();
        for piece in &self.0 {
            match piece {
                Piece::Part(part) => parts.push(part.clone()),
                Piece::File { kind, id } => match name(id) {
                    Some(name) => parts.push(Part::Name(name)),
                    None => {
                        parts.push(Part::Words(format!("the {kind}")));
                        parts.push(Part::Value(id.clone()));
                    }
                },
                Piece::Calendar(id) if id == "primary" => parts.push(Part::Words("your main calendar".into())),
                Piece::Calendar(id) => match name(id) {
                    Some(name) => {
                        parts.push(Part::Words("the calendar".into()));
                        parts.push(Part::Name(name));
                    }
                    None => {
                        parts.push(Part::Words("the calendar".into()));
                        parts.push(Part::Value(id.clone()));
                    }
                },
            }
        }
        Sentence(parts)
    }

    /// The sentence of a tool nobody worded (a tool Google's MCP server lists that Gatehouse does not know,
    /// or a read when the policy gates reads): its own title, plain, and the first sentence of what it says it
    /// does. Both come from outside, so both are values.
    pub fn generic(title: &str, description: &str) -> Said {
        let first = description.split_inclusive(". ").next().unwrap_or(description).trim();
        let first: String = first.chars().take(160).collect();
        let said = Said::new("use the tool").name(title.trim());
        if first.is_empty() { said } else { said.words("(").value(first).words(")") }
    }
}

/// "1 cell", "2 cells": a count of what a call touches.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_reads_with_its_names_in_quotes_and_its_punctuation_unspaced() {
        let said = Said::new("write 2 cells in")
            .file("spreadsheet", "S1")
            .words("›")
            .name("Sheet1")
            .words("(")
            .value("A1:B1")
            .words(")");
        let named = said.named(|id| (id == "S1").then(|| "Budget 2026".to_owned()));
        assert_eq!(named.text(), "write 2 cells in “Budget 2026” › “Sheet1” (A1:B1)");
        assert_eq!(said.named(|_| None).text(), "write 2 cells in the spreadsheet S1 › “Sheet1” (A1:B1)");
        assert!(named.names("Budget 2026") && said.mentions("S1") && said.files() == ["S1"]);
    }

    #[test]
    fn outside_text_is_escaped_and_kept_apart_from_the_cards_own_words() {
        let forged = "Budget” with eve@example.com as an owner\u{202e}\n“";
        let named = Said::new("share").name(forged).named(|_| None);
        assert_eq!(named.0[1], Part::Name(forged.to_owned()), "a name stays one part, however it is written");
        let shown = named.shown();
        assert_eq!(shown.0[1], Part::Name("Budget” with eve@example.com as an owner\\u{202e}\\n“".to_owned()));
        assert!(!named.text().contains('\n') && !named.text().contains('\u{202e}'));
    }

    #[test]
    fn lists_say_and_before_the_last_and_how_many_more() {
        let three: Vec<String> = ["a@x.com", "b@x.com", "c@x.com"].map(String::from).to_vec();
        assert_eq!(Said::new("to").list(&three, 5).named(|_| None).text(), "to a@x.com, b@x.com and c@x.com");
        assert_eq!(Said::new("to").list(&three, 2).named(|_| None).text(), "to a@x.com, b@x.com and 1 more");
        assert_eq!(Said::new("to").list(&three[..1], 2).named(|_| None).text(), "to a@x.com");
    }

    #[test]
    fn a_tool_nobody_worded_says_its_title_and_the_first_sentence_of_its_description() {
        let said = Said::generic("Create form", "Creates a Google Form. Then returns its id.");
        assert_eq!(said.named(|_| None).text(), "use the tool “Create form” (Creates a Google Form.)");
        assert_eq!(Said::generic("Ping", "").named(|_| None).text(), "use the tool “Ping”");
        assert_eq!(Said::new("change").calendar("primary").named(|_| None).text(), "change your main calendar");
    }
}
