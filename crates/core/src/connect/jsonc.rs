//! Where each member of a JSON object sits in the text, for JSON and JSON with comments (VS Code's `mcp.json`).
//!
//! An edit then changes only the bytes of our entry, so the person's comments, layout and other entries stay
//! exactly as they were. Validity is checked by `serde_json` first (it gives the line of an error); this reader
//! only follows the structure of text already known to be valid, and gives up (`None`) on anything else.

/// One value: its byte range and, for an object, its members in the order written.
#[derive(Debug)]
pub(super) struct Node {
    pub start: usize,
    pub end: usize,
    pub members: Option<Vec<Member>>,
}

#[derive(Debug)]
pub(super) struct Member {
    /// The key, unescaped.
    pub key: String,
    /// Where the key's opening quote is.
    pub key_start: usize,
    pub value: Node,
}

/// Deeper nesting than this is not a config file a person wrote; refusing it keeps the recursion bounded.
const MAX_DEPTH: usize = 256;

/// The top-level value of `text` (comments and trailing commas allowed).
pub(super) fn parse(text: &str) -> Option<Node> {
    let mut reader = Reader { text, bytes: text.as_bytes(), at: 0 };
    let node = reader.value(0)?;
    (trivia_end(text.as_bytes(), reader.at) == text.len()).then_some(node)
}

/// `text` with comments and trailing commas turned into spaces (line breaks kept), so a strict JSON parser reads
/// it and reports errors at the same lines and columns.
pub(super) fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at).unwrap_or(bytes.len()),
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    out[at] = b' ';
                    at += 1;
                }
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                let end = block_comment_end(bytes, at);
                for byte in &mut out[at..end] {
                    if *byte != b'\n' && *byte != b'\r' {
                        *byte = b' ';
                    }
                }
                at = end;
            }
            b',' => {
                if matches!(bytes.get(trivia_end(bytes, at + 1)), Some(b'}' | b']')) {
                    out[at] = b' ';
                }
                at += 1;
            }
            _ => at += 1,
        }
    }
    // Only whole comment bytes became ASCII spaces, so the text is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// The first position at or after `at` that is not whitespace or a comment.
pub(super) fn trivia_end(bytes: &[u8], mut at: usize) -> usize {
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t' | b'\r' | b'\n') => at += 1,
            Some(b'/') if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            }
            Some(b'/') if bytes.get(at + 1) == Some(&b'*') => at = block_comment_end(bytes, at),
            _ => return at,
        }
    }
}

fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 2;
    while at < bytes.len() {
        if bytes[at] == b'*' && bytes.get(at + 1) == Some(&b'/') {
            return at + 2;
        }
        at += 1;
    }
    bytes.len()
}

/// The position just after the string starting at `start` (its opening quote).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at = trivia_end(self.bytes, self.at);
        let start = self.at;
        match self.bytes.get(start)? {
            b'{' => self.object(start, depth),
            b'[' => self.array(start, depth),
            b'"' => {
                self.at = string_end(self.bytes, start)?;
                Some(Node { start, end: self.at, members: None })
            }
            _ => {
                while self.bytes.get(self.at).is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)) {
                    self.at += 1;
                }
                (self.at > start).then_some(Node { start, end: self.at, members: None })
            }
        }
    }

    fn object(&mut self, start: usize, depth: usize) -> Option<Node> {
        self.at += 1;
        let mut members = Vec::new();
        loop {
            self.at = trivia_end(self.bytes, self.at);
            match self.bytes.get(self.at)? {
                b'}' => {
                    self.at += 1;
                    return Some(Node { start, end: self.at, members: Some(members) });
                }
                b',' => self.at += 1,
                b'"' => {
                    let key_start = self.at;
                    self.at = string_end(self.bytes, key_start)?;
                    let key = serde_json::from_str(self.text.get(key_start..self.at)?).ok()?;
                    self.at = trivia_end(self.bytes, self.at);
                    if self.bytes.get(self.at) != Some(&b':') {
                        return None;
                    }
                    self.at += 1;
                    let value = self.value(depth + 1)?;
                    members.push(Member { key, key_start, value });
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, start: usize, depth: usize) -> Option<Node> {
        self.at += 1;
        loop {
            self.at = trivia_end(self.bytes, self.at);
            match self.bytes.get(self.at)? {
                b']' => {
                    self.at += 1;
                    return Some(Node { start, end: self.at, members: None });
                }
                b',' => self.at += 1,
                _ => {
                    self.value(depth + 1)?;
                }
            }
        }
    }
}
