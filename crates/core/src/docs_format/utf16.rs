//! Google Docs indexes count UTF-16 code units, Rust strings count bytes; these convert between them.
//!
//! An emoji such as 😀 is 4 bytes, 1 `char` and 2 Docs index units, so mixing the three silently
//! styles or deletes the wrong text. Every index handed to or read from the Docs API goes through here.

use regex::RegexBuilder;

/// Why an offset or a search could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Utf16Error {
    #[error(
        "index {index} is past the end of the text, which is {len} long (counted in UTF-16 units, as Google Docs counts)"
    )]
    PastEnd { index: usize, len: usize },
    #[error(
        "index {index} falls inside the character `{character}`, which Google Docs counts as 2 units: use {before} or {after}"
    )]
    InsideCharacter { index: usize, character: char, before: usize, after: usize },
    #[error("byte offset {offset} falls inside a character")]
    NotCharBoundary { offset: usize },
    #[error("the text to find is empty: give at least one character to search for")]
    EmptyNeedle,
    #[error("`{pattern}` is not a regular expression this search understands: {reason}")]
    BadRegex { pattern: String, reason: String },
}

/// The length of `text` in Docs index units.
pub fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Converts a byte offset in `text` to a Docs (UTF-16) offset.
pub fn byte_to_utf16(text: &str, byte_offset: usize) -> Result<usize, Utf16Error> {
    match text.get(..byte_offset) {
        Some(prefix) => Ok(utf16_len(prefix)),
        None if byte_offset > text.len() => Err(Utf16Error::PastEnd { index: byte_offset, len: text.len() }),
        None => Err(Utf16Error::NotCharBoundary { offset: byte_offset }),
    }
}

/// Converts a Docs (UTF-16) offset in `text` to a byte offset, refusing one that splits a character.
pub fn utf16_to_byte(text: &str, utf16_offset: usize) -> Result<usize, Utf16Error> {
    let mut units = 0;
    for (byte, c) in text.char_indices() {
        if units == utf16_offset {
            return Ok(byte);
        }
        let width = c.len_utf16();
        if utf16_offset < units + width {
            return Err(Utf16Error::InsideCharacter {
                index: utf16_offset,
                character: c,
                before: units,
                after: units + width,
            });
        }
        units += width;
    }
    if units == utf16_offset { Ok(text.len()) } else { Err(Utf16Error::PastEnd { index: utf16_offset, len: units }) }
}

/// Finds every non-overlapping match of `needle` in `haystack`, left to right, as UTF-16
/// `(start, end)` offsets relative to the start of `haystack` (add the text's Docs start index).
///
/// With `regex` the needle is a regular expression (Rust `regex` syntax, linear-time, so a hostile
/// pattern cannot hang the server); matches of zero length are skipped. Case-insensitive matching
/// folds Unicode case.
pub fn find_all(
    haystack: &str,
    needle: &str,
    case_sensitive: bool,
    regex: bool,
) -> Result<Vec<(usize, usize)>, Utf16Error> {
    if needle.is_empty() {
        return Err(Utf16Error::EmptyNeedle);
    }
    let pattern = if regex { needle.to_string() } else { regex::escape(needle) };
    let matcher =
        RegexBuilder::new(&pattern).case_insensitive(!case_sensitive).size_limit(1 << 20).build().map_err(|err| {
            Utf16Error::BadRegex { pattern: needle.to_string(), reason: first_line(&err.to_string()) }
        })?;
    // Matches come in increasing order, so one walk converts all offsets.
    let mut found = Vec::new();
    let (mut byte, mut units) = (0, 0);
    for m in matcher.find_iter(haystack).filter(|m| !m.is_empty()) {
        units += utf16_len(&haystack[byte..m.start()]);
        let start = units;
        units += utf16_len(m.as_str());
        byte = m.end();
        found.push((start, units));
    }
    Ok(found)
}

/// The regex crate's messages span several lines with a caret diagram; the last line says why.
fn first_line(message: &str) -> String {
    message
        .lines()
        .rev()
        .find(|line| line.trim_start().starts_with("error:"))
        .map(|line| line.trim_start().trim_start_matches("error:").trim().to_string())
        .unwrap_or_else(|| message.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_like_google_docs() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀b"), 4);
    }

    #[test]
    fn converts_offsets_both_ways() {
        let text = "a😀é\nb";
        // bytes: a=0, 😀=1..5, é=5..7, \n=7, b=8
        assert_eq!(byte_to_utf16(text, 0).unwrap(), 0);
        assert_eq!(byte_to_utf16(text, 1).unwrap(), 1);
        assert_eq!(byte_to_utf16(text, 5).unwrap(), 3);
        assert_eq!(byte_to_utf16(text, 7).unwrap(), 4);
        assert_eq!(byte_to_utf16(text, 9).unwrap(), 6);
        assert!(matches!(byte_to_utf16(text, 2), Err(Utf16Error::NotCharBoundary { offset: 2 })));
        assert!(matches!(byte_to_utf16(text, 10), Err(Utf16Error::PastEnd { .. })));
        assert_eq!(utf16_to_byte(text, 0).unwrap(), 0);
        assert_eq!(utf16_to_byte(text, 3).unwrap(), 5);
        assert_eq!(utf16_to_byte(text, 6).unwrap(), 9);
        let err = utf16_to_byte(text, 2).unwrap_err();
        assert_eq!(err, Utf16Error::InsideCharacter { index: 2, character: '😀', before: 1, after: 3 });
        assert!(err.to_string().contains("use 1 or 3"), "{err}");
        assert!(matches!(utf16_to_byte(text, 7), Err(Utf16Error::PastEnd { index: 7, len: 6 })));
    }

    #[test]
    fn finds_plain_text() {
        assert_eq!(find_all("a😀b a😀b", "b", true, false).unwrap(), vec![(3, 4), (8, 9)]);
        assert_eq!(find_all("aaaa", "aa", true, false).unwrap(), vec![(0, 2), (2, 4)]);
        assert_eq!(find_all("Cost (USD) cost", "cost", true, false).unwrap(), vec![(11, 15)]);
        assert_eq!(find_all("Cost (USD) cost", "COST", false, false).unwrap(), vec![(0, 4), (11, 15)]);
        assert_eq!(find_all("price $5.00 (x)", "$5.00 (", true, false).unwrap(), vec![(6, 13)]);
        assert_eq!(find_all("ÉCOLE école", "école", false, false).unwrap(), vec![(0, 5), (6, 11)]);
        assert!(find_all("abc", "z", true, false).unwrap().is_empty());
        assert_eq!(find_all("abc", "", true, false), Err(Utf16Error::EmptyNeedle));
    }

    #[test]
    fn finds_regular_expressions() {
        assert_eq!(find_all("😀 id-12, id-345", r"id-\d+", true, true).unwrap(), vec![(3, 8), (10, 16)]);
        assert_eq!(find_all("Foo foo", "^foo", false, true).unwrap(), vec![(0, 3)]);
        // Zero-length matches are skipped rather than reported as empty ranges.
        assert_eq!(find_all("ab", "x*", true, true).unwrap(), Vec::<(usize, usize)>::new());
        let err = find_all("ab", "(unclosed", true, true).unwrap_err();
        assert!(matches!(err, Utf16Error::BadRegex { .. }));
        assert!(!err.to_string().contains('\n'), "{err}");
    }

    proptest! {
        #[test]
        fn offsets_round_trip(text in any::<String>()) {
            for (byte, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let units = byte_to_utf16(&text, byte).unwrap();
                prop_assert_eq!(utf16_to_byte(&text, units).unwrap(), byte);
            }
        }

        #[test]
        fn found_ranges_hold_the_needle(prefix in ".{0,8}", needle in "[a😀é]{1,3}", suffix in ".{0,8}") {
            let haystack = format!("{prefix}{needle}{suffix}");
            let found = find_all(&haystack, &needle, true, false).unwrap();
            prop_assert!(!found.is_empty());
            let units: Vec<u16> = haystack.encode_utf16().collect();
            let want: Vec<u16> = needle.encode_utf16().collect();
            for (start, end) in found {
                prop_assert_eq!(&units[start..end], &want[..]);
            }
        }

        #[test]
        fn find_never_panics(haystack in any::<String>(), needle in any::<String>(), case in any::<bool>(), re in any::<bool>()) {
            let _ = find_all(&haystack, &needle, case, re);
        }
    }
}
