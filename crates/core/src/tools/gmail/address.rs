//! Recipients as the Gmail tools take them: one string (which may list several addresses, separated by
//! commas or semicolons) or a list of strings, each `ann@example.com` or `Ann Lee <ann@example.com>`. The
//! sending tools and their `email_domain` evaluator read them with this one parser, so a grant judges the
//! very addresses the message goes to.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

/// `to`, `cc` or `bcc`: an address, several separated by commas, or a list of them.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(untagged)]
pub enum Recipients {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Recipients {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expect;
        impl<'de> Visitor<'de> for Expect {
            type Value = Recipients;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an email address, or a list of email addresses")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Recipients, E> {
                Ok(Recipients::One(value.to_owned()))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Recipients, A::Error> {
                let mut all = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    all.push(item);
                }
                Ok(Recipients::Many(all))
            }
        }
        deserializer.deserialize_any(Expect)
    }
}

/// One recipient: the text to put in the header, and its bare address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name, when one was given (`Ann Lee`).
    pub name: Option<String>,
    /// `ann@example.com`.
    pub address: String,
}

impl Recipients {
    /// Every recipient, each checked to be one address; `field` names the argument in errors.
    pub fn parse(&self, field: &str) -> Result<Vec<Mailbox>, String> {
        let texts: Vec<&str> = match self {
            Recipients::One(text) => split_list(text),
            Recipients::Many(items) => items.iter().flat_map(|item| split_list(item)).collect(),
        };
        texts.into_iter().map(|text| mailbox(text, field)).collect()
    }
}

/// The recipients of an optional argument (none when absent).
pub fn parse_optional(recipients: Option<&Recipients>, field: &str) -> Result<Vec<Mailbox>, String> {
    recipients.map_or(Ok(Vec::new()), |r| r.parse(field))
}

/// Splits a header-style list on commas and semicolons outside quotes and angle brackets.
pub fn split_list(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut quoted, mut angle, mut start) = (false, false, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '<' if !quoted => angle = true,
            '>' if !quoted => angle = false,
            ',' | ';' if !quoted && !angle => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter().map(str::trim).filter(|part| !part.is_empty()).collect()
}

/// One `name <address>` or bare address, checked.
fn mailbox(text: &str, field: &str) -> Result<Mailbox, String> {
    let bad = |why: &str| {
        format!(
            "{field}: {text:?} is not an email address ({why}). Give addresses like ann@example.com or \"Ann Lee <ann@example.com>\"."
        )
    };
    if text.contains(['\r', '\n']) {
        return Err(bad("it contains a line break"));
    }
    let (name, address) = match (text.rfind('<'), text.ends_with('>')) {
        (Some(open), true) => {
            let name = text[..open].trim().trim_matches('"').trim();
            (Some(name).filter(|n| !n.is_empty()).map(str::to_owned), text[open + 1..text.len() - 1].trim())
        }
        _ => (None, text),
    };
    let (local, domain) = address.rsplit_once('@').ok_or_else(|| bad("no @"))?;
    if local.is_empty() || domain.is_empty() || !domain.contains('.') {
        return Err(bad("it needs a name before the @ and a domain after it"));
    }
    if address.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '"' | ',' | ';')) {
        return Err(bad("it contains spaces or punctuation an address cannot have"));
    }
    Ok(Mailbox { name, address: address.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_string_may_list_several_and_names_are_kept() {
        let to = Recipients::One("Ann Lee <ann@example.com>, \"Doe, Jo\" <jo@example.org>; bob@example.net".into());
        let parsed = to.parse("to").unwrap();
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[0], Mailbox { name: Some("Ann Lee".into()), address: "ann@example.com".into() });
        assert_eq!(parsed[1].name.as_deref(), Some("Doe, Jo"));
        assert_eq!(parsed[2].address, "bob@example.net");
    }

    #[test]
    fn a_list_and_a_string_read_alike() {
        let list: Recipients = serde_json::from_str(r#"["a@example.com", "b@example.com"]"#).unwrap();
        let text: Recipients = serde_json::from_str(r#""a@example.com, b@example.com""#).unwrap();
        assert_eq!(list.parse("to").unwrap(), text.parse("to").unwrap());
        assert!(serde_json::from_str::<Recipients>("5").unwrap_err().to_string().contains("email address"));
    }

    #[test]
    fn non_addresses_and_header_injection_are_refused() {
        for bad in [
            "ann",
            "ann@",
            "@example.com",
            "ann@localhost",
            "ann@example.com\r\nBcc: eve@evil.example",
            "a b@example.com",
        ] {
            let error = Recipients::One(bad.into()).parse("to").unwrap_err();
            assert!(error.starts_with("to: "), "{error}");
        }
    }
}
