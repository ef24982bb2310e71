//! The response-size safety net: an MCP client can die on a huge tool result, so every tool whose result
//! size depends on data is capped at `MAX_TOOL_RESPONSE_CHARS` characters of its serialized result.
//!
//! This is the one place the rule lives: [`render`] serializes and checks every capped result, and
//! [`precheck`] refuses before downloading when the size is known in advance.

use crate::catalog::{Cap, Output, ToolMeta};
use crate::shown::grouped;

/// A result over the cap, with the remedy in words.
#[derive(Debug, thiserror::Error)]
#[error(
    "{tool}'s result would be {size_words} characters, over the limit of {cap} (MAX_TOOL_RESPONSE_CHARS). {remedy}"
)]
pub struct TooLarge {
    pub tool: &'static str,
    pub size: usize,
    /// Whether `size` is a lower bound known before fetching, rather than the measured size.
    pub at_least: bool,
    pub cap: usize,
    size_words: String,
    remedy: String,
}

impl TooLarge {
    fn new(meta: &ToolMeta, size: usize, at_least: bool, cap: usize) -> Self {
        let size_words = if at_least { format!("at least {}", grouped(size)) } else { grouped(size) };
        Self { tool: meta.name, size, at_least, cap, size_words, remedy: remedy(meta) }
    }
}

/// The ways out, most useful first, derived from the tool's declaration.
fn remedy(meta: &ToolMeta) -> String {
    let mut ways = vec![match meta.cap {
        Cap::Paging => {
            "ask for fewer results per page (max_results / page_size) and fetch the next page with the page token"
                .to_owned()
        }
        Cap::Download => "use download_file to save the file to disk instead".to_owned(),
        Cap::Narrower | Cap::Fixed => "ask for a narrower range or fewer items".to_owned(),
    }];
    if meta.local_path {
        ways.push("pass local_path to write the full result to a file in the export folder".to_owned());
    }
    ways.push("raise MAX_TOOL_RESPONSE_CHARS".to_owned());
    let last = ways.pop().unwrap_or_default();
    let mut text = ways.join(", ");
    text.push_str(", or ");
    text.push_str(&last);
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => text,
    }
}

/// Serializes a tool's result and enforces the cap on it. Uncapped tools pass through.
pub fn render(meta: &ToolMeta, output: Output, cap: usize) -> Result<String, TooLarge> {
    let text = match output {
        Output::Json(value) => value.to_string(),
        Output::Text(text) => text,
        Output::Google(passed) => passed.text,
    };
    if meta.cap != Cap::Fixed {
        // A UTF-8 string has at least as many bytes as characters: only count when the bytes exceed the cap.
        if text.len() > cap {
            let size = text.chars().count();
            if size > cap {
                return Err(TooLarge::new(meta, size, false, cap));
            }
        }
    }
    Ok(text)
}

/// Refuses a capped tool before it fetches data whose size is already known to be at least `min_chars`.
pub fn precheck(meta: &ToolMeta, min_chars: u64, cap: usize) -> Result<(), TooLarge> {
    let min = usize::try_from(min_chars).unwrap_or(usize::MAX);
    if meta.cap != Cap::Fixed && min > cap {
        return Err(TooLarge::new(meta, min, true, cap));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::registry::{Access, Service};
    use serde_json::json;

    const READ: ToolMeta = ToolMeta {
        name: "get_sheet_data",
        title: "Read cells",
        description: "",
        service: Service::Sheets,
        access: Access::Read,
        cap: Cap::Narrower,
        local_path: true,
        fails_for: &[],
        scope: Some(crate::tools::registry::Scope::Sheets),
        cached_from: None,
    };

    #[test]
    fn under_the_cap_passes() {
        assert_eq!(render(&READ, json!({"a": 1}).into(), 100).unwrap(), r#"{"a":1}"#);
    }

    #[test]
    fn over_the_cap_names_tool_size_cap_and_remedies() {
        let error = render(&READ, json!("x".repeat(200)).into(), 100).unwrap_err();
        let text = error.to_string();
        assert_eq!(error.size, 202);
        for needle in ["get_sheet_data", "202", "100", "MAX_TOOL_RESPONSE_CHARS", "narrower range", "local_path"] {
            assert!(text.contains(needle), "{needle} missing from: {text}");
        }
    }

    #[test]
    fn characters_not_bytes_are_counted() {
        // 60 two-byte characters: 120 bytes but 62 characters with the quotes.
        let value = json!("é".repeat(60));
        assert!(render(&READ, value.clone().into(), 62).is_ok());
        assert!(render(&READ, value.into(), 61).is_err());
    }

    #[test]
    fn fixed_tools_are_not_capped() {
        let fixed = ToolMeta { cap: Cap::Fixed, ..READ };
        assert!(render(&fixed, json!("x".repeat(200)).into(), 10).is_ok());
    }

    #[test]
    fn export_points_to_download_file() {
        let export = ToolMeta { name: "export_file", cap: Cap::Download, local_path: false, ..READ };
        let text = precheck(&export, 5_000_000, 1_000_000).unwrap_err().to_string();
        assert!(text.contains("at least 5,000,000"), "{text}");
        assert!(text.contains("download_file"), "{text}");
        assert!(!text.contains("local_path"), "{text}");
    }

    #[test]
    fn listings_point_to_paging() {
        let list = ToolMeta { name: "list_files", cap: Cap::Paging, local_path: false, ..READ };
        let text = render(&list, json!("x".repeat(50)).into(), 10).unwrap_err().to_string();
        assert!(text.contains("page token"), "{text}");
    }
}
