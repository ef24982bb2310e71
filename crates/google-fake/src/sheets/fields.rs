//! Google field masks: the `fields` query parameter (partial responses) and the `fields` member of
//! update requests (`updateSheetProperties`, `repeatCell`, `updateTextStyle`, …).
//!
//! Both spellings Google accepts are understood: dotted paths (`sheets.properties.title`) and
//! sub-selections (`sheets(properties(sheetId,title))`), with `*` for everything and snake_case names.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::schema::camel;

/// A parsed field mask: either everything below this point (`all`) or the listed children.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Mask {
    pub all: bool,
    pub children: BTreeMap<String, Mask>,
}

impl Mask {
    /// Parses a mask; `None` when it is not well formed.
    pub(crate) fn parse(spec: &str) -> Option<Mask> {
        let chars: Vec<char> = spec.chars().filter(|c| !c.is_whitespace()).collect();
        let mut pos = 0;
        let mut mask = Mask::default();
        parse_list(&chars, &mut pos, &mut mask)?;
        if pos != chars.len() {
            return None;
        }
        Some(mask)
    }

    fn insert(&mut self, path: &[String]) -> &mut Mask {
        let mut node = self;
        for name in path {
            node = node.children.entry(name.clone()).or_default();
        }
        node
    }

    /// Whether `name` (a top-level field) is selected at all.
    pub(crate) fn selects(&self, name: &str) -> bool {
        self.all || self.children.contains_key(name) || self.children.contains_key("*")
    }
}

fn parse_list(chars: &[char], pos: &mut usize, into: &mut Mask) -> Option<()> {
    loop {
        let mut path = Vec::new();
        loop {
            let start = *pos;
            while *pos < chars.len() && (chars[*pos].is_alphanumeric() || chars[*pos] == '_' || chars[*pos] == '*') {
                *pos += 1;
            }
            if *pos == start {
                return None;
            }
            let name: String = chars[start..*pos].iter().collect();
            path.push(camel(&name));
            if *pos < chars.len() && (chars[*pos] == '.' || chars[*pos] == '/') {
                *pos += 1;
                continue;
            }
            break;
        }
        let node = into.insert(&path);
        if *pos < chars.len() && chars[*pos] == '(' {
            *pos += 1;
            parse_list(chars, pos, node)?;
            if *pos >= chars.len() || chars[*pos] != ')' {
                return None;
            }
            *pos += 1;
        } else {
            node.all = true;
        }
        if *pos < chars.len() && chars[*pos] == ',' {
            *pos += 1;
            continue;
        }
        return Some(());
    }
}

/// Keeps only the selected fields of a response (`fields` query parameter).
pub(crate) fn filter(value: &mut Value, mask: &Mask) {
    if mask.all {
        return;
    }
    match value {
        Value::Object(map) => {
            let star = mask.children.get("*");
            map.retain(|key, _| mask.children.contains_key(key) || star.is_some());
            for (key, item) in map.iter_mut() {
                if let Some(child) = mask.children.get(key).or(star) {
                    filter(item, child);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                filter(item, mask);
            }
        }
        _ => {}
    }
}

/// Copies the masked fields from `source` into `target`; a masked field absent from `source` is
/// cleared in `target` (Google's update semantics). `*` replaces everything at its level.
pub(crate) fn apply(target: &mut Map<String, Value>, source: &Map<String, Value>, mask: &Mask) {
    if mask.all || mask.children.contains_key("*") {
        *target = source.clone();
        target.retain(|_, v| !v.is_null());
        return;
    }
    for (key, child) in &mask.children {
        if child.all {
            match source.get(key) {
                Some(value) if !value.is_null() => {
                    target.insert(key.clone(), value.clone());
                }
                _ => {
                    target.remove(key);
                }
            }
            continue;
        }
        let empty = Map::new();
        let source_child = source.get(key).and_then(Value::as_object).unwrap_or(&empty);
        let mut target_child = match target.remove(key) {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        apply(&mut target_child, source_child, child);
        if !target_child.is_empty() {
            target.insert(key.clone(), Value::Object(target_child));
        }
    }
}

/// Deep-merges `overlay` onto `base` (objects merge, everything else replaces).
pub(crate) fn merge(base: &mut Value, overlay: &Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                match base.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, overlay) => *base = overlay.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_both_spellings() {
        let a = Mask::parse("sheets.properties.title,spreadsheetId").unwrap_or_default();
        let b = Mask::parse("sheets(properties(title)),spreadsheet_id").unwrap_or_default();
        assert_eq!(a, b);
        assert!(Mask::parse("sheets(").is_none());
    }

    #[test]
    fn filters_arrays_and_objects() {
        let mut value = json!({"a": 1, "sheets": [{"properties": {"title": "x", "index": 1}, "data": []}]});
        filter(&mut value, &Mask::parse("sheets.properties.title").unwrap_or_default());
        assert_eq!(value, json!({"sheets": [{"properties": {"title": "x"}}]}));
    }

    #[test]
    fn applies_updates() {
        let mut target = json!({"title": "a", "gridProperties": {"rowCount": 5, "frozenRowCount": 2}});
        let source = json!({"gridProperties": {"rowCount": 9}});
        let mask = Mask::parse("gridProperties(rowCount,frozenRowCount)").unwrap_or_default();
        if let (Some(t), Some(s)) = (target.as_object_mut(), source.as_object()) {
            apply(t, s, &mask);
        }
        assert_eq!(target, json!({"title": "a", "gridProperties": {"rowCount": 9}}));
    }
}
