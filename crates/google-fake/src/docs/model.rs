//! The document model: the body as a flat sequence of units (characters and page breaks), each with its
//! text style; every paragraph's attributes (paragraph style, bullet) live on its closing newline.
//! Indexes are UTF-16 code units from 1 (index 0 is the body's opening section break), exactly as
//! Google counts them, so an emoji outside the BMP is two indexes wide.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

/// A text style (`TextStyle` JSON), shared between the units that carry it.
pub(crate) type Style = Arc<Map<String, Value>>;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Char(char),
    PageBreak,
    /// A table's first index; its unit's style holds the `TableStyle` (see [`super::tables`]).
    TableStart,
    /// A table row's first index; its unit's style holds the `TableRowStyle`.
    RowStart,
    /// A table cell's first index; its unit's style holds the `TableCellStyle`.
    CellStart,
    /// Where a table ends: zero-width, it only closes the table.
    TableEnd,
    /// An inline image (`insertInlineImage`), by the id of its entry in [`Document::inline_objects`].
    InlineObject(String),
}

/// The attributes of a paragraph.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Para {
    /// `ParagraphStyle` JSON as set (defaults are filled in when rendering).
    pub style: Map<String, Value>,
    pub bullet: Option<Bullet>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bullet {
    pub list_id: String,
    pub level: u32,
}

/// One index-bearing unit of the body.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    pub kind: Kind,
    pub style: Style,
    /// Present exactly on newlines: the attributes of the paragraph the newline closes.
    pub para: Option<Box<Para>>,
    /// The ids of the named ranges covering this unit (see [`super::named_ranges`]).
    pub ranges: Vec<String>,
}

impl Unit {
    pub(crate) fn char(ch: char, style: Style, para: Option<&Para>) -> Self {
        let para = (ch == '\n').then(|| Box::new(para.cloned().unwrap_or_default()));
        Self { kind: Kind::Char(ch), style, para, ranges: Vec::new() }
    }

    /// A unit that is not a character (a page break or table structure).
    pub(crate) fn mark(kind: Kind, style: Style) -> Self {
        Self { kind, style, para: None, ranges: Vec::new() }
    }

    pub(crate) fn width(&self) -> u32 {
        match self.kind {
            Kind::Char(c) => c.len_utf16() as u32,
            Kind::PageBreak | Kind::TableStart | Kind::RowStart | Kind::CellStart | Kind::InlineObject(_) => 1,
            Kind::TableEnd => 0,
        }
    }

    /// Whether the unit is table structure rather than paragraph content.
    pub(crate) fn is_structure(&self) -> bool {
        matches!(self.kind, Kind::TableStart | Kind::RowStart | Kind::CellStart | Kind::TableEnd)
    }

    pub(crate) fn is_newline(&self) -> bool {
        self.kind == Kind::Char('\n')
    }
}

/// A list created by `createParagraphBullets`.
#[derive(Debug, Clone)]
pub(crate) struct ListDef {
    pub preset: String,
}

/// A document.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    pub id: String,
    pub title: String,
    pub revision: String,
    pub units: Vec<Unit>,
    pub lists: BTreeMap<String, ListDef>,
    /// The index of the first unit: 1 in the body (after its section break), 0 while a header or footer
    /// is swapped in for editing (see [`super::segments`]).
    pub base: u32,
    /// The default header and footer, by id, as their own unit sequences.
    pub headers: BTreeMap<String, Vec<Unit>>,
    pub footers: BTreeMap<String, Vec<Unit>>,
    /// Named ranges' names by id; where each range is lives on the units it covers.
    pub named_ranges: BTreeMap<String, String>,
    /// Named styles changed by `updateNamedStyle`, as whole `NamedStyle` JSON by type.
    pub named_styles: BTreeMap<String, Value>,
    /// Inline images (`InlineObject` JSON) by id; only those still in the body are shown.
    pub inline_objects: BTreeMap<String, Value>,
}

pub(crate) fn new_revision() -> String {
    format!("AL{}", crate::World::new_id(40))
}

/// A random suffix like Google's `kix.` list ids and `h.` heading ids.
pub(crate) fn short_id() -> String {
    crate::World::new_id(12).to_ascii_lowercase().replace(['-', '_'], "x")
}

pub(crate) fn empty_style() -> Style {
    Arc::new(Map::new())
}

impl Document {
    pub(crate) fn new(id: &str, title: &str) -> Self {
        Self {
            id: id.to_owned(),
            title: title.to_owned(),
            revision: new_revision(),
            units: vec![Unit::char('\n', empty_style(), None)],
            lists: BTreeMap::new(),
            base: 1,
            headers: BTreeMap::new(),
            footers: BTreeMap::new(),
            named_ranges: BTreeMap::new(),
            named_styles: BTreeMap::new(),
            inline_objects: BTreeMap::new(),
        }
    }

    /// The document index each unit starts at; the extra last entry is the body's end index.
    pub(crate) fn starts(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.units.len() + 1);
        let mut index = self.base;
        for unit in &self.units {
            out.push(index);
            index += unit.width();
        }
        out.push(index);
        out
    }

    pub(crate) fn end_index(&self) -> u32 {
        self.base + self.units.iter().map(Unit::width).sum::<u32>()
    }

    /// The unit position at a document index (past any zero-width table end there); `None` when the
    /// index splits a surrogate pair or is outside the body.
    pub(crate) fn position(&self, starts: &[u32], index: u32) -> Option<usize> {
        let after = starts.partition_point(|s| *s <= index);
        after.checked_sub(1).filter(|&p| starts[p] == index)
    }

    /// Paragraphs as unit ranges `[start, newline]`.
    pub(crate) fn paragraphs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, unit) in self.units.iter().enumerate() {
            if unit.is_newline() {
                out.push((start, i));
                start = i + 1;
            } else if unit.is_structure() {
                start = i + 1;
            }
        }
        out
    }

    /// The attributes of the paragraph containing unit `pos`.
    pub(crate) fn para_at(&self, pos: usize) -> Para {
        self.units[pos.min(self.units.len().saturating_sub(1))..]
            .iter()
            .find_map(|u| u.para.as_deref().cloned())
            .unwrap_or_default()
    }

    /// The body text (page breaks left out).
    pub(crate) fn text(&self) -> String {
        self.units
            .iter()
            .filter_map(|u| match u.kind {
                Kind::Char(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The full `Document` resource; with `tabs`, the content moves into `tabs[0].documentTab`.
    pub(crate) fn json(&self, tabs: bool) -> Value {
        let mut content = vec![json!({
            "endIndex": 1,
            "sectionBreak": {
                "sectionStyle": {
                    "columnSeparatorStyle": "NONE",
                    "contentDirection": "LEFT_TO_RIGHT",
                    "sectionType": "CONTINUOUS"
                }
            }
        })];
        let starts = self.starts();
        content.extend(self.content_json(&starts, 0, self.units.len()));
        let mut tab = json!({
            "body": { "content": content },
            "documentStyle": document_style(),
            "namedStyles": super::named_styles::json(self),
        });
        super::segments::add_json(self, &mut tab);
        super::named_ranges::add_json(self, &starts, &mut tab);
        super::images::add_json(self, &mut tab);
        let lists: Map<String, Value> =
            self.lists.iter().map(|(id, list)| (id.clone(), list_json(&list.preset))).collect();
        if !lists.is_empty() {
            tab["lists"] = Value::Object(lists);
        }
        let mut doc = json!({
            "documentId": self.id,
            "title": self.title,
            "revisionId": self.revision,
            "suggestionsViewMode": "SUGGESTIONS_INLINE",
        });
        if tabs {
            doc["tabs"] = json!([{ "tabProperties": { "tabId": "t.0", "title": "Tab 1" }, "documentTab": tab }]);
        } else if let (Value::Object(doc), Value::Object(tab)) = (&mut doc, tab) {
            doc.extend(tab);
        }
        doc
    }

    /// The structural elements (paragraphs and tables) of the units `[from, to)`.
    pub(crate) fn content_json(&self, starts: &[u32], from: usize, to: usize) -> Vec<Value> {
        let mut out = Vec::new();
        let mut i = from;
        while i < to {
            if self.units[i].kind == Kind::TableStart {
                let (table, next) = super::tables::table_json(self, starts, i);
                out.push(table);
                i = next;
                continue;
            }
            let Some(last) = (i..to).find(|&j| self.units[j].is_newline()) else {
                break;
            };
            out.push(self.paragraph_json(starts, i, last));
            i = last + 1;
        }
        out
    }

    fn paragraph_json(&self, starts: &[u32], first: usize, last: usize) -> Value {
        let mut elements = Vec::new();
        let mut i = first;
        while i <= last {
            let unit = &self.units[i];
            if unit.kind == Kind::PageBreak {
                elements.push(json!({
                    "startIndex": starts[i],
                    "endIndex": starts[i + 1],
                    "pageBreak": { "textStyle": Value::Object((*unit.style).clone()) }
                }));
                i += 1;
                continue;
            }
            if let Kind::InlineObject(id) = &unit.kind {
                elements.push(json!({
                    "startIndex": starts[i],
                    "endIndex": starts[i + 1],
                    "inlineObjectElement": { "inlineObjectId": id, "textStyle": Value::Object((*unit.style).clone()) }
                }));
                i += 1;
                continue;
            }
            let mut j = i;
            let mut text = String::new();
            while j <= last {
                let next = &self.units[j];
                let Kind::Char(c) = next.kind else { break };
                if j > i && !(Arc::ptr_eq(&next.style, &unit.style) || next.style == unit.style) {
                    break;
                }
                text.push(c);
                j += 1;
            }
            elements.push(json!({
                "startIndex": starts[i],
                "endIndex": starts[j],
                "textRun": { "content": text, "textStyle": Value::Object((*unit.style).clone()) }
            }));
            i = j;
        }
        // A zero index is a default, which Google leaves out (the first run of a header or footer).
        for element in &mut elements {
            if element["startIndex"] == 0
                && let Value::Object(map) = element
            {
                map.remove("startIndex");
            }
        }
        let para = self.units[last].para.as_deref().cloned().unwrap_or_default();
        let mut style = json!({ "namedStyleType": "NORMAL_TEXT", "direction": "LEFT_TO_RIGHT" });
        if let Value::Object(map) = &mut style {
            map.extend(para.style.clone());
        }
        let mut paragraph = json!({ "elements": elements, "paragraphStyle": style });
        if let Some(bullet) = &para.bullet {
            let mut value = json!({ "listId": bullet.list_id, "textStyle": {} });
            if bullet.level > 0 {
                value["nestingLevel"] = json!(bullet.level);
            }
            paragraph["bullet"] = value;
        }
        let mut element = json!({ "startIndex": starts[first], "endIndex": starts[last + 1], "paragraph": paragraph });
        if starts[first] == 0
            && let Value::Object(map) = &mut element
        {
            map.remove("startIndex");
        }
        element
    }
}

/// Whether a named style gets a `headingId`.
pub(crate) fn is_heading(named: &str) -> bool {
    named.starts_with("HEADING_")
}

/// A JSON number the way Google writes it: `72`, not `72.0`.
pub(crate) fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

fn pt(magnitude: f64) -> Value {
    json!({ "magnitude": number(magnitude), "unit": "PT" })
}

/// The glyph of each nesting level (cycling every three levels) of a bullet preset.
fn glyphs(preset: &str) -> [(&'static str, &'static str); 3] {
    // (glyphType or "" for a symbol, symbol or format)
    match preset {
        "BULLET_DIAMONDX_ARROW3D_SQUARE" => [("", "❖"), ("", "➢"), ("", "■")],
        "BULLET_CHECKBOX" => [("", "☐"), ("", "☐"), ("", "☐")],
        "BULLET_ARROW_DIAMOND_DISC" => [("", "➔"), ("", "◆"), ("", "●")],
        "BULLET_STAR_CIRCLE_SQUARE" => [("", "★"), ("", "○"), ("", "■")],
        "BULLET_ARROW3D_CIRCLE_SQUARE" => [("", "➢"), ("", "○"), ("", "■")],
        "BULLET_LEFTTRIANGLE_DIAMOND_DISC" => [("", "◄"), ("", "◆"), ("", "●")],
        "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE" => [("", "❖"), ("", "◇"), ("", "■")],
        "BULLET_DIAMOND_CIRCLE_SQUARE" => [("", "◆"), ("", "○"), ("", "■")],
        "NUMBERED_DECIMAL_ALPHA_ROMAN" | "NUMBERED_DECIMAL_NESTED" => {
            [("DECIMAL", "."), ("ALPHA", "."), ("ROMAN", ".")]
        }
        "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS" => [("DECIMAL", ")"), ("ALPHA", ")"), ("ROMAN", ")")],
        "NUMBERED_UPPERALPHA_ALPHA_ROMAN" => [("UPPER_ALPHA", "."), ("ALPHA", "."), ("ROMAN", ".")],
        "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL" => [("UPPER_ROMAN", "."), ("UPPER_ALPHA", "."), ("DECIMAL", ".")],
        "NUMBERED_ZERODECIMAL_ALPHA_ROMAN" => [("ZERO_DECIMAL", "."), ("ALPHA", "."), ("ROMAN", ".")],
        _ => [("", "●"), ("", "○"), ("", "■")],
    }
}

/// Whether a preset numbers its items.
pub(crate) fn is_numbered(preset: &str) -> bool {
    preset.starts_with("NUMBERED_")
}

fn list_json(preset: &str) -> Value {
    let cycle = glyphs(preset);
    let levels: Vec<Value> = (0..9u32)
        .map(|level| {
            let (kind, mark) = cycle[(level % 3) as usize];
            let mut item = json!({
                "bulletAlignment": "START",
                "indentFirstLine": pt(18.0 + 36.0 * f64::from(level)),
                "indentStart": pt(36.0 + 36.0 * f64::from(level)),
                "textStyle": {},
                "startNumber": 1,
            });
            if kind.is_empty() {
                item["glyphSymbol"] = json!(mark);
                item["glyphFormat"] = json!(format!("%{level}"));
            } else {
                item["glyphType"] = json!(kind);
                let format = if preset == "NUMBERED_DECIMAL_NESTED" {
                    (0..=level).map(|l| format!("%{l}.")).collect::<String>()
                } else {
                    format!("%{level}{mark}")
                };
                item["glyphFormat"] = json!(format);
            }
            item
        })
        .collect();
    json!({ "listProperties": { "nestingLevels": levels } })
}

/// The paragraph indentation a list nesting level implies.
pub(crate) fn list_indent(style: &mut Map<String, Value>, level: u32) {
    style.insert("indentFirstLine".into(), pt(18.0 + 36.0 * f64::from(level)));
    style.insert("indentStart".into(), pt(36.0 + 36.0 * f64::from(level)));
}

fn document_style() -> Value {
    json!({
        "background": { "color": {} },
        "pageNumberStart": 1,
        "marginTop": pt(72.0),
        "marginBottom": pt(72.0),
        "marginRight": pt(72.0),
        "marginLeft": pt(72.0),
        "pageSize": { "height": pt(792.0), "width": pt(612.0) },
        "marginHeader": pt(36.0),
        "marginFooter": pt(36.0),
        "useCustomHeaderFooterMargins": true,
        "documentFormat": { "documentMode": "PAGES" }
    })
}

pub(crate) fn named_styles() -> Value {
    let style = |name: &str, size: f64, above: f64, below: f64, extra: Value| {
        let mut text = json!({
            "fontSize": pt(size),
            "weightedFontFamily": { "fontFamily": "Arial", "weight": 400 },
            "foregroundColor": { "color": { "rgbColor": {} } },
        });
        if let (Value::Object(text), Value::Object(extra)) = (&mut text, extra) {
            text.extend(extra);
        }
        let mut paragraph = json!({
            "namedStyleType": name,
            "alignment": "START",
            "lineSpacing": 115,
            "direction": "LEFT_TO_RIGHT",
            "spacingMode": "NEVER_COLLAPSE",
            "spaceAbove": pt(above),
            "spaceBelow": pt(below),
        });
        if name != "NORMAL_TEXT" {
            paragraph["keepLinesTogether"] = json!(true);
            paragraph["keepWithNext"] = json!(true);
        }
        json!({ "namedStyleType": name, "textStyle": text, "paragraphStyle": paragraph })
    };
    let gray = json!({ "foregroundColor": { "color": { "rgbColor": { "red": 0.4, "green": 0.4, "blue": 0.4 } } } });
    json!({ "styles": [
        style("NORMAL_TEXT", 11.0, 0.0, 0.0, json!({})),
        style("HEADING_1", 20.0, 20.0, 6.0, json!({})),
        style("HEADING_2", 16.0, 18.0, 6.0, json!({})),
        style("HEADING_3", 14.0, 16.0, 4.0, json!({ "foregroundColor": { "color": { "rgbColor": { "red": 0.2627451, "green": 0.2627451, "blue": 0.2627451 } } } })),
        style("HEADING_4", 12.0, 14.0, 4.0, gray.clone()),
        style("HEADING_5", 11.0, 12.0, 4.0, gray.clone()),
        style("HEADING_6", 11.0, 12.0, 4.0, json!({ "italic": true, "foregroundColor": { "color": { "rgbColor": { "red": 0.4, "green": 0.4, "blue": 0.4 } } } })),
        style("TITLE", 26.0, 0.0, 3.0, json!({})),
        style("SUBTITLE", 15.0, 0.0, 16.0, gray),
    ] })
}
