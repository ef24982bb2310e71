//! Reading RFC 2822 / MIME messages as Gmail does when a client sends `raw`: headers unfolded and their
//! RFC 2047 encoded words decoded, `multipart/*` bodies split on their boundary, and `base64` /
//! `quoted-printable` transfer encodings undone. Charsets other than UTF-8, US-ASCII and ISO-8859-1 are
//! read as UTF-8 (lossily): the emulator only needs what Gatehouse and its tests send.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};

/// One MIME part (the whole message is the top one).
#[derive(Debug, Clone, Default)]
pub(crate) struct Part {
    /// Headers in order, names as written, values unfolded and decoded.
    pub headers: Vec<(String, String)>,
    /// `type/subtype`, lowercased; `text/plain` when absent, as RFC 2045 says.
    pub mime_type: String,
    /// The attachment's file name (`Content-Disposition` `filename`, else `Content-Type` `name`), or empty.
    pub filename: String,
    /// The decoded body of a leaf part; empty for a multipart container.
    pub body: Vec<u8>,
    pub parts: Vec<Part>,
}

impl Part {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The first `text/plain` leaf that is not an attachment, depth first.
    pub fn plain_text(&self) -> Option<String> {
        if self.parts.is_empty() {
            return (self.mime_type == "text/plain" && self.filename.is_empty())
                .then(|| String::from_utf8_lossy(&self.body).into_owned());
        }
        self.parts.iter().find_map(Part::plain_text)
    }

    /// Whether any leaf is an attachment.
    pub fn has_attachment(&self) -> bool {
        !self.filename.is_empty() || self.parts.iter().any(Part::has_attachment)
    }
}

/// Parses a whole message.
pub(crate) fn parse(raw: &[u8]) -> Part {
    let (head, body) = split_head(raw);
    let headers = parse_headers(head);
    let content_type = find(&headers, "content-type").unwrap_or("text/plain");
    let (mime_type, params) = parse_params(content_type);
    let mime_type = if mime_type.is_empty() { "text/plain".to_owned() } else { mime_type };
    let disposition = find(&headers, "content-disposition").map(parse_params);
    let filename = disposition
        .as_ref()
        .and_then(|(_, params)| param(params, "filename"))
        .or_else(|| param(&params, "name"))
        .unwrap_or_default();
    let mut part = Part { headers: Vec::new(), mime_type, filename, body: Vec::new(), parts: Vec::new() };
    if part.mime_type.starts_with("multipart/") {
        if let Some(boundary) = param(&params, "boundary") {
            part.parts = split_multipart(body, &boundary).into_iter().map(parse).collect();
        }
    } else {
        let encoding = find(&headers, "content-transfer-encoding").unwrap_or("7bit").trim().to_ascii_lowercase();
        part.body = match encoding.as_str() {
            "base64" => decode_base64(body),
            "quoted-printable" => decode_quoted_printable(body),
            _ => body.to_vec(),
        };
    }
    part.headers = headers;
    part
}

fn find<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Splits at the first empty line (CRLF or LF endings).
fn split_head(raw: &[u8]) -> (&[u8], &[u8]) {
    for (i, window) in raw.windows(2).enumerate() {
        if window == b"\n\n" {
            return (&raw[..i + 1], &raw[i + 2..]);
        }
        if window == b"\n\r" && raw.get(i + 2) == Some(&b'\n') {
            return (&raw[..i + 1], &raw[i + 3..]);
        }
    }
    (raw, &[])
}

fn parse_headers(head: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(head);
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push_str(line);
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    headers.into_iter().map(|(name, value)| (name, decode_words(&value))).collect()
}

/// `type/subtype; a=b; c="d"` → (`type/subtype` lowercased, [(a, b), (c, d)]), RFC 2231 `name*=` values
/// decoded.
fn parse_params(value: &str) -> (String, Vec<(String, String)>) {
    let mut pieces = value.split(';');
    let kind = pieces.next().unwrap_or_default().trim().to_ascii_lowercase();
    let params = pieces
        .filter_map(|piece| {
            let (name, value) = piece.split_once('=')?;
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"').to_owned();
            match name.strip_suffix('*') {
                Some(base) => Some((base.to_owned(), decode_rfc2231(&value))),
                None => Some((name, value)),
            }
        })
        .collect();
    (kind, params)
}

fn param(params: &[(String, String)], name: &str) -> Option<String> {
    params.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}

/// `UTF-8''na%C3%AFve.txt` → `naïve.txt`.
fn decode_rfc2231(value: &str) -> String {
    let encoded = value.splitn(3, '\'').nth(2).unwrap_or(value);
    percent_encoding::percent_decode_str(encoded).decode_utf8_lossy().into_owned()
}

/// The bodies between `--boundary` lines, up to `--boundary--`.
fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> Vec<&'a [u8]> {
    let delimiter = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    let mut offset = 0;
    for line in body.split_inclusive(|b| *b == b'\n') {
        let trimmed = trim_line_end(line);
        if trimmed.starts_with(delimiter.as_bytes()) {
            if let Some(begin) = start {
                // The line break before the delimiter belongs to the delimiter.
                parts.push(trim_line_end(&body[begin..offset]));
            }
            if trimmed[delimiter.len()..].starts_with(b"--") {
                return parts;
            }
            start = Some(offset + line.len());
        }
        offset += line.len();
    }
    if let Some(begin) = start {
        parts.push(&body[begin..]);
    }
    parts
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn decode_base64(body: &[u8]) -> Vec<u8> {
    let compact: Vec<u8> = body.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    let trimmed: &[u8] = {
        let end = compact.iter().rposition(|b| *b != b'=').map_or(0, |i| i + 1);
        &compact[..end]
    };
    STANDARD_NO_PAD.decode(trimmed).or_else(|_| STANDARD.decode(&compact)).unwrap_or_default()
}

fn decode_quoted_printable(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'=' if body.get(i + 1) == Some(&b'\r') && body.get(i + 2) == Some(&b'\n') => i += 3,
            b'=' if body.get(i + 1) == Some(&b'\n') => i += 2,
            b'=' => {
                match body.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok())
                {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                    }
                    None => {
                        out.push(b'=');
                        i += 1;
                    }
                }
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// Decodes RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?utf-8?Q?…?=`); the space between two adjacent
/// encoded words is dropped, as the RFC says.
pub(crate) fn decode_words(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let (before, candidate) = rest.split_at(start);
        let Some((decoded, used)) = encoded_word(candidate) else {
            out.push_str(before);
            out.push_str("=?");
            rest = &candidate[2..];
            after_word = false;
            continue;
        };
        if !(after_word && before.trim().is_empty()) {
            out.push_str(before);
        }
        out.push_str(&decoded);
        rest = &candidate[used..];
        after_word = true;
    }
    out.push_str(rest);
    out
}

/// One encoded word at the start of `text`: its decoded text and its length.
fn encoded_word(text: &str) -> Option<(String, usize)> {
    let inner = text.strip_prefix("=?")?;
    let (charset, inner) = inner.split_once('?')?;
    let (encoding, inner) = inner.split_once('?')?;
    let end = inner.find("?=")?;
    let payload = &inner[..end];
    let bytes = match encoding.to_ascii_uppercase().as_str() {
        "B" => decode_base64(payload.as_bytes()),
        "Q" => decode_quoted_printable(payload.replace('_', " ").as_bytes()),
        _ => return None,
    };
    let charset = charset.split('*').next().unwrap_or(charset).to_ascii_lowercase();
    let decoded = match charset.as_str() {
        "iso-8859-1" | "latin1" => bytes.iter().map(|b| char::from(*b)).collect(),
        _ => String::from_utf8_lossy(&bytes).into_owned(),
    };
    let used = 2 + charset.len() + 1 + encoding.len() + 1 + end + 2;
    Some((decoded, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_words_are_decoded_and_joined() {
        assert_eq!(decode_words("=?UTF-8?B?Q2Fmw6k=?= au lait"), "Café au lait");
        assert_eq!(decode_words("=?utf-8?Q?Caf=C3=A9?= =?utf-8?Q?_noir?="), "Café noir");
        assert_eq!(decode_words("plain =? text"), "plain =? text");
    }

    #[test]
    fn a_multipart_message_is_split_and_decoded() {
        let raw = "From: a@example.com\r\nSubject: =?UTF-8?B?SMOpbGxv?=\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n\
preamble\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nHi =C3=A9t=\r\n=C3=A9\r\n\
--b1\r\nContent-Type: application/pdf; name=\"r.pdf\"\r\nContent-Disposition: attachment; filename=\"r.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\nJVBERg==\r\n--b1--\r\n";
        let part = parse(raw.as_bytes());
        assert_eq!(part.header("subject"), Some("Héllo"));
        assert_eq!(part.mime_type, "multipart/mixed");
        assert_eq!(part.parts.len(), 2);
        assert_eq!(part.plain_text().as_deref(), Some("Hi été"));
        assert_eq!(part.parts[1].filename, "r.pdf");
        assert_eq!(part.parts[1].body, b"%PDF");
        assert!(part.has_attachment());
    }
}
