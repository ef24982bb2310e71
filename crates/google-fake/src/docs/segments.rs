//! Headers and footers: `createHeader`, `createFooter`, and edits addressed to them by `segmentId`.
//!
//! Each is its own unit sequence whose indexes start at 0. Only the document style's default header and
//! footer exist (a `sectionBreakLocation` other than the first section break answers 501). A text edit
//! with a header's or footer's `segmentId` runs on that segment: its units are swapped into the document
//! with index base 0, the request is applied as in the body, and they are swapped back.

use serde_json::{Map, Value, json};

use super::model::{Document, Unit, empty_style, short_id};
use crate::rpc::Failure;

/// Which kind of segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment {
    Header,
    Footer,
}

impl Segment {
    fn name(self) -> &'static str {
        match self {
            Segment::Header => "header",
            Segment::Footer => "footer",
        }
    }

    fn map(self, doc: &mut Document) -> &mut std::collections::BTreeMap<String, Vec<Unit>> {
        match self {
            Segment::Header => &mut doc.headers,
            Segment::Footer => &mut doc.footers,
        }
    }
}

/// The request kinds that may edit a header or footer.
const SEGMENT_EDITS: [&str; 6] = [
    "insertText",
    "deleteContentRange",
    "updateTextStyle",
    "updateParagraphStyle",
    "createParagraphBullets",
    "deleteParagraphBullets",
];

pub(crate) fn create(doc: &mut Document, segment: Segment, body: &Map<String, Value>) -> Result<Value, Failure> {
    let kind = body.get("type").and_then(Value::as_str).unwrap_or("HEADER_FOOTER_TYPE_UNSPECIFIED");
    if kind != "DEFAULT" {
        return Err(format!("The {} type must be specified as DEFAULT.", segment.name()).into());
    }
    if let Some(location) = body.get("sectionBreakLocation").and_then(Value::as_object) {
        let index = location.get("index").and_then(Value::as_i64).unwrap_or(0);
        if index != 0 {
            return Err(Failure::Unimplemented);
        }
    }
    let map = segment.map(doc);
    if !map.is_empty() {
        return Err(format!("A default {} already exists.", segment.name()).into());
    }
    let id = format!("kix.{}", short_id());
    map.insert(id.clone(), vec![Unit::char('\n', empty_style(), None)]);
    let reply = match segment {
        Segment::Header => json!({ "createHeader": { "headerId": id } }),
        Segment::Footer => json!({ "createFooter": { "footerId": id } }),
    };
    Ok(reply)
}

/// The `segmentId` a request addresses, from its `location`, `range` or `endOfSegmentLocation`.
fn segment_id(body: &Map<String, Value>) -> Option<&str> {
    ["location", "range", "endOfSegmentLocation"]
        .iter()
        .filter_map(|key| body.get(*key)?.get("segmentId")?.as_str())
        .find(|id| !id.is_empty())
}

/// Applies a request addressed to an existing header or footer; `None` for the body (or an unknown
/// segment, which the body's checks refuse).
pub(crate) fn route(doc: &mut Document, kind: &str, body: &Map<String, Value>) -> Option<Result<Value, Failure>> {
    let id = segment_id(body)?.to_owned();
    let segment = if doc.headers.contains_key(&id) {
        Segment::Header
    } else if doc.footers.contains_key(&id) {
        Segment::Footer
    } else {
        return None;
    };
    if kind == "insertPageBreak" {
        return Some(Err("Page breaks cannot be inserted inside a footnote, header or footer.".into()));
    }
    if !SEGMENT_EDITS.contains(&kind) {
        return Some(Err(Failure::Unimplemented));
    }
    let mut inner = body.clone();
    for key in ["location", "range", "endOfSegmentLocation"] {
        if let Some(Value::Object(place)) = inner.get_mut(key) {
            place.remove("segmentId");
        }
    }
    let mut units = segment.map(doc).remove(&id).unwrap_or_default();
    std::mem::swap(&mut doc.units, &mut units);
    doc.base = 0;
    let outcome = super::edit::apply(doc, kind, &inner);
    doc.base = 1;
    std::mem::swap(&mut doc.units, &mut units);
    segment.map(doc).insert(id, units);
    Some(outcome)
}

/// Adds `headers`, `footers` and the document style's default ids to a document tab's JSON.
pub(crate) fn add_json(doc: &Document, tab: &mut Value) {
    for (segment, map) in [(Segment::Header, &doc.headers), (Segment::Footer, &doc.footers)] {
        if map.is_empty() {
            continue;
        }
        let (key, id_key, default_key) = match segment {
            Segment::Header => ("headers", "headerId", "defaultHeaderId"),
            Segment::Footer => ("footers", "footerId", "defaultFooterId"),
        };
        let mut out = Map::new();
        for (id, units) in map {
            let view = Document { units: units.clone(), base: 0, ..Document::new(&doc.id, &doc.title) };
            let starts = view.starts();
            let content = view.content_json(&starts, 0, view.units.len());
            out.insert(id.clone(), json!({ id_key: id, "content": content }));
            tab["documentStyle"][default_key] = json!(id);
        }
        tab[key] = Value::Object(out);
    }
}
