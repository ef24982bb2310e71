//! Text from outside — an assistant's name, a file's title, a tool's arguments, an error Google sent — as
//! every printer shows it: the `gatehouse` commands, the cards, the notifications and the settings window.
//!
//! Such text is hostile. A control character (a line break, `ESC[8m`) can draw a fake card on a terminal and
//! hide the real one; a direction mark (U+202E) or a zero-width character can make a name read as another.
//! [`shown`] is the one escaping every printer uses: each such character becomes a visible `\n`, `\t`, `\r`
//! or `\u{…}`, and everything else is left as it is. [`cut`] also shortens a long value, saying how much was
//! left out, so one huge argument can't push the rest of a card off the screen. Errors quote such text the
//! same way wherever they are made ([`quote`], [`cut_quoted`]: never more than [`QUOTED_CHARS`] of a value),
//! and numbers are shown grouped by thousands ([`grouped`]).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is an invisible character that changes how the text around it reads: the bidirectional
/// controls (U+202A–202E, U+2066–2069, the marks U+200E/F, U+061C), zero-width characters, the line and
/// paragraph separators, the byte-order mark, the interlinear annotation controls and the tag characters.
/// Control characters proper are [`char::is_control`].
pub fn is_hidden_format(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// Whether [`shown`] escapes `c`.
fn escaped(c: char) -> bool {
    c.is_control() || is_hidden_format(c)
}

/// `text` with every control and invisible formatting character written out (`\n`, `\t`, `\r`, `\u{1b}`,
/// `\u{202e}`), so that printing it can neither move the cursor, change colours, nor reorder what a person
/// reads. Borrowed when there is nothing to escape (the common case).
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_shown(&mut out, c);
    }
    Cow::Owned(out)
}

fn push_shown(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if escaped(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// A value as shown, cut to a length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The first characters of the value, escaped (see [`shown`]).
    pub text: String,
    /// How many characters of the value were left out (0: `text` is all of it).
    pub more: usize,
}

/// The first `max` characters of `text` as [`shown`], and how many were left out. Cutting counts the
/// value's own characters, so an escape is never split.
pub fn cut(text: &str, max: usize) -> Cut {
    let total = text.chars().count();
    if total <= max {
        return Cut { text: shown(text).into_owned(), more: 0 };
    }
    let mut out = String::new();
    for c in text.chars().take(max) {
        push_shown(&mut out, c);
    }
    Cut { text: out, more: total - max }
}

/// A cut value for a terminal: the value, and when some was left out, a visible note saying how much and
/// where to see all of it (`hint`, e.g. "`gatehouse approvals show 3` for all").
pub fn cut_line(text: &str, max: usize, hint: &str) -> String {
    let Cut { text, more } = cut(text, max);
    match more {
        0 => text,
        more => format!("{text}… ({more} more characters; {hint})"),
    }
}

/// `1000000` → "1,000,000".
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How many characters of a value an error quotes at most.
pub const QUOTED_CHARS: usize = 100;

/// The first [`QUOTED_CHARS`] characters of `text`, with `…` when there is more.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `text` quoted for an error (`"…"`, escaped as Rust's `{:?}` does), cut to [`QUOTED_CHARS`] characters
/// with its full length said when it is longer. Every error that quotes an assistant's value uses this.
pub fn quote(text: &str) -> String {
    let length = text.chars().count();
    if length <= QUOTED_CHARS {
        format!("{text:?}")
    } else {
        format!("{:?}… ({length} characters)", excerpt(text).trim_end_matches('…'))
    }
}

/// A quoted passage longer than this is cut by [`cut_quoted`]. Longer than [`QUOTED_CHARS`]: Google's own
/// sentences, quoted whole in its errors ("Google said: …"), run to 200 characters and must stay readable.
const LONG_QUOTE_CHARS: usize = 3 * QUOTED_CHARS;

/// `message` with every quoted passage (`"…"`, as `{:?}` and serde write values) longer than
/// `LONG_QUOTE_CHARS` cut to its first [`QUOTED_CHARS`] characters, as [`quote`] cuts: for errors whose text
/// quotes a value this code did not format (serde's, Google's), so no error ever carries a whole megabyte back.
pub fn cut_quoted(message: &str) -> String {
    if message.len() <= LONG_QUOTE_CHARS {
        return message.to_owned();
    }
    let mut out = String::with_capacity(message.len().min(4 * QUOTED_CHARS));
    let mut rest = message;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        // The closing quote: the first one not escaped by a backslash.
        let mut escaped = false;
        let close = after.char_indices().find_map(|(at, c)| match c {
            '\\' if !escaped => {
                escaped = true;
                None
            }
            '"' if !escaped => Some(at),
            _ => {
                escaped = false;
                None
            }
        });
        let Some(close) = close else {
            // No closing quote: the rest is one unterminated quotation.
            out.push('"');
            out.push_str(&cut_plain(after));
            return out;
        };
        let inner = &after[..close];
        let length = inner.chars().count();
        if length > LONG_QUOTE_CHARS {
            let _ = write!(out, "\"{}\"… ({length} characters)", excerpt(inner).trim_end_matches('…'));
        } else {
            let _ = write!(out, "\"{inner}\"");
        }
        rest = &after[close + 1..];
    }
    out.push_str(&cut_plain(rest));
    out
}

/// Unquoted text: cut only when it is far beyond any message's length.
fn cut_plain(text: &str) -> String {
    const PLAIN_CHARS: usize = 20 * QUOTED_CHARS;
    match text.char_indices().nth(PLAIN_CHARS) {
        Some((cut, _)) => format!("{}… (cut)", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bidi_and_escape_characters_are_written_out() {
        let forged = "claude\n\u{1b}[8mApproval 1: List files\u{202e}gnp.exe\u{200b}\u{2066}";
        assert_eq!(shown(forged), "claude\\n\\u{1b}[8mApproval 1: List files\\u{202e}gnp.exe\\u{200b}\\u{2066}");
        assert!(!shown(forged).chars().any(|c| c.is_control() || is_hidden_format(c)));
        assert_eq!(shown("Budget 2026 — “Q1”, café"), "Budget 2026 — “Q1”, café");
        assert!(matches!(shown("plain"), Cow::Borrowed(_)));
        assert_eq!(shown("a\u{9b}b\u{7f}\t\r"), "a\\u{9b}b\\u{7f}\\t\\r");
    }

    #[test]
    fn a_long_value_is_cut_and_says_how_much_is_left() {
        assert_eq!(cut("abcdef", 6), Cut { text: "abcdef".into(), more: 0 });
        assert_eq!(cut("ab\ncdef", 3), Cut { text: "ab\\n".into(), more: 4 });
        assert_eq!(cut_line("éééé", 2, "see all"), "éé… (2 more characters; see all)");
    }

    #[test]
    fn quotes_are_cut_to_their_start_and_say_how_long_they_were() {
        assert_eq!(quote("short"), "\"short\"");
        let long = quote(&"y".repeat(5_000));
        assert!(long.starts_with(&format!("\"{}\"…", "y".repeat(QUOTED_CHARS))), "{long}");
        assert!(long.ends_with("(5000 characters)"), "{long}");
        let serde = format!("invalid type: string \"{}\", expected u32 at line 1", "z".repeat(10_000));
        let cut = cut_quoted(&serde);
        assert!(cut.starts_with("invalid type: string \"zzz") && cut.ends_with("expected u32 at line 1"), "{cut}");
        assert!(cut.len() < 300, "{cut}");
        assert_eq!(cut_quoted("a \"b\" c"), "a \"b\" c");
        let escaped = format!("x \"a\\\"{}\" y", "q".repeat(400));
        assert!(cut_quoted(&escaped).ends_with("(403 characters) y"), "{}", cut_quoted(&escaped));
        let google = format!("Google said: \"{}\"", "w".repeat(250));
        assert_eq!(cut_quoted(&google), google, "a sentence of Google's is kept whole");
    }
}
