//! Drive's `files.export` of a document: plain text, Markdown and HTML.

use serde_json::Value;

use super::model::{Document, Kind, Para, is_numbered};

/// One paragraph, ready to export: its style, bullet and runs of (text, style).
struct Block {
    named: String,
    bullet: Option<(u32, bool)>,
    runs: Vec<(String, serde_json::Map<String, Value>)>,
}

fn blocks(doc: &Document) -> Vec<Block> {
    let mut out = Vec::new();
    for (first, last) in doc.paragraphs() {
        let para: Para = doc.units[last].para.as_deref().cloned().unwrap_or_default();
        let named = para.style.get("namedStyleType").and_then(Value::as_str).unwrap_or("NORMAL_TEXT").to_owned();
        let bullet = para.bullet.as_ref().map(|b| {
            let numbered = doc.lists.get(&b.list_id).is_some_and(|l| is_numbered(&l.preset));
            (b.level, numbered)
        });
        let mut runs: Vec<(String, serde_json::Map<String, Value>)> = Vec::new();
        for unit in &doc.units[first..last] {
            let text = match unit.kind {
                Kind::Char('\u{b}') => "\n".to_owned(),
                Kind::Char(c) => c.to_string(),
                _ => continue,
            };
            match runs.last_mut() {
                Some((run, style)) if *style == *unit.style => run.push_str(&text),
                _ => runs.push((text, (*unit.style).clone())),
            }
        }
        out.push(Block { named, bullet, runs });
    }
    out
}

fn flag(style: &serde_json::Map<String, Value>, key: &str) -> bool {
    style.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn link(style: &serde_json::Map<String, Value>) -> Option<&str> {
    style.get("link").and_then(|l| l.get("url")).and_then(Value::as_str)
}

/// List item markers as the exports write them: indented four spaces a level, numbered items counted per
/// level (a deeper count restarts under each item, every count at a paragraph outside a list).
#[derive(Default)]
struct Markers([u32; 9]);

impl Markers {
    /// The marker of a list item at `level`: `1. ` (the next number) when `numbered`, else `bullet`.
    fn item(&mut self, level: u32, numbered: bool, bullet: &str) -> String {
        let indent = "    ".repeat(level as usize);
        if numbered {
            let slot = (level as usize).min(8);
            self.0[slot] += 1;
            self.0[slot + 1..].iter_mut().for_each(|c| *c = 0);
            format!("{indent}{}. ", self.0[slot])
        } else {
            format!("{indent}{bullet} ")
        }
    }

    /// A paragraph outside a list: numbering starts again.
    fn reset(&mut self) {
        self.0 = [0; 9];
    }
}

/// `text/plain`, as Google exports it: a byte-order mark, CRLF between paragraphs, `* ` bullets.
pub(crate) fn plain(doc: &Document) -> String {
    let mut lines = Vec::new();
    let mut markers = Markers::default();
    for block in blocks(doc) {
        let text: String = block.runs.iter().map(|(t, _)| t.as_str()).collect();
        let prefix = match block.bullet {
            Some((level, numbered)) => markers.item(level, numbered, "*"),
            None => {
                markers.reset();
                String::new()
            }
        };
        lines.push(format!("{prefix}{text}").replace('\n', "\r\n"));
    }
    // The body's final newline closes the last paragraph: no line break after it.
    format!("\u{feff}{}", lines.join("\r\n"))
}

/// `text/markdown`: headings, emphasis, links and lists.
pub(crate) fn markdown(doc: &Document) -> String {
    let mut out = String::new();
    let mut previous_list = false;
    let mut markers = Markers::default();
    for block in blocks(doc) {
        let mut text = String::new();
        for (run, style) in &block.runs {
            if run.trim().is_empty() {
                text.push_str(run);
                continue;
            }
            let mut piece = run.clone();
            if flag(style, "strikethrough") {
                piece = format!("~~{piece}~~");
            }
            if flag(style, "italic") {
                piece = format!("*{piece}*");
            }
            if flag(style, "bold") {
                piece = format!("**{piece}**");
            }
            if let Some(url) = link(style) {
                piece = format!("[{piece}]({url})");
            }
            text.push_str(&piece);
        }
        let is_list = block.bullet.is_some();
        if !out.is_empty() {
            out.push_str(if is_list && previous_list { "\n" } else { "\n\n" });
        }
        let line = match (block.bullet, block.named.as_str()) {
            (Some((level, numbered)), _) => format!("{}{text}", markers.item(level, numbered, "-")),
            (None, "TITLE") => format!("# {text}"),
            (None, "SUBTITLE") => format!("## {text}"),
            (None, named) if named.starts_with("HEADING_") => {
                let level: usize = named.trim_start_matches("HEADING_").parse().unwrap_or(1);
                format!("{} {text}", "#".repeat(level))
            }
            _ => text,
        };
        if !is_list {
            markers.reset();
        }
        previous_list = is_list;
        out.push_str(&line);
    }
    out.push('\n');
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `text/html`: a complete page with headings, paragraphs, lists and styled spans.
pub(crate) fn html(doc: &Document) -> String {
    let mut body = String::new();
    let mut open_list: Option<bool> = None;
    for block in blocks(doc) {
        match (block.bullet, open_list) {
            (Some((_, numbered)), Some(open)) if numbered == open => {}
            (Some((_, numbered)), current) => {
                if let Some(open) = current {
                    body.push_str(if open { "</ol>" } else { "</ul>" });
                }
                body.push_str(if numbered { "<ol>" } else { "<ul>" });
                open_list = Some(numbered);
            }
            (None, Some(open)) => {
                body.push_str(if open { "</ol>" } else { "</ul>" });
                open_list = None;
            }
            (None, None) => {}
        }
        let mut inner = String::new();
        for (run, style) in &block.runs {
            let mut css = Vec::new();
            if flag(style, "bold") {
                css.push("font-weight:700");
            }
            if flag(style, "italic") {
                css.push("font-style:italic");
            }
            if flag(style, "underline") {
                css.push("text-decoration:underline");
            }
            if flag(style, "strikethrough") {
                css.push("text-decoration:line-through");
            }
            let text = escape(run).replace('\n', "<br>");
            let span = if css.is_empty() {
                format!("<span>{text}</span>")
            } else {
                format!("<span style=\"{}\">{text}</span>", css.join(";"))
            };
            match link(style) {
                Some(url) => inner.push_str(&format!("<a href=\"{}\">{span}</a>", escape(url))),
                None => inner.push_str(&span),
            }
        }
        let (open, close) = match (block.bullet.is_some(), block.named.as_str()) {
            (true, _) => ("<li>".to_owned(), "</li>".to_owned()),
            (false, "TITLE") => ("<p class=\"title\">".to_owned(), "</p>".to_owned()),
            (false, "SUBTITLE") => ("<p class=\"subtitle\">".to_owned(), "</p>".to_owned()),
            (false, named) if named.starts_with("HEADING_") => {
                let level = named.trim_start_matches("HEADING_");
                (format!("<h{level}>"), format!("</h{level}>"))
            }
            _ => ("<p>".to_owned(), "</p>".to_owned()),
        };
        body.push_str(&open);
        body.push_str(&inner);
        body.push_str(&close);
    }
    if let Some(open) = open_list {
        body.push_str(if open { "</ol>" } else { "</ul>" });
    }
    format!(
        "<html><head><meta content=\"text/html; charset=UTF-8\" http-equiv=\"content-type\"><title>{}</title></head><body>{body}</body></html>",
        escape(&doc.title)
    )
}
