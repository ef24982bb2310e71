//! A presentation as the emulator keeps it: slides of shapes holding plain text, on one master with the
//! predefined layouts, rendered as the Slides v1 `Presentation` and `Page` resources.

use serde_json::{Value, json};

use crate::World;

/// The page size of a new presentation: 16:9, 10 × 5.625 inches, in EMU (914400 per inch), as Google makes.
const PAGE_WIDTH_EMU: f64 = 9_144_000.0;
const PAGE_HEIGHT_EMU: f64 = 5_143_500.0;

/// The master every presentation's layouts hang on.
pub(super) const MASTER_ID: &str = "g_master";

/// The predefined layouts (`LayoutReference.predefinedLayout`), each with its display name and the
/// placeholders a slide made from it gets, in order.
pub(super) const LAYOUTS: &[(&str, &str, &[&str])] = &[
    ("BLANK", "Blank", &[]),
    ("CAPTION_ONLY", "Caption", &["BODY"]),
    ("TITLE", "Title slide", &["CENTERED_TITLE", "SUBTITLE"]),
    ("TITLE_AND_BODY", "Title and body", &["TITLE", "BODY"]),
    ("TITLE_AND_TWO_COLUMNS", "Title and two columns", &["TITLE", "BODY", "BODY"]),
    ("TITLE_ONLY", "Title only", &["TITLE"]),
    ("SECTION_HEADER", "Section header", &["TITLE"]),
    ("SECTION_TITLE_AND_DESCRIPTION", "Section title and description", &["TITLE", "SUBTITLE", "BODY"]),
    ("ONE_COLUMN_TEXT", "One column text", &["TITLE", "BODY"]),
    ("MAIN_POINT", "Main point", &["TITLE"]),
    ("BIG_NUMBER", "Big number", &["TITLE", "BODY"]),
];

/// The object id of a predefined layout's page.
pub(super) fn layout_id(name: &str) -> String {
    format!("g_layout_{}", name.to_ascii_lowercase())
}

/// A presentation.
#[derive(Debug, Clone)]
pub(crate) struct Presentation {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) revision: String,
    pub(crate) slides: Vec<Slide>,
}

/// One slide.
#[derive(Debug, Clone)]
pub(crate) struct Slide {
    pub(crate) object_id: String,
    /// The predefined layout it was made from (`TITLE`, …).
    pub(crate) layout: &'static str,
    pub(crate) elements: Vec<Element>,
}

/// A shape on a slide, with its text.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub(crate) object_id: String,
    pub(crate) shape_type: String,
    /// The placeholder it fills (`TITLE`, index), for shapes a layout made.
    pub(crate) placeholder: Option<(String, u32)>,
    /// Its text without the final newline every non-empty text in Slides ends with.
    pub(crate) text: String,
    pub(crate) size: Option<Value>,
    pub(crate) transform: Option<Value>,
}

/// A fresh revision id.
pub(crate) fn new_revision() -> String {
    World::new_id(22)
}

/// A fresh object id, in the shape Google generates them.
pub(crate) fn new_object_id() -> String {
    format!("g{}", World::new_id(20).to_ascii_lowercase().replace('-', "_"))
}

impl Presentation {
    /// A new presentation, as `presentations.create` makes it: one title slide with its two placeholders.
    pub(crate) fn new(id: &str, title: &str) -> Self {
        let mut presentation =
            Self { id: id.to_owned(), title: title.to_owned(), revision: new_revision(), slides: Vec::new() };
        presentation.slides.push(Slide::from_layout("p", "TITLE", &[]));
        presentation
    }

    pub(crate) fn slide(&self, object_id: &str) -> Option<&Slide> {
        self.slides.iter().find(|slide| slide.object_id == object_id)
    }

    /// The shape `object_id` on any slide.
    pub(crate) fn element_mut(&mut self, object_id: &str) -> Option<&mut Element> {
        self.slides.iter_mut().flat_map(|slide| slide.elements.iter_mut()).find(|e| e.object_id == object_id)
    }

    /// Whether any page or page element has this object id (ids are unique across the presentation).
    pub(crate) fn has_object(&self, object_id: &str) -> bool {
        object_id == MASTER_ID
            || LAYOUTS.iter().any(|(name, _, _)| layout_id(name) == object_id)
            || self.slides.iter().any(|slide| {
                slide.object_id == object_id || slide.elements.iter().any(|element| element.object_id == object_id)
            })
    }

    /// The text of every shape, slide by slide: what Drive exports as `text/plain` and searches.
    pub(crate) fn plain_text(&self) -> String {
        let mut out = String::new();
        for slide in &self.slides {
            for element in slide.elements.iter().filter(|element| !element.text.is_empty()) {
                out.push_str(&element.text);
                out.push('\n');
            }
        }
        out
    }

    /// The `Presentation` resource.
    pub(crate) fn json(&self) -> Value {
        let layouts: Vec<Value> = LAYOUTS
            .iter()
            .map(|(name, display, _)| {
                json!({
                    "objectId": layout_id(name),
                    "pageType": "LAYOUT",
                    "layoutProperties": { "masterObjectId": MASTER_ID, "name": name, "displayName": display },
                    "pageProperties": page_properties(),
                })
            })
            .collect();
        json!({
            "presentationId": self.id,
            "title": self.title,
            "locale": "en",
            "revisionId": self.revision,
            "pageSize": size(PAGE_WIDTH_EMU, PAGE_HEIGHT_EMU),
            "slides": self.slides.iter().map(|slide| slide.json(&self.revision)).collect::<Vec<_>>(),
            "masters": [{
                "objectId": MASTER_ID,
                "pageType": "MASTER",
                "masterProperties": { "displayName": "Simple Light" },
                "pageProperties": page_properties(),
            }],
            "layouts": layouts,
        })
    }
}

impl Slide {
    /// A slide made from the predefined layout `layout`, its placeholders given the ids `mapped` asks for
    /// (by placeholder type and index) or fresh ones.
    pub(crate) fn from_layout(object_id: &str, layout: &'static str, mapped: &[(String, u32, String)]) -> Self {
        let placeholders = LAYOUTS.iter().find(|(name, _, _)| *name == layout).map(|(_, _, p)| *p).unwrap_or(&[]);
        let mut elements = Vec::new();
        for (position, kind) in placeholders.iter().enumerate() {
            let index = placeholders[..position].iter().filter(|earlier| *earlier == kind).count() as u32;
            let id = mapped
                .iter()
                .find(|(mapped_kind, mapped_index, _)| mapped_kind == kind && *mapped_index == index)
                .map(|(_, _, id)| id.clone())
                .unwrap_or_else(|| format!("{object_id}_{}", position + 1));
            elements.push(Element {
                object_id: id,
                shape_type: "TEXT_BOX".to_owned(),
                placeholder: Some(((*kind).to_owned(), index)),
                text: String::new(),
                size: None,
                transform: None,
            });
        }
        Self { object_id: object_id.to_owned(), layout, elements }
    }

    /// The `Page` resource of this slide.
    pub(crate) fn json(&self, revision: &str) -> Value {
        json!({
            "objectId": self.object_id,
            "pageType": "SLIDE",
            "revisionId": revision,
            "pageElements": self.elements.iter().map(Element::json).collect::<Vec<_>>(),
            "slideProperties": { "layoutObjectId": layout_id(self.layout), "masterObjectId": MASTER_ID },
            "pageProperties": page_properties(),
        })
    }
}

impl Element {
    /// The `PageElement` resource: a shape, its text as paragraphs of one run each.
    fn json(&self) -> Value {
        let mut shape = json!({ "shapeType": self.shape_type, "shapeProperties": {} });
        if let Some((kind, index)) = &self.placeholder {
            shape["placeholder"] =
                if *index == 0 { json!({ "type": kind }) } else { json!({ "type": kind, "index": index }) };
        }
        if !self.text.is_empty() {
            shape["text"] = json!({ "textElements": text_elements(&self.text) });
        }
        let mut element = json!({
            "objectId": self.object_id,
            "size": self.size.clone().unwrap_or_else(|| size(3_000_000.0, 1_000_000.0)),
            "transform": self.transform.clone().unwrap_or_else(|| json!({ "scaleX": 1, "scaleY": 1, "unit": "EMU" })),
            "shape": shape,
        });
        if element["transform"].get("unit").is_none() {
            element["transform"]["unit"] = json!("EMU");
        }
        element
    }

    /// The text's length in UTF-16 code units, as Slides counts indices.
    pub(crate) fn len16(&self) -> usize {
        self.text.encode_utf16().count()
    }
}

/// `TextElement`s of `text` (without its final newline): per paragraph a `paragraphMarker`, then a
/// `textRun` holding the paragraph with its newline. `startIndex` 0 is left out, as proto3 JSON omits zeros.
fn text_elements(text: &str) -> Vec<Value> {
    let mut elements = Vec::new();
    let mut start = 0usize;
    for paragraph in format!("{text}\n").split_inclusive('\n') {
        let end = start + paragraph.encode_utf16().count();
        let range = |mut value: Value| {
            if start > 0 {
                value["startIndex"] = json!(start);
            }
            value["endIndex"] = json!(end);
            value
        };
        elements.push(range(json!({ "paragraphMarker": { "style": {} } })));
        elements.push(range(json!({ "textRun": { "content": paragraph, "style": {} } })));
        start = end;
    }
    elements
}

fn size(width: f64, height: f64) -> Value {
    json!({ "width": { "magnitude": width, "unit": "EMU" }, "height": { "magnitude": height, "unit": "EMU" } })
}

fn page_properties() -> Value {
    json!({ "pageBackgroundFill": { "propertyState": "RENDERED" } })
}

/// The byte offset in `text` of UTF-16 index `index`, if it falls on a character boundary within it.
pub(crate) fn byte_offset(text: &str, index: usize) -> Option<usize> {
    let mut units = 0usize;
    for (offset, ch) in text.char_indices() {
        if units == index {
            return Some(offset);
        }
        units += ch.len_utf16();
    }
    (units == index).then_some(text.len())
}
