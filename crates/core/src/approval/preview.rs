//! A card's preview of the change: what Google holds now and what the call would make of it, read before
//! the card shows (docs/approvals.md, "The preview"). A tool declares how its preview is read next to its
//! declaration (`ToolDef::previewed`); the gate reads it within [`PREVIEW_WITHIN`], shows the card without
//! it when Google is slower and fills it in when it comes, and never waits on it to take the answer.
//!
//! Everything in a preview comes from Google or the assistant: it is data to show, escaped like the rest of
//! the card ([`Preview::shown`]), never words to follow.

use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// A preview being read from Google; the error in words for the card.
pub type PreviewRead = BoxFuture<'static, Result<Preview, String>>;

/// How long the card waits for its preview before showing without it.
pub const PREVIEW_WITHIN: Duration = Duration::from_millis(1500);

/// How long a preview still on its way is waited for after the card showed: past this, the card says it
/// could not be read.
pub const PREVIEW_AT_MOST: Duration = Duration::from_secs(20);

/// The most cells a cell preview lists; the rest are counted.
pub const MAX_CELLS: usize = 20;

/// Longest text a preview keeps of one value.
pub const MAX_TEXT: usize = 200;

/// One cell of a cell write: its address, what it holds now and what it would hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellChange {
    /// `A1`.
    pub cell: String,
    /// As Google shows it now (formatted); empty for an empty cell.
    pub before: String,
    /// As the call sends it.
    pub after: String,
}

/// What a card previews of the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    /// A cell write: the first [`MAX_CELLS`] cells before → after, and how many more the call sets.
    Cells { cells: Vec<CellChange>, more: usize },
    /// A delete: what goes, and whether to the trash or for good.
    Removal {
        name: String,
        /// "Google Sheets spreadsheet", "folder", "PDF file".
        what: String,
        /// "1.2 MB", when Drive says.
        size: Option<String>,
        /// For a folder, how many items it holds directly (counted up to a bound: `items_more` when more).
        items: Option<usize>,
        items_more: bool,
        permanent: bool,
    },
    /// Sharing: who has access now, so the person sees what changes.
    Sharing { now: Vec<String>, more: usize },
    /// Mail: whom it goes to, its subject and its first lines.
    Mail { to: Vec<String>, cc: Vec<String>, bcc: Vec<String>, subject: String, first_lines: String },
    /// Something as it is now and as the call leaves it, in words (a name, where a file is, an event's
    /// fields, one per line).
    Text { before: String, after: String },
}

impl Preview {
    /// Whether the call must find its target as this preview showed it before it runs: a cell write whose
    /// cells changed since the person saw them asks again (docs/approvals.md).
    pub fn guards_the_target(&self) -> bool {
        matches!(self, Preview::Cells { .. })
    }

    /// The preview with every text in it escaped ([`crate::shown::shown`]), for a page that shows text as
    /// text.
    pub fn shown(&self) -> Preview {
        let text = |text: &str| crate::shown::shown(text).into_owned();
        let all = |list: &[String]| list.iter().map(|item| text(item)).collect::<Vec<_>>();
        // Line breaks are what some texts are made of (a mail's first lines, an event's fields): kept, and
        // everything else escaped.
        let lines = |lines: &str| lines.split('\n').map(text).collect::<Vec<_>>().join("\n");
        match self {
            Preview::Cells { cells, more } => Preview::Cells {
                cells: cells
                    .iter()
                    .map(|cell| CellChange {
                        cell: text(&cell.cell),
                        before: text(&cell.before),
                        after: text(&cell.after),
                    })
                    .collect(),
                more: *more,
            },
            Preview::Removal { name, what, size, items, items_more, permanent } => Preview::Removal {
                name: text(name),
                what: text(what),
                size: size.as_deref().map(text),
                items: *items,
                items_more: *items_more,
                permanent: *permanent,
            },
            Preview::Sharing { now, more } => Preview::Sharing { now: all(now), more: *more },
            Preview::Mail { to, cc, bcc, subject, first_lines } => Preview::Mail {
                to: all(to),
                cc: all(cc),
                bcc: all(bcc),
                subject: text(subject),
                first_lines: lines(first_lines),
            },
            Preview::Text { before, after } => Preview::Text { before: lines(before), after: lines(after) },
        }
    }
}

/// Where a card's preview stands.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PreviewState {
    /// The tool has no preview (or the card is Google's form).
    #[default]
    None,
    /// Being read from Google: the card shows without it and fills it in.
    Reading,
    Ready {
        preview: Preview,
    },
    /// It could not be read; the card says so, and the person decides without it.
    Unread {
        why: String,
    },
}

impl PreviewState {
    /// The state as a page shows it (see [`Preview::shown`]).
    pub fn shown(&self) -> PreviewState {
        match self {
            PreviewState::Ready { preview } => PreviewState::Ready { preview: preview.shown() },
            PreviewState::Unread { why } => PreviewState::Unread { why: crate::shown::shown(why).into_owned() },
            other => other.clone(),
        }
    }

    /// The state a read ended in.
    pub fn of(read: Result<Preview, String>) -> PreviewState {
        match read {
            Ok(preview) => PreviewState::Ready { preview },
            Err(why) => PreviewState::Unread { why },
        }
    }
}

/// `text` cut to [`MAX_TEXT`] characters, with `…` when cut.
pub fn cut(text: &str) -> String {
    let mut kept: String = text.chars().take(MAX_TEXT).collect();
    if text.chars().count() > MAX_TEXT {
        kept.push('…');
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_as_shown_has_its_texts_escaped_and_keeps_the_mails_line_breaks() {
        let mail = Preview::Mail {
            to: vec!["a@x.com\u{202e}".into()],
            cc: vec![],
            bcc: vec![],
            subject: "Hi\nthere".into(),
            first_lines: "Line one\u{200f}\nLine two".into(),
        };
        let Preview::Mail { to, subject, first_lines, .. } = mail.shown() else { panic!() };
        assert_eq!((to[0].as_str(), subject.as_str()), ("a@x.com\\u{202e}", "Hi\\nthere"));
        assert_eq!(first_lines, "Line one\\u{200f}\nLine two");
        assert!(Preview::Cells { cells: vec![], more: 0 }.guards_the_target());
    }

    #[test]
    fn a_state_reads_as_the_page_expects_it() {
        let ready = PreviewState::of(Ok(Preview::Cells {
            cells: vec![CellChange { cell: "A1".into(), before: "".into(), after: "x".into() }],
            more: 3,
        }));
        assert_eq!(
            serde_json::to_value(&ready).unwrap(),
            serde_json::json!({"state": "ready", "preview": {"kind": "cells", "more": 3,
                "cells": [{"cell": "A1", "before": "", "after": "x"}]}})
        );
        assert_eq!(serde_json::to_value(PreviewState::Reading).unwrap(), serde_json::json!({"state": "reading"}));
    }
}
