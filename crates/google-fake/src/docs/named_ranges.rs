//! Named ranges (`createNamedRange`): each unit knows the ids of the named ranges covering it, so a range
//! moves with its text as Google's do: text inserted inside it joins it, text inserted at either edge
//! does not, deleting text shrinks it, and a range whose text is all deleted is gone.

use serde_json::{Map, Value, json};

use super::edit::range;
use super::model::{Document, short_id};
use crate::rpc::Failure;

/// Gives the `count` units just inserted at `pos` the named ranges covering both of their neighbours.
pub(crate) fn inherit(doc: &mut Document, pos: usize, count: usize) {
    let (Some(before), Some(after)) = (pos.checked_sub(1), doc.units.get(pos + count)) else {
        return;
    };
    let shared: Vec<String> = doc.units[before].ranges.iter().filter(|id| after.ranges.contains(id)).cloned().collect();
    if shared.is_empty() {
        return;
    }
    for unit in &mut doc.units[pos..pos + count] {
        unit.ranges.extend(shared.iter().cloned());
    }
}

pub(crate) fn create(doc: &mut Document, body: &Map<String, Value>) -> Result<Value, Failure> {
    let name = body.get("name").and_then(Value::as_str).unwrap_or("");
    let length = name.encode_utf16().count();
    if !(1..=256).contains(&length) {
        return Err("The name of a named range must be 1 to 256 characters long.".into());
    }
    let (start, end) = range(doc, body, true)?;
    let id = format!("kix.{}", short_id());
    for unit in &mut doc.units[start..end] {
        unit.ranges.push(id.clone());
    }
    doc.named_ranges.insert(id.clone(), name.to_owned());
    Ok(json!({ "createNamedRange": { "namedRangeId": id } }))
}

/// Adds `namedRanges` (grouped by name) to a document tab's JSON: each range's contiguous spans.
pub(crate) fn add_json(doc: &Document, starts: &[u32], tab: &mut Value) {
    let mut by_name: Map<String, Value> = Map::new();
    for (id, name) in &doc.named_ranges {
        let mut spans: Vec<Value> = Vec::new();
        let mut open: Option<usize> = None;
        for i in 0..=doc.units.len() {
            let inside = doc.units.get(i).is_some_and(|unit| unit.ranges.contains(id));
            match (open, inside) {
                (None, true) => open = Some(i),
                (Some(first), false) => {
                    spans.push(json!({ "startIndex": starts[first], "endIndex": starts[i] }));
                    open = None;
                }
                _ => {}
            }
        }
        if spans.is_empty() {
            continue;
        }
        let entry = by_name.entry(name.clone()).or_insert_with(|| json!({ "name": name, "namedRanges": [] }));
        if let Some(list) = entry["namedRanges"].as_array_mut() {
            list.push(json!({ "namedRangeId": id, "name": name, "ranges": spans }));
        }
    }
    if !by_name.is_empty() {
        tab["namedRanges"] = Value::Object(by_name);
    }
}
