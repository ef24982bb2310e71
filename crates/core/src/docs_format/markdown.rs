//! Markdown → the blocks of [`Para`], which [`Layout`] turns into Google Docs v1 `batchUpdate`
//! requests (see [`super::layout`]).
//!
//! Supported: ATX and setext headings, paragraphs (lines joined by a space; a line ending in `\` or
//! two spaces breaks the line), `**bold**`, `*italic*`, `~~strikethrough~~`, `[links](url)`,
//! `` `code` `` in a monospace font, `-`/`*`/`+` and `1.`/`1)` lists nested by indentation, `>` quotes
//! as plain paragraphs, fenced code blocks as shaded monospace lines (see [`super::code`]; the info
//! string is not kept), GFM pipe tables as Docs tables (other `|` lines stay plain lines). Horizontal
//! rules are dropped.

use serde_json::Value;

use super::inline::{Span, parse_inline};
pub(crate) use super::layout::Layout;
use super::layout::insert_text;
use super::table::Table;

/// Docs allows list nesting levels 0 to 8.
pub(crate) const MAX_NESTING: usize = 8;

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

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Normal,
    Heading(u8),
    Item {
        ordered: bool,
        level: usize,
    },
    /// One line of a code block: its spans hold the line as it is (usually one plain span); the
    /// whole line is written in the code font on a shaded paragraph. An empty line has no spans.
    Code,
    /// A whole table (the block's own `spans` are empty and ignored).
    Table(Table),
}

/// A block to insert: a paragraph, or with [`Kind::Table`] a table.
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
pub(crate) fn sanitize(text: &str) -> String {
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
    /// The `|` lines read so far: a table if the second is a delimiter row.
    table: Vec<String>,
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
                self.push(Kind::Code, vec![Span::plain(raw.to_string())]);
            }
            return;
        }
        if line.starts_with('|') && indent < 4 {
            if self.table.is_empty() {
                self.flush();
                self.list_indents.clear();
            }
            self.table.push(line.to_string());
            return;
        }
        self.flush_table();
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

    /// Ends the `|` lines: a table, or else plain paragraphs (delimiter rows dropped).
    fn flush_table(&mut self) {
        let lines = std::mem::take(&mut self.table);
        if lines.is_empty() {
            return;
        }
        match Table::from_markdown(&lines) {
            Some(table) => self.paras.push(Para { kind: Kind::Table(table), spans: Vec::new() }),
            None => {
                for line in lines.iter().filter(|l| !is_table_delimiter(l)) {
                    self.push(Kind::Normal, parse_inline(line.trim_end()));
                }
            }
        }
    }

    fn flush(&mut self) {
        self.flush_table();
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
    // A backtick fence's info string has no backticks (else it is a code span).
    let info_ok = c == '~' || !line[len..].contains('`');
    (len >= 3 && info_ok).then_some((c, len))
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
    super::table::is_delimiter(line)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
                (Kind::Code, "let x = *y*;".into()),
                (Kind::Code, "".into()),
                (Kind::Code, "  indented".into()),
                (
                    Kind::Table(
                        Table::from_markdown(&["| a | b |".into(), "|---|:-:|".into(), "| 1 | **2** |".into()])
                            .unwrap()
                    ),
                    "".into()
                ),
                (Kind::Normal, "line one\u{b}line two\u{b}line three #hashtag".into()),
            ]
        );
        // `|` lines without a delimiter row stay text.
        assert_eq!(kinds("| a |\n| b |"), vec![(Kind::Normal, "| a |".into()), (Kind::Normal, "| b |".into())]);
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
        assert_eq!(reqs[3]["updateTextStyle"]["fields"], "bold,italic,underline,strikethrough,link,weightedFontFamily");
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
