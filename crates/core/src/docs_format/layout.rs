//! The model's blocks ([`Para`]) → Google Docs v1 `batchUpdate` requests, shared by the Markdown
//! and HTML converters.
//!
//! All text goes in with one `insertText`, then paragraph and text styles are set over it. Tables
//! and bullets change the indexes after them, so they come last, from the end of the document
//! backwards: `createParagraphBullets` reads nesting from leading tabs and deletes them, and each
//! table goes in after the paragraph before it (see [`super::table`]).

use serde_json::{Value, json};

use super::code::{code_block_style, code_text_style};
use super::inline::Style;
use super::markdown::{Kind, Para, Placement};
use super::table::{After, table_requests};
use super::utf16::utf16_len;

/// Where each paragraph lands, in UTF-16 document indexes.
pub(crate) struct Layout {
    insert_at: u32,
    text: String,
    /// Start index and text length (without its newline, with its leading tabs) of each block's
    /// paragraph; for a table, of its anchor: the paragraph before it, or an empty one made for it.
    spots: Vec<(u32, u32)>,
    /// Whether the last paragraph's newline was in the document before (it cannot be deleted).
    ends_in_old_newline: bool,
}

impl Layout {
    pub(crate) fn new(paras: &[Para], insert_at: u32, placement: Placement) -> Layout {
        let mut text = String::new();
        if placement == Placement::ParagraphEnd {
            text.push('\n');
        }
        let mut spots: Vec<(u32, u32)> = Vec::with_capacity(paras.len());
        for (i, para) in paras.iter().enumerate() {
            let follows_paragraph = i > 0 && !matches!(paras[i - 1].kind, Kind::Table(_));
            if let (Kind::Table(_), true) = (&para.kind, follows_paragraph) {
                spots.push(spots[i - 1]);
                continue;
            }
            if i > 0 {
                text.push('\n');
            }
            let start = insert_at + utf16_len(&text) as u32;
            if let Kind::Item { level, .. } = para.kind {
                text.extend(std::iter::repeat_n('\t', level));
            }
            if !matches!(para.kind, Kind::Table(_)) {
                para.spans.iter().for_each(|s| text.push_str(&s.text));
            }
            spots.push((start, insert_at + utf16_len(&text) as u32 - start));
        }
        if placement == Placement::ParagraphStart {
            text.push('\n');
        }
        Layout { insert_at, text, spots, ends_in_old_newline: placement != Placement::ParagraphStart }
    }

    /// A range over paragraph `i`: its text, or its newline when it has none.
    fn para_range(&self, i: usize) -> Value {
        let (start, len) = self.spots[i];
        range(start, start + len.max(1))
    }

    pub(crate) fn requests(&self, paras: &[Para]) -> Vec<Value> {
        // Docs refuses an empty insertText (a lone table in an empty paragraph needs no text).
        let mut out = Vec::new();
        if !self.text.is_empty() {
            out.push(insert_text(self.insert_at, &self.text));
        }
        let (first, _) = self.spots[0];
        let (last, last_len) = self.spots[self.spots.len() - 1];
        let all = range(first, last + last_len.max(1));
        // Inserted paragraphs inherit the style and bullet of the one they were split from.
        out.push(json!({"deleteParagraphBullets": {"range": all}}));
        out.push(json!({"updateParagraphStyle": {
            "range": all,
            "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"},
            "fields": "namedStyleType,indentStart,indentFirstLine,shading",
        }}));
        if self.spots.iter().any(|&(_, len)| len > 0) {
            out.push(reset_text_style(first, last + last_len));
        }
        for (i, para) in paras.iter().enumerate() {
            match para.kind {
                Kind::Heading(level) => out.push(json!({"updateParagraphStyle": {
                    "range": self.para_range(i),
                    "paragraphStyle": {"namedStyleType": format!("HEADING_{level}")},
                    "fields": "namedStyleType",
                }})),
                Kind::Code => out.push(code_block_style(self.para_range(i))),
                _ => {}
            }
        }
        for (i, para) in paras.iter().enumerate() {
            if matches!(para.kind, Kind::Table(_)) {
                continue;
            }
            let (start, len) = self.spots[i];
            let mut at = start + len - para.spans.iter().map(|s| utf16_len(&s.text) as u32).sum::<u32>();
            if para.kind == Kind::Code && len > 0 {
                let (style, fields) = code_text_style();
                out.push(
                    json!({"updateTextStyle": {"range": range(at, start + len), "textStyle": style, "fields": fields}}),
                );
            }
            for span in &para.spans {
                let end = at + utf16_len(&span.text) as u32;
                out.extend(text_style(at, end, &span.style));
                at = end;
            }
        }
        out.extend(self.late_requests(paras));
        out
    }

    /// Tables and bullets, which shift the indexes after them: from the end backwards, a table
    /// before the bullets of the list it follows.
    fn late_requests(&self, paras: &[Para]) -> Vec<Value> {
        let mut late: Vec<(u32, bool, Vec<Value>)> = Vec::new();
        for (ordered, from, to) in list_groups(paras) {
            late.push((self.spots[from].0, false, self.bullet_requests(paras, ordered, from, to)));
        }
        for (i, para) in paras.iter().enumerate() {
            if let Kind::Table(table) = &para.kind {
                let (start, len) = self.spots[i];
                // What follows the anchor's old newline: more of ours (a next table has a paragraph
                // of its own before it), or (at a paragraph start) the paragraph that was there.
                let later = i + 1 < paras.len();
                let after = if later || !self.ends_in_old_newline { After::Delete } else { After::Keep };
                late.push((start + len, true, table_requests(table, start + len, after)));
            }
        }
        late.sort_by_key(|&(at, table, _)| std::cmp::Reverse((at, table)));
        late.into_iter().flat_map(|(_, _, requests)| requests).collect()
    }
}

impl Layout {
    /// Bullets for the list items `from..=to`, numbered or not as the first says. Docs has one
    /// glyph kind per list, so nested items of the other kind become a list of their own: the
    /// bullets just set removed their leading tabs, so those go back in front of them, and bullets
    /// of the other kind count them again (and remove them again).
    fn bullet_requests(&self, paras: &[Para], ordered: bool, from: usize, to: usize) -> Vec<Value> {
        let item = |i: usize| match paras[i].kind {
            Kind::Item { ordered, level } => (ordered, level as u32),
            _ => (false, 0),
        };
        let (start, _) = self.spots[from];
        let (last, last_len) = self.spots[to];
        let mut out = vec![bullets(range(start, last + last_len.max(1)), ordered)];
        // Where each item starts and ends once the first bullets removed the tabs before it.
        let mut removed = 0;
        let mut spans = Vec::new();
        for i in from..=to {
            let (at, len) = self.spots[i];
            let level = item(i).1;
            spans.push((at - removed, at - removed + len - level, level));
            removed += level;
        }
        // Runs of nested items of the other kind (never level 0: top-level items share the kind).
        let mut others: Vec<(usize, usize)> = Vec::new();
        for i in from..=to {
            if item(i).0 != ordered {
                match others.last_mut() {
                    Some((_, end)) if *end + 1 == i => *end = i,
                    _ => others.push((i, i)),
                }
            }
        }
        for (first, last) in others.into_iter().rev() {
            let mut tabs = 0;
            for k in (first..=last).rev() {
                let (at, _, level) = spans[k - from];
                if level > 0 {
                    out.push(insert_text(at, &"\t".repeat(level as usize)));
                }
                tabs += level;
            }
            let (first_at, _, _) = spans[first - from];
            let (_, last_end, _) = spans[last - from];
            out.push(bullets(range(first_at, last_end + tabs), !ordered));
        }
        out
    }
}

fn bullets(range: Value, numbered: bool) -> Value {
    let preset = if numbered { "NUMBERED_DECIMAL_ALPHA_ROMAN" } else { "BULLET_DISC_CIRCLE_SQUARE" };
    json!({"createParagraphBullets": {"range": range, "bulletPreset": preset}})
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

/// Clears the character styles Markdown sets, so inserted text does not keep those of where it lands.
pub(crate) fn reset_text_style(start: u32, end: u32) -> Value {
    json!({"updateTextStyle": {
        "range": range(start, end),
        "textStyle": {},
        "fields": "bold,italic,underline,strikethrough,link,weightedFontFamily",
    }})
}

/// The `updateTextStyle` giving `[start, end)` the span style (none for plain text).
pub(crate) fn text_style(start: u32, end: u32, style: &Style) -> Option<Value> {
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
    if style.strike {
        text_style.insert("strikethrough".into(), json!(true));
        fields.push("strikethrough");
    }
    if style.underline {
        text_style.insert("underline".into(), json!(true));
        fields.push("underline");
    }
    if style.code {
        let (code, field) = code_text_style();
        text_style.extend(code.as_object().cloned().unwrap_or_default());
        fields.push(field);
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

pub(crate) fn insert_text(index: u32, text: &str) -> Value {
    json!({"insertText": {"location": {"index": index}, "text": text}})
}

pub(crate) fn range(start: u32, end: u32) -> Value {
    json!({"startIndex": start, "endIndex": end})
}
