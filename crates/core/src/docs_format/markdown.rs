//! Markdown → Google Docs v1 `batchUpdate` requests.
//!
//! All text goes in with one `insertText`, then paragraph and text styles are set over it, and the
//! bullets come last: `createParagraphBullets` reads nesting from leading tabs and deletes them, which
//! shifts every later index, so the lists are bulleted from the end of the document backwards.
//!
//! Supported: ATX and setext headings, paragraphs (lines joined by a space; a line ending in `\` or
//! two spaces breaks the line), `**bold**`, `*italic*`, `[links](url)`, `` `code` `` as plain text,
//! `-`/`*`/`+` and `1.`/`1)` lists nested by indentation, `>` quotes as plain paragraphs, fenced code
//! as plain lines, table rows as plain lines. Horizontal rules are dropped.

use serde_json::{Value, json};

use super::inline::{Span, Style, parse_inline};
use super::utf16::utf16_len;

/// Docs allows list nesting levels 0 to 8.
const MAX_NESTING: usize = 8;

/// Where `insert_at` sits, which decides how the inserted text is joined to what is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// At the start of a paragraph (for example a `startIndex` from `get_doc_structure`): the text
    /// ends with a newline, so the paragraph already there stays as it was. Safe anywhere, but a new
    /// document keeps its one empty paragraph after the inserted text.
    #[default]
    ParagraphStart,
    /// At the end of a paragraph's text, just before its newline (e.g. the body's last index minus
    /// one, to append): the text starts with a newline, so it never joins that paragraph.
    ParagraphEnd,
    /// Inside an empty paragraph, such as index 1 of a new document: no extra newline either side.
    EmptyParagraph,
}

/// Requests inserting `md` at `insert_at` (UTF-16, the start of a paragraph; a new document's body
/// starts at 1). See [`Placement`] for inserting elsewhere.
pub fn markdown_to_requests(md: &str, insert_at: u32) -> Vec<Value> {
    markdown_to_requests_placed(md, insert_at, Placement::ParagraphStart)
}

/// Requests inserting `md` at `insert_at`, joined to the surrounding text as `placement` says.
pub fn markdown_to_requests_placed(md: &str, insert_at: u32, placement: Placement) -> Vec<Value> {
    let paras = parse_blocks(md);
    if paras.is_empty() {
        return Vec::new();
    }
    Layout::new(&paras, insert_at, placement).requests(&paras)
}

/// One `insertText` of `text` as it is (line ends normalised, characters Docs would drop removed),
/// without styles, so it takes the style of where it lands.
pub fn plain_text_to_requests(text: &str, insert_at: u32) -> Vec<Value> {
    let text = sanitize(&normalise_newlines(text));
    if text.is_empty() {
        return Vec::new();
    }
    vec![insert_text(insert_at, &text)]
}

/// What a paragraph is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Normal,
    Heading(u8),
    Item { ordered: bool, level: usize },
}

/// A paragraph to insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Para {
    pub kind: Kind,
    pub spans: Vec<Span>,
}

fn normalise_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Drops characters `insertText` strips (most C0 controls and the private use area), so the indexes
/// we compute match the document's. Tab, newline and vertical tab (a line break) are kept.
fn sanitize(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            let control = (c < ' ' && !matches!(c, '\t' | '\n' | '\u{b}')) || c == '\u{7f}';
            let private = ('\u{e000}'..='\u{f8ff}').contains(&c);
            !control && !private
        })
        .collect()
}

/// Splits Markdown into paragraphs with their kind and inline spans.
pub(crate) fn parse_blocks(md: &str) -> Vec<Para> {
    let md = sanitize(&normalise_newlines(md));
    let mut b = Blocks::default();
    for line in md.split('\n') {
        b.line(line);
    }
    b.flush();
    b.paras
}

#[derive(Default)]
struct Blocks {
    paras: Vec<Para>,
    /// The open paragraph or list item: its kind and its lines so far.
    open: Option<(Kind, Vec<String>)>,
    /// Indents of the open list levels, outermost first.
    list_indents: Vec<usize>,
    /// The open code fence: its character and length.
    fence: Option<(char, usize)>,
    after_blank: bool,
}

impl Blocks {
    fn line(&mut self, raw: &str) {
        let indent = indent_width(raw);
        let line = raw.trim_start();
        if let Some((ch, len)) = self.fence {
            if fence_marker(line).is_some_and(|(c, l)| c == ch && l >= len) {
                self.fence = None;
            } else {
                self.push(Kind::Normal, vec![Span::plain(raw.to_string())]);
            }
            return;
        }
        if line.is_empty() {
            self.flush();
            self.after_blank = true;
            return;
        }
        let after_blank = std::mem::take(&mut self.after_blank);
        if let Some(marker) = fence_marker(line).filter(|_| indent < 4) {
            self.flush();
            self.list_indents.clear();
            self.fence = Some(marker);
        } else if let Some(level) = self.setext_level(line) {
            if let Some((kind, _)) = self.open.as_mut() {
                *kind = Kind::Heading(level);
            }
            self.flush();
        } else if is_rule(line) {
            self.flush();
            self.list_indents.clear();
        } else if let Some((level, text)) = heading(line).filter(|_| indent < 4) {
            self.flush();
            self.list_indents.clear();
            self.open = Some((Kind::Heading(level), vec![text.to_string()]));
            self.flush();
        } else if let Some((ordered, text)) = list_item(line) {
            self.flush();
            let level = self.level_for(indent);
            self.open = Some((Kind::Item { ordered, level }, vec![text.to_string()]));
        } else if line.starts_with('|') {
            self.flush();
            self.list_indents.clear();
            if !is_table_delimiter(line) {
                self.open = Some((Kind::Normal, vec![line.to_string()]));
                self.flush();
            }
        } else {
            let text = line.strip_prefix('>').map_or(raw, str::trim_start);
            match self.open.as_mut() {
                Some((_, lines)) if !after_blank => lines.push(text.to_string()),
                _ => {
                    self.flush();
                    self.list_indents.clear();
                    self.open = Some((Kind::Normal, vec![text.to_string()]));
                }
            }
        }
    }

    /// `===` or `---` under a paragraph turns it into a heading (levels 1 and 2).
    fn setext_level(&self, line: &str) -> Option<u8> {
        let Some((Kind::Normal, _)) = &self.open else {
            return None;
        };
        let t = line.trim_end();
        let all = |c: char| !t.is_empty() && t.chars().all(|x| x == c);
        if all('=') {
            Some(1)
        } else if all('-') {
            Some(2)
        } else {
            None
        }
    }

    /// The nesting level of a list item indented by `indent`, relative to the items above it.
    fn level_for(&mut self, indent: usize) -> usize {
        while self.list_indents.last().is_some_and(|&top| indent < top) {
            self.list_indents.pop();
        }
        if self.list_indents.last() != Some(&indent) {
            self.list_indents.push(indent);
        }
        (self.list_indents.len() - 1).min(MAX_NESTING)
    }

    fn flush(&mut self) {
        if let Some((kind, lines)) = self.open.take() {
            self.push(kind, parse_inline(&join_lines(&lines)));
        }
    }

    fn push(&mut self, kind: Kind, mut spans: Vec<Span>) {
        spans.retain(|s| !s.text.is_empty());
        self.paras.push(Para { kind, spans });
    }
}

/// Joins a paragraph's lines: a space between, or a line break after `\` or two trailing spaces.
fn join_lines(lines: &[String]) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let text = line.trim_end();
        // An odd number of trailing backslashes ends in an unescaped one: a line break.
        let backslashes = text.chars().rev().take_while(|c| *c == '\\').count();
        let hard = !last && (line.ends_with("  ") || backslashes % 2 == 1);
        let text = match text.strip_suffix('\\') {
            Some(cut) if hard && backslashes % 2 == 1 => cut,
            _ => text,
        };
        out.push_str(text.trim_start());
        if !last {
            out.push(if hard { '\u{b}' } else { ' ' });
        }
    }
    out
}

fn indent_width(line: &str) -> usize {
    line.chars().take_while(|c| *c == ' ' || *c == '\t').map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

fn fence_marker(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|x| *x == c).count();
    (len >= 3).then_some((c, len))
}

fn is_rule(line: &str) -> bool {
    let t: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    t.len() >= 3 && ['-', '*', '_'].iter().any(|&m| t.chars().all(|c| c == m))
}

fn heading(line: &str) -> Option<(u8, &str)> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    let rest = &line[hashes..];
    if !(1..=6).contains(&hashes) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    // A closing run of `#` after a space is decoration.
    let text = rest.trim();
    let stripped = text.trim_end_matches('#');
    let text = if stripped.is_empty() || stripped.ends_with([' ', '\t']) { stripped.trim_end() } else { text };
    Some((hashes as u8, text))
}

/// `- x`, `* x`, `+ x`, `1. x` or `1) x`: whether it is numbered and the item's text.
fn list_item(line: &str) -> Option<(bool, &str)> {
    let spaced = |rest: &str| rest.is_empty() || rest.starts_with([' ', '\t']);
    if let Some(rest) = line.strip_prefix(['-', '*', '+']).filter(|r| spaced(r)) {
        return Some((false, rest.trim_start()));
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = line[digits..].strip_prefix(['.', ')'])?;
    ((1..=9).contains(&digits) && spaced(rest)).then(|| (true, rest.trim_start()))
}

fn is_table_delimiter(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// Where each paragraph lands, in UTF-16 document indexes.
struct Layout {
    insert_at: u32,
    text: String,
    /// Start index and text length (without its newline, with its leading tabs) of each paragraph.
    spots: Vec<(u32, u32)>,
}

impl Layout {
    fn new(paras: &[Para], insert_at: u32, placement: Placement) -> Layout {
        let mut text = String::new();
        if placement == Placement::ParagraphEnd {
            text.push('\n');
        }
        let mut spots = Vec::with_capacity(paras.len());
        for (i, para) in paras.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let start = insert_at + utf16_len(&text) as u32;
            if let Kind::Item { level, .. } = para.kind {
                text.extend(std::iter::repeat_n('\t', level));
            }
            para.spans.iter().for_each(|s| text.push_str(&s.text));
            spots.push((start, insert_at + utf16_len(&text) as u32 - start));
        }
        if placement == Placement::ParagraphStart {
            text.push('\n');
        }
        Layout { insert_at, text, spots }
    }

    /// A range over paragraph `i`: its text, or its newline when it has none.
    fn para_range(&self, i: usize) -> Value {
        let (start, len) = self.spots[i];
        range(start, start + len.max(1))
    }

    fn requests(&self, paras: &[Para]) -> Vec<Value> {
        let mut out = vec![insert_text(self.insert_at, &self.text)];
        let (first, _) = self.spots[0];
        let (last, last_len) = self.spots[self.spots.len() - 1];
        let all = range(first, last + last_len.max(1));
        // Inserted paragraphs inherit the style and bullet of the one they were split from.
        out.push(json!({"deleteParagraphBullets": {"range": all}}));
        out.push(json!({"updateParagraphStyle": {
            "range": all,
            "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"},
            "fields": "namedStyleType,indentStart,indentFirstLine",
        }}));
        if self.spots.iter().any(|&(_, len)| len > 0) {
            out.push(json!({"updateTextStyle": {
                "range": range(first, last + last_len),
                "textStyle": {},
                "fields": "bold,italic,underline,strikethrough,link",
            }}));
        }
        for (i, para) in paras.iter().enumerate() {
            if let Kind::Heading(level) = para.kind {
                out.push(json!({"updateParagraphStyle": {
                    "range": self.para_range(i),
                    "paragraphStyle": {"namedStyleType": format!("HEADING_{level}")},
                    "fields": "namedStyleType",
                }}));
            }
        }
        for (i, para) in paras.iter().enumerate() {
            let (start, len) = self.spots[i];
            let mut at = start + len - para.spans.iter().map(|s| utf16_len(&s.text) as u32).sum::<u32>();
            for span in &para.spans {
                let end = at + utf16_len(&span.text) as u32;
                if let Some(request) = text_style(at, end, &span.style) {
                    out.push(request);
                }
                at = end;
            }
        }
        for (kind_ordered, from, to) in list_groups(paras).into_iter().rev() {
            let (start, _) = self.spots[from];
            let (last, last_len) = self.spots[to];
            let preset = if kind_ordered { "NUMBERED_DECIMAL_ALPHA_ROMAN" } else { "BULLET_DISC_CIRCLE_SQUARE" };
            out.push(json!({"createParagraphBullets": {
                "range": range(start, last + last_len.max(1)),
                "bulletPreset": preset,
            }}));
        }
        out
    }
}

/// Runs of consecutive list items, split where a top-level item switches between bullets and
/// numbers: `(numbered, first paragraph, last paragraph)`.
fn list_groups(paras: &[Para]) -> Vec<(bool, usize, usize)> {
    let mut groups: Vec<(bool, usize, usize)> = Vec::new();
    for (i, para) in paras.iter().enumerate() {
        let Kind::Item { ordered, level } = para.kind else {
            continue;
        };
        match groups.last_mut() {
            Some((o, _, last)) if *last + 1 == i && (level > 0 || *o == ordered) => *last = i,
            _ => groups.push((ordered, i, i)),
        }
    }
    groups
}

fn text_style(start: u32, end: u32, style: &Style) -> Option<Value> {
    let mut text_style = serde_json::Map::new();
    let mut fields = Vec::new();
    if style.bold {
        text_style.insert("bold".into(), json!(true));
        fields.push("bold");
    }
    if style.italic {
        text_style.insert("italic".into(), json!(true));
        fields.push("italic");
    }
    if let Some(url) = &style.link {
        text_style.insert("link".into(), json!({"url": url}));
        fields.push("link");
    }
    (!fields.is_empty() && end > start).then(|| {
        json!({"updateTextStyle": {
            "range": range(start, end),
            "textStyle": text_style,
            "fields": fields.join(","),
        }})
    })
}

fn insert_text(index: u32, text: &str) -> Value {
    json!({"insertText": {"location": {"index": index}, "text": text}})
}

fn range(start: u32, end: u32) -> Value {
    json!({"startIndex": start, "endIndex": end})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(md: &str) -> Vec<(Kind, String)> {
        parse_blocks(md).into_iter().map(|p| (p.kind, p.spans.iter().map(|s| s.text.as_str()).collect())).collect()
    }

    fn item(ordered: bool, level: usize) -> Kind {
        Kind::Item { ordered, level }
    }

    #[test]
    fn blocks_are_recognised() {
        let md = "# Title #\n\nSome *text*\nwrapped.\n\n## Sub\n\n- a\n- b\n  - c\n    - d\n- e\n\n1. one\n2) two\n\n> quoted\n\n---\n\nSetext\n===\n\n####### not a heading";
        assert_eq!(
            kinds(md),
            vec![
                (Kind::Heading(1), "Title".into()),
                (Kind::Normal, "Some text wrapped.".into()),
                (Kind::Heading(2), "Sub".into()),
                (item(false, 0), "a".into()),
                (item(false, 0), "b".into()),
                (item(false, 1), "c".into()),
                (item(false, 2), "d".into()),
                (item(false, 0), "e".into()),
                (item(true, 0), "one".into()),
                (item(true, 0), "two".into()),
                (Kind::Normal, "quoted".into()),
                (Kind::Heading(1), "Setext".into()),
                (Kind::Normal, "####### not a heading".into()),
            ]
        );
    }

    #[test]
    fn code_fences_tables_and_breaks() {
        let md = "```rust\nlet x = *y*;\n\n  indented\n```\n| a | b |\n|---|:-:|\n| 1 | **2** |\nline one\\\nline two  \nline three\n#hashtag";
        assert_eq!(
            kinds(md),
            vec![
                (Kind::Normal, "let x = *y*;".into()),
                (Kind::Normal, "".into()),
                (Kind::Normal, "  indented".into()),
                (Kind::Normal, "| a | b |".into()),
                (Kind::Normal, "| 1 | 2 |".into()),
                (Kind::Normal, "line one\u{b}line two\u{b}line three #hashtag".into()),
            ]
        );
    }

    #[test]
    fn list_nesting_follows_indentation() {
        let md = "1. a\n   1. b\n      1. c\n   2. d\n2. e\n\tx. not an item\n* f";
        let got: Vec<Kind> = kinds(md).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            got,
            vec![item(true, 0), item(true, 1), item(true, 2), item(true, 1), item(true, 0), item(false, 0)]
        );
        // Continuation line joined to item "e".
        assert_eq!(kinds(md)[4].1, "e x. not an item");
    }

    #[test]
    fn requests_for_a_small_document() {
        let reqs = markdown_to_requests("# Hi 😀\n\nA **b** [c](https://x.test)\n\n- one\n  - two\n1. n", 1);
        let text = "Hi 😀\nA b c\none\n\ttwo\nn\n";
        assert_eq!(reqs[0], json!({"insertText": {"location": {"index": 1}, "text": text}}));
        assert_eq!(reqs[1], json!({"deleteParagraphBullets": {"range": {"startIndex": 1, "endIndex": 23}}}));
        assert_eq!(reqs[2]["updateParagraphStyle"]["range"], json!({"startIndex": 1, "endIndex": 23}));
        assert_eq!(reqs[3]["updateTextStyle"]["fields"], "bold,italic,underline,strikethrough,link");
        assert_eq!(
            reqs[4],
            json!({"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 6},
                "paragraphStyle": {"namedStyleType": "HEADING_1"}, "fields": "namedStyleType"}})
        );
        assert_eq!(
            reqs[5],
            json!({"updateTextStyle": {"range": {"startIndex": 9, "endIndex": 10},
                "textStyle": {"bold": true}, "fields": "bold"}})
        );
        assert_eq!(
            reqs[6],
            json!({"updateTextStyle": {"range": {"startIndex": 11, "endIndex": 12},
                "textStyle": {"link": {"url": "https://x.test"}}, "fields": "link"}})
        );
        // Bullets last, later lists first.
        assert_eq!(
            reqs[7],
            json!({"createParagraphBullets": {"range": {"startIndex": 22, "endIndex": 23},
                "bulletPreset": "NUMBERED_DECIMAL_ALPHA_ROMAN"}})
        );
        assert_eq!(
            reqs[8],
            json!({"createParagraphBullets": {"range": {"startIndex": 13, "endIndex": 21},
                "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}})
        );
        assert_eq!(reqs.len(), 9);
    }

    #[test]
    fn placement_decides_the_newlines() {
        let text = |p| markdown_to_requests_placed("a\n\nb", 5, p)[0]["insertText"]["text"].clone();
        assert_eq!(text(Placement::ParagraphStart), "a\nb\n");
        assert_eq!(text(Placement::ParagraphEnd), "\na\nb");
        assert_eq!(text(Placement::EmptyParagraph), "a\nb");
        let end = markdown_to_requests_placed("# a", 5, Placement::ParagraphEnd);
        assert_eq!(end[4]["updateParagraphStyle"]["range"], json!({"startIndex": 6, "endIndex": 7}));
    }

    #[test]
    fn empty_input_gives_no_requests() {
        assert!(markdown_to_requests("", 1).is_empty());
        assert!(markdown_to_requests("\n\n---\n", 1).is_empty());
        assert!(plain_text_to_requests("", 1).is_empty());
    }

    #[test]
    fn plain_text_is_inserted_verbatim_minus_dropped_characters() {
        assert_eq!(
            plain_text_to_requests("a\r\nb\u{1}*c*\u{e000}\td", 3),
            vec![json!({"insertText": {"location": {"index": 3}, "text": "a\nb*c*\td"}})]
        );
    }

    #[test]
    fn empty_items_and_headings_still_get_a_range() {
        let reqs = markdown_to_requests("#\n-", 1);
        assert_eq!(reqs[0]["insertText"]["text"], "\n\n");
        assert_eq!(reqs.len(), 5, "{reqs:#?}");
        assert_eq!(reqs[3]["updateParagraphStyle"]["range"], json!({"startIndex": 1, "endIndex": 2}));
        assert_eq!(reqs[4]["createParagraphBullets"]["range"], json!({"startIndex": 2, "endIndex": 3}));
    }
}
