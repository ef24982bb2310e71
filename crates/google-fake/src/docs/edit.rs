//! `documents.batchUpdate`: the request kinds the emulator implements, with Google's index rules.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::model::{Bullet, Document, Kind, ListDef, Para, Style, Unit, is_heading, list_indent, short_id};
use super::{named_ranges, named_styles, segments, tables};
use crate::rpc::Failure;
use crate::sheets::fields::{self, Mask};

type Outcome = Result<Value, Failure>;

/// Applies one request; returns its reply.
pub(crate) fn apply(doc: &mut Document, kind: &str, body: &Map<String, Value>) -> Outcome {
    if let Some(outcome) = segments::route(doc, kind, body) {
        return outcome;
    }
    match kind {
        "insertText" => insert_text(doc, body),
        "deleteContentRange" => delete_content_range(doc, body),
        "replaceAllText" => replace_all_text(doc, body),
        "updateTextStyle" => update_text_style(doc, body),
        "updateParagraphStyle" => update_paragraph_style(doc, body),
        "createParagraphBullets" => create_paragraph_bullets(doc, body),
        "deleteParagraphBullets" => delete_paragraph_bullets(doc, body),
        "insertPageBreak" => insert_page_break(doc, body),
        "insertTable" => tables::insert_table(doc, body),
        "insertTableRow" => tables::insert_table_row(doc, body),
        "insertTableColumn" => tables::insert_table_column(doc, body),
        "deleteTableRow" => tables::delete_table_row(doc, body),
        "deleteTableColumn" => tables::delete_table_column(doc, body),
        "mergeTableCells" => tables::merge_table_cells(doc, body),
        "updateTableCellStyle" => tables::update_table_cell_style(doc, body),
        "createHeader" => segments::create(doc, segments::Segment::Header, body),
        "createFooter" => segments::create(doc, segments::Segment::Footer, body),
        "createNamedRange" => named_ranges::create(doc, body),
        "updateNamedStyle" => named_styles::update(doc, body),
        _ => Err(Failure::Unimplemented),
    }
}

fn obj<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    body.get(key).and_then(Value::as_object)
}

fn int(value: Option<&Value>) -> i64 {
    value.and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok())).unwrap_or(0)
}

/// Only the body of the one tab exists: other segments (headers, footers, footnotes) and tabs are
/// refused.
fn check_segment(place: &Map<String, Value>) -> Result<(), Failure> {
    if let Some(segment) = place.get("segmentId").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        return Err(format!("The segment with ID '{segment}' was not found.").into());
    }
    if let Some(tab) = place.get("tabId").and_then(Value::as_str).filter(|s| !s.is_empty() && *s != "t.0") {
        return Err(format!("The tab with ID '{tab}' was not found.").into());
    }
    Ok(())
}

/// Control characters and private-use characters Google strips from inserted text.
fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| {
            let n = u32::from(*c);
            !(n <= 0x08 || (0x0C..=0x1F).contains(&n) || (0xE000..=0xF8FF).contains(&n))
        })
        .collect()
}

/// Where an insertion goes: a unit position, from `location` or `endOfSegmentLocation`.
pub(super) fn insertion_point(doc: &Document, body: &Map<String, Value>) -> Result<usize, Failure> {
    if let Some(location) = obj(body, "location") {
        check_segment(location)?;
        let index = int(location.get("index"));
        let end = i64::from(doc.end_index());
        if index < i64::from(doc.base) {
            return Err("The insertion index must be inside the bounds of an existing paragraph. You can still create new paragraphs by inserting newlines.".into());
        }
        if index >= end {
            return Err(
                format!("Index {index} must be less than the end index of the referenced segment, {end}.").into()
            );
        }
        let starts = doc.starts();
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        let pos = doc
            .position(&starts, index)
            .ok_or_else(|| Failure::from("The insertion index cannot be inside a surrogate pair."))?;
        // A table, row or cell start is not inside a paragraph.
        if doc.units[pos].is_structure() {
            return Err("The insertion index must be inside the bounds of an existing paragraph. You can still create new paragraphs by inserting newlines.".into());
        }
        return Ok(pos);
    }
    if let Some(end) = obj(body, "endOfSegmentLocation") {
        check_segment(end)?;
        return Ok(doc.units.len().saturating_sub(1));
    }
    Err("Either location or endOfSegmentLocation must be specified.".into())
}

/// The style inserted text takes: that of the text before it in the same paragraph, else the text
/// after it. Links are not extended.
pub(super) fn inherited_style(doc: &Document, pos: usize) -> Style {
    let before = pos.checked_sub(1).map(|p| &doc.units[p]).filter(|u| !u.is_newline() && !u.is_structure());
    let source = before.or_else(|| doc.units.get(pos));
    match source {
        Some(unit) if unit.style.contains_key("link") => {
            let mut style = (*unit.style).clone();
            style.remove("link");
            style.remove("underline");
            style.remove("foregroundColor");
            Arc::new(style)
        }
        Some(unit) => unit.style.clone(),
        None => super::model::empty_style(),
    }
}

/// A copy of a paragraph's attributes for a paragraph split off it (new heading id).
pub(super) fn split_para(para: &Para) -> Para {
    let mut para = para.clone();
    if para.style.contains_key("headingId") {
        para.style.insert("headingId".into(), json!(format!("h.{}", short_id())));
    }
    para
}

/// Inserts text at a unit position; returns how many units were inserted.
fn insert_units(doc: &mut Document, pos: usize, text: &str, style: Style) -> usize {
    let para = split_para(&doc.para_at(pos));
    let units: Vec<Unit> = text.chars().map(|c| Unit::char(c, style.clone(), Some(&para))).collect();
    let count = units.len();
    doc.units.splice(pos..pos, units);
    named_ranges::inherit(doc, pos, count);
    count
}

fn insert_text(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let pos = insertion_point(doc, body)?;
    let text = clean(body.get("text").and_then(Value::as_str).unwrap_or(""));
    if !text.is_empty() {
        let style = inherited_style(doc, pos);
        insert_units(doc, pos, &text, style);
    }
    Ok(json!({}))
}

fn insert_page_break(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let pos = insertion_point(doc, body)?;
    if tables::depth_at(doc, pos) > 0 {
        return Err("Page breaks cannot be inserted inside a table.".into());
    }
    let style = inherited_style(doc, pos);
    let para = split_para(&doc.para_at(pos));
    let units = vec![Unit::mark(Kind::PageBreak, style.clone()), Unit::char('\n', style, Some(&para))];
    doc.units.splice(pos..pos, units);
    named_ranges::inherit(doc, pos, 2);
    Ok(json!({}))
}

/// A `Range` as unit positions `[start, end)`; `allow_final` lets it cover the body's last newline.
pub(super) fn range(doc: &Document, body: &Map<String, Value>, allow_final: bool) -> Result<(usize, usize), Failure> {
    let range = obj(body, "range").ok_or_else(|| Failure::from("range must be specified."))?;
    check_segment(range)?;
    let start = int(range.get("startIndex"));
    let end = int(range.get("endIndex"));
    let segment_end = i64::from(doc.end_index());
    if start >= end {
        return Err(if start == end {
            "The range should not be empty.".into()
        } else {
            format!("The start index ({start}) of the range must be less than the end index ({end}).").into()
        });
    }
    if start < i64::from(doc.base) {
        return Err("The range cannot include the section break at index 0.".into());
    }
    if end > segment_end {
        return Err(format!(
            "Index {} must be less than the end index of the referenced segment, {segment_end}.",
            end - 1
        )
        .into());
    }
    if end == segment_end && !allow_final {
        return Err("The range cannot include the newline character at the end of the segment.".into());
    }
    let starts = doc.starts();
    let position = |index: i64| {
        doc.position(&starts, u32::try_from(index).unwrap_or(u32::MAX))
            .ok_or_else(|| Failure::from("The range cannot start or end inside a surrogate pair."))
    };
    Ok((position(start)?, position(end)?))
}

fn delete_content_range(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (start, end) = range(doc, body, false)?;
    tables::check_deletion(doc, start, end)?;
    doc.units.drain(start..end);
    Ok(json!({}))
}

fn replace_all_text(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let criteria = obj(body, "containsText").ok_or_else(|| Failure::from("containsText must be specified."))?;
    let needle: Vec<char> = criteria.get("text").and_then(Value::as_str).unwrap_or("").chars().collect();
    if needle.is_empty() {
        return Err("The text to search for must not be empty.".into());
    }
    if criteria.get("searchByRegex").and_then(Value::as_bool) == Some(true) {
        return Err(Failure::Unimplemented);
    }
    let match_case = criteria.get("matchCase").and_then(Value::as_bool).unwrap_or(false);
    let replacement = clean(body.get("replaceText").and_then(Value::as_str).unwrap_or(""));
    let same = |a: char, b: char| {
        if match_case { a == b } else { a.to_lowercase().eq(b.to_lowercase()) }
    };
    let mut matches = Vec::new();
    let mut i = 0;
    while i + needle.len() <= doc.units.len() {
        let hit = needle.iter().enumerate().all(|(k, n)| matches!(doc.units[i + k].kind, Kind::Char(c) if same(c, *n)));
        if hit {
            matches.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    for &at in matches.iter().rev() {
        let style = doc.units[at].style.clone();
        doc.units.drain(at..at + needle.len());
        insert_units(doc, at, &replacement, style);
    }
    let mut reply = json!({});
    if !matches.is_empty() {
        reply["occurrencesChanged"] = json!(matches.len());
    }
    Ok(json!({ "replaceAllText": reply }))
}

pub(super) fn mask(body: &Map<String, Value>) -> Result<Mask, Failure> {
    let spec = body.get("fields").and_then(Value::as_str).unwrap_or("");
    if spec.trim().is_empty() {
        return Err("At least one field must be listed in 'fields'. To update all fields use '*'.".into());
    }
    Mask::parse(spec).ok_or_else(|| Failure::from(format!("Invalid field mask: '{spec}'.")))
}

/// Drops proto3 defaults (false, 0, "", empty objects) from a style.
pub(super) fn prune(map: &mut Map<String, Value>) {
    let mut value = Value::Object(std::mem::take(map));
    crate::sheets::prune(&mut value);
    if let Value::Object(pruned) = value {
        *map = pruned;
    }
}

fn update_text_style(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let (start, end) = range(doc, body, true)?;
    let source = obj(body, "textStyle").cloned().unwrap_or_default();
    let size_unit = source.get("fontSize").and_then(|s| s.get("unit")).and_then(Value::as_str);
    if size_unit.is_some_and(|u| u != "PT") {
        return Err("textStyle.fontSize.unit must be PT.".into());
    }
    let mut cache: Vec<(Style, Style)> = Vec::new();
    for unit in doc.units[start..end].iter_mut().filter(|u| !u.is_structure()) {
        if let Some((_, new)) = cache.iter().find(|(old, _)| Arc::ptr_eq(old, &unit.style)) {
            unit.style = new.clone();
            continue;
        }
        let mut style = (*unit.style).clone();
        fields::apply(&mut style, &source, &mask);
        prune(&mut style);
        let new = Arc::new(style);
        cache.push((unit.style.clone(), new.clone()));
        unit.style = new;
    }
    Ok(json!({}))
}

/// The paragraphs (as newline positions) a range touches.
fn touched_paragraphs(doc: &Document, start: usize, end: usize) -> Vec<(usize, usize)> {
    doc.paragraphs().into_iter().filter(|(first, last)| *first < end.max(start + 1) && *last >= start).collect()
}

fn update_paragraph_style(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let (start, end) = range(doc, body, true)?;
    let mut source = obj(body, "paragraphStyle").cloned().unwrap_or_default();
    source.remove("headingId");
    for (_, newline) in touched_paragraphs(doc, start, end) {
        let Some(para) = doc.units[newline].para.as_deref_mut() else {
            continue;
        };
        let heading_id = para.style.remove("headingId");
        fields::apply(&mut para.style, &source, &mask);
        prune(&mut para.style);
        let named = para.style.get("namedStyleType").and_then(Value::as_str).unwrap_or("NORMAL_TEXT").to_owned();
        if named == "NORMAL_TEXT" {
            para.style.remove("namedStyleType");
        }
        if is_heading(&named) {
            let id = heading_id.unwrap_or_else(|| json!(format!("h.{}", short_id())));
            para.style.insert("headingId".into(), id);
        }
    }
    Ok(json!({}))
}

fn create_paragraph_bullets(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (start, end) = range(doc, body, true)?;
    let preset = body.get("bulletPreset").and_then(Value::as_str).unwrap_or("BULLET_GLYPH_PRESET_UNSPECIFIED");
    if preset == "BULLET_GLYPH_PRESET_UNSPECIFIED" {
        return Err("bulletPreset must be specified.".into());
    }
    let touched = touched_paragraphs(doc, start, end);
    let Some(&(first, _)) = touched.first() else {
        return Ok(json!({}));
    };
    // Paragraphs right after a list with the same preset join that list, as in Google Docs.
    let previous = first.checked_sub(1).and_then(|p| doc.units[p].para.as_deref()).and_then(|p| p.bullet.clone());
    let list_id = match previous {
        Some(bullet) if doc.lists.get(&bullet.list_id).is_some_and(|l| l.preset == preset) => bullet.list_id.clone(),
        _ => {
            let id = format!("kix.{}", short_id());
            doc.lists.insert(id.clone(), ListDef { preset: preset.to_owned() });
            id
        }
    };
    for &(first, newline) in touched.iter().rev() {
        let tabs = doc.units[first..newline].iter().take_while(|u| u.kind == Kind::Char('\t')).count();
        if let Some(para) = doc.units[newline].para.as_deref_mut() {
            para.bullet = Some(Bullet { list_id: list_id.clone(), level: tabs as u32 });
            list_indent(&mut para.style, tabs as u32);
        }
        doc.units.drain(first..first + tabs);
    }
    Ok(json!({}))
}

fn delete_paragraph_bullets(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (start, end) = range(doc, body, true)?;
    for (_, newline) in touched_paragraphs(doc, start, end) {
        let Some(para) = doc.units[newline].para.as_deref_mut() else {
            continue;
        };
        let Some(bullet) = para.bullet.take() else {
            continue;
        };
        para.style.remove("indentFirstLine");
        para.style.remove("indentStart");
        // The nesting level stays visible as indentation.
        if bullet.level > 0 {
            let indent = json!({ "magnitude": 36 * bullet.level, "unit": "PT" });
            para.style.insert("indentFirstLine".into(), indent.clone());
            para.style.insert("indentStart".into(), indent);
        }
    }
    Ok(json!({}))
}
