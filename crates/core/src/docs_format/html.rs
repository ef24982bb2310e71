//! HTML → the paragraphs and styled spans the Markdown converter renders, so both formats become
//! the same Docs requests.
//!
//! html5ever's tokenizer reads the tags, attributes and character references (every named entity,
//! numeric ones, `&nbsp;`); this module plays a small, forgiving tree builder over its tokens: a
//! block's end tag closes everything opened inside it, an inline one (`</b>`) ends only its own
//! style, an end tag with nothing to close is ignored, a new `<p>` or `<li>` closes the one still
//! open, and whatever is left open at the end simply ends. Nothing in it panics on bad HTML.
//!
//! - `<h1>`–`<h6>` are headings, `<p>`, `<div>` and other blocks are paragraphs, `<br>` breaks the
//!   line inside a paragraph.
//! - `<b>`/`<strong>`/`<th>`, `<i>`/`<em>`/`<cite>`, `<a href>`, and `style="font-weight: bold"`
//!   or `"font-style: italic"` are text styles.
//! - `<ul>`/`<ol>` with `<li>` are bulleted or numbered lists, nested as deep as Docs allows (9).
//!   A further paragraph inside the same `<li>` is a plain paragraph.
//! - `<u>`/`<ins>` underline and `<s>`/`<strike>`/`<del>` strike through (also as
//!   `text-decoration` in a `style`); `<code>`, `<kbd>`, `<samp>` and `<tt>` are inline code.
//! - `<pre>` is a code block: its spaces kept, one code line per line.
//! - `<blockquote>` is a plain paragraph (as `>` quotes are in Markdown).
//! - `<table>` is a Docs table, its first row the header (as in Markdown); each cell is one
//!   paragraph, so breaks and paragraphs inside a cell become spaces. A table inside a cell is text
//!   in that cell, its cells separated by ` | `.
//! - `<script>`, `<style>`, `<head>`, `<title>`, `<template>` and `<noscript>` are left out;
//!   unknown tags keep their text; comments and the doctype are ignored.
//!
//! Whitespace follows HTML: runs of spaces and newlines are one space, so paragraphs come from
//! tags. Content without any HTML element, comment or doctype (`<Alice>` or `a<b` are not elements)
//! is not HTML but plain text, since the default format is "html" and people pass plain text with
//! it: it is kept as written, one paragraph per line, a final newline adding no empty paragraph.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use serde_json::Value;

use super::inline::{Span, Style};
use super::markdown::{Kind, Layout, MAX_NESTING, Para, Placement, sanitize};
use super::table::{MAX_COLUMNS, Table};

/// How many elements may be open at once; further start tags are read as text-only wrappers. This
/// bounds the work per token on hostile input such as thousands of unclosed `<b>`.
const MAX_OPEN: usize = 256;

/// Requests inserting `html` at `insert_at`, joined to the surrounding text as `placement` says.
pub fn html_to_requests_placed(html: &str, insert_at: u32, placement: Placement) -> Vec<Value> {
    let paras = parse_html(html);
    if paras.is_empty() {
        return Vec::new();
    }
    Layout::new(&paras, insert_at, placement).requests(&paras)
}

/// Splits HTML (or tag-free plain text) into paragraphs with their kind and inline spans.
pub(crate) fn parse_html(html: &str) -> Vec<Para> {
    let toks = tokenize(html);
    let is_html = toks.iter().any(|t| match t {
        Tok::Start { name, .. } | Tok::End(name) => is_known(name),
        Tok::Markup => true,
        Tok::Text(_) => false,
    });
    if !is_html {
        return plain_lines(html);
    }
    let mut b = Builder::default();
    for tok in toks {
        match tok {
            Tok::Start { name, attrs, self_closing } => b.start(&name, &attrs, self_closing),
            Tok::End(name) => b.end(&name),
            Tok::Text(text) => b.text(&text),
            Tok::Markup => {}
        }
    }
    // Whatever is still open ends here: text outside a cell first, as a browser shows it before
    // the table.
    b.flush();
    b.stack.clear();
    b.sync_table();
    b.flush();
    b.paras
}

/// Text without tags: one plain paragraph per line, spaces kept; a final newline ends the last
/// line rather than adding an empty paragraph.
fn plain_lines(text: &str) -> Vec<Para> {
    let text = sanitize(&text.replace("\r\n", "\n").replace('\r', "\n"));
    let text = text.strip_suffix('\n').unwrap_or(&text);
    if text.is_empty() {
        return Vec::new();
    }
    text.split('\n')
        .map(|line| Para {
            kind: Kind::Normal,
            spans: if line.is_empty() { Vec::new() } else { vec![Span::plain(line)] },
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    End(String),
    Text(String),
    /// A comment or doctype: nothing to show, but a sign the content is HTML.
    Markup,
}

#[derive(Default)]
struct Sink {
    toks: RefCell<Vec<Tok>>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        let mut toks = self.toks.borrow_mut();
        match token {
            Token::TagToken(tag) => {
                let name = tag.name.to_string();
                if tag.kind == TagKind::EndTag {
                    toks.push(Tok::End(name));
                    return TokenSinkResult::Continue;
                }
                let attrs = tag.attrs.iter().map(|a| (a.name.local.to_string(), a.value.to_string())).collect();
                toks.push(Tok::Start { name: name.clone(), attrs, self_closing: tag.self_closing });
                // The tokenizer reads these elements' content as text only when told to, as a
                // browser's tree builder does; otherwise `a<b` in a script would open a tag.
                return match name.as_str() {
                    "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                    "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                        TokenSinkResult::RawData(RawKind::Rawtext)
                    }
                    "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                    "plaintext" => TokenSinkResult::Plaintext,
                    _ => TokenSinkResult::Continue,
                };
            }
            Token::CharacterTokens(text) => match toks.last_mut() {
                Some(Tok::Text(last)) => last.push_str(&text),
                _ => toks.push(Tok::Text(text.to_string())),
            },
            Token::CommentToken(_) | Token::DoctypeToken(_) => toks.push(Tok::Markup),
            Token::NullCharacterToken | Token::EOFToken | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
    }
}

fn tokenize(html: &str) -> Vec<Tok> {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(Sink::default(), TokenizerOpts::default());
    // The sink never pauses the tokenizer for a script, so one feed reads all the input.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.toks.take()
}

// ---------------------------------------------------------------------------------------------
// Elements

/// Whether `name` is an HTML element (not `<Alice>` or `a<b` in plain text).
fn is_known(name: &str) -> bool {
    is_void(name)
        || is_block(name)
        || is_hidden(name)
        || matches!(
            name,
            "a" | "abbr"
                | "b"
                | "big"
                | "button"
                | "cite"
                | "code"
                | "del"
                | "dfn"
                | "em"
                | "font"
                | "i"
                | "ins"
                | "kbd"
                | "label"
                | "mark"
                | "q"
                | "s"
                | "samp"
                | "small"
                | "span"
                | "strike"
                | "strong"
                | "sub"
                | "sup"
                | "td"
                | "th"
                | "time"
                | "tt"
                | "u"
                | "var"
        )
}

/// Elements that never have content or an end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Elements whose start and end separate paragraphs.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "tfoot"
            | "thead"
            | "tr"
            | "ul"
    )
}

/// Elements whose content is not shown.
fn is_hidden(name: &str) -> bool {
    matches!(name, "script" | "style" | "head" | "title" | "template" | "noscript")
}

fn is_list(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "menu" | "dir")
}

fn heading_level(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// One open element and what it does to the text inside it.
#[derive(Debug, Clone, Default)]
struct Open {
    name: String,
    bold: bool,
    italic: bool,
    strike: bool,
    underline: bool,
    code: bool,
    link: Option<String>,
    /// For `<li>`: whether its first paragraph (the one with the bullet) was made.
    item_used: bool,
    /// For `<tr>`: how many cells were started in the row.
    cells: usize,
}

impl Open {
    fn new(name: &str, attrs: &[(String, String)]) -> Open {
        let attr = |key: &str| attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.trim());
        let css = attr("style").unwrap_or_default().to_ascii_lowercase().replace(' ', "");
        let bold_weight = css.split(';').any(|d| {
            d.strip_prefix("font-weight:")
                .is_some_and(|w| w == "bold" || w == "bolder" || w.parse::<u32>().is_ok_and(|n| n >= 600))
        });
        Open {
            name: name.to_owned(),
            bold: matches!(name, "b" | "strong" | "th") || bold_weight,
            italic: matches!(name, "i" | "em" | "cite" | "var" | "dfn") || css.contains("font-style:italic"),
            strike: matches!(name, "s" | "strike" | "del") || css.contains("line-through"),
            underline: matches!(name, "u" | "ins") || css.contains("text-decoration:underline"),
            code: matches!(name, "code" | "kbd" | "samp" | "tt"),
            link: (name == "a").then(|| attr("href")).flatten().filter(|h| !h.is_empty()).map(str::to_owned),
            ..Open::default()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Building paragraphs

#[derive(Default)]
struct Builder {
    paras: Vec<Para>,
    stack: Vec<Open>,
    /// The paragraph being built: its kind once it has started, and its spans.
    kind: Option<Kind>,
    spans: Vec<Span>,
    /// Whether the last token was `<pre>`, whose first newline is not content.
    fresh_pre: bool,
    /// The table being built (an inner table's cells are text in its cell).
    table: Option<TableBuild>,
}

#[derive(Default)]
struct TableBuild {
    /// Where its `<table>` is in the stack.
    at: usize,
    rows: Vec<Vec<Vec<Span>>>,
    in_cell: bool,
}

impl Builder {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
        self.fresh_pre = false;
        match name {
            "br" => return self.line_break(),
            "hr" => return self.flush(),
            // A new body ends an unclosed head.
            "body" => self.close_last("head", &[]),
            "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "dl" | "pre" | "table" | "blockquote"
            | "div" | "section" | "article" | "header" | "footer" | "nav" | "main" | "aside" | "address" | "figure"
            | "details" | "form" | "fieldset" | "menu" | "center" => {
                self.close_last("p", &["table", "td", "th", "caption", "template", "button", "html"]);
                if heading_level(name).is_some() && self.stack.last().is_some_and(|o| heading_level(&o.name).is_some())
                {
                    self.stack.pop();
                }
            }
            "li" => {
                self.close_last("p", &["table", "td", "th", "caption", "template", "button", "html"]);
                self.close_last("li", &["ul", "ol", "menu", "dir"]);
            }
            "dt" | "dd" => {
                self.close_last("p", &["table", "td", "th", "caption", "template", "button", "html"]);
                self.close_last("dt", &["dl"]);
                self.close_last("dd", &["dl"]);
            }
            "tr" => self.close_last("tr", &["table"]),
            "td" | "th" => {
                self.close_last("td", &["tr", "table"]);
                self.close_last("th", &["tr", "table"]);
            }
            _ => {}
        }
        self.sync_table();
        let in_table = self.in_own_table();
        match name {
            "tr" if in_table => {
                self.end_cell();
                self.flush();
                if let Some(table) = self.table.as_mut() {
                    table.rows.push(Vec::new());
                }
            }
            "td" | "th" if in_table => {
                self.end_cell();
                self.flush();
                if let Some(table) = self.table.as_mut() {
                    if table.rows.is_empty() {
                        table.rows.push(Vec::new());
                    }
                    table.in_cell = true;
                }
            }
            _ if is_block(name) => self.flush(),
            _ => {}
        }
        // A table inside a table cell: its rows and cells are text in that cell.
        if matches!(name, "td" | "th")
            && !in_table
            && let Some(row) = self.stack.iter_mut().rev().find(|o| o.name == "tr")
        {
            row.cells += 1;
            if row.cells > 1 {
                self.begin();
                self.trim_end();
                self.push_text(" | ", Style::default());
            }
        }
        self.fresh_pre = name == "pre";
        let keeps_open = !is_void(name) && (!self_closing || is_block(name) || is_hidden(name));
        if keeps_open && self.stack.len() < MAX_OPEN {
            self.stack.push(Open::new(name, attrs));
            if name == "table" && self.table.is_none() && !self.hidden() {
                self.table = Some(TableBuild { at: self.stack.len() - 1, ..TableBuild::default() });
            }
        }
    }

    /// Whether the innermost open `<table>` is the one being built (not one inside its cell).
    fn in_own_table(&self) -> bool {
        let innermost = self.stack.iter().rposition(|o| o.name == "table");
        self.table.as_ref().is_some_and(|t| innermost == Some(t.at))
    }

    /// Ends the table being built once its `<table>` is no longer open.
    fn sync_table(&mut self) {
        let Some(table) = &self.table else {
            return;
        };
        if self.stack.get(table.at).is_some_and(|o| o.name == "table") {
            return;
        }
        self.end_cell();
        let Some(table) = self.table.take() else {
            return;
        };
        let rows: Vec<Vec<Vec<Span>>> = table.rows.into_iter().filter(|r| !r.is_empty()).collect();
        let width = rows.iter().map(Vec::len).max().unwrap_or(0).min(MAX_COLUMNS);
        if width == 0 {
            return;
        }
        let rows = rows
            .into_iter()
            .map(|mut row| {
                row.resize(width, Vec::new());
                row
            })
            .collect();
        self.paras.push(Para { kind: Kind::Table(Table { rows }), spans: Vec::new() });
    }

    /// Ends the table cell being built: its text becomes the row's next cell.
    fn end_cell(&mut self) {
        if !self.table.as_ref().is_some_and(|t| t.in_cell) {
            return;
        }
        self.trim_end();
        self.kind = None;
        let mut spans = std::mem::take(&mut self.spans);
        spans.retain(|s| !s.text.is_empty());
        if let Some(table) = self.table.as_mut() {
            table.in_cell = false;
            if let Some(row) = table.rows.last_mut() {
                row.push(spans);
            }
        }
    }

    /// Whether text goes into a table cell, where paragraphs and line breaks become spaces.
    fn in_cell(&self) -> bool {
        self.table.as_ref().is_some_and(|t| t.in_cell)
    }

    /// A space between two parts of a cell's text.
    fn cell_space(&mut self) {
        self.trim_end();
        if !self.spans.is_empty() {
            self.push_text(" ", Style::default());
        }
    }

    fn end(&mut self, name: &str) {
        self.fresh_pre = false;
        if name == "br" {
            // `</br>` is read as `<br>` by browsers too.
            return self.line_break();
        }
        let Some(at) = self.stack.iter().rposition(|o| o.name == name) else {
            return;
        };
        if self.in_own_table() && matches!(name, "td" | "th" | "tr") {
            self.end_cell();
        }
        if is_block(name) || matches!(name, "td" | "th") {
            self.close_from(at);
        } else {
            // `</b>` ends the bold only, not a paragraph opened inside it nor an `<i>` still open
            // (`<b>x<i>y</b>z</i>`: "z" is italic), as a browser reads it.
            self.stack.remove(at);
            if let Some(table) = self.table.as_mut().filter(|t| t.at > at) {
                table.at -= 1;
            }
        }
    }

    /// Closes `stack[at]` and everything opened inside it, ending the paragraph if a block closes.
    fn close_from(&mut self, at: usize) {
        if self.stack[at..].iter().any(|o| is_block(&o.name)) {
            self.flush();
        }
        self.stack.truncate(at);
        self.sync_table();
    }

    /// Closes the last open `name` unless one of `boundaries` was opened after it.
    fn close_last(&mut self, name: &str, boundaries: &[&str]) {
        for at in (0..self.stack.len()).rev() {
            let open = &self.stack[at].name;
            if open == name {
                return self.close_from(at);
            }
            if boundaries.contains(&open.as_str()) {
                return;
            }
        }
    }

    fn hidden(&self) -> bool {
        self.stack.iter().any(|o| is_hidden(&o.name))
    }

    fn in_pre(&self) -> bool {
        self.stack.iter().any(|o| matches!(o.name.as_str(), "pre" | "listing" | "plaintext"))
    }

    fn style(&self) -> Style {
        Style {
            bold: self.stack.iter().any(|o| o.bold),
            italic: self.stack.iter().any(|o| o.italic),
            strike: self.stack.iter().any(|o| o.strike),
            underline: self.stack.iter().any(|o| o.underline),
            code: self.stack.iter().any(|o| o.code),
            link: self.stack.iter().rev().find_map(|o| o.link.clone()),
        }
    }

    /// The kind of a paragraph starting here: the innermost heading or list item decides.
    fn kind_here(&mut self) -> Kind {
        if self.in_pre() {
            return Kind::Code;
        }
        for at in (0..self.stack.len()).rev() {
            if let Some(level) = heading_level(&self.stack[at].name) {
                return Kind::Heading(level);
            }
            if matches!(self.stack[at].name.as_str(), "td" | "th" | "blockquote") {
                return Kind::Normal;
            }
            if self.stack[at].name == "li" {
                if std::mem::replace(&mut self.stack[at].item_used, true) {
                    return Kind::Normal;
                }
                let lists: Vec<&Open> = self.stack[..at].iter().filter(|o| is_list(&o.name)).collect();
                let ordered = lists.last().is_some_and(|o| o.name == "ol");
                let level = lists.len().saturating_sub(1).min(MAX_NESTING);
                return Kind::Item { ordered, level };
            }
        }
        Kind::Normal
    }

    fn begin(&mut self) {
        if self.kind.is_none() {
            self.kind = Some(self.kind_here());
        }
    }

    fn text(&mut self, text: &str) {
        let fresh_pre = std::mem::take(&mut self.fresh_pre);
        if self.hidden() {
            return;
        }
        let text = sanitize(text);
        let style = self.style();
        if self.in_pre() {
            // A newline right after `<pre>` is not part of its content.
            let text = if fresh_pre { text.strip_prefix('\n').unwrap_or(&text).to_owned() } else { text };
            for (i, line) in text.split('\n').enumerate() {
                if i > 0 {
                    self.begin();
                    self.flush();
                }
                if !line.is_empty() {
                    self.begin();
                    self.push_text(line, style.clone());
                }
            }
            return;
        }
        let mut out = String::new();
        let mut last = self.last_char();
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\u{c}') {
                if last.is_some_and(|l| l != ' ' && l != '\u{b}') {
                    out.push(' ');
                    last = Some(' ');
                }
            } else {
                out.push(c);
                last = Some(c);
            }
        }
        if !out.is_empty() {
            self.begin();
            self.push_text(&out, style);
        }
    }

    fn last_char(&self) -> Option<char> {
        self.spans.last().and_then(|s| s.text.chars().last())
    }

    fn push_text(&mut self, text: &str, style: Style) {
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.spans.push(Span { text: text.to_owned(), style }),
        }
    }

    fn line_break(&mut self) {
        if self.hidden() {
            return;
        }
        if self.in_cell() {
            return self.cell_space();
        }
        self.begin();
        self.trim_end();
        self.push_text("\u{b}", Style::default());
    }

    /// Drops trailing spaces, which HTML does not show at the end of a line.
    fn trim_end(&mut self) {
        while let Some(last) = self.spans.last_mut() {
            let kept = last.text.trim_end_matches(' ').len();
            last.text.truncate(kept);
            if !last.text.is_empty() {
                break;
            }
            self.spans.pop();
        }
    }

    /// Ends the paragraph being built; one that has started (with text, a line break or a line of
    /// preformatted text) is kept even when it ends up empty, as `<p><br></p>` shows an empty line.
    fn flush(&mut self) {
        if self.in_cell() {
            return self.cell_space();
        }
        let Some(kind) = self.kind.take() else {
            return;
        };
        self.trim_end();
        // A line break at the very end of a paragraph shows no extra line.
        if let Some(last) = self.spans.last_mut()
            && last.text.ends_with('\u{b}')
        {
            last.text.pop();
            self.trim_end();
        }
        let mut spans = std::mem::take(&mut self.spans);
        spans.retain(|s| !s.text.is_empty());
        self.paras.push(Para { kind, spans });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn kinds(html: &str) -> Vec<(Kind, String)> {
        parse_html(html).into_iter().map(|p| (p.kind, p.spans.iter().map(|s| s.text.as_str()).collect())).collect()
    }

    fn normal(text: &str) -> (Kind, String) {
        (Kind::Normal, text.into())
    }

    fn item(ordered: bool, level: usize, text: &str) -> (Kind, String) {
        (Kind::Item { ordered, level }, text.into())
    }

    fn span(text: &str, style: Style) -> Span {
        Span { text: text.into(), style }
    }

    #[test]
    fn headings_paragraphs_and_line_breaks() {
        let html = "<h1>Title</h1><p>First\n   paragraph</p><h3>Sub</h3><p>one<br>two <br/> three<br></p>\
                    <div>block</div><p><br></p><h6>six</h6><h7>not a heading</h7>";
        assert_eq!(
            kinds(html),
            vec![
                (Kind::Heading(1), "Title".into()),
                normal("First paragraph"),
                (Kind::Heading(3), "Sub".into()),
                normal("one\u{b}two\u{b}three"),
                normal("block"),
                normal(""),
                (Kind::Heading(6), "six".into()),
                normal("not a heading"),
            ]
        );
    }

    #[test]
    fn inline_styles_become_span_styles() {
        let bold = Style { bold: true, ..Style::default() };
        let link = |url: &str| Style { link: Some(url.into()), ..Style::default() };
        let paras = parse_html(
            "<p>a <b>b</b> <strong><em>c</em></strong> <i>d</i> <del>e</del><s>f</s> <code>g()</code> \
             <a href=\"https://x.test/?a=1&amp;b=2\">h <b>i</b></a> <span style=\"font-weight: 700\">j</span> \
             <u>k</u> <a>no href</a></p>",
        );
        assert_eq!(paras.len(), 1);
        assert_eq!(
            paras[0].spans,
            vec![
                Span::plain("a "),
                span("b", bold.clone()),
                Span::plain(" "),
                span("c", Style { bold: true, italic: true, ..Style::default() }),
                Span::plain(" "),
                span("d", Style { italic: true, ..Style::default() }),
                Span::plain(" "),
                span("ef", Style { strike: true, ..Style::default() }),
                Span::plain(" "),
                span("g()", Style { code: true, ..Style::default() }),
                Span::plain(" "),
                span("h ", link("https://x.test/?a=1&b=2")),
                span("i", Style { bold: true, ..link("https://x.test/?a=1&b=2") }),
                Span::plain(" "),
                span("j", bold),
                Span::plain(" "),
                span("k", Style { underline: true, ..Style::default() }),
                Span::plain(" no href"),
            ]
        );
    }

    #[test]
    fn lists_nest_and_continue() {
        let html = "<ul><li>a</li><li>b<ul><li>c<ol><li>d</ol></li></ul>tail</li></ul>\
                    <ol>\n  <li><p>one</p><p>more</p>\n  <li>two\n</ol><li>stray";
        assert_eq!(
            kinds(html),
            vec![
                item(false, 0, "a"),
                item(false, 0, "b"),
                item(false, 1, "c"),
                item(true, 2, "d"),
                normal("tail"),
                item(true, 0, "one"),
                normal("more"),
                item(true, 0, "two"),
                item(false, 0, "stray"),
            ]
        );
        // Docs stops at nine levels.
        let deep = "<ul><li>x".repeat(12);
        assert_eq!(kinds(&deep).last(), Some(&item(false, MAX_NESTING, "x")));
    }

    #[test]
    fn preformatted_text_keeps_its_lines_and_spaces() {
        let html = "<pre>\nfn main() {\n    let x = a &lt; b;\n\n}</pre><pre><code>one</code>\n</pre>";
        let code = |t: &str| (Kind::Code, t.to_owned());
        assert_eq!(
            kinds(html),
            vec![code("fn main() {"), code("    let x = a < b;"), code(""), code("}"), code("one")]
        );
        let escaped = kinds("<p>before</p><pre>if a &lt; b &amp;&amp; c</pre>after");
        assert_eq!(escaped, vec![normal("before"), code("if a < b && c"), normal("after")]);
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            kinds("<p>Tom &amp; Jerry&nbsp;&copy; &#169; &#x1F600; &lt;b&gt; &hellip;&bogus; AT&T</p>"),
            vec![normal("Tom & Jerry\u{a0}© © 😀 <b> …&bogus; AT&T")]
        );
        // A paragraph of only a no-break space is kept: it is how editors write an empty line.
        assert_eq!(kinds("<p>a</p><p>&nbsp;</p><p>b</p>"), vec![normal("a"), normal("\u{a0}"), normal("b")]);
    }

    #[test]
    fn hidden_content_is_left_out_and_unknown_tags_keep_their_text() {
        let html = "<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style>\
                    <script>if (a<b) { document.write('<p>x</p>') }</script></head>\
                    <body><!-- note --><custom-box>kept <blink>too</blink></custom-box><template>no</template>\
                    <noscript>no</noscript><img src=x alt=pic><p>end</p></body></html>";
        assert_eq!(kinds(html), vec![normal("kept too"), normal("end")]);
    }

    #[test]
    fn text_without_tags_is_plain_text_one_paragraph_per_line() {
        let text = "First line\nsecond  line *not italic*\n\n  indented & <not a tag\r\n";
        assert_eq!(
            kinds(text),
            vec![
                normal("First line"),
                normal("second  line *not italic*"),
                normal(""),
                normal("  indented & <not a tag"),
            ]
        );
        assert!(parse_html("").is_empty());
        assert!(parse_html("\n").is_empty());
        // One element is enough to read the whole content as HTML: newlines are spaces then.
        assert_eq!(kinds("a\nb <b>c</b>"), vec![normal("a b c")]);
        assert_eq!(kinds("x<!-- c -->\ny"), vec![normal("x y")]);
        // Tag-like text that names no HTML element is plain text.
        assert_eq!(kinds("Dear <Alice>,\nif a<b then"), vec![normal("Dear <Alice>,"), normal("if a<b then")]);
    }

    /// A table block's cells as text.
    fn cells(para: &Para) -> Vec<Vec<String>> {
        let Kind::Table(table) = &para.kind else { panic!("not a table: {para:?}") };
        table.rows.iter().map(|r| r.iter().map(|c| c.iter().map(|s| s.text.as_str()).collect()).collect()).collect()
    }

    #[test]
    fn tables_become_table_blocks() {
        let html = "<p>before</p><table><caption>Stock</caption><thead><tr><th>Name</th><th>Qty</th></tr></thead>\
                    <tbody><tr><td>apple <b>red</b></td><td> 3<br>left </td></tr>\
                    <tr><td></td><td><p>x</p><p>y</p><td>extra</tr></tbody></table><p>after</p>";
        let paras = parse_html(html);
        assert_eq!(paras.len(), 4, "{paras:#?}");
        assert_eq!(paras[0].spans, vec![Span::plain("before")]);
        // A caption is a paragraph before the table.
        assert_eq!(paras[1].spans, vec![Span::plain("Stock")]);
        assert_eq!(
            cells(&paras[2]),
            vec![vec!["Name", "Qty", ""], vec!["apple red", "3 left", ""], vec!["", "x y", "extra"]]
        );
        let Kind::Table(table) = &paras[2].kind else { unreachable!() };
        assert!(table.rows[0][0][0].style.bold, "header cells are bold");
        assert_eq!(table.rows[1][0][1], span("red", Style { bold: true, ..Style::default() }));
        assert_eq!(paras[3].spans, vec![Span::plain("after")]);
    }

    #[test]
    fn broken_and_nested_tables() {
        // Cells and rows without their table parts, left open at the end.
        let paras = parse_html("<table><td>a<td>b<tr><td>c");
        assert_eq!(cells(&paras[0]), vec![vec!["a", "b"], vec!["c", ""]]);
        // A table in a cell is text in it; an empty table is nothing.
        let paras = parse_html(
            "<table><tr><td><table><tr><td>i</td><td>j</td></tr></table></td><td>k</td></tr></table><table></table>",
        );
        assert_eq!(paras.len(), 1);
        assert_eq!(cells(&paras[0]), vec![vec!["i | j", "k"]]);
        // Text inside a table but outside its cells comes before it, as in a browser.
        let paras = parse_html("<table>stray<tr><td>a</table>");
        assert_eq!(paras[0].spans, vec![Span::plain("stray")]);
        assert_eq!(cells(&paras[1]), vec![vec!["a"]]);
        // An inline element closed around the table does not end it.
        let paras = parse_html("<b>bold <table><tr><td>a</b><td>b</table>");
        assert_eq!(cells(&paras[1]), vec![vec!["a", "b"]]);
        // Docs takes 20 columns at most.
        let wide = format!("<table><tr>{}</tr></table>", "<td>c</td>".repeat(30));
        assert_eq!(cells(&parse_html(&wide)[0])[0].len(), MAX_COLUMNS);
    }

    #[test]
    fn blockquotes_and_other_blocks_are_plain_paragraphs() {
        let html =
            "<blockquote><p>quoted</p>more</blockquote><section>s</section><hr>after rule<dl><dt>term<dd>def</dl>";
        assert_eq!(
            kinds(html),
            vec![normal("quoted"), normal("more"), normal("s"), normal("after rule"), normal("term"), normal("def")]
        );
    }

    #[test]
    fn broken_html_still_makes_paragraphs() {
        assert_eq!(
            kinds("<p>one<p>two <b>bold<i>both</p><h2>head</b></i>ing<p>tail</span></div>"),
            // As in a browser: `<p>` does not end a heading, so "tail" is part of it.
            vec![
                normal("one"),
                normal("two boldboth"),
                (Kind::Heading(2), "heading".into()),
                (Kind::Heading(2), "tail".into())
            ]
        );
        let paras = parse_html("<p>two <b>bold</p><p>next");
        assert!(paras[1].spans.iter().all(|s| !s.style.bold), "an end tag closes what it holds: {paras:?}");
        assert_eq!(kinds("<b>unclosed <a href='u'>link"), vec![normal("unclosed link")]);
        // An inline end tag ends only its own style, never a paragraph.
        let paras = parse_html("<b>x<p>y <i>z</b> w</i>");
        assert_eq!(paras.len(), 2);
        assert_eq!(
            paras[1].spans,
            vec![
                span("y ", Style { bold: true, ..Style::default() }),
                span("z", Style { bold: true, italic: true, ..Style::default() }),
                span(" w", Style { italic: true, ..Style::default() }),
            ]
        );
        assert_eq!(kinds("</p></li></ul>text"), vec![normal("text")]);
        // A tag never closed swallows the rest; with no tag left, the content is kept as plain text.
        assert_eq!(kinds("<p attr=\"unterminated>x</p>"), vec![normal("<p attr=\"unterminated>x</p>")]);
        assert_eq!(kinds("<p>a</p><p attr=\"x>lost</p>"), vec![normal("a")]);
        // Thousands of unclosed elements stay cheap.
        let hostile = "<b><i><ul><li>".repeat(3000) + "x";
        assert_eq!(kinds(&hostile).last().map(|(_, t)| t.as_str()), Some("x"));
    }

    #[test]
    fn requests_for_a_small_document() {
        let reqs =
            html_to_requests_placed("<h1>Hi</h1><ul><li>a<ul><li>b</li></ul></li></ul>", 1, Placement::ParagraphStart);
        assert_eq!(reqs[0], json!({"insertText": {"location": {"index": 1}, "text": "Hi\na\n\tb\n"}}));
        assert!(reqs.iter().any(|r| r["updateParagraphStyle"]["paragraphStyle"]["namedStyleType"] == "HEADING_1"));
        assert_eq!(
            reqs.last().unwrap(),
            &json!({"createParagraphBullets": {"range": {"startIndex": 4, "endIndex": 8},
                "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}})
        );
        assert!(html_to_requests_placed("<p></p><script>x</script>", 1, Placement::EmptyParagraph).is_empty());
    }

    /// The text a batch of requests inserts, and every range in them.
    fn ranges(requests: &[Value]) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for r in requests {
            for kind in ["updateParagraphStyle", "updateTextStyle", "createParagraphBullets", "deleteParagraphBullets"]
            {
                if let Some(range) = r[kind].get("range") {
                    out.push((range["startIndex"].as_u64().unwrap(), range["endIndex"].as_u64().unwrap()));
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn tag_soup_gives_requests_inside_the_inserted_text(
            parts in proptest::collection::vec(prop_oneof![
                Just("<p>"), Just("</p>"), Just("<b>"), Just("</b>"), Just("<i>"), Just("</em>"), Just("<ul>"),
                Just("</ul>"), Just("<ol>"), Just("<li>"), Just("</li>"), Just("<h2>"), Just("</h2>"), Just("<br>"),
                Just("<pre>"), Just("</pre>"), Just("<a href=u>"), Just("</a>"), Just("<table><tr><td>"),
                Just("</td><td>"), Just("<script>"), Just("</script>"), Just("<!--"), Just("-->"), Just("&amp;"),
                Just("&#x"), Just("<"), Just(">"), Just("\n"), Just("  "), Just("text"), Just("é😀"), Just("\u{1}"),
            ], 0..40)
        ) {
            let html: String = parts.concat();
            let requests = html_to_requests_placed(&html, 1, Placement::EmptyParagraph);
            let paras = parse_html(&html);
            prop_assert_eq!(requests.is_empty(), paras.is_empty());
            // Without a table, everything is inside the one inserted text (or the newline after it,
            // for an empty last paragraph).
            let tables = paras.iter().any(|p| matches!(p.kind, Kind::Table(_)));
            let inserted = requests.iter().filter_map(|r| r["insertText"]["text"].as_str()).next().unwrap_or("");
            let end = 1 + super::super::utf16::utf16_len(inserted) as u64;
            for (start, stop) in ranges(&requests) {
                prop_assert!(1 <= start && start < stop, "{start}..{stop} for {html:?}");
                prop_assert!(tables || stop <= end + 1, "{start}..{stop} of {inserted:?} for {html:?}");
            }
            for para in &paras {
                let text: String = para.spans.iter().map(|s| s.text.as_str()).collect();
                prop_assert!(!text.contains('\n') && !text.contains('\u{1}'), "{text:?} for {html:?}");
            }
        }
    }
}
