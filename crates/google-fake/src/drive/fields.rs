//! Partial responses: the `fields` selector (`kind,files(id,name,parents),nextPageToken`,
//! `capabilities/canEdit`, `*`), checked against the discovery document's schemas so a selector naming a
//! field Google does not have fails as it does on Google ("Invalid field selection …").

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::errors::ApiError;

/// A parsed selector: each selected member, with `None` meaning "all of it".
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Mask(BTreeMap<String, Option<Mask>>);

fn invalid(name: &str) -> ApiError {
    ApiError::legacy(400, "invalidParameter", format!("Invalid field selection {name}")).at("fields")
}

impl Mask {
    pub(crate) fn parse(selector: &str) -> Result<Self, ApiError> {
        let chars: Vec<char> = selector.chars().collect();
        let mut pos = 0;
        let mask = parse_list(&chars, &mut pos)?;
        if pos != chars.len() {
            return Err(invalid(selector));
        }
        Ok(mask)
    }

    fn merge(&mut self, path: &[String], sub: Option<Mask>) {
        let Some((head, rest)) = path.split_first() else {
            return;
        };
        if rest.is_empty() {
            match (self.0.get_mut(head), sub) {
                (Some(Some(existing)), Some(sub)) => {
                    for (key, value) in sub.0 {
                        existing.0.insert(key, value);
                    }
                }
                (Some(slot), None) => *slot = None,
                (Some(None), Some(_)) => {}
                (None, sub) => {
                    self.0.insert(head.clone(), sub);
                }
            }
            return;
        }
        let entry = self.0.entry(head.clone()).or_insert_with(|| Some(Mask::default()));
        if let Some(child) = entry {
            child.merge(rest, sub);
        }
    }

    /// Keeps the selected members of `value` (arrays apply the mask to each element).
    pub(crate) fn apply(&self, value: &Value) -> Value {
        match value {
            Value::Array(items) => Value::Array(items.iter().map(|item| self.apply(item)).collect()),
            Value::Object(map) => {
                let all = self.0.get("*");
                let mut out = Map::new();
                for (key, member) in map {
                    let selected = match self.0.get(key) {
                        Some(selection) => Some(selection),
                        None => all,
                    };
                    if let Some(selection) = selected {
                        let kept = match selection {
                            Some(sub) => sub.apply(member),
                            None => member.clone(),
                        };
                        out.insert(key.clone(), kept);
                    }
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// Checks every selected member against `schema` (a discovery schema object); Google names the
    /// offending member alone ("Invalid field selection bogus" for `files(id,bogus)`).
    fn validate(&self, schema: &'static Value) -> Result<(), ApiError> {
        for (key, sub) in &self.0 {
            if key == "*" {
                continue;
            }
            if schema.get("additionalProperties").is_some() {
                continue;
            }
            let property = schema.get("properties").and_then(|p| p.get(key)).ok_or_else(|| invalid(key))?;
            if let Some(sub) = sub
                && let Some(target) = element_schema(property)
            {
                sub.validate(target)?;
            }
        }
        Ok(())
    }
}

fn parse_list(chars: &[char], pos: &mut usize) -> Result<Mask, ApiError> {
    let mut mask = Mask::default();
    loop {
        let mut path = Vec::new();
        loop {
            let start = *pos;
            while *pos < chars.len() && !matches!(chars[*pos], ',' | '(' | ')' | '/') {
                *pos += 1;
            }
            let name: String = chars[start..*pos].iter().collect::<String>().trim().to_owned();
            if name.is_empty() {
                return Err(invalid(&chars.iter().collect::<String>()));
            }
            path.push(name);
            if *pos < chars.len() && chars[*pos] == '/' {
                *pos += 1;
                continue;
            }
            break;
        }
        let sub = if *pos < chars.len() && chars[*pos] == '(' {
            *pos += 1;
            let inner = parse_list(chars, pos)?;
            if *pos >= chars.len() || chars[*pos] != ')' {
                return Err(invalid(&chars.iter().collect::<String>()));
            }
            *pos += 1;
            Some(inner)
        } else {
            None
        };
        mask.merge(&path, sub);
        if *pos < chars.len() && chars[*pos] == ',' {
            *pos += 1;
            continue;
        }
        return Ok(mask);
    }
}

fn discovery() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(include_str!("../../discovery/drive.v3.json")).unwrap_or(Value::Null))
}

fn schema(name: &str) -> Option<&'static Value> {
    discovery().get("schemas").and_then(|schemas| schemas.get(name))
}

/// The schema a sub-selection of `property` applies to: its `$ref`, its array items, or its inline object.
fn element_schema(property: &'static Value) -> Option<&'static Value> {
    let target = match property.get("items") {
        Some(items) => items,
        None => property,
    };
    if let Some(name) = target.get("$ref").and_then(Value::as_str) {
        return schema(name);
    }
    (target.get("properties").is_some() || target.get("additionalProperties").is_some()).then_some(target)
}

/// `value` (a resource of discovery schema `schema_name`) cut to `selector`.
pub(crate) fn select(selector: &str, schema_name: &str, value: &Value) -> Result<Value, ApiError> {
    let mask = Mask::parse(selector)?;
    if let Some(schema) = schema(schema_name) {
        mask.validate(schema)?;
    }
    Ok(mask.apply(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selects_nested_members() {
        let value = json!({"kind": "drive#fileList", "nextPageToken": "t", "files": [
            {"id": "a", "name": "A", "parents": ["p"], "mimeType": "m", "capabilities": {"canEdit": true, "canShare": false}}
        ]});
        let cut = select("files(id,name,parents),nextPageToken", "FileList", &value).unwrap_or_default();
        assert_eq!(cut, json!({"nextPageToken": "t", "files": [{"id": "a", "name": "A", "parents": ["p"]}]}));
        let cut = select("files/capabilities/canEdit", "FileList", &value).unwrap_or_default();
        assert_eq!(cut, json!({"files": [{"capabilities": {"canEdit": true}}]}));
        let cut = select("*", "FileList", &value).unwrap_or_default();
        assert_eq!(cut, value);
        assert!(select("files(id,bogus)", "FileList", &value).is_err());
        assert!(select("files(id", "FileList", &value).is_err());
        assert!(select("files,,id", "FileList", &value).is_err());
    }
}
