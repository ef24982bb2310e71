//! Adding, replacing and removing our entry in a JSON config file by changing only its bytes.
//!
//! Every other byte (key order, indentation, comments in JSON with comments) stays where it was. Each edit is
//! checked before it is used: the edited text must parse to exactly the old document with our entry set or
//! removed, in the same key order; anything else is refused rather than written.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::Refusal;
use super::entry::pretty;
use super::error::ConnectError;
use super::jsonc::{self, Node};

/// The entry named `name` under `container`, if the file has one. A blank file has none.
pub(super) fn entry(
    path: &str,
    text: &str,
    jsonc: bool,
    container: &str,
    name: &str,
) -> Result<Option<Value>, ConnectError> {
    let Some(root) = parse(path, without_bom(text).1, jsonc)? else { return Ok(None) };
    Ok(servers(path, &root, container)?.and_then(|servers| servers.get(name).cloned()))
}

/// `text` with the entry `name` under `container` set to `new`, or removed when `new` is `None`.
pub(super) fn edit(
    path: &str,
    text: &str,
    jsonc: bool,
    container: &str,
    name: &str,
    new: Option<&Value>,
) -> Result<String, Refusal> {
    let (bom, body) = without_bom(text);
    let Some(root) = parse(path, body, jsonc)? else {
        return Ok(match new {
            None => text.to_owned(),
            // A blank file, or (with comments) only comments: they stay above the new document.
            Some(entry) => {
                let kept = body.trim_end();
                let separator = if kept.is_empty() { "" } else { "\n" };
                format!("{bom}{kept}{separator}{}", pretty(&json!({ container: { name: entry } })))
            }
        });
    };
    servers(path, &root, container)?;
    let layout = jsonc::parse(body).ok_or(Refusal::Unsafe("its layout could not be followed"))?;
    let edited = match new {
        Some(entry) => set(body, &layout, container, name, entry),
        None => remove(body, &layout, container, name),
    }
    .ok_or(Refusal::Unsafe("its layout is not one Gatehouse can edit in place"))?;
    let expected = Value::Object(expected_after(root, container, name, new));
    match parse(path, &edited, jsonc).ok().flatten().map(Value::Object) {
        Some(reread) if same_in_order(&reread, &expected) => Ok(format!("{bom}{edited}")),
        _ => Err(Refusal::Unsafe("the edited file would not have read back as intended")),
    }
}

fn without_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", text),
    }
}

/// The top-level object, or `None` for a blank file (with comments: only comments).
fn parse(path: &str, body: &str, jsonc: bool) -> Result<Option<Map<String, Value>>, ConnectError> {
    let cleaned = if jsonc { Cow::Owned(jsonc::strip(body)) } else { Cow::Borrowed(body) };
    if cleaned.trim().is_empty() {
        return Ok(None);
    }
    let invalid = |error: serde_json::Error, detail: String| ConnectError::Invalid {
        path: path.to_owned(),
        format: "JSON",
        line: Some(error.line()),
        column: Some(error.column()),
        detail,
    };
    match serde_json::from_str::<Value>(&cleaned) {
        Ok(Value::Object(root)) => Ok(Some(root)),
        Ok(other) => Err(ConnectError::Unexpected {
            path: path.to_owned(),
            what: format!("the file should hold one JSON object ({{ … }}) but holds {}", kind(&other)),
        }),
        Err(error) if !jsonc && serde_json::from_str::<Value>(&jsonc::strip(body)).is_ok() => Err(invalid(
            error,
            "it has a comment or a trailing comma, which this assistant's JSON reader refuses".into(),
        )),
        Err(error) => {
            let message = error.to_string();
            let detail = message.split(" at line ").next().unwrap_or(&message).to_owned();
            Err(invalid(error, detail))
        }
    }
}

/// The servers object under `container`, if there is one; anything else there is the person's to fix.
fn servers<'a>(
    path: &str,
    root: &'a Map<String, Value>,
    container: &str,
) -> Result<Option<&'a Map<String, Value>>, ConnectError> {
    match root.get(container) {
        None => Ok(None),
        Some(Value::Object(servers)) => Ok(Some(servers)),
        Some(other) => Err(ConnectError::Unexpected {
            path: path.to_owned(),
            what: format!("\"{container}\" should be a set of servers ({{ … }}) but is {}", kind(other)),
        }),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list ([ … ])",
        Value::Object(_) => "an object",
    }
}

/// What the document must read as after the edit. `Map::insert` keeps an existing key's place and appends a new
/// one, as the text edit does; `shift_remove` keeps the others' order.
fn expected_after(
    mut root: Map<String, Value>,
    container: &str,
    name: &str,
    new: Option<&Value>,
) -> Map<String, Value> {
    match new {
        Some(entry) => {
            if let Value::Object(servers) = root.entry(container).or_insert_with(|| Value::Object(Map::new())) {
                servers.insert(name.to_owned(), entry.clone());
            }
        }
        None => {
            if let Some(Value::Object(servers)) = root.get_mut(container) {
                servers.shift_remove(name);
            }
        }
    }
    root
}

/// Equal, with every object's keys in the same order (`Map`'s own equality ignores order).
fn same_in_order(a: &Value, b: &Value) -> bool {
    serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
}

fn set(body: &str, root: &Node, container: &str, name: &str, entry: &Value) -> Option<String> {
    let style = Style::of(body);
    let servers = root.members.as_ref()?.iter().rev().find(|member| member.key == container);
    let Some(servers) = servers else {
        return insert(body, root, container, &json!({ name: entry }), &style);
    };
    match servers.value.members.as_ref()?.iter().rev().find(|member| member.key == name) {
        Some(ours) => {
            let rendered = if starts_line(body, ours.key_start) {
                style.render(entry, &line_indent(body, ours.key_start))
            } else {
                serde_json::to_string(entry).ok()?
            };
            Some(splice(body, ours.value.start, ours.value.end, &rendered))
        }
        None => insert(body, &servers.value, name, entry, &style),
    }
}

/// Adds `"key": value` as the last member of `object`, laid out like the members already there.
fn insert(body: &str, object: &Node, key: &str, value: &Value, style: &Style) -> Option<String> {
    let members = object.members.as_ref()?;
    let key = serde_json::to_string(key).ok()?;
    let newline = style.newline;
    let Some(last) = members.last() else {
        let outer = line_indent(body, object.start);
        let indent = format!("{outer}{}", style.unit);
        let member = format!("{newline}{indent}{key}: {}", style.render(value, &indent));
        let inside = body.get(object.start + 1..object.end - 1)?;
        return Some(if inside.trim().is_empty() {
            splice(body, object.start + 1, object.end - 1, &format!("{member}{newline}{outer}"))
        } else {
            splice(body, object.start + 1, object.start + 1, &member)
        });
    };
    let first = &members[0];
    let member = if starts_line(body, first.key_start) {
        let indent = line_indent(body, first.key_start);
        format!("{newline}{indent}{key}: {}", style.render(value, &indent))
    } else {
        format!(" {key}: {}", serde_json::to_string(value).ok()?)
    };
    let bytes = body.as_bytes();
    let after = jsonc::trivia_end(bytes, last.value.end);
    Some(if bytes.get(after) == Some(&b',') {
        // The file ends its members with a trailing comma (JSON with comments): so does the new one.
        let at = past_line_comment(bytes, after + 1);
        splice(body, at, at, &format!("{member},"))
    } else {
        // A comment closing the last member's line stays on that line; the comma goes right after the value.
        let at = past_line_comment(bytes, last.value.end);
        let with_member = splice(body, at, at, &member);
        splice(&with_member, last.value.end, last.value.end, ",")
    })
}

/// The end of a `// comment` that is all that follows `at` on its line, or `at` when there is none.
fn past_line_comment(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    while matches!(bytes.get(end), Some(b' ' | b'\t')) {
        end += 1;
    }
    if !bytes[end..].starts_with(b"//") {
        return at;
    }
    while end < bytes.len() && !matches!(bytes[end], b'\n' | b'\r') {
        end += 1;
    }
    end
}

/// Removes the member `name` of `container` with its separating comma and the whitespace before it, so that
/// removing an entry `insert` appended gives back the text as it was before.
fn remove(body: &str, root: &Node, container: &str, name: &str) -> Option<String> {
    let servers = &root.members.as_ref()?.iter().rev().find(|member| member.key == container)?.value;
    let members = servers.members.as_ref()?;
    let index = members.iter().rposition(|member| member.key == name)?;
    let ours = &members[index];
    let bytes = body.as_bytes();
    let mut start = ours.key_start;
    while start > servers.start + 1 && matches!(bytes[start - 1], b' ' | b'\t' | b'\r' | b'\n') {
        start -= 1;
    }
    let after = jsonc::trivia_end(bytes, ours.value.end);
    if bytes.get(after) == Some(&b',') {
        return Some(splice(body, start, after + 1, ""));
    }
    if index > 0 {
        let comma = jsonc::trivia_end(bytes, members[index - 1].value.end);
        if bytes.get(comma) != Some(&b',') {
            return None;
        }
        let without = splice(body, start, ours.value.end, "");
        return Some(splice(&without, comma, comma + 1, ""));
    }
    // Our entry was the only one: leave `{}` rather than an object holding only the line break it had.
    let without = splice(body, start, ours.value.end, "");
    let close = servers.end - 1 - (ours.value.end - start);
    let inside = without.get(servers.start + 1..close)?;
    Some(if inside.trim().is_empty() { splice(&without, servers.start + 1, close, "") } else { without })
}

fn splice(text: &str, start: usize, end: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..start]);
    out.push_str(with);
    out.push_str(&text[end..]);
    out
}

/// Whether only whitespace stands between the start of the line and `at`.
fn starts_line(body: &str, at: usize) -> bool {
    let line_start = body[..at].rfind('\n').map_or(0, |newline| newline + 1);
    body[line_start..at].chars().all(|c| c == ' ' || c == '\t')
}

/// The whitespace that starts the line holding `at`.
fn line_indent(body: &str, at: usize) -> String {
    let line_start = body[..at].rfind('\n').map_or(0, |newline| newline + 1);
    body[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// How the file is laid out: its line break and one level of indentation.
struct Style {
    newline: &'static str,
    unit: String,
}

impl Style {
    fn of(body: &str) -> Self {
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        // The first indented line shows one level (top-level members sit one level in).
        let unit = body
            .lines()
            .map(|line| line.chars().take_while(|c| *c == ' ' || *c == '\t').collect::<String>())
            .find(|indent| !indent.is_empty())
            .unwrap_or_else(|| "  ".to_owned());
        Self { newline, unit }
    }

    /// `value` pretty-printed with this file's indentation, its later lines starting at `indent`.
    fn render(&self, value: &Value, indent: &str) -> String {
        use serde::Serialize;
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        if value.serialize(&mut serializer).is_err() {
            return value.to_string();
        }
        // JSON strings hold no raw line breaks, so every break here is the layout's.
        String::from_utf8_lossy(&out).replace('\n', &format!("{}{indent}", self.newline))
    }
}
