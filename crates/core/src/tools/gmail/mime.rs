//! Building the RFC 2822 / MIME messages the Gmail tools send, and decoding header words Gmail passes on.
//!
//! Headers are ASCII: a non-ASCII subject or display name becomes RFC 2047 encoded words (UTF-8, base64,
//! each word at most 75 characters, folded onto continuation lines). Bodies are UTF-8, base64-encoded in
//! lines of 76. The structure is the smallest that holds the content: `text/plain`; with `body_html`,
//! `multipart/alternative` (plain text first, as RFC 2046 orders them); with attachments, all of that
//! inside `multipart/mixed`. No header value may hold a line break: that would let text given as a
//! subject add headers (recipients) of its own.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE};
use chrono::{DateTime, Utc};

use super::address::Mailbox;

/// A file to attach.
#[derive(Debug, Clone)]
pub struct Attachment {
    pub filename: String,
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// A message to build.
#[derive(Debug, Clone, Default)]
pub struct Outgoing {
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    pub bcc: Vec<Mailbox>,
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub attachments: Vec<Attachment>,
    /// The `Message-ID` of the message replied to.
    pub in_reply_to: Option<String>,
    /// The thread's `References`, the replied message's id last.
    pub references: Option<String>,
}

/// Why a message could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{0} contains a line break; a mail header cannot hold one. Put it on one line.")]
    LineBreak(&'static str),
    #[error("attachment {0:?} has a file name with a line break or a quote; rename it.")]
    BadFilename(String),
}

impl Outgoing {
    /// The whole message as RFC 2822 bytes, dated `date`; `boundary` seeds the MIME boundaries (random in
    /// use, fixed in tests).
    pub fn build(&self, date: DateTime<Utc>, boundary: u64) -> Result<Vec<u8>, BuildError> {
        let mut out = String::new();
        header(&mut out, "Date", &date.format("%a, %d %b %Y %H:%M:%S +0000").to_string());
        for (name, list) in [("To", &self.to), ("Cc", &self.cc), ("Bcc", &self.bcc)] {
            if !list.is_empty() {
                let joined: Vec<String> = list.iter().map(address).collect();
                header(&mut out, name, &joined.join(", "));
            }
        }
        if self.subject.contains(['\r', '\n']) {
            return Err(BuildError::LineBreak("subject"));
        }
        header(&mut out, "Subject", &encode_words(&self.subject));
        for (name, value) in [("In-Reply-To", &self.in_reply_to), ("References", &self.references)] {
            if let Some(value) = value {
                if value.contains(['\r', '\n']) {
                    return Err(BuildError::LineBreak("the replied message's id"));
                }
                header(&mut out, name, value);
            }
        }
        header(&mut out, "MIME-Version", "1.0");
        let body = self.body(boundary)?;
        out.push_str(&body);
        Ok(out.into_bytes())
    }

    /// The body entity (its headers included): text, alternative, then mixed with the attachments.
    fn body(&self, boundary: u64) -> Result<String, BuildError> {
        let text = leaf("text/plain; charset=UTF-8", crlf(&self.text).as_bytes(), None);
        let content = match &self.html {
            Some(html) => multipart(
                "alternative",
                &format!("alt-{boundary:016x}"),
                &[text, leaf("text/html; charset=UTF-8", crlf(html).as_bytes(), None)],
            ),
            None => text,
        };
        if self.attachments.is_empty() {
            return Ok(content);
        }
        let mut parts = vec![content];
        for attachment in &self.attachments {
            if attachment.filename.contains(['\r', '\n', '"']) {
                return Err(BuildError::BadFilename(attachment.filename.clone()));
            }
            parts.push(leaf(&attachment.mime_type, &attachment.bytes, Some(&attachment.filename)));
        }
        Ok(multipart("mixed", &format!("mix-{boundary:016x}"), &parts))
    }
}

/// Text in the canonical form MIME wants before a text body is base64-encoded: every line ending CRLF.
fn crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n").replace('\n', "\r\n")
}

/// The message, base64url-encoded as Gmail's `raw` takes it.
pub fn to_raw(bytes: &[u8]) -> String {
    URL_SAFE.encode(bytes)
}

fn header(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push_str(": ");
    out.push_str(value);
    out.push_str("\r\n");
}

/// `Name <address>`, the name encoded when it is not plain ASCII.
fn address(mailbox: &Mailbox) -> String {
    match &mailbox.name {
        None => mailbox.address.clone(),
        Some(name) if name.is_ascii() && !name.contains(['"', '\\']) => format!("\"{name}\" <{}>", mailbox.address),
        Some(name) => format!("{} <{}>", encode_words(name), mailbox.address),
    }
}

/// One leaf entity: its headers, then the content base64 in lines of 76.
fn leaf(content_type: &str, bytes: &[u8], filename: Option<&str>) -> String {
    let mut out = String::new();
    match filename {
        Some(name) => {
            let quoted = encode_words(name);
            header(&mut out, "Content-Type", &format!("{content_type}; name=\"{quoted}\""));
            header(&mut out, "Content-Disposition", &format!("attachment; filename=\"{quoted}\""));
        }
        None => header(&mut out, "Content-Type", content_type),
    }
    header(&mut out, "Content-Transfer-Encoding", "base64");
    out.push_str("\r\n");
    let encoded = STANDARD.encode(bytes);
    for line in encoded.as_bytes().chunks(76) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push_str("\r\n");
    }
    out
}

fn multipart(subtype: &str, boundary: &str, parts: &[String]) -> String {
    let mut out = String::new();
    header(&mut out, "Content-Type", &format!("multipart/{subtype}; boundary=\"{boundary}\""));
    out.push_str("\r\n");
    for part in parts {
        out.push_str(&format!("--{boundary}\r\n"));
        out.push_str(part);
    }
    out.push_str(&format!("--{boundary}--\r\n"));
    out
}

/// `text` as RFC 2047 encoded words when it is not plain printable ASCII; folded between words.
pub fn encode_words(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii() && !c.is_ascii_control()) {
        return text.to_owned();
    }
    // 75 characters per word: `=?UTF-8?B?` + `?=` leave 63 for base64, i.e. 45 bytes (47 rounded down to 3).
    const BYTES_PER_WORD: usize = 45;
    let mut words = Vec::new();
    let mut chunk = String::new();
    for ch in text.chars() {
        if chunk.len() + ch.len_utf8() > BYTES_PER_WORD {
            words.push(format!("=?UTF-8?B?{}?=", STANDARD.encode(chunk.as_bytes())));
            chunk.clear();
        }
        chunk.push(ch);
    }
    if !chunk.is_empty() {
        words.push(format!("=?UTF-8?B?{}?=", STANDARD.encode(chunk.as_bytes())));
    }
    words.join("\r\n ")
}

/// Decodes RFC 2047 encoded words in a header value, in case Gmail passes them on undecoded; plain text
/// is left as it is.
pub fn decode_words(value: &str) -> String {
    if !value.contains("=?") {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let (before, candidate) = rest.split_at(start);
        match encoded_word(candidate) {
            Some((decoded, used)) => {
                if !(after_word && before.trim().is_empty()) {
                    out.push_str(before);
                }
                out.push_str(&decoded);
                rest = &candidate[used..];
                after_word = true;
            }
            None => {
                out.push_str(before);
                out.push_str("=?");
                rest = &candidate[2..];
                after_word = false;
            }
        }
    }
    out.push_str(rest);
    out
}

fn encoded_word(text: &str) -> Option<(String, usize)> {
    let inner = text.strip_prefix("=?")?;
    let (charset, inner) = inner.split_once('?')?;
    let (encoding, inner) = inner.split_once('?')?;
    let end = inner.find("?=")?;
    let payload = &inner[..end];
    let bytes = match encoding {
        "B" | "b" => STANDARD_NO_PAD.decode(payload.trim_end_matches('=')).ok()?,
        "Q" | "q" => decode_q(payload),
        _ => return None,
    };
    let decoded = if charset.eq_ignore_ascii_case("iso-8859-1") {
        bytes.iter().map(|b| char::from(*b)).collect()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some((decoded, 2 + charset.len() + 1 + encoding.len() + 1 + end + 2))
}

fn decode_q(payload: &str) -> Vec<u8> {
    let bytes = payload.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'_' { b' ' } else { bytes[i] });
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann() -> Mailbox {
        Mailbox { name: Some("Zoë Lee".into()), address: "zoe@example.com".into() }
    }

    #[test]
    fn a_plain_message_has_ascii_headers_and_a_base64_body() {
        let message = Outgoing {
            to: vec![ann(), Mailbox { name: None, address: "bob@example.com".into() }],
            subject: "Réunion — ordre du jour".into(),
            text: "Bonjour, à demain.".into(),
            ..Outgoing::default()
        };
        let bytes = message.build(DateTime::from_timestamp(0, 0).unwrap(), 1).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.is_ascii(), "{text}");
        assert!(text.starts_with("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"), "{text}");
        assert!(text.contains("To: =?UTF-8?B?Wm/DqyBMZWU=?= <zoe@example.com>, bob@example.com\r\n"), "{text}");
        assert_eq!(decode_words("=?UTF-8?B?Wm/DqyBMZWU=?="), "Zoë Lee");
        let subject = text.lines().find(|l| l.starts_with("Subject: ")).unwrap();
        assert_eq!(decode_words(subject.trim_start_matches("Subject: ")), "Réunion — ordre du jour");
        assert!(text.contains("Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"));
        assert!(text.contains(&STANDARD.encode("Bonjour, à demain.")));
        let multiline = Outgoing { text: "a\nb\r\nc".into(), ..Outgoing::default() };
        let built = String::from_utf8(multiline.build(Utc::now(), 1).unwrap()).unwrap();
        assert!(built.contains(&STANDARD.encode("a\r\nb\r\nc")), "text bodies end lines with CRLF");
    }

    #[test]
    fn long_subjects_fold_into_words_of_at_most_75_characters() {
        let subject = "é".repeat(100);
        let encoded = encode_words(&subject);
        assert!(encoded.split("\r\n ").all(|word| word.len() <= 75), "{encoded}");
        assert_eq!(decode_words(&encoded.replace("\r\n", "")), subject);
    }

    #[test]
    fn html_and_attachments_nest_alternative_in_mixed() {
        let message = Outgoing {
            to: vec![ann()],
            subject: "Report".into(),
            text: "See attached.".into(),
            html: Some("<p>See <b>attached</b>.</p>".into()),
            attachments: vec![Attachment {
                filename: "r.pdf".into(),
                mime_type: "application/pdf".into(),
                bytes: b"%PDF".to_vec(),
            }],
            ..Outgoing::default()
        };
        let text = String::from_utf8(message.build(Utc::now(), 7).unwrap()).unwrap();
        let mixed = text.find("multipart/mixed").unwrap();
        let alternative = text.find("multipart/alternative").unwrap();
        assert!(mixed < alternative);
        assert!(text.find("text/plain").unwrap() < text.find("text/html").unwrap());
        assert!(text.contains("Content-Disposition: attachment; filename=\"r.pdf\""));
        assert!(text.trim_end().ends_with(&format!("--mix-{:016x}--", 7)));
    }

    #[test]
    fn line_breaks_cannot_smuggle_headers() {
        let message = Outgoing { subject: "Hi\r\nBcc: eve@evil.example".into(), ..Outgoing::default() };
        assert_eq!(message.build(Utc::now(), 1), Err(BuildError::LineBreak("subject")));
    }

    #[test]
    fn q_encoded_words_decode_too() {
        assert_eq!(decode_words("=?utf-8?Q?Caf=C3=A9_cr=C3=A8me?= ok"), "Café crème ok");
        assert_eq!(decode_words("no words here"), "no words here");
    }
}
