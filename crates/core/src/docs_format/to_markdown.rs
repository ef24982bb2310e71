//! A Docs v1 `Document` (as `documents.get` returns it) → Markdown, plain text, or an outline.
//!
//! Markdown is what assistants read best, and it is written so that [`super::markdown`] reads it
//! back to the same headings, lists, bold, italic, strikethrough, links and code. Tables become GFM
//! tables ([`super::table`]), shaded monospace paragraphs fenced code blocks ([`super::code`]);
//! images, page breaks and other objects without a Markdown form are left out. Documents fetched with
//! `includeTabsContent` are read from their first tab.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::code::{code_line_text, fenced, is_code_line, is_monospace};
use super::render::{Run, render_runs};
use super::table;

/// How many characters of a paragraph `structure` shows.
const PREVIEW_CHARS: usize = 80;

/// The document as Markdown, ending with one newline (empty for an empty document).
pub fn to_markdown(doc: &Value) -> String {
    let doc = DocParts::of(doc);
    // Each block with the list it belongs to, if any: items of one list sit on consecutive lines.
    let mut blocks: Vec<(String, Option<&str>)> = Vec::new();
    let mut lists = ListState::default();
    // The lines of the code block being read.
    let mut code: Vec<String> = Vec::new();
    for element in doc.content {
        let code_line = element.get("paragraph").filter(|p| is_code_line(p));
        if let Some(paragraph) = code_line {
            code.push(code_line_text(paragraph));
            lists.indents.clear();
            continue;
        }
        if !code.is_empty() {
            blocks.push((fenced(&std::mem::take(&mut code)), None));
        }
        if let Some(paragraph) = element.get("paragraph") {
            let (text, list) = paragraph_markdown(paragraph, &doc, &mut lists);
            if !text.is_empty() {
                blocks.push((text, list));
            }
            if list.is_none() {
                lists.indents.clear();
            }
        } else if let Some(table) = element.get("table") {
            blocks.push((table_markdown(table), None));
            lists.indents.clear();
        }
    }
    if !code.is_empty() {
        blocks.push((fenced(&code), None));
    }
    let mut out = String::new();
    // The lists of the items on the lines just written: a nested list of another kind is another
    // Docs list, and it and its parent's next items still sit on consecutive lines.
    let mut run: Vec<&str> = Vec::new();
    for (i, (text, list)) in blocks.iter().enumerate() {
        if i > 0 {
            let nested = text.starts_with(' ');
            let tight = list.is_some_and(|l| blocks[i - 1].1.is_some() && (nested || run.contains(&l)));
            if !tight {
                run.clear();
            }
            out.push_str(if tight { "\n" } else { "\n\n" });
        }
        run.extend(*list);
        out.push_str(text);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The document's text: paragraphs on their own lines, table cells separated by tabs.
pub fn to_plain_text(doc: &Value) -> String {
    let doc = DocParts::of(doc);
    let mut out = String::new();
    plain_content(doc.content, &mut out);
    out
}

/// An outline for `get_doc_structure`: each paragraph, heading, list item and table with its
/// `startIndex`/`endIndex` (UTF-16, as Docs requests take them) and a short preview of its text.
pub fn structure(doc: &Value) -> Value {
    let parts = DocParts::of(doc);
    let mut elements = Vec::new();
    let mut end = 1;
    for element in parts.content {
        let (start, stop) = indexes(element);
        end = end.max(stop);
        let mut entry = Map::new();
        if let Some(paragraph) = element.get("paragraph") {
            describe_paragraph(paragraph, &parts, &mut entry);
        } else if let Some(table) = element.get("table") {
            describe_table(table, &mut entry);
        } else if element.get("tableOfContents").is_some() {
            entry.insert("type".into(), json!("table_of_contents"));
        } else {
            continue;
        }
        entry.insert("startIndex".into(), json!(start));
        entry.insert("endIndex".into(), json!(stop));
        elements.push(Value::Object(entry));
    }
    json!({
        "documentId": doc.get("documentId").cloned().unwrap_or(Value::Null),
        "title": doc.get("title").cloned().unwrap_or(Value::Null),
        "bodyEndIndex": end,
        "elements": elements,
    })
}

/// The parts of a document we read, from the body or, for tabbed fetches, the first tab.
struct DocParts<'a> {
    content: &'a [Value],
    lists: Option<&'a Map<String, Value>>,
}

impl<'a> DocParts<'a> {
    fn of(doc: &'a Value) -> DocParts<'a> {
        let root = match doc.get("body") {
            Some(_) => doc,
            None => doc.pointer("/tabs/0/documentTab").unwrap_or(doc),
        };
        DocParts { content: content_of(root.get("body")), lists: root.get("lists").and_then(Value::as_object) }
    }

    /// Whether a list level is numbered, from its glyph: a glyph type such as DECIMAL numbers it, a
    /// glyph symbol (or nothing) is a bullet.
    fn is_numbered(&self, list_id: &str, level: usize) -> bool {
        let level = self
            .lists
            .and_then(|l| l.get(list_id))
            .and_then(|l| l.pointer("/listProperties/nestingLevels"))
            .and_then(|levels| levels.get(level));
        let glyph = level.and_then(|l| l.get("glyphType")).and_then(Value::as_str);
        matches!(glyph, Some("DECIMAL" | "ZERO_DECIMAL" | "UPPER_ALPHA" | "ALPHA" | "UPPER_ROMAN" | "ROMAN"))
    }

    fn start_number(&self, list_id: &str, level: usize) -> u64 {
        self.lists
            .and_then(|l| l.get(list_id))
            .and_then(|l| l.pointer(&format!("/listProperties/nestingLevels/{level}/startNumber")))
            .and_then(Value::as_u64)
            .unwrap_or(1)
    }
}

fn content_of(holder: Option<&Value>) -> &[Value] {
    holder.and_then(|h| h.get("content")).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn indexes(element: &Value) -> (u64, u64) {
    let get = |key| element.get(key).and_then(Value::as_u64).unwrap_or(0);
    (get("startIndex"), get("endIndex"))
}

/// Numbering and indentation carried from one list item to the next.
#[derive(Default)]
struct ListState {
    /// Per list id, the item count at each nesting level.
    counters: HashMap<String, Vec<u64>>,
    /// Where the text of the latest item at each level starts, so children indent under it.
    indents: Vec<usize>,
}

impl ListState {
    /// The item's marker (`-` or `3.`) and how far to indent it.
    fn item(&mut self, doc: &DocParts, list_id: &str, level: usize) -> (String, usize) {
        let marker = if doc.is_numbered(list_id, level) {
            let levels = self.counters.entry(list_id.to_string()).or_default();
            levels.truncate(level + 1);
            while levels.len() <= level {
                levels.push(doc.start_number(list_id, levels.len()).saturating_sub(1));
            }
            levels[level] += 1;
            format!("{}.", levels[level])
        } else {
            "-".to_string()
        };
        self.indents.truncate(level);
        while self.indents.len() < level {
            let parent = self.indents.last().copied().unwrap_or(0);
            self.indents.push(parent + 2);
        }
        let indent = self.indents.last().copied().filter(|_| level > 0).unwrap_or(0);
        self.indents.push(indent + marker.len() + 1);
        (marker, indent)
    }
}

/// A paragraph as a Markdown block, and the id of its list if it is a list item.
fn paragraph_markdown<'a>(paragraph: &'a Value, doc: &DocParts, lists: &mut ListState) -> (String, Option<&'a str>) {
    let inline = render_runs(&runs(paragraph));
    let style = paragraph.pointer("/paragraphStyle/namedStyleType").and_then(Value::as_str).unwrap_or("NORMAL_TEXT");
    if let Some(bullet) = paragraph.get("bullet") {
        let list_id = bullet.get("listId").and_then(Value::as_str).unwrap_or("");
        let level = bullet.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0) as usize;
        let (marker, indent) = lists.item(doc, list_id, level);
        let text = format!("{}{marker} {inline}", " ".repeat(indent));
        return (text.trim_end().to_string(), Some(list_id));
    }
    let level = match style {
        "TITLE" => 1,
        _ => style
            .strip_prefix("HEADING_")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| (1..=6).contains(n))
            .unwrap_or(0),
    };
    if level == 0 || inline.is_empty() {
        return (inline, None);
    }
    // A heading's trailing `#` would read as a closing sequence, unless already escaped.
    let inline = match inline.strip_suffix('#') {
        Some(cut) if cut.chars().rev().take_while(|&c| c == '\\').count() % 2 == 0 => {
            format!("{cut}\\#")
        }
        _ => inline,
    };
    (format!("{} {inline}", "#".repeat(level)), None)
}

/// The styled runs of a paragraph, without its closing newline.
fn runs(paragraph: &Value) -> Vec<Run> {
    let elements = paragraph.get("elements").and_then(Value::as_array);
    let mut out = Vec::new();
    for element in elements.into_iter().flatten() {
        let (text, style) = if let Some(run) = element.get("textRun") {
            let text = run.get("content").and_then(Value::as_str).unwrap_or("");
            (text.to_string(), run.get("textStyle"))
        } else if let Some(person) = element.get("person") {
            let props = person.get("personProperties");
            let name = props.and_then(|p| p.get("name").or_else(|| p.get("email")));
            (name.and_then(Value::as_str).unwrap_or("").to_string(), person.get("textStyle"))
        } else if let Some(link) = element.get("richLink") {
            let props = link.get("richLinkProperties");
            let title = props.and_then(|p| p.get("title").or_else(|| p.get("uri")));
            let uri = props.and_then(|p| p.get("uri")).and_then(Value::as_str);
            let text = title.and_then(Value::as_str).unwrap_or("").to_string();
            out.push(Run { text, link: uri.map(str::to_string), ..Run::default() });
            continue;
        } else {
            continue;
        };
        let flag = |key: &str| style.and_then(|s| s.get(key)).and_then(Value::as_bool).unwrap_or(false);
        let link = style.and_then(|s| s.pointer("/link/url")).and_then(Value::as_str);
        out.push(Run {
            text,
            bold: flag("bold"),
            italic: flag("italic"),
            strike: flag("strikethrough"),
            code: is_monospace(style),
            link: link.map(str::to_string),
        });
    }
    if let Some(last) = out.last_mut()
        && last.text.ends_with('\n')
    {
        last.text.pop();
    }
    out
}

/// A table as a pipe table: each cell's paragraphs' runs.
fn table_markdown(table: &Value) -> String {
    let rows: Vec<Vec<Vec<Vec<Run>>>> = table_rows(table)
        .map(|cells| {
            cells
                .map(|cell| content_of(Some(cell)).iter().filter_map(|e| e.get("paragraph")).map(runs).collect())
                .collect()
        })
        .collect();
    table::table_markdown(&rows)
}

/// Each row of a table as an iterator over its cells.
fn table_rows(table: &Value) -> impl Iterator<Item = impl Iterator<Item = &Value>> {
    let rows = table.get("tableRows").and_then(Value::as_array);
    rows.into_iter().flatten().map(|row| {
        let cells = row.get("tableCells").and_then(Value::as_array);
        cells.into_iter().flatten()
    })
}

fn plain_content(content: &[Value], out: &mut String) {
    for element in content {
        if let Some(paragraph) = element.get("paragraph") {
            let text: String = runs(paragraph).into_iter().map(|r| r.text).collect();
            out.push_str(&text.replace('\u{b}', "\n"));
            out.push('\n');
        } else if let Some(table) = element.get("table") {
            for cells in table_rows(table) {
                let texts: Vec<String> = cells
                    .map(|cell| {
                        let mut text = String::new();
                        plain_content(content_of(Some(cell)), &mut text);
                        text.trim_end_matches('\n').to_string()
                    })
                    .collect();
                out.push_str(&texts.join("\t"));
                out.push('\n');
            }
        } else if let Some(toc) = element.get("tableOfContents") {
            plain_content(content_of(Some(toc)), out);
        }
    }
}

fn preview(text: &str) -> String {
    let text = text.trim_end_matches('\n').replace(['\u{b}', '\n'], " ");
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn describe_paragraph(paragraph: &Value, doc: &DocParts, entry: &mut Map<String, Value>) {
    let text: String = runs(paragraph).into_iter().map(|r| r.text).collect();
    let style = paragraph.pointer("/paragraphStyle/namedStyleType").and_then(Value::as_str).unwrap_or("NORMAL_TEXT");
    if let Some(bullet) = paragraph.get("bullet") {
        let list_id = bullet.get("listId").and_then(Value::as_str).unwrap_or("");
        let level = bullet.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0);
        entry.insert("type".into(), json!("list_item"));
        entry.insert("listId".into(), json!(list_id));
        entry.insert("nestingLevel".into(), json!(level));
        entry.insert("numbered".into(), json!(doc.is_numbered(list_id, level as usize)));
    } else if let Some(level) = style.strip_prefix("HEADING_") {
        entry.insert("type".into(), json!("heading"));
        entry.insert("level".into(), json!(level.parse::<u8>().unwrap_or(1)));
    } else if style == "TITLE" || style == "SUBTITLE" {
        entry.insert("type".into(), json!(style.to_lowercase()));
    } else {
        entry.insert("type".into(), json!("paragraph"));
    }
    entry.insert("text".into(), json!(preview(&text)));
}

fn describe_table(table: &Value, entry: &mut Map<String, Value>) {
    let cells: Vec<Value> = table_rows(table)
        .map(|row| {
            let row: Vec<Value> = row
                .map(|cell| {
                    let mut text = String::new();
                    plain_content(content_of(Some(cell)), &mut text);
                    let (start, end) = indexes(cell);
                    json!({"startIndex": start, "endIndex": end, "text": preview(&text)})
                })
                .collect();
            Value::Array(row)
        })
        .collect();
    entry.insert("type".into(), json!("table"));
    entry.insert("rows".into(), table.get("rows").cloned().unwrap_or(json!(cells.len())));
    entry.insert("columns".into(), table.get("columns").cloned().unwrap_or(Value::Null));
    entry.insert("cells".into(), Value::Array(cells));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(start: u64, text: &str, extra: Value) -> Value {
        let end = start + text.encode_utf16().count() as u64;
        let mut p = json!({
            "elements": [{"startIndex": start, "endIndex": end, "textRun": {"content": text, "textStyle": {}}}],
            "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"},
        });
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        json!({"startIndex": start, "endIndex": end, "paragraph": p})
    }

    fn cell(start: u64, text: &str) -> Value {
        json!({"startIndex": start, "endIndex": start + 1 + text.len() as u64,
               "content": [para(start + 1, &format!("{text}\n"), json!({}))]})
    }

    fn table_doc() -> Value {
        json!({"title": "T", "body": {"content": [
            {"endIndex": 1, "sectionBreak": {}},
            para(1, "Before\n", json!({})),
            {"startIndex": 8, "endIndex": 30, "table": {"rows": 2, "columns": 2, "tableRows": [
                {"tableCells": [cell(9, "Name"), cell(15, "a|b")]},
                {"tableCells": [cell(21, "x"), cell(24, "")]},
            ]}},
            para(30, "\n", json!({})),
        ]}})
    }

    #[test]
    fn tables_become_gfm_tables() {
        assert_eq!(to_markdown(&table_doc()), "Before\n\n| Name | a\\|b |\n| --- | --- |\n| x |  |\n");
        assert_eq!(to_plain_text(&table_doc()), "Before\nName\ta|b\nx\t\n\n");
        let outline = structure(&table_doc());
        let table = &outline["elements"][1];
        assert_eq!(table["type"], "table");
        assert_eq!(table["rows"], 2);
        assert_eq!(table["startIndex"], 8);
        assert_eq!(table["cells"][0][1], json!({"startIndex": 15, "endIndex": 19, "text": "a|b"}));
        assert_eq!(outline["bodyEndIndex"], 31);
    }

    #[test]
    fn tabbed_documents_are_read_from_the_first_tab() {
        let doc = json!({"tabs": [{"documentTab": {"body": {"content": [para(1, "In a tab\n", json!({}))]}}}]});
        assert_eq!(to_markdown(&doc), "In a tab\n");
        assert_eq!(to_markdown(&json!({})), "");
        assert_eq!(to_plain_text(&json!({"body": {}})), "");
    }

    #[test]
    fn list_kinds_come_from_glyphs_and_numbering_continues() {
        let item = |start, text: &str, list: &str, level: u64| {
            para(start, text, json!({"bullet": {"listId": list, "nestingLevel": level}}))
        };
        let doc = json!({
            "lists": {
                "n": {"listProperties": {"nestingLevels": [{"glyphType": "DECIMAL", "startNumber": 3}, {"glyphType": "ALPHA"}]}},
                "b": {"listProperties": {"nestingLevels": [{"glyphSymbol": "●"}, {"glyphType": "GLYPH_TYPE_UNSPECIFIED"}]}},
            },
            "body": {"content": [
                item(1, "three\n", "n", 0),
                item(7, "a\n", "n", 1),
                item(9, "four\n", "n", 0),
                item(14, "dot\n", "b", 0),
                item(18, "sub\n", "b", 1),
                item(22, "deep\n", "b", 3),
            ]},
        });
        assert_eq!(to_markdown(&doc), "3. three\n   1. a\n4. four\n\n- dot\n  - sub\n      - deep\n");
        let outline = structure(&doc);
        assert_eq!(outline["elements"][0]["numbered"], true);
        assert_eq!(outline["elements"][3]["numbered"], false);
        assert_eq!(outline["elements"][1]["nestingLevel"], 1);
    }

    #[test]
    fn other_elements_and_styles() {
        let doc = json!({"body": {"content": [
            para(1, "Doc title\n", json!({"paragraphStyle": {"namedStyleType": "TITLE"}})),
            para(11, "Sub\n", json!({"paragraphStyle": {"namedStyleType": "SUBTITLE"}})),
            {"startIndex": 15, "endIndex": 30, "paragraph": {"elements": [
                {"textRun": {"content": "Ask ", "textStyle": {}}},
                {"person": {"personProperties": {"name": "Ada", "email": "ada@x.test"}}},
                {"textRun": {"content": " about ", "textStyle": {}}},
                {"richLink": {"richLinkProperties": {"title": "Plan", "uri": "https://x.test/plan"}}},
                {"inlineObjectElement": {"inlineObjectId": "img"}},
                {"textRun": {"content": "line\u{b}# two\n", "textStyle": {"bold": true}}},
            ]}},
            {"startIndex": 30, "endIndex": 40, "tableOfContents": {"content": [para(31, "Toc\n", json!({}))]}},
        ]}});
        assert_eq!(
            to_markdown(&doc),
            "# Doc title\n\nSub\n\nAsk Ada about [Plan](https://x.test/plan)**line\\\n\\# two**\n"
        );
        assert_eq!(to_plain_text(&doc), "Doc title\nSub\nAsk Ada about Planline\n# two\nToc\n");
        let outline = structure(&doc);
        assert_eq!(outline["elements"][0]["type"], "title");
        assert_eq!(outline["elements"][3]["type"], "table_of_contents");
    }

    #[test]
    fn previews_are_short() {
        let long = "x".repeat(200) + "\n";
        let doc = json!({"body": {"content": [para(1, &long, json!({}))]}});
        let text = structure(&doc)["elements"][0]["text"].as_str().unwrap().to_string();
        assert_eq!(text.chars().count(), PREVIEW_CHARS + 1);
        assert!(text.ends_with('…'));
    }
}
