//! Google's approval forms as Gatehouse cards (issue 17, item 3): what a form's card shows, and the strict
//! reading of the person's answer to it.
//!
//! Google's MCP servers ask the person to approve a consequential action with an `elicitation/create` form
//! ([`GoogleForm`]). Gatehouse shows it on its own card, so the fields are turned here into a small, closed
//! set of [`FieldKind`]s every shell renders the same way (the desktop card, `gatehouse approvals`). The form
//! is written by a server and may repeat text from documents and mail, so it is hostile: every text of it is
//! escaped for showing ([`FormCard::shown`]), a form Gatehouse can't show whole is never half-shown (it is
//! cancelled, see [`UnshowableForm`]), and an *Accept* is checked against the form's own schema (required
//! fields, types, choices, string formats, bounds) before it is sent back ([`FormCard::read_answer`]).
//!
//! Only the person answers a form: *Allow once* (or the filled form) is *accept*, *Deny* is *decline*, and no
//! answer is *cancel*. *Always allow* is never offered on a form: Google asks each time, so a standing
//! approval of Gatehouse's would answer a question Google asks the person.

use rmcp::model::{EnumSchema, MultiSelectEnumSchema, PrimitiveSchemaDefinition, SingleSelectEnumSchema, StringFormat};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::card::RawAnswer;
use crate::google::mcp::form::{FormAnswer, GoogleForm};

/// The most fields a form may have to be shown: a card is read by a person, and a form past this is no
/// approval question.
pub const MAX_FIELDS: usize = 64;

/// The most choices one field may offer.
pub const MAX_OPTIONS: usize = 500;

/// A Google form as a card shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormCard {
    /// Google's key for the form; its answer goes back under it.
    pub key: String,
    /// Google's message, as Google wrote it (escaped by [`FormCard::shown`]).
    pub message: String,
    /// Gatehouse's own decision already allowed the call (its rules, a grant or the person's card) and Google
    /// asks too: the card says so, so the person knows this is a second question, Google's.
    pub google_asks_too: bool,
    /// The fields, in Google's order.
    pub fields: Vec<FormField>,
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormField {
    /// The property's name: the key its value is sent back under. Never shown (the label is).
    pub name: String,
    /// The schema's title, or the name when it has none.
    pub label: String,
    /// The schema's description.
    pub description: Option<String>,
    /// The form needs a value for it.
    pub required: bool,
    pub kind: FieldKind,
}

/// What a field takes: every primitive an elicitation form may ask for (MCP 2025-11-25 and 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    Text {
        format: Option<TextFormat>,
        min_length: Option<u32>,
        max_length: Option<u32>,
        default: Option<String>,
    },
    Number {
        minimum: Option<f64>,
        maximum: Option<f64>,
        default: Option<f64>,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
        default: Option<i64>,
    },
    Boolean {
        default: Option<bool>,
    },
    /// One of the options.
    Choice {
        options: Vec<FieldOption>,
        default: Option<String>,
    },
    /// Any number of the options (within the bounds), each at most once.
    Choices {
        options: Vec<FieldOption>,
        min_items: Option<u64>,
        max_items: Option<u64>,
        default: Vec<String>,
    },
}

/// A string format a form may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

/// One choice of a select.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldOption {
    /// What is sent back (Google's `const` or `enum` value). Never shown and never escaped: it is compared.
    pub value: String,
    /// What the person reads: Google's title, or the value itself when it gave none.
    pub title: String,
}

/// Why a form can't be shown on a card. The form is then cancelled, never shown in part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnshowableForm {
    #[error("it has {0} fields, more than the {MAX_FIELDS} a card shows")]
    TooManyFields(usize),
    #[error("its field “{0}” is of a kind Gatehouse can't show")]
    UnknownKind(String),
    #[error("its field “{0}” offers more than {MAX_OPTIONS} choices")]
    TooManyOptions(String),
    #[error("its field “{0}” offers no choice at all")]
    NoOptions(String),
    #[error("it requires a field “{0}” that it does not describe")]
    RequiredUnknown(String),
}

/// Why an answer to a form was not taken. Each names the field (escaped), so a person can correct it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormAnswerError {
    #[error("Google's form has no field “{0}”")]
    UnknownField(String),
    #[error("the field “{0}” needs a value")]
    Missing(String),
    #[error("the field “{field}” {problem}")]
    Invalid { field: String, problem: String },
    #[error("the field “{0}” was given more than once (only a multiple choice takes several values)")]
    Twice(String),
    #[error(
        "Always allow is not offered on Google's form: Google asks each time, so answer it with allow (accept), deny (decline) or the form's fields"
    )]
    AlwaysNotOffered,
    #[error("this is one of Gatehouse's own cards, not a Google form: answer it with allow, deny or always")]
    NotAForm,
}

impl FormCard {
    /// The card of `form`. `google_asks_too` says Gatehouse's own decision already allowed the call.
    pub fn from_form(form: &GoogleForm, google_asks_too: bool) -> Result<FormCard, UnshowableForm> {
        let schema = &form.requested_schema;
        if schema.properties.len() > MAX_FIELDS {
            return Err(UnshowableForm::TooManyFields(schema.properties.len()));
        }
        let required = schema.required.clone().unwrap_or_default();
        if let Some(unknown) = required.iter().find(|name| !schema.properties.contains_key(*name)) {
            return Err(UnshowableForm::RequiredUnknown(shown(unknown)));
        }
        // Google's order where the wire gave one; the schema's own (sorted) order otherwise.
        let order: Vec<&String> = match &schema.property_order {
            Some(order) if order.len() == schema.properties.len() => order.iter().collect(),
            _ => schema.properties.keys().collect(),
        };
        let mut fields = Vec::with_capacity(order.len());
        for name in order {
            let Some(definition) = schema.properties.get(name) else {
                return Err(UnshowableForm::UnknownKind(shown(name)));
            };
            let (title, description, kind) = field_kind(name, definition)?;
            fields.push(FormField {
                name: name.clone(),
                label: title.filter(|title| !title.trim().is_empty()).unwrap_or_else(|| name.clone()),
                description: description.filter(|text| !text.trim().is_empty()),
                required: required.contains(name),
                kind,
            });
        }
        Ok(FormCard { key: form.key.clone(), message: form.message.clone(), google_asks_too, fields })
    }

    /// The card as a page or a terminal shows it: Google's message, every label, description, option title
    /// and default escaped by [`crate::shown::shown`]. Field names and option values stay as they are (they
    /// are never shown, only sent back and compared).
    pub fn shown(&self) -> FormCard {
        let text = |text: &str| crate::shown::shown(text).into_owned();
        let options = |options: &[FieldOption]| -> Vec<FieldOption> {
            options
                .iter()
                .map(|option| FieldOption { value: option.value.clone(), title: text(&option.title) })
                .collect()
        };
        let fields = self
            .fields
            .iter()
            .map(|field| FormField {
                label: text(&field.label),
                description: field.description.as_deref().map(text),
                kind: match &field.kind {
                    FieldKind::Text { format, min_length, max_length, default } => FieldKind::Text {
                        format: *format,
                        min_length: *min_length,
                        max_length: *max_length,
                        default: default.as_deref().map(text),
                    },
                    FieldKind::Choice { options: list, default } => {
                        FieldKind::Choice { options: options(list), default: default.clone() }
                    }
                    FieldKind::Choices { options: list, min_items, max_items, default } => FieldKind::Choices {
                        options: options(list),
                        min_items: *min_items,
                        max_items: *max_items,
                        default: default.clone(),
                    },
                    other => other.clone(),
                },
                ..field.clone()
            })
            .collect();
        FormCard { message: text(&self.message), fields, ..self.clone() }
    }

    /// Whether a field needs typing or choosing (anything but a form of no fields): such a form is answered
    /// on the card or with `--field`, never from a notification's one click.
    pub fn has_fields(&self) -> bool {
        !self.fields.is_empty()
    }

    /// The form's answer as the person gave it. *Allow once* accepts with the form's defaults, a filled form
    /// accepts with its values (defaults for what it left out); either is checked against the schema first.
    /// *Deny* declines. *Always allow* is refused: it is not offered on a form.
    pub fn read_answer(&self, raw: &RawAnswer) -> Result<FormAnswer, FormAnswerError> {
        match raw {
            RawAnswer::Deny => Ok(FormAnswer::Decline),
            RawAnswer::Always(_) => Err(FormAnswerError::AlwaysNotOffered),
            RawAnswer::AllowOnce => self.check(&Map::new()).map(FormAnswer::Accept),
            RawAnswer::Form(content) => self.check(content).map(FormAnswer::Accept),
        }
    }

    /// `content` checked against the form, with each left-out field's default filled in: the content sent
    /// back. A value `null` counts as left out.
    pub fn check(&self, content: &Map<String, Value>) -> Result<Map<String, Value>, FormAnswerError> {
        if let Some(unknown) = content.keys().find(|name| !self.fields.iter().any(|field| &field.name == *name)) {
            return Err(FormAnswerError::UnknownField(shown(unknown)));
        }
        let mut checked = Map::new();
        for field in &self.fields {
            let value = match content.get(&field.name).filter(|value| !value.is_null()) {
                Some(value) => value.clone(),
                None => match field.kind.default() {
                    Some(default) => default,
                    None if field.required => return Err(FormAnswerError::Missing(shown(&field.label))),
                    None => continue,
                },
            };
            field
                .kind
                .check(&value)
                .map_err(|problem| FormAnswerError::Invalid { field: shown(&field.label), problem })?;
            checked.insert(field.name.clone(), value);
        }
        Ok(checked)
    }

    /// The content of `--field name=value` pairs as a terminal gives them, each value read as its field's
    /// kind takes it: text as it is, numbers in decimal, `true`/`false` (or `yes`/`no`), a choice by its
    /// value or its title, and a multiple choice as one `--field` per chosen option (`name=` alone for none).
    /// Not yet checked against the form's rules: [`FormCard::check`] does that.
    pub fn content_of_fields(&self, pairs: &[(String, String)]) -> Result<Map<String, Value>, FormAnswerError> {
        let mut content = Map::new();
        for (name, text) in pairs {
            let field = self
                .fields
                .iter()
                .find(|field| &field.name == name)
                .ok_or_else(|| FormAnswerError::UnknownField(shown(name)))?;
            let invalid = |problem: String| FormAnswerError::Invalid { field: shown(&field.label), problem };
            if let FieldKind::Choices { options, .. } = &field.kind {
                let entry = content.entry(name.clone()).or_insert_with(|| Value::Array(Vec::new()));
                if !text.is_empty() {
                    let value = option_of(options, text).ok_or_else(|| invalid(not_an_option(options, text)))?;
                    if let Value::Array(values) = entry {
                        values.push(Value::String(value));
                    }
                }
                continue;
            }
            if content.contains_key(name) {
                return Err(FormAnswerError::Twice(shown(&field.label)));
            }
            let value = match &field.kind {
                FieldKind::Text { .. } => Value::String(text.clone()),
                FieldKind::Number { .. } => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|number| number.is_finite())
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
                    .ok_or_else(|| invalid(format!("takes a number, not “{}”", shown(text))))?,
                FieldKind::Integer { .. } => text
                    .trim()
                    .parse::<i64>()
                    .map(Value::from)
                    .map_err(|_| invalid(format!("takes a whole number, not “{}”", shown(text))))?,
                FieldKind::Boolean { .. } => match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" => Value::Bool(true),
                    "false" | "no" => Value::Bool(false),
                    _ => return Err(invalid(format!("takes true or false, not “{}”", shown(text)))),
                },
                FieldKind::Choice { options, .. } => {
                    Value::String(option_of(options, text).ok_or_else(|| invalid(not_an_option(options, text)))?)
                }
                FieldKind::Choices { .. } => continue,
            };
            content.insert(name.clone(), value);
        }
        Ok(content)
    }
}

impl FieldKind {
    /// The schema's default as the value it sends, if it has one.
    pub fn default(&self) -> Option<Value> {
        match self {
            FieldKind::Text { default, .. } => default.clone().map(Value::String),
            FieldKind::Number { default, .. } => default.and_then(serde_json::Number::from_f64).map(Value::Number),
            FieldKind::Integer { default, .. } => default.map(Value::from),
            FieldKind::Boolean { default } => default.map(Value::Bool),
            FieldKind::Choice { default, .. } => default.clone().map(Value::String),
            FieldKind::Choices { default, .. } if default.is_empty() => None,
            FieldKind::Choices { default, .. } => {
                Some(Value::Array(default.iter().cloned().map(Value::String).collect()))
            }
        }
    }

    /// Whether `value` is one this field takes; the problem in words when not.
    fn check(&self, value: &Value) -> Result<(), String> {
        match self {
            FieldKind::Text { format, min_length, max_length, .. } => {
                let Value::String(text) = value else { return Err("takes text".to_owned()) };
                let length = text.chars().count();
                if let Some(min) = min_length.filter(|min| length < *min as usize) {
                    return Err(format!("needs at least {min} characters"));
                }
                if let Some(max) = max_length.filter(|max| length > *max as usize) {
                    return Err(format!("takes at most {max} characters"));
                }
                match format {
                    Some(format) => check_format(*format, text),
                    None => Ok(()),
                }
            }
            FieldKind::Number { minimum, maximum, .. } => {
                let number = value.as_f64().filter(|number| value.is_number() && number.is_finite());
                let Some(number) = number else { return Err("takes a number".to_owned()) };
                bounds(number, *minimum, *maximum)
            }
            FieldKind::Integer { minimum, maximum, .. } => {
                let Some(number) = value.as_i64() else { return Err("takes a whole number".to_owned()) };
                bounds(number, *minimum, *maximum)
            }
            FieldKind::Boolean { .. } => match value {
                Value::Bool(_) => Ok(()),
                _ => Err("takes true or false".to_owned()),
            },
            FieldKind::Choice { options, .. } => match value {
                Value::String(text) if options.iter().any(|option| &option.value == text) => Ok(()),
                Value::String(text) => Err(not_an_option(options, text)),
                _ => Err("takes one of its choices".to_owned()),
            },
            FieldKind::Choices { options, min_items, max_items, .. } => {
                let Value::Array(values) = value else { return Err("takes a list of its choices".to_owned()) };
                let mut seen = Vec::with_capacity(values.len());
                for value in values {
                    let Value::String(text) = value else { return Err("takes a list of its choices".to_owned()) };
                    if !options.iter().any(|option| &option.value == text) {
                        return Err(not_an_option(options, text));
                    }
                    if seen.contains(&text) {
                        return Err(format!("has “{}” chosen twice", shown(text)));
                    }
                    seen.push(text);
                }
                let count = values.len() as u64;
                if let Some(min) = min_items.filter(|min| count < *min) {
                    return Err(format!("needs at least {min} of its choices"));
                }
                if let Some(max) = max_items.filter(|max| count > *max) {
                    return Err(format!("takes at most {max} of its choices"));
                }
                Ok(())
            }
        }
    }
}

/// The title, description and kind of one property of a form's schema.
fn field_kind(
    name: &str,
    definition: &PrimitiveSchemaDefinition,
) -> Result<(Option<String>, Option<String>, FieldKind), UnshowableForm> {
    let text = |text: &Option<std::borrow::Cow<'static, str>>| text.as_ref().map(|text| text.to_string());
    let options = |options: Vec<FieldOption>| -> Result<Vec<FieldOption>, UnshowableForm> {
        match options.len() {
            0 => Err(UnshowableForm::NoOptions(shown(name))),
            n if n > MAX_OPTIONS => Err(UnshowableForm::TooManyOptions(shown(name))),
            _ => Ok(options),
        }
    };
    let untitled = |values: &[String]| {
        values.iter().map(|value| FieldOption { value: value.clone(), title: value.clone() }).collect()
    };
    let titled = |pairs: &[rmcp::model::ConstTitle]| {
        pairs.iter().map(|pair| FieldOption { value: pair.const_.clone(), title: pair.title.clone() }).collect()
    };
    Ok(match definition {
        PrimitiveSchemaDefinition::String(string) => {
            let format = match string.format {
                None => None,
                Some(StringFormat::Email) => Some(TextFormat::Email),
                Some(StringFormat::Uri) => Some(TextFormat::Uri),
                Some(StringFormat::Date) => Some(TextFormat::Date),
                Some(StringFormat::DateTime) => Some(TextFormat::DateTime),
                Some(_) => return Err(UnshowableForm::UnknownKind(shown(name))),
            };
            let kind = FieldKind::Text {
                format,
                min_length: string.min_length,
                max_length: string.max_length,
                default: string.default.clone(),
            };
            (text(&string.title), text(&string.description), kind)
        }
        PrimitiveSchemaDefinition::Number(number) => {
            let kind = FieldKind::Number { minimum: number.minimum, maximum: number.maximum, default: number.default };
            (text(&number.title), text(&number.description), kind)
        }
        PrimitiveSchemaDefinition::Integer(integer) => {
            let kind =
                FieldKind::Integer { minimum: integer.minimum, maximum: integer.maximum, default: integer.default };
            (text(&integer.title), text(&integer.description), kind)
        }
        PrimitiveSchemaDefinition::Boolean(boolean) => {
            (text(&boolean.title), text(&boolean.description), FieldKind::Boolean { default: boolean.default })
        }
        PrimitiveSchemaDefinition::Enum(EnumSchema::Single(SingleSelectEnumSchema::Untitled(single))) => {
            let kind =
                FieldKind::Choice { options: options(untitled(&single.enum_))?, default: single.default.clone() };
            (text(&single.title), text(&single.description), kind)
        }
        PrimitiveSchemaDefinition::Enum(EnumSchema::Single(SingleSelectEnumSchema::Titled(single))) => {
            let kind = FieldKind::Choice { options: options(titled(&single.one_of))?, default: single.default.clone() };
            (text(&single.title), text(&single.description), kind)
        }
        PrimitiveSchemaDefinition::Enum(EnumSchema::Legacy(legacy)) => {
            let list = match &legacy.enum_names {
                Some(names) if names.len() == legacy.enum_.len() => legacy
                    .enum_
                    .iter()
                    .zip(names)
                    .map(|(value, title)| FieldOption { value: value.clone(), title: title.clone() })
                    .collect(),
                _ => untitled(&legacy.enum_),
            };
            let kind = FieldKind::Choice { options: options(list)?, default: legacy.default.clone() };
            (text(&legacy.title), text(&legacy.description), kind)
        }
        PrimitiveSchemaDefinition::Enum(EnumSchema::Multi(MultiSelectEnumSchema::Untitled(multi))) => {
            let kind = FieldKind::Choices {
                options: options(untitled(&multi.items.enum_))?,
                min_items: multi.min_items,
                max_items: multi.max_items,
                default: multi.default.clone().unwrap_or_default(),
            };
            (text(&multi.title), text(&multi.description), kind)
        }
        PrimitiveSchemaDefinition::Enum(EnumSchema::Multi(MultiSelectEnumSchema::Titled(multi))) => {
            let kind = FieldKind::Choices {
                options: options(titled(&multi.items.any_of))?,
                min_items: multi.min_items,
                max_items: multi.max_items,
                default: multi.default.clone().unwrap_or_default(),
            };
            (text(&multi.title), text(&multi.description), kind)
        }
        _ => return Err(UnshowableForm::UnknownKind(shown(name))),
    })
}

/// Whether `text` is of `format`: an email address (one `@` between a local part and a domain with a dot,
/// no spaces), an absolute URI, a date (`2026-12-31`) or a date and time with its offset (RFC 3339).
fn check_format(format: TextFormat, text: &str) -> Result<(), String> {
    let ok = match format {
        TextFormat::Email => match text.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.contains('@')
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !text.chars().any(|c| c.is_whitespace() || c.is_control())
            }
            None => false,
        },
        TextFormat::Uri => url::Url::parse(text).is_ok(),
        TextFormat::Date => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
        TextFormat::DateTime => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
    };
    match (ok, format) {
        (true, _) => Ok(()),
        (false, TextFormat::Email) => Err(format!("takes an email address, not “{}”", shown(text))),
        (false, TextFormat::Uri) => Err(format!("takes a full address such as https://…, not “{}”", shown(text))),
        (false, TextFormat::Date) => Err(format!("takes a date such as 2026-12-31, not “{}”", shown(text))),
        (false, TextFormat::DateTime) => {
            Err(format!("takes a date and time such as 2026-12-31T09:00:00Z, not “{}”", shown(text)))
        }
    }
}

fn bounds<N: PartialOrd + std::fmt::Display + Copy>(
    number: N,
    minimum: Option<N>,
    maximum: Option<N>,
) -> Result<(), String> {
    if let Some(min) = minimum.filter(|min| number < *min) {
        return Err(format!("takes at least {min}, not {number}"));
    }
    if let Some(max) = maximum.filter(|max| number > *max) {
        return Err(format!("takes at most {max}, not {number}"));
    }
    Ok(())
}

/// The option `text` names, by its value or else by its title.
fn option_of(options: &[FieldOption], text: &str) -> Option<String> {
    let by_value = options.iter().find(|option| option.value == text);
    let by_title = || {
        let mut titled = options.iter().filter(|option| option.title == text);
        match (titled.next(), titled.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    };
    by_value.or_else(by_title).map(|option| option.value.clone())
}

fn not_an_option(options: &[FieldOption], text: &str) -> String {
    let listed: Vec<String> = options.iter().take(12).map(|option| format!("“{}”", shown(&option.value))).collect();
    let more = if options.len() > 12 { ", …" } else { "" };
    format!("has no choice “{}”: choose one of {}{more}", shown(text), listed.join(", "))
}

fn shown(text: &str) -> String {
    crate::shown::shown(text).into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A form with one field of every kind, as Google's server would send it.
    pub(crate) fn every_kind() -> GoogleForm {
        let request: rmcp::model::InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Send the mail to\u{202e} bob?", "requestedSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "format": "email", "title": "Recipient", "description": "Who gets it"},
                    "link": {"type": "string", "format": "uri"},
                    "day": {"type": "string", "format": "date"},
                    "at": {"type": "string", "format": "date-time"},
                    "note": {"type": "string", "minLength": 2, "maxLength": 5, "default": "ok"},
                    "share": {"type": "number", "minimum": 0, "maximum": 1.5},
                    "copies": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
                    "notify": {"type": "boolean", "title": "Notify\nthem", "default": false},
                    "role": {"type": "string", "enum": ["reader", "writer"]},
                    "level": {"type": "string", "oneOf": [{"const": "low", "title": "Low\u{2066}"}, {"const": "high", "title": "High"}]},
                    "labels": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["a", "b", "c"]}},
                    "tags": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]}}
                },
                "required": ["to", "role", "labels"]
            }}
        }))
        .expect("a form request parses");
        GoogleForm::from_input_request("approval", &request).expect("a form")
    }

    fn card() -> FormCard {
        FormCard::from_form(&every_kind(), false).expect("shown")
    }

    fn good() -> Map<String, Value> {
        let Value::Object(content) = json!({"to": "bob@example.com", "role": "writer", "labels": ["a"]}) else {
            unreachable!()
        };
        content
    }

    #[test]
    fn every_kind_of_field_becomes_a_field_in_google_order() {
        let card = card();
        let names: Vec<&str> = card.fields.iter().map(|field| field.name.as_str()).collect();
        assert_eq!(
            names,
            ["to", "link", "day", "at", "note", "share", "copies", "notify", "role", "level", "labels", "tags"]
        );
        let kinds: Vec<Value> =
            card.fields.iter().map(|field| serde_json::to_value(&field.kind).unwrap()["type"].clone()).collect();
        assert_eq!(
            kinds,
            [
                "text", "text", "text", "text", "text", "number", "integer", "boolean", "choice", "choice", "choices",
                "choices"
            ]
        );
        let to = &card.fields[0];
        assert_eq!(
            (to.label.as_str(), to.description.as_deref(), to.required),
            ("Recipient", Some("Who gets it"), true)
        );
        assert_eq!(card.fields[1].label, "link", "no title: the name");
        let FieldKind::Choice { options, .. } = &card.fields[9].kind else { panic!("a choice") };
        assert_eq!(options[0], FieldOption { value: "low".into(), title: "Low\u{2066}".into() });
        let FieldKind::Choices { options, .. } = &card.fields[11].kind else { panic!("choices") };
        assert_eq!(options[1], FieldOption { value: "y".into(), title: "Why".into() });
    }

    #[test]
    fn the_shown_card_escapes_google_text_and_keeps_values_as_sent() {
        let shown = card().shown();
        assert_eq!(shown.message, "Send the mail to\\u{202e} bob?");
        assert_eq!(shown.fields[7].label, "Notify\\nthem");
        let FieldKind::Choice { options, .. } = &shown.fields[9].kind else { panic!("a choice") };
        assert_eq!(options[0], FieldOption { value: "low".into(), title: "Low\\u{2066}".into() });
    }

    #[test]
    fn an_accept_is_checked_against_the_schema_and_defaults_fill_the_rest() {
        let card = card();
        let checked = card.check(&good()).expect("valid");
        assert_eq!(checked["note"], json!("ok"));
        assert_eq!(checked["copies"], json!(1));
        assert_eq!(checked["notify"], json!(false));
        assert!(!checked.contains_key("share"), "no value, no default: left out");

        let with = |key: &str, value: Value| {
            let mut content = good();
            content.insert(key.into(), value);
            card.check(&content).unwrap_err().to_string()
        };
        assert_eq!(with("to", json!("bob")), "the field “Recipient” takes an email address, not “bob”");
        assert!(with("link", json!("not a uri")).contains("takes a full address"));
        assert!(with("day", json!("2026-13-01")).contains("takes a date such as"));
        assert!(with("at", json!("2026-12-01 10:00")).contains("takes a date and time"));
        assert_eq!(with("note", json!("x")), "the field “note” needs at least 2 characters");
        assert_eq!(with("note", json!("toolong")), "the field “note” takes at most 5 characters");
        assert_eq!(with("share", json!(2)), "the field “share” takes at most 1.5, not 2");
        assert_eq!(with("share", json!("1")), "the field “share” takes a number");
        assert_eq!(with("copies", json!(1.5)), "the field “copies” takes a whole number");
        assert_eq!(with("copies", json!(0)), "the field “copies” takes at least 1, not 0");
        assert_eq!(with("notify", json!("yes")), "the field “Notify\\nthem” takes true or false");
        assert!(
            with("role", json!("owner"))
                .starts_with("the field “role” has no choice “owner”: choose one of “reader”, “writer”")
        );
        assert_eq!(with("labels", json!([])), "the field “labels” needs at least 1 of its choices");
        assert_eq!(with("labels", json!(["a", "b", "c"])), "the field “labels” takes at most 2 of its choices");
        assert_eq!(with("labels", json!(["a", "a"])), "the field “labels” has “a” chosen twice");
        assert_eq!(with("ghost\n", json!(1)), "Google's form has no field “ghost\\n”");
        let mut missing = good();
        missing.remove("to");
        assert_eq!(card.check(&missing).unwrap_err(), FormAnswerError::Missing("Recipient".into()));
        assert!(card.check(&good()).is_ok());
    }

    #[test]
    fn answers_map_to_accept_decline_and_never_always() {
        let card = card();
        assert_eq!(card.read_answer(&RawAnswer::Deny), Ok(FormAnswer::Decline));
        assert_eq!(card.read_answer(&RawAnswer::AllowOnce), Err(FormAnswerError::Missing("Recipient".into())));
        let always = RawAnswer::Always(crate::approval::card::RawChoice {
            scope: "TOOL".into(),
            days: "1".into(),
            limit: "ANY".into(),
        });
        assert_eq!(card.read_answer(&always), Err(FormAnswerError::AlwaysNotOffered));
        assert!(matches!(card.read_answer(&RawAnswer::Form(good())), Ok(FormAnswer::Accept(_))));
        let empty = FormCard { fields: Vec::new(), ..card };
        assert_eq!(empty.read_answer(&RawAnswer::AllowOnce), Ok(FormAnswer::Accept(Map::new())));
    }

    #[test]
    fn terminal_fields_are_read_as_their_kinds_take_them() {
        let card = card();
        let pairs: Vec<(String, String)> = [
            ("to", "bob@example.com"),
            ("share", "0.5"),
            ("copies", "2"),
            ("notify", "yes"),
            ("level", "High"),
            ("labels", "a"),
            ("labels", "b"),
            ("role", "reader"),
        ]
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
        let content = card.content_of_fields(&pairs).expect("read");
        assert_eq!(
            Value::Object(content.clone()),
            json!({"to": "bob@example.com", "share": 0.5, "copies": 2, "notify": true, "level": "high",
                   "labels": ["a", "b"], "role": "reader"})
        );
        assert!(card.check(&content).is_ok());
        let one =
            |name: &str, value: &str| card.content_of_fields(&[(name.into(), value.into())]).unwrap_err().to_string();
        assert_eq!(one("copies", "two"), "the field “copies” takes a whole number, not “two”");
        assert_eq!(one("notify", "maybe"), "the field “Notify\\nthem” takes true or false, not “maybe”");
        assert_eq!(one("nobody", "x"), "Google's form has no field “nobody”");
        assert!(one("role", "admin").contains("has no choice “admin”"));
        let twice = [("to".into(), "a@b.c".into()), ("to".into(), "d@e.f".into())];
        assert_eq!(card.content_of_fields(&twice), Err(FormAnswerError::Twice("Recipient".into())));
        let none = card.content_of_fields(&[("labels".into(), String::new())]).unwrap();
        assert_eq!(none["labels"], json!([]));
    }

    #[test]
    fn a_form_that_cannot_be_shown_whole_is_refused() {
        let mut form = every_kind();
        form.requested_schema.required = Some(vec!["ghost".into()]);
        assert_eq!(FormCard::from_form(&form, false), Err(UnshowableForm::RequiredUnknown("ghost".into())));
        let request: rmcp::model::InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "m", "requestedSchema": {"type": "object",
                "properties": {"pick": {"type": "string", "enum": []}}}}
        }))
        .unwrap();
        let form = GoogleForm::from_input_request("k", &request).unwrap();
        assert_eq!(FormCard::from_form(&form, false), Err(UnshowableForm::NoOptions("pick".into())));
    }
}
