//! Adding, replacing and removing our extension in Goose's `config.yaml` by changing only its lines.
//!
//! The file is read with `yaml_serde` (the maintained serde_yaml that Goose itself reads it with) to check it and
//! to find our entry; the edit then touches only our entry's lines, so comments and the layout of everything
//! else stay. The edited text must parse to exactly the old document with our entry set or removed, in the same
//! order, or it is refused rather than written.

use serde_json::Value as Json;
use yaml_serde::{Mapping, Value};

use super::Refusal;
use super::error::ConnectError;

/// Indentation of the lines we write below a key.
const STEP: usize = 2;

/// Our entry under `container` (converted to JSON values), if the file has one. A blank file has none.
pub(super) fn entry(path: &str, text: &str, container: &str, name: &str) -> Result<Option<Json>, ConnectError> {
    let Some(root) = parse(path, text)? else { return Ok(None) };
    // A value JSON can't hold (a non-text key inside our entry) is ours all the same: report it, to be replaced.
    Ok(servers(path, &root, container)?
        .and_then(|servers| servers.get(name))
        .map(|found| yaml_serde::from_value::<Json>(found.clone()).unwrap_or(Json::Null)))
}

/// `text` with our entry under `container` set to `new`, or removed when `new` is `None`.
pub(super) fn edit(path: &str, text: &str, container: &str, name: &str, new: Option<&Json>) -> Result<String, Refusal> {
    let Some(root) = parse(path, text)? else {
        return Ok(match new {
            None => text.to_owned(),
            // Blank, or only comments: they stay above the new section.
            Some(entry) => {
                let kept = text.trim_end();
                let separator = if kept.is_empty() { "" } else { "\n" };
                format!("{kept}{separator}{}", fresh_document(container, name, entry))
            }
        });
    };
    servers(path, &root, container)?;
    let lines = Lines::of(text);
    let edited = match new {
        Some(entry) => lines.set(container, name, entry),
        None => lines.remove(container, name),
    }
    .ok_or(Refusal::Unsafe("its layout is not one Gatehouse can edit in place"))?;
    let new_yaml = match new {
        Some(entry) => {
            Some(yaml_serde::to_value(entry).map_err(|_| Refusal::Unsafe("the entry could not be written as YAML"))?)
        }
        None => None,
    };
    let expected = Value::Mapping(expected_after(root, container, name, new_yaml));
    match parse(path, &edited).ok().flatten().map(Value::Mapping) {
        Some(reread) if same_in_order(&reread, &expected) => Ok(edited),
        _ => Err(Refusal::Unsafe("the edited file would not have read back as intended")),
    }
}

/// A YAML document holding only our entry under `container` (also the snippet for Goose).
pub(super) fn fresh_document(container: &str, name: &str, entry: &Json) -> String {
    format!("{}:\n{}", scalar(container), render(name, entry, STEP, STEP, "\n"))
}

fn parse(path: &str, text: &str) -> Result<Option<Mapping>, ConnectError> {
    match yaml_serde::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(None),
        Ok(Value::Mapping(root)) => Ok(Some(root)),
        Ok(other) => Err(ConnectError::Unexpected {
            path: path.to_owned(),
            what: format!("the file should hold settings (`key: value` lines) but holds {}", kind(&other)),
        }),
        Err(error) => {
            let message = error.to_string();
            let detail = message.split(" at line ").next().unwrap_or(&message).to_owned();
            Err(ConnectError::Invalid {
                path: path.to_owned(),
                format: "YAML",
                line: error.location().map(|at| at.line()),
                column: error.location().map(|at| at.column()),
                detail,
            })
        }
    }
}

/// The extensions under `container`: absent, empty (`extensions:` alone or `{}`), or a mapping.
fn servers<'a>(path: &str, root: &'a Mapping, container: &str) -> Result<Option<&'a Mapping>, ConnectError> {
    match root.get(container) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Mapping(servers)) => Ok(Some(servers)),
        Some(other) => Err(ConnectError::Unexpected {
            path: path.to_owned(),
            what: format!("`{container}:` should hold named extensions but holds {}", kind(other)),
        }),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "settings",
        Value::Tagged(_) => "a tagged value",
    }
}

fn expected_after(mut root: Mapping, container: &str, name: &str, new: Option<Value>) -> Mapping {
    let key = Value::String(container.to_owned());
    match new {
        Some(entry) => {
            let slot = root.entry(key).or_insert(Value::Null);
            if !matches!(slot, Value::Mapping(_)) {
                *slot = Value::Mapping(Mapping::new());
            }
            if let Value::Mapping(servers) = slot {
                servers.insert(Value::String(name.to_owned()), entry);
            }
        }
        None => {
            if let Some(Value::Mapping(servers)) = root.get_mut(&key) {
                servers.shift_remove(name);
            }
        }
    }
    root
}

/// Equal, with every mapping's keys in the same order (`Mapping`'s own equality ignores order).
fn same_in_order(a: &Value, b: &Value) -> bool {
    matches!((yaml_serde::to_string(a), yaml_serde::to_string(b)), (Ok(a), Ok(b)) if a == b)
}

/// Our entry as block lines at `indent` (its fields `step` further in), each value on one line in flow style
/// (JSON-like, which YAML reads).
fn render(name: &str, entry: &Json, indent: usize, step: usize, newline: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}{}:{newline}", scalar(name));
    if let Json::Object(fields) = entry {
        for (key, value) in fields {
            out.push_str(&format!("{pad}{}{}: {}{newline}", " ".repeat(step), scalar(key), flow(value)));
        }
    }
    out
}

fn flow(value: &Json) -> String {
    match value {
        Json::String(text) => scalar(text),
        Json::Array(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Json::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(key, value)| format!("{}: {}", scalar(key), flow(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A word stays plain (`stdio`); anything else is double-quoted the JSON way, which YAML reads the same, so a
/// path, `--sandbox` or `yes` is never taken for something else.
fn scalar(text: &str) -> String {
    let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null"
        );
    if plain { text.to_owned() } else { serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}")) }
}

/// The file as lines, with what the edit needs to know of each.
struct Lines<'a> {
    text: &'a str,
    newline: &'static str,
    lines: Vec<Line<'a>>,
}

struct Line<'a> {
    start: usize,
    /// Where the next line starts (the end of the text for the last).
    next: usize,
    /// The line without its line break.
    content: &'a str,
}

impl Line<'_> {
    fn indent(&self) -> usize {
        self.content.len() - self.content.trim_start_matches(' ').len()
    }

    /// Not blank and not a comment.
    fn is_content(&self) -> bool {
        let trimmed = self.content.trim();
        !trimmed.is_empty() && !trimmed.starts_with('#')
    }

    /// The key this line starts (`key:`), and what follows the colon.
    fn key(&self) -> Option<(String, &str)> {
        key_of(self.content.trim_start_matches(' '))
    }

    fn has_key(&self, key: &str) -> bool {
        self.key().is_some_and(|(found, _)| found == key)
    }
}

fn key_of(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(quoted) = text.strip_prefix('"') {
        let end = quoted.find('"')?;
        (serde_json::from_str(&text[..end + 2]).ok()?, &quoted[end + 1..])
    } else if let Some(quoted) = text.strip_prefix('\'') {
        let end = quoted.find('\'')?;
        (quoted[..end].to_owned(), &quoted[end + 1..])
    } else {
        if text.starts_with(['-', '#', '?', '{', '[', '&', '*', '!', '|', '>']) {
            return None;
        }
        let colon = text
            .char_indices()
            .find(|&(at, c)| c == ':' && matches!(text[at + 1..].chars().next(), None | Some(' ' | '\t')))?
            .0;
        (text[..colon].trim_end().to_owned(), &text[colon..])
    };
    let rest = rest.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    rest.chars().next().is_none_or(|c| c == ' ' || c == '\t').then_some((key, rest))
}

/// The value written after a key's colon on the same line, without a trailing comment.
fn inline_value(rest: &str) -> &str {
    let rest = rest.trim();
    if rest.starts_with('#') {
        return "";
    }
    rest.split(" #").next().unwrap_or(rest).trim()
}

/// Where the container and our entry are.
struct Found {
    /// The container's key line.
    key: usize,
    /// Its value written on the key line (`{}`, `null`, `~`), or empty.
    inline: String,
    /// The lines of its block with content (not blank, not a comment).
    children: Vec<usize>,
    /// Our entry's first and last content lines.
    ours: Option<(usize, usize)>,
    /// How far the extensions' own fields sit below their names in this file.
    step: usize,
}

impl<'a> Lines<'a> {
    fn of(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let next = text[start..].find('\n').map_or(text.len(), |at| start + at + 1);
            let content = text[start..next].trim_end_matches('\n').trim_end_matches('\r');
            lines.push(Line { start, next, content });
            start = next;
        }
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Self { text, newline, lines }
    }

    fn find(&self, container: &str, name: &str) -> Option<Found> {
        let lines = &self.lines;
        let key = lines.iter().position(|line| line.indent() == 0 && line.is_content() && line.has_key(container))?;
        let inline = inline_value(lines[key].key()?.1).to_owned();
        let end = (key + 1..lines.len()).find(|&at| lines[at].is_content() && lines[at].indent() == 0);
        let children: Vec<usize> = (key + 1..end.unwrap_or(lines.len())).filter(|&at| lines[at].is_content()).collect();
        let ours = children.first().and_then(|&first| {
            let indent = lines[first].indent();
            let at = children.iter().position(|&line| lines[line].indent() == indent && lines[line].has_key(name))?;
            let last = children[at + 1..].iter().take_while(|&&line| lines[line].indent() > indent).last();
            Some((children[at], last.copied().unwrap_or(children[at])))
        });
        let step = children.first().and_then(|&first| {
            let indent = lines[first].indent();
            children
                .iter()
                .map(|&line| lines[line].indent())
                .find(|&deeper| deeper > indent)
                .map(|deeper| deeper - indent)
        });
        Some(Found { key, inline, children, ours, step: step.unwrap_or(STEP) })
    }

    fn set(&self, container: &str, name: &str, entry: &Json) -> Option<String> {
        let newline = self.newline;
        let Some(found) = self.find(container, name) else {
            // No such section yet: it goes at the end.
            let mut out = self.text.to_owned();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&format!("{}:{newline}{}", scalar(container), render(name, entry, STEP, STEP, newline)));
            return Some(out);
        };
        if let Some((first, last)) = found.ours {
            let indent = self.lines[first].indent();
            return Some(self.replace_lines(first, last, &render(name, entry, indent, found.step, newline)));
        }
        if let Some(&last) = found.children.last() {
            let indent = self.lines[found.children[0]].indent();
            return Some(self.insert_after(last, &render(name, entry, indent, found.step, newline)));
        }
        // An empty section: `extensions:` alone, or with `{}`, `null` or `~` on its line.
        let rendered = render(name, entry, STEP, STEP, newline);
        if found.inline.is_empty() {
            return Some(self.insert_after(found.key, &rendered));
        }
        if !matches!(found.inline.as_str(), "{}" | "null" | "~") {
            return None;
        }
        Some(self.replace_lines(found.key, found.key, &format!("{}:{newline}{rendered}", scalar(container))))
    }

    fn remove(&self, container: &str, name: &str) -> Option<String> {
        let found = self.find(container, name)?;
        let (first, last) = found.ours?;
        let others = found.children.iter().any(|&line| line < first || line > last);
        let without = self.replace_lines(first, last, "");
        if others {
            return Some(without);
        }
        // Ours was the only extension: say `{}`, as a section with nothing under it reads as null.
        Some(Lines::of(&without).replace_lines(
            found.key,
            found.key,
            &format!("{}: {{}}{}", scalar(container), self.newline),
        ))
    }

    /// The text with lines `first..=last` replaced by `with` (which ends with a line break).
    fn replace_lines(&self, first: usize, last: usize, with: &str) -> String {
        let (start, end) = (self.lines[first].start, self.lines[last].next);
        format!("{}{with}{}", &self.text[..start], &self.text[end..])
    }

    fn insert_after(&self, line: usize, with: &str) -> String {
        let at = self.lines[line].next;
        let needs_break = !self.text[..at].ends_with('\n');
        let newline = if needs_break { self.newline } else { "" };
        format!("{}{newline}{with}{}", &self.text[..at], &self.text[at..])
    }
}
