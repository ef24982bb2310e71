//! The `presentations.batchUpdate` request kinds the emulator implements, on a copy of the presentation (the
//! batch applies whole or not at all). Each returns its `Response` (`{}` for kinds without one).

use serde_json::{Map, Value, json};

use super::model::{Element, LAYOUTS, Presentation, Slide, byte_offset, new_object_id};
use crate::rpc::Failure;

/// Applies one request of kind `kind`; kinds not listed answer [`Failure::Unimplemented`] (501).
pub(super) fn apply(
    presentation: &mut Presentation,
    kind: &str,
    request: &Map<String, Value>,
) -> Result<Value, Failure> {
    match kind {
        "createSlide" => create_slide(presentation, request),
        "createShape" => create_shape(presentation, request),
        "insertText" => insert_text(presentation, request),
        "deleteText" => delete_text(presentation, request),
        "replaceAllText" => replace_all_text(presentation, request),
        "deleteObject" => delete_object(presentation, request),
        "updateSlidesPosition" => update_slides_position(presentation, request),
        _ => Err(Failure::Unimplemented),
    }
}

fn text<'a>(request: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    request.get(key).and_then(Value::as_str)
}

fn index(request: &Map<String, Value>, key: &str) -> Result<Option<usize>, Failure> {
    match request.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
            .map(|n| Some(n as usize))
            .ok_or_else(|| Failure::Invalid(format!("The {key} must not be negative."))),
    }
}

/// A user-supplied object id, checked as Google documents it (5–50 characters of `[a-zA-Z0-9_-:]`, unique in
/// the presentation), or a generated one.
fn new_id(presentation: &Presentation, request: &Map<String, Value>) -> Result<String, Failure> {
    let Some(id) = text(request, "objectId").filter(|id| !id.is_empty()) else { return Ok(new_object_id()) };
    checked_id(presentation, id)
}

fn checked_id(presentation: &Presentation, id: &str) -> Result<String, Failure> {
    let valid = (5..=50).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':'));
    if !valid {
        return Err(Failure::Invalid(format!(
            "The object ID ({id}) should be 5 to 50 characters of [a-zA-Z0-9_-:], starting with a letter, a digit or '_'."
        )));
    }
    if presentation.has_object(id) {
        return Err(Failure::Invalid(format!(
            "The object ID ({id}) should be unique among all pages and page elements."
        )));
    }
    Ok(id.to_owned())
}

fn not_found(id: &str) -> Failure {
    Failure::Invalid(format!("The object ({id}) could not be found."))
}

fn create_slide(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let object_id = new_id(presentation, request)?;
    let reference = request.get("slideLayoutReference").and_then(Value::as_object);
    let layout = match reference {
        None => "TITLE_AND_BODY",
        Some(reference) => match (text(reference, "predefinedLayout"), text(reference, "layoutId")) {
            (Some(name), None) => LAYOUTS
                .iter()
                .find(|(known, _, _)| *known == name)
                .map(|(known, _, _)| *known)
                .ok_or_else(|| Failure::Invalid(format!("The predefined layout {name} is not available.")))?,
            (None, Some(id)) => LAYOUTS
                .iter()
                .find(|(known, _, _)| super::model::layout_id(known) == id)
                .map(|(known, _, _)| *known)
                .ok_or_else(|| not_found(id))?,
            _ => return Err(Failure::Invalid("Exactly one of predefinedLayout and layoutId must be set.".to_owned())),
        },
    };
    let mut mapped = Vec::new();
    for mapping in request.get("placeholderIdMappings").and_then(Value::as_array).into_iter().flatten() {
        let placeholder = mapping.get("layoutPlaceholder").and_then(Value::as_object);
        let kind = placeholder.and_then(|p| text(p, "type")).ok_or_else(|| {
            Failure::Invalid(
                "A placeholder ID mapping needs layoutPlaceholder.type (layoutPlaceholderObjectId is not emulated)."
                    .to_owned(),
            )
        })?;
        let at = placeholder.map(|p| index(p, "index")).transpose()?.flatten().unwrap_or(0) as u32;
        let id = text(mapping.as_object().unwrap_or(&Map::new()), "objectId").unwrap_or_default().to_owned();
        let id = checked_id(presentation, &id)?;
        if mapped.iter().any(|(_, _, taken)| *taken == id) || id == object_id {
            return Err(Failure::Invalid(format!(
                "The object ID ({id}) should be unique among all pages and page elements."
            )));
        }
        mapped.push((kind.to_owned(), at, id));
    }
    let slide = Slide::from_layout(&object_id, layout, &mapped);
    if let Some((kind, at, _)) = mapped.iter().find(|(kind, at, id)| {
        !slide.elements.iter().any(|e| e.placeholder.as_ref() == Some(&(kind.clone(), *at)) && e.object_id == *id)
    }) {
        return Err(Failure::Invalid(format!("The layout {layout} has no placeholder of type {kind} at index {at}.")));
    }
    let position = index(request, "insertionIndex")?.unwrap_or(presentation.slides.len());
    if position > presentation.slides.len() {
        return Err(Failure::Invalid(format!(
            "The insertion index ({position}) should not be greater than the number of slides ({}).",
            presentation.slides.len()
        )));
    }
    presentation.slides.insert(position, slide);
    Ok(json!({ "createSlide": { "objectId": object_id } }))
}

fn create_shape(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let object_id = new_id(presentation, request)?;
    let shape_type = text(request, "shapeType").filter(|t| *t != "TYPE_UNSPECIFIED").ok_or_else(|| {
        Failure::Invalid("The shape type must be specified (shapeType, e.g. TEXT_BOX or RECTANGLE).".to_owned())
    })?;
    let properties = request.get("elementProperties").and_then(Value::as_object);
    let page = properties.and_then(|p| text(p, "pageObjectId")).ok_or_else(|| {
        Failure::Invalid("The page the shape goes on must be given (elementProperties.pageObjectId).".to_owned())
    })?;
    let slide = presentation.slides.iter_mut().find(|slide| slide.object_id == page).ok_or_else(|| not_found(page))?;
    slide.elements.push(Element {
        object_id: object_id.clone(),
        shape_type: shape_type.to_owned(),
        placeholder: None,
        text: String::new(),
        size: properties.and_then(|p| p.get("size")).cloned(),
        transform: properties.and_then(|p| p.get("transform")).cloned(),
    });
    Ok(json!({ "createShape": { "objectId": object_id } }))
}

/// The shape a text request names; table cells are not emulated.
fn shape<'a>(presentation: &'a mut Presentation, request: &Map<String, Value>) -> Result<&'a mut Element, Failure> {
    if request.get("cellLocation").is_some_and(|cell| !cell.is_null()) {
        return Err(Failure::Unimplemented);
    }
    let id = text(request, "objectId").ok_or_else(|| Failure::Invalid("The objectId must be set.".to_owned()))?;
    presentation.element_mut(id).ok_or_else(|| not_found(id))
}

fn insert_text(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let inserted = text(request, "text").unwrap_or_default().replace("\r\n", "\n");
    let at = index(request, "insertionIndex")?.unwrap_or(0);
    let element = shape(presentation, request)?;
    let length = element.len16();
    let offset = byte_offset(&element.text, at).ok_or_else(|| {
        Failure::Invalid(format!("The insertion index ({at}) should not be greater than the text's length ({length})."))
    })?;
    element.text.insert_str(offset, &inserted);
    Ok(json!({}))
}

fn delete_text(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let range = request.get("textRange").and_then(Value::as_object).cloned().unwrap_or_default();
    let element = shape(presentation, request)?;
    let length = element.len16();
    let (start, end) = match text(&range, "type").unwrap_or("ALL") {
        "ALL" => (0, length),
        "FROM_START_INDEX" => (index(&range, "startIndex")?.unwrap_or(0), length),
        "FIXED_RANGE" => match (index(&range, "startIndex")?, index(&range, "endIndex")?) {
            (Some(start), Some(end)) => (start, end),
            _ => return Err(Failure::Invalid("A FIXED_RANGE needs both startIndex and endIndex.".to_owned())),
        },
        other => return Err(Failure::Invalid(format!("The range type {other} is not supported here."))),
    };
    // The final newline Slides keeps after the text counts as one more index, and can't be deleted.
    let end = end.min(length);
    if start > end {
        return Err(Failure::Invalid(format!("The start index ({start}) must not be after the end index ({end}).")));
    }
    let (Some(from), Some(to)) = (byte_offset(&element.text, start), byte_offset(&element.text, end)) else {
        return Err(Failure::Invalid("The range splits a character.".to_owned()));
    };
    element.text.replace_range(from..to, "");
    Ok(json!({}))
}

fn replace_all_text(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let criteria = request.get("containsText").and_then(Value::as_object).cloned().unwrap_or_default();
    let find = text(&criteria, "text")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Failure::Invalid("containsText.text must be set to the text to replace.".to_owned()))?;
    if criteria.get("searchByRegex").and_then(Value::as_bool) == Some(true) {
        return Err(Failure::Unimplemented);
    }
    let match_case = criteria.get("matchCase").and_then(Value::as_bool).unwrap_or(false);
    let replace = text(request, "replaceText").unwrap_or_default();
    let pages: Vec<&str> = request
        .get("pageObjectIds")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut changed = 0usize;
    for slide in
        presentation.slides.iter_mut().filter(|slide| pages.is_empty() || pages.contains(&slide.object_id.as_str()))
    {
        for element in &mut slide.elements {
            let (text, count) = replaced(&element.text, find, replace, match_case);
            changed += count;
            element.text = text;
        }
    }
    Ok(json!({ "replaceAllText": { "occurrencesChanged": changed } }))
}

/// `text` with every `find` replaced, and how many were.
fn replaced(text: &str, find: &str, replace: &str, match_case: bool) -> (String, usize) {
    if match_case {
        return (text.replace(find, replace), text.matches(find).count());
    }
    let (haystack, needle) = (text.to_lowercase(), find.to_lowercase());
    if haystack.len() != text.len() || needle.len() != find.len() {
        // Lower-casing changed byte lengths: match case-sensitively rather than cut a character.
        return (text.replace(find, replace), text.matches(find).count());
    }
    let mut out = String::with_capacity(text.len());
    let (mut last, mut count) = (0, 0);
    for (at, _) in haystack.match_indices(&needle) {
        out.push_str(&text[last..at]);
        out.push_str(replace);
        last = at + needle.len();
        count += 1;
    }
    out.push_str(&text[last..]);
    (out, count)
}

fn delete_object(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let id = text(request, "objectId").ok_or_else(|| Failure::Invalid("The objectId must be set.".to_owned()))?;
    if let Some(position) = presentation.slides.iter().position(|slide| slide.object_id == id) {
        presentation.slides.remove(position);
        return Ok(json!({}));
    }
    for slide in &mut presentation.slides {
        if let Some(position) = slide.elements.iter().position(|element| element.object_id == id) {
            slide.elements.remove(position);
            return Ok(json!({}));
        }
    }
    Err(not_found(id))
}

fn update_slides_position(presentation: &mut Presentation, request: &Map<String, Value>) -> Result<Value, Failure> {
    let ids: Vec<&str> = request
        .get("slideObjectIds")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if ids.is_empty() {
        return Err(Failure::Invalid("slideObjectIds must name at least one slide.".to_owned()));
    }
    let at = index(request, "insertionIndex")?.unwrap_or(0);
    let count = presentation.slides.len();
    if at > count {
        return Err(Failure::Invalid(format!(
            "The insertion index ({at}) should be between 0 and the number of slides ({count})."
        )));
    }
    // The index is in the arrangement before the move: the slides staying put before it keep their places.
    let staying_before =
        presentation.slides[..at].iter().filter(|slide| !ids.contains(&slide.object_id.as_str())).count();
    let mut moved = Vec::new();
    for id in &ids {
        let position =
            presentation.slides.iter().position(|slide| slide.object_id == *id).ok_or_else(|| not_found(id))?;
        moved.push(presentation.slides.remove(position));
    }
    let at = staying_before;
    for (offset, slide) in moved.into_iter().enumerate() {
        presentation.slides.insert(at + offset, slide);
    }
    Ok(json!({}))
}
