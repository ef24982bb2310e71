//! Inline Markdown (emphasis, links, code spans, escapes) → styled spans of plain text.
//!
//! A small hand-written subset of CommonMark, enough for what assistants write: `**bold**`,
//! `*italic*` / `_italic_`, `***both***`, `~~strikethrough~~` (GFM), `[text](url)`,
//! `<https://autolinks>`, `` `code` `` (a span with [`Style::code`]) and backslash escapes. Anything it
//! cannot pair up stays literal text, never an error.

use std::cell::RefCell;
use std::collections::HashMap;

/// How deep emphasis and links may nest before further markers are read literally; this bounds
/// recursion on hostile input.
const MAX_DEPTH: usize = 16;

/// The character styles Markdown can express.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Style {
    pub bold: bool,
    pub italic: bool,
    /// Struck through (`~~text~~`).
    pub strike: bool,
    /// Underlined: HTML's `<u>` (Markdown has no way to write it).
    pub underline: bool,
    /// Inline code (`` `text` ``): written in a monospace font, its text taken literally.
    pub code: bool,
    pub link: Option<String>,
}

/// A stretch of text with one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

impl Span {
    /// Unstyled text.
    pub fn plain(text: impl Into<String>) -> Span {
        Span { text: text.into(), style: Style::default() }
    }
}

/// Parses one paragraph's inline Markdown into spans; adjacent spans always differ in style.
pub fn parse_inline(text: &str) -> Vec<Span> {
    let parser = Parser { chars: text.chars().collect(), closers: RefCell::new(HashMap::new()) };
    let mut out = Vec::new();
    parser.parse(0, parser.chars.len(), &Style::default(), 0, &mut out);
    out
}

struct Parser {
    chars: Vec<char>,
    /// Memo of `find_closer` answers, keeping hostile input near-quadratic.
    closers: RefCell<HashMap<(usize, usize, usize), Option<usize>>>,
}

impl Parser {
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    fn run_len(&self, i: usize, end: usize) -> usize {
        let c = self.chars[i];
        self.chars[i..end].iter().take_while(|&&x| x == c).count()
    }

    fn parse(&self, mut i: usize, end: usize, style: &Style, depth: usize, out: &mut Vec<Span>) {
        let mut buf = String::new();
        while i < end {
            let c = self.chars[i];
            match c {
                '\\' if i + 1 < end && self.chars[i + 1].is_ascii_punctuation() => {
                    buf.push(self.chars[i + 1]);
                    i += 2;
                }
                '`' => {
                    let n = self.run_len(i, end);
                    match self.code_close(i + n, end, n) {
                        Some(close) => {
                            flush(&mut buf, style, out);
                            let code = Style { code: true, ..style.clone() };
                            push(out, code_content(&self.chars[i + n..close]), code);
                            i = close + n;
                        }
                        None => {
                            buf.extend(&self.chars[i..i + n]);
                            i += n;
                        }
                    }
                }
                '[' | '!' | '<' if depth < MAX_DEPTH => match self.link_at(i, end) {
                    Some(link) => {
                        flush(&mut buf, style, out);
                        let inner = Style { link: Some(link.url.clone()), ..style.clone() };
                        if link.literal {
                            push(out, link.url, inner);
                        } else {
                            self.parse(link.text.0, link.text.1, &inner, depth + 1, out);
                        }
                        i = link.after;
                    }
                    None => {
                        buf.push(c);
                        i += 1;
                    }
                },
                '*' | '_' if depth < MAX_DEPTH => {
                    let m = self.run_len(i, end);
                    match self.emphasis_at(i, m, end, depth) {
                        Some((k, close)) => {
                            flush(&mut buf, style, out);
                            let inner =
                                Style { bold: style.bold || k >= 2, italic: style.italic || k != 2, ..style.clone() };
                            self.parse(i + k, close, &inner, depth + 1, out);
                            i = close + k;
                        }
                        None => {
                            buf.extend(&self.chars[i..i + m]);
                            i += m;
                        }
                    }
                }
                '~' if depth < MAX_DEPTH && self.run_len(i, end) == 2 => match self.strike_close(i, end) {
                    Some(close) => {
                        flush(&mut buf, style, out);
                        let inner = Style { strike: true, ..style.clone() };
                        self.parse(i + 2, close, &inner, depth + 1, out);
                        i = close + 2;
                    }
                    None => {
                        buf.push_str("~~");
                        i += 2;
                    }
                },
                _ => {
                    buf.push(c);
                    i += 1;
                }
            }
        }
        flush(&mut buf, style, out);
    }

    /// Where `~~` at `i` closes: the next run of exactly two `~` after non-space text, skipping
    /// escapes and code spans. The opener must be followed by a non-space.
    fn strike_close(&self, i: usize, end: usize) -> Option<usize> {
        if self.at(i + 2).is_none_or(char::is_whitespace) {
            return None;
        }
        let mut j = i + 2;
        while j < end {
            match self.chars[j] {
                '\\' => j += 2,
                '`' => {
                    let n = self.run_len(j, end);
                    j = self.code_close(j + n, end, n).map_or(j + n, |close| close + n);
                }
                '~' => {
                    let m = self.run_len(j, end);
                    if m == 2 && j > i + 2 && !self.chars[j - 1].is_whitespace() {
                        return Some(j);
                    }
                    j += m;
                }
                _ => j += 1,
            }
        }
        None
    }

    /// For a delimiter run of length `m` at `i`, the marker length used and where it closes.
    /// A run of three that cannot close as one is tried as an outer `**` (`***a* b**`), then as an
    /// outer `*` (`***a** b*`).
    fn emphasis_at(&self, i: usize, m: usize, end: usize, depth: usize) -> Option<(usize, usize)> {
        if m > 3 || !self.can_open(i, m) {
            return None;
        }
        let tries: &[usize] = if m == 3 { &[3, 2, 1] } else { &[m] };
        tries.iter().find_map(|&k| self.find_closer(i + k, end, k, depth).map(|close| (k, close)))
    }

    /// Finds a closing run of at least `n` delimiters, skipping nested emphasis, code and escapes.
    fn find_closer(&self, from: usize, end: usize, n: usize, depth: usize) -> Option<usize> {
        let key = (from, end, n);
        if let Some(known) = self.closers.borrow().get(&key) {
            return *known;
        }
        let found = self.scan_closer(from, end, n, depth);
        self.closers.borrow_mut().insert(key, found);
        found
    }

    fn scan_closer(&self, from: usize, end: usize, n: usize, depth: usize) -> Option<usize> {
        let delim = self.at(from.checked_sub(1)?)?;
        let mut j = from;
        while j < end {
            let c = self.chars[j];
            if c == '\\' {
                j += 2;
            } else if c == '`' {
                let n = self.run_len(j, end);
                j = self.code_close(j + n, end, n).map_or(j + n, |close| close + n);
            } else if c == delim {
                let m = self.run_len(j, end);
                // CommonMark's "rule of three": a run that could also open does not close an
                // opener when their lengths add up to a multiple of three (`*a**b**`).
                let both = self.can_open(j, m);
                let rule_of_three = both && (n + m).is_multiple_of(3) && !(n.is_multiple_of(3) && m.is_multiple_of(3));
                if j > from && m >= n && self.can_close(j, m) && !rule_of_three {
                    return Some(j);
                }
                // An opener inside is nested emphasis: jump over its whole span.
                let nested = (depth < MAX_DEPTH && m <= 3 && self.can_open(j, m))
                    .then(|| self.find_closer(j + m, end, m, depth + 1))
                    .flatten();
                j = nested.map_or(j + m, |close| close + m);
            } else {
                j += 1;
            }
        }
        None
    }

    /// Left-flanking: followed by a non-space; `_` also must not sit inside a word.
    fn can_open(&self, i: usize, m: usize) -> bool {
        let next = self.at(i + m).is_some_and(|c| !c.is_whitespace());
        let prev = i.checked_sub(1).and_then(|p| self.at(p));
        next && (self.chars[i] == '*' || !prev.is_some_and(char::is_alphanumeric))
    }

    /// Right-flanking: preceded by a non-space; `_` also must not sit inside a word.
    fn can_close(&self, i: usize, m: usize) -> bool {
        let prev = i.checked_sub(1).and_then(|p| self.at(p)).is_some_and(|c| !c.is_whitespace());
        prev && (self.chars[i] == '*' || !self.at(i + m).is_some_and(char::is_alphanumeric))
    }

    /// Where a code span opened by `n` backticks closes: the next run of exactly `n`.
    fn code_close(&self, from: usize, end: usize, n: usize) -> Option<usize> {
        let mut j = from;
        while j < end {
            if self.chars[j] == '`' {
                let m = self.run_len(j, end);
                if m == n {
                    return Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        }
        None
    }

    /// Reads `[text](url "title")`, `![alt](url)` or `<scheme://url>` at `i`.
    fn link_at(&self, i: usize, end: usize) -> Option<Link> {
        match self.chars[i] {
            '<' => self.autolink_at(i, end),
            '!' if self.at(i + 1) == Some('[') && i + 1 < end => self.link_at(i + 1, end),
            '[' => {
                let close = self.bracket_close(i + 1, end)?;
                if self.at(close + 1) != Some('(') || close + 1 >= end {
                    return None;
                }
                let (url, after) = self.destination(close + 2, end)?;
                if url.is_empty() {
                    return None;
                }
                Some(Link { text: (i + 1, close), url, after, literal: false })
            }
            _ => None,
        }
    }

    fn autolink_at(&self, i: usize, end: usize) -> Option<Link> {
        let close = (i + 1..end).find(|&j| self.chars[j] == '>')?;
        let url: String = self.chars[i + 1..close].iter().collect();
        let scheme_ok = ["http://", "https://", "mailto:"].iter().any(|s| url.to_ascii_lowercase().starts_with(s));
        (scheme_ok && !url.contains(char::is_whitespace)).then(|| Link {
            text: (i + 1, close),
            url,
            after: close + 1,
            literal: true,
        })
    }

    /// The `]` matching the `[` just before `from`, allowing nested brackets, escapes and code.
    fn bracket_close(&self, from: usize, end: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut j = from;
        while j < end {
            match self.chars[j] {
                '\\' => j += 1,
                '`' => {
                    let n = self.run_len(j, end);
                    j = self.code_close(j + n, end, n).map_or(j + n, |c| c + n) - 1;
                }
                '[' => depth += 1,
                ']' if depth == 0 => return Some(j),
                ']' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        None
    }

    /// Reads `url "optional title")` starting just after `(`; returns the url and the index after `)`.
    fn destination(&self, from: usize, end: usize) -> Option<(String, usize)> {
        let mut j = from;
        let skip_space = |mut j: usize| {
            while j < end && self.chars[j].is_whitespace() {
                j += 1;
            }
            j
        };
        j = skip_space(j);
        let mut url = String::new();
        if self.at(j) == Some('<') {
            let close = (j + 1..end).find(|&k| self.chars[k] == '>')?;
            url.extend(&self.chars[j + 1..close]);
            j = close + 1;
        } else {
            let mut parens = 0usize;
            while j < end {
                let c = self.chars[j];
                if c.is_whitespace() || (c == ')' && parens == 0) {
                    break;
                }
                if c == '\\' && self.at(j + 1).is_some_and(|n| n.is_ascii_punctuation()) {
                    j += 1;
                } else if c == '(' {
                    parens += 1;
                } else if c == ')' {
                    parens -= 1;
                }
                url.push(self.chars[j]);
                j += 1;
            }
        }
        j = skip_space(j);
        if let Some(q @ ('"' | '\'')) = self.at(j) {
            let close = (j + 1..end).find(|&k| self.chars[k] == q)?;
            j = skip_space(close + 1);
        }
        (j < end && self.chars[j] == ')').then_some((url, j + 1))
    }
}

struct Link {
    /// The character range of the link text.
    text: (usize, usize),
    url: String,
    after: usize,
    /// Autolinks show the url itself, unparsed.
    literal: bool,
}

/// Code span content: one space padding both sides is removed, as CommonMark does.
fn code_content(chars: &[char]) -> String {
    let s: String = chars.iter().collect();
    let padded = s.len() >= 2 && s.starts_with(' ') && s.ends_with(' ') && !s.trim().is_empty();
    if padded { s[1..s.len() - 1].to_string() } else { s }
}

fn flush(buf: &mut String, style: &Style, out: &mut Vec<Span>) {
    if !buf.is_empty() {
        push(out, std::mem::take(buf), style.clone());
    }
}

fn push(out: &mut Vec<Span>, text: String, style: Style) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.style == style => last.text.push_str(&text),
        _ => out.push(Span { text, style }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plain(t: &str) -> Span {
        Span::plain(t)
    }
    fn styled(t: &str, bold: bool, italic: bool, link: Option<&str>) -> Span {
        Span { text: t.into(), style: Style { bold, italic, link: link.map(str::to_string), ..Style::default() } }
    }

    #[test]
    fn plain_text_is_one_span() {
        assert_eq!(parse_inline("hello world"), vec![plain("hello world")]);
        assert!(parse_inline("").is_empty());
    }

    #[test]
    fn emphasis_forms() {
        assert_eq!(parse_inline("a **b** c"), vec![plain("a "), styled("b", true, false, None), plain(" c")]);
        assert_eq!(
            parse_inline("*i* _j_"),
            vec![styled("i", false, true, None), plain(" "), styled("j", false, true, None)]
        );
        assert_eq!(parse_inline("***both***"), vec![styled("both", true, true, None)]);
        assert_eq!(parse_inline("__bold__"), vec![styled("bold", true, false, None)]);
        assert_eq!(
            parse_inline("**a *b* c**"),
            vec![styled("a ", true, false, None), styled("b", true, true, None), styled(" c", true, false, None)]
        );
        assert_eq!(
            parse_inline("*a **b** c*"),
            vec![styled("a ", false, true, None), styled("b", true, true, None), styled(" c", false, true, None)]
        );
        assert_eq!(
            parse_inline("**bold *it***"),
            vec![styled("bold ", true, false, None), styled("it", true, true, None)]
        );
        assert_eq!(parse_inline("***a** b*"), vec![styled("a", true, true, None), styled(" b", false, true, None)]);
        assert_eq!(parse_inline("**a**_b_"), vec![styled("a", true, false, None), styled("b", false, true, None)]);
    }

    #[test]
    fn unpaired_or_spaced_markers_stay_literal() {
        for text in ["5 * 3 * 2", "snake_case_name", "**open", "a ** b **", "* not a list here", "_x", "x_", "****"] {
            assert_eq!(parse_inline(text), vec![plain(text)], "{text}");
        }
        assert_eq!(parse_inline("un*frigging*believable")[1], styled("frigging", false, true, None));
    }

    #[test]
    fn links() {
        assert_eq!(
            parse_inline("see [the **docs**](https://x.test/a_(b)) now"),
            vec![
                plain("see "),
                styled("the ", false, false, Some("https://x.test/a_(b)")),
                styled("docs", true, false, Some("https://x.test/a_(b)")),
                plain(" now"),
            ]
        );
        assert_eq!(parse_inline("[a](<u v> \"title\")"), vec![styled("a", false, false, Some("u v"))]);
        assert_eq!(parse_inline("**[a](u)**"), vec![styled("a", true, false, Some("u"))]);
        assert_eq!(
            parse_inline("<https://x.test>"),
            vec![styled("https://x.test", false, false, Some("https://x.test"))]
        );
        assert_eq!(parse_inline("![alt](img.png)"), vec![styled("alt", false, false, Some("img.png"))]);
        for text in ["[a]", "[a] (b)", "[a](b", "[a]()", "<not a link>", "a < b > c"] {
            assert_eq!(parse_inline(text), vec![plain(text)], "{text}");
        }
    }

    #[test]
    fn code_and_escapes_are_literal() {
        let code = |t: &str| Span { text: t.into(), style: Style { code: true, ..Style::default() } };
        assert_eq!(parse_inline("run `a *b* c` now"), vec![plain("run "), code("a *b* c"), plain(" now")]);
        assert_eq!(parse_inline("`` a`b ``"), vec![code("a`b")]);
        assert_eq!(parse_inline("`open"), vec![plain("`open")]);
        assert_eq!(parse_inline(r"\*not\* \[x\] \\ \a"), vec![plain(r"*not* [x] \ \a")]);
        assert_eq!(parse_inline(r"**a\*b**"), vec![styled("a*b", true, false, None)]);
    }

    #[test]
    fn strikethrough_and_code_inside_emphasis() {
        let strike = Style { strike: true, ..Style::default() };
        assert_eq!(parse_inline("~~gone~~"), vec![Span { text: "gone".into(), style: strike.clone() }]);
        assert_eq!(
            parse_inline("~~a **b**~~"),
            vec![
                Span { text: "a ".into(), style: strike.clone() },
                Span { text: "b".into(), style: Style { bold: true, ..strike } },
            ]
        );
        for text in ["~one~", "a ~~ b ~~", "~~~x~~~", "~~open"] {
            assert_eq!(parse_inline(text), vec![plain(text)], "{text}");
        }
        let bold_code = Style { bold: true, code: true, ..Style::default() };
        assert_eq!(parse_inline("**`x`**"), vec![Span { text: "x".into(), style: bold_code }]);
    }

    #[test]
    fn hostile_nesting_terminates() {
        let deep = "*a ".repeat(2000) + &"**[".repeat(2000);
        let spans = parse_inline(&deep);
        let total: usize = spans.iter().map(|s| s.text.len()).sum();
        assert!(total > 0);
        let nested = "[".repeat(500) + "x" + &"](u)".repeat(500);
        assert!(!parse_inline(&nested).is_empty());
    }

    proptest! {
        #[test]
        fn never_panics_and_spans_are_merged(text in "[a-c *_`\\[\\]()<>!\\\\:/ ]{0,40}") {
            let spans = parse_inline(&text);
            for pair in spans.windows(2) {
                prop_assert_ne!(&pair[0].style, &pair[1].style);
            }
            prop_assert!(spans.iter().all(|s| !s.text.is_empty()));
        }

        #[test]
        fn text_without_markers_is_unchanged(text in "[^*_`\\[\\]<!\\\\]{1,40}") {
            prop_assert_eq!(parse_inline(&text), vec![plain(&text)]);
        }
    }
}
