//! Arguments as cards and the audit log show them: secrets redacted, very long text cut, and one canonical
//! text form (keys sorted) to recognise the same call again.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::evaluator::ArgEvaluator;

/// Argument names whose values are secrets: never shown, never logged.
const SECRET_KEYS: &[&str] =
    &["access_token", "refresh_token", "client_secret", "password", "secret", "api_key", "token"];
/// Longest string a card shows before cutting it.
const PREVIEW_CHARS: usize = 300;
/// Longest string the audit log keeps before cutting it (a whole upload does not belong in the log).
const AUDIT_CHARS: usize = 4_000;

/// The arguments for a card: secrets redacted, long strings cut to a readable preview.
pub fn preview(args: &Value) -> Value {
    shape(args, PREVIEW_CHARS)
}

/// The arguments for the audit log: secrets redacted, very long strings cut.
pub fn for_audit(args: &Value) -> Value {
    shape(args, AUDIT_CHARS)
}

/// The call's target for the audit log: what its evaluators would limit a grant to (a spreadsheet, a file, a
/// folder, a domain), in words; `None` for tools that name no single target.
pub fn target(evaluators: &[Arc<dyn ArgEvaluator>], args: &Value) -> Option<String> {
    evaluators.iter().filter(|evaluator| evaluator.constrains()).find_map(|evaluator| {
        let constraint = evaluator.propose(args).ok().flatten()?;
        Some(format!("{} {}", constraint.kind, constraint.value))
    })
}

/// The constraint an audit record's target names (the inverse of [`target`]), so a log reader can look its
/// name up as the cards do; `None` for text that is not `kind value`.
pub fn target_constraint(text: &str) -> Option<super::model::Constraint> {
    let (kind, value) = text.split_once(' ')?;
    (!kind.is_empty() && !value.is_empty())
        .then(|| super::model::Constraint { kind: kind.to_owned(), value: value.to_owned() })
}

/// A canonical text of the arguments (object keys sorted at every depth), to recognise a repeated call.
pub fn canonical_text(args: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|key| (key.clone(), sorted(&map[key]))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(args).to_string()
}

fn shape(value: &Value, max_chars: usize) -> Value {
    match value {
        Value::Object(map) => {
            let shaped: Map<String, Value> = map
                .iter()
                .map(|(key, value)| {
                    let secret = SECRET_KEYS.iter().any(|secret| key.eq_ignore_ascii_case(secret));
                    (key.clone(), if secret { Value::String("[redacted]".into()) } else { shape(value, max_chars) })
                })
                .collect();
            Value::Object(shaped)
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| shape(item, max_chars)).collect()),
        Value::String(text) if text.chars().count() > max_chars => {
            let kept: String = text.chars().take(max_chars).collect();
            Value::String(format!("{kept}… ({} characters in all)", text.chars().count()))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn secrets_are_redacted_at_any_depth_and_long_text_is_cut() {
        let args = json!({ "file": { "token": "ya29.x", "name": "a" }, "content": "x".repeat(1000) });
        let shown = preview(&args);
        assert_eq!(shown["file"]["token"], "[redacted]");
        assert_eq!(shown["file"]["name"], "a");
        let content = shown["content"].as_str().unwrap();
        assert!(content.ends_with("… (1000 characters in all)") && content.len() < 400, "{content}");
        assert_eq!(for_audit(&args)["content"].as_str().unwrap().len(), 1000);
    }

    #[test]
    fn the_canonical_text_ignores_key_order() {
        assert_eq!(
            canonical_text(&json!({ "a": 1, "b": [ { "y": 2, "x": 1 } ] })),
            canonical_text(&json!({ "b": [ { "x": 1, "y": 2 } ], "a": 1 }))
        );
    }

    #[test]
    fn an_audit_target_reads_back_as_its_constraint() {
        let constraint = target_constraint("spreadsheet 1cQ-x_9").expect("a spreadsheet");
        assert_eq!((constraint.kind.as_str(), constraint.value.as_str()), ("spreadsheet", "1cQ-x_9"));
        assert_eq!(target_constraint("domain example.com").map(|c| c.value), Some("example.com".to_owned()));
        assert_eq!(target_constraint("nothing"), None);
        assert_eq!(target_constraint(" x"), None);
    }
}
