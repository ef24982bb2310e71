//! Sane bounds on the text an assistant passes in arguments, checked before anything else (the approval
//! gate, any Google call), and the one way an error quotes a value back.
//!
//! A string's bound follows from the name the tool's declaration gives the argument holding it (its kind,
//! [`ArgKind::of`]): an id, a name, a path or a range is short, a list of recipients longer, free text (cell
//! values, a document's text, a mail body) much longer. Without them, a 1 MB "id" went to Google, was retried
//! for seconds, and came back quoted whole in the error; a 1 MB `to` became an approval card. A string inside
//! another (an attachment's `local_path`, a list of ids, a cell in `data`) takes the kind of the nearest
//! argument name above it, so a raw Google request (`batch_update`'s `requests`) is bounded by the same rule.

use std::fmt::Write as _;

use serde_json::Value;

use crate::shown::{QUOTED_CHARS, excerpt, quote};

/// What kind of text an argument is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A Google id (`*_id`, `*_ids`, `id`, a spreadsheet named as `spreadsheet`).
    Id,
    /// A page or sync token Google handed out.
    Token,
    /// One email address (`attendees`, `email_address`, `*_email`).
    Email,
    /// `to`, `cc`, `bcc`: one address, several separated by commas, or a list.
    Recipients,
    /// A local path (`local_path`, `path`, `*_path`).
    Path,
    /// An A1 range (`range`, `ranges`, `*_range`).
    Range,
    /// A title or a name (`name`, `title`, `summary`, `subject`, `sheet`, `filename`, …).
    Name,
    /// A search query or pattern.
    Query,
    /// Content in base64 (`*_base64`): an attachment, up to Gmail's 25 MB message.
    Base64,
    /// Everything else: cell values, document text, mail bodies, descriptions.
    FreeText,
}

impl ArgKind {
    /// The kind of the argument named `name` (matched ignoring ASCII case).
    pub fn of(name: &str) -> Self {
        let name = name.to_ascii_lowercase();
        let n = name.as_str();
        let ends = |suffix: &str| n.ends_with(suffix);
        match n {
            "to" | "cc" | "bcc" => ArgKind::Recipients,
            "id" | "ids" | "spreadsheet" | "src_spreadsheet" | "dst_spreadsheet" => ArgKind::Id,
            _ if ends("_id") || ends("_ids") => ArgKind::Id,
            _ if ends("_token") => ArgKind::Token,
            "attendees" | "email" | "scope_value" => ArgKind::Email,
            _ if ends("_email") || ends("email_address") || ends("_emails") => ArgKind::Email,
            "path" | "paths" => ArgKind::Path,
            _ if ends("_path") || ends("_paths") => ArgKind::Path,
            "range" | "ranges" => ArgKind::Range,
            _ if ends("_range") || ends("_ranges") => ArgKind::Range,
            "query" | "queries" | "regex" => ArgKind::Query,
            _ if ends("_query") => ArgKind::Query,
            "name" | "title" | "summary" | "subject" | "sheet" | "filename" | "timezone" | "mime_type" | "role" => {
                ArgKind::Name
            }
            _ if ends("_name") || ends("_title") || ends("_sheet") || ends("_label") => ArgKind::Name,
            _ if ends("_base64") => ArgKind::Base64,
            _ => ArgKind::FreeText,
        }
    }

    /// The longest text of this kind accepted, in characters.
    pub const fn max_chars(self) -> usize {
        match self {
            // Google's longest ids (Calendar's event ids) are 1,024 characters.
            ArgKind::Id | ArgKind::Email | ArgKind::Range | ArgKind::Name => 1_024,
            ArgKind::Token | ArgKind::Path | ArgKind::Query => 8_192,
            // Gmail takes at most 500 recipients per message.
            ArgKind::Recipients => 64 * 1_024,
            // 25 MiB in base64.
            ArgKind::Base64 => 36 * 1_024 * 1_024,
            // Docs hold about 1.02 million characters; a text file uploaded inline may be larger.
            ArgKind::FreeText => 10 * 1_024 * 1_024,
        }
    }

    /// The kind in words, for the error.
    const fn words(self) -> &'static str {
        match self {
            ArgKind::Id => "an id",
            ArgKind::Token => "a page token",
            ArgKind::Email => "an email address",
            ArgKind::Recipients => "a list of recipients",
            ArgKind::Path => "a path",
            ArgKind::Range => "a range",
            ArgKind::Name => "a name or title",
            ArgKind::Query => "a query",
            ArgKind::Base64 => "base64 content",
            ArgKind::FreeText => "a text",
        }
    }
}

/// An argument longer than its kind allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{tool}'s argument `{argument}` is {length} characters long, over the {limit} characters {words} may have here (it begins {start}). Pass the value itself, not something else by mistake, and call the tool again."
)]
pub struct TooLong {
    pub tool: &'static str,
    /// Where the string is: `to`, `attachments[0].local_path`, `data[3][1]`.
    pub argument: String,
    pub length: usize,
    pub limit: usize,
    words: &'static str,
    /// The value's beginning, quoted by [`quote`].
    start: String,
}

/// Checks every string in `args` against the bound of its argument's kind; the first one over it is the error.
pub fn check(tool: &'static str, args: &Value) -> Result<(), TooLong> {
    let mut path = String::new();
    walk(tool, args, None, &mut path)
}

fn walk(tool: &'static str, value: &Value, name: Option<&str>, path: &mut String) -> Result<(), TooLong> {
    match value {
        Value::String(text) => {
            let kind = name.map_or(ArgKind::FreeText, ArgKind::of);
            let limit = kind.max_chars();
            // Bytes bound characters from above: most strings are judged without counting.
            if text.len() > limit {
                let length = text.chars().count();
                if length > limit {
                    let argument = if path.is_empty() { "(arguments)".to_owned() } else { path.clone() };
                    return Err(TooLong { tool, argument, length, limit, words: kind.words(), start: quote(text) });
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                let _ = write!(path, "[{index}]");
                walk(tool, item, name, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                // A key is itself assistant text: quote a long one, never echo it whole.
                if key.chars().count() > QUOTED_CHARS {
                    path.push_str(&excerpt(key));
                } else {
                    path.push_str(key);
                }
                walk(tool, item, Some(key), path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn kinds_follow_the_argument_names() {
        for (name, kind) in [
            ("spreadsheet_id", ArgKind::Id),
            ("calendar_ids", ArgKind::Id),
            ("spreadsheet", ArgKind::Id),
            ("page_token", ArgKind::Token),
            ("to", ArgKind::Recipients),
            ("attendees", ArgKind::Email),
            ("new_owner_email", ArgKind::Email),
            ("email_address", ArgKind::Email),
            ("local_path", ArgKind::Path),
            ("result_local_path", ArgKind::Path),
            ("data_range", ArgKind::Range),
            ("ranges", ArgKind::Range),
            ("new_name", ArgKind::Name),
            ("sheet", ArgKind::Name),
            ("dst_sheet", ArgKind::Name),
            ("query", ArgKind::Query),
            ("content_base64", ArgKind::Base64),
            ("body", ArgKind::FreeText),
            ("data", ArgKind::FreeText),
            ("description", ArgKind::FreeText),
        ] {
            assert_eq!(ArgKind::of(name), kind, "{name}");
        }
    }

    #[test]
    fn a_long_id_is_refused_naming_it_and_its_limit_quoting_only_its_start() {
        let id = "x".repeat(1_048_576);
        let error = check("get_sheet_data", &json!({ "spreadsheet_id": id, "sheet": "S" })).unwrap_err();
        assert_eq!(error.argument, "spreadsheet_id");
        assert_eq!(error.limit, 1_024);
        let text = error.to_string();
        assert!(text.contains("`spreadsheet_id` is 1048576 characters long"), "{text}");
        assert!(text.contains("1024 characters an id"), "{text}");
        assert!(text.len() < 500, "{} characters", text.len());
    }

    #[test]
    fn nested_strings_take_the_nearest_name_and_free_text_is_long() {
        let args = json!({ "attachments": [{ "local_path": "p".repeat(9_000) }] });
        assert_eq!(check("send_message", &args).unwrap_err().argument, "attachments[0].local_path");
        let args = json!({ "data": [["v".repeat(60_000)]], "to": ["a@b.c", "x".repeat(70_000)] });
        assert_eq!(check("t", &args).unwrap_err().argument, "to[1]");
        assert_eq!(check("t", &json!({ "data": [["v".repeat(60_000)]], "body": "b".repeat(2_000_000) })), Ok(()));
        // Characters, not bytes: 1,024 two-byte characters are one id's worth.
        assert_eq!(check("t", &json!({ "file_id": "é".repeat(1_024) })), Ok(()));
        assert!(check("t", &json!({ "file_id": "é".repeat(1_025) })).is_err());
    }
}
