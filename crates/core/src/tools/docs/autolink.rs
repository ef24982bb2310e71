//! `autolink_urls`: bare `http(s)://` addresses in inserted text become links, as Google Docs does
//! when a person types one.
//!
//! Works on the requests the converters produce: it finds URLs in the `insertText` and adds link
//! styles for those not already inside a link or code, before any `createParagraphBullets` (which
//! deletes leading tabs and so shifts later indexes) or `insertTable`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::docs_format::utf16::utf16_len;

static URL: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r#"https?://[^\s<>"'`]+"#).ok());

/// Adds a link style over every bare URL in the requests' inserted text.
pub(super) fn autolink(requests: &mut Vec<Value>) {
    // Requests from the first bullets or table on use shifted indexes (and a table's cell text is
    // not linked).
    let shifting = |r: &Value| r.get("createParagraphBullets").is_some() || r.get("insertTable").is_some();
    let before_bullets = requests.iter().position(shifting).unwrap_or(requests.len());
    let Some((at, text)) = inserted_text(&requests[..before_bullets]) else {
        return;
    };
    let linked = linked_ranges(&requests[..before_bullets]);
    let links: Vec<Value> = find_urls(&text)
        .into_iter()
        .map(|(start, end, url)| (at + start, at + end, url))
        .filter(|(start, end, _)| !linked.iter().any(|(s, e)| start < e && s < end))
        .map(|(start, end, url)| {
            json!({"updateTextStyle": {
                "range": {"startIndex": start, "endIndex": end},
                "textStyle": {"link": {"url": url}},
                "fields": "link",
            }})
        })
        .collect();
    requests.splice(before_bullets..before_bullets, links);
}

/// The first `insertText`'s index and text.
fn inserted_text(requests: &[Value]) -> Option<(u64, String)> {
    let insert = requests.iter().find_map(|r| r.get("insertText"))?;
    let at = insert.pointer("/location/index").and_then(Value::as_u64)?;
    Some((at, insert.get("text")?.as_str()?.to_owned()))
}

/// The ranges the requests already make links, or code (a monospace font).
fn linked_ranges(requests: &[Value]) -> Vec<(u64, u64)> {
    requests
        .iter()
        .filter_map(|r| r.get("updateTextStyle"))
        .filter(|style| {
            style.pointer("/textStyle/link").or_else(|| style.pointer("/textStyle/weightedFontFamily")).is_some()
        })
        .filter_map(|style| {
            let start = style.pointer("/range/startIndex").and_then(Value::as_u64)?;
            let end = style.pointer("/range/endIndex").and_then(Value::as_u64)?;
            Some((start, end))
        })
        .collect()
}

/// Each URL in `text` as UTF-16 `(start, end, url)`, without the punctuation that usually follows a
/// URL in prose (`see https://x.test/a.`) or an unbalanced closing bracket (`(https://x.test)`).
fn find_urls(text: &str) -> Vec<(u64, u64, String)> {
    let Some(url) = URL.as_ref() else {
        return Vec::new();
    };
    url.find_iter(text)
        .filter_map(|m| {
            let found = trim_trailing(m.as_str());
            // A scheme alone is no address.
            let rest = found.split_once("://").map_or("", |(_, rest)| rest);
            if rest.is_empty() {
                return None;
            }
            let start = utf16_len(&text[..m.start()]) as u64;
            Some((start, start + utf16_len(found) as u64, found.to_owned()))
        })
        .collect()
}

fn trim_trailing(mut url: &str) -> &str {
    loop {
        let Some(last) = url.chars().last() else {
            return url;
        };
        let unbalanced =
            |open: char, close: char| last == close && url.matches(open).count() < url.matches(close).count();
        if matches!(last, '.' | ',' | ';' | ':' | '!' | '?' | '*' | '_' | '~')
            || unbalanced('(', ')')
            || unbalanced('[', ']')
        {
            url = &url[..url.len() - last.len_utf8()];
        } else {
            return url;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_prose_lose_trailing_punctuation() {
        let found =
            find_urls("See https://x.test/a. Or (https://en.wikipedia.org/wiki/Rust_(language)), http://b.test/?q=1!");
        let urls: Vec<&str> = found.iter().map(|(_, _, u)| u.as_str()).collect();
        assert_eq!(urls, ["https://x.test/a", "https://en.wikipedia.org/wiki/Rust_(language)", "http://b.test/?q=1"]);
        assert_eq!((found[0].0, found[0].1), (4, 20));
        assert!(find_urls("just https:// alone").is_empty());
    }

    #[test]
    fn offsets_count_utf16_units() {
        let found = find_urls("😀 https://x.test");
        assert_eq!((found[0].0, found[0].1), (3, 17));
    }

    #[test]
    fn existing_links_are_kept_and_links_go_before_bullets() {
        let mut requests = vec![
            json!({"insertText": {"location": {"index": 1}, "text": "\thttps://a.test and https://b.test\n"}}),
            json!({"updateTextStyle": {"range": {"startIndex": 21, "endIndex": 35}, "textStyle": {"link": {"url": "https://b.test"}}, "fields": "link"}}),
            json!({"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 35}, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}}),
        ];
        autolink(&mut requests);
        assert_eq!(requests.len(), 4);
        assert_eq!(requests[2]["updateTextStyle"]["range"], json!({"startIndex": 2, "endIndex": 16}));
        assert_eq!(requests[2]["updateTextStyle"]["textStyle"]["link"]["url"], "https://a.test");
        assert!(requests[3].get("createParagraphBullets").is_some());
    }
}
