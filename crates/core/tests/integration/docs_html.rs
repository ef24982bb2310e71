//! `create_doc` with HTML content (the catalogue's default format) against the emulator: the document
//! the emulator holds afterwards (paragraph styles, text styles, bullets and their nesting), the same
//! document read back by `get_doc_as_markdown`, plain text sent with the default format, and broken HTML.

use crate::docs_common;
use crate::support;

use docs_common::{paragraphs, raw_doc, text_of};
use serde_json::{Value, json};
use support::Harness;

const HTML: &str = r#"<!DOCTYPE html>
<html><head><title>ignored</title><style>h1 { color: red }</style></head>
<body>
  <h1>Plan</h1>
  <p>Some <b>bold</b> and <em>italic</em> and <a href="https://example.com/a?x=1&amp;y=2">a link</a>.</p>
  <h2>Steps &amp; notes</h2>
  <ul>
    <li>first</li>
    <li>second
      <ul><li>nested</li></ul>
    </li>
  </ul>
  <ol><li>one</li><li>two</li></ol>
  <p>line one<br>line two</p>
  <script>document.write("<p>never</p>")</script>
</body></html>"#;

async fn create(h: &Harness, args: Value) -> String {
    let created = h.ok("create_doc", args).await;
    created["document_id"].as_str().unwrap().to_owned()
}

/// The text style of the run whose content is exactly `text`.
fn run_style(doc: &Value, text: &str) -> Value {
    paragraphs(doc)
        .iter()
        .flat_map(|p| p["paragraph"]["elements"].as_array().unwrap().clone())
        .find(|e| e["textRun"]["content"].as_str() == Some(text))
        .map(|e| e["textRun"]["textStyle"].clone())
        .unwrap_or_else(|| panic!("no run {text:?} in {doc}"))
}

#[tokio::test]
async fn html_becomes_real_docs_structure_and_reads_back_as_markdown() {
    let h = Harness::new().await;
    // No content_format: "html" is the default.
    let id = create(&h, json!({"title": "Plan", "content": HTML})).await;
    assert_eq!(
        h.google.world().docs.plain_text(&id).unwrap(),
        "Plan\nSome bold and italic and a link.\nSteps & notes\nfirst\nsecond\nnested\none\ntwo\nline one\u{b}line two\n"
    );

    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    let style = |i: usize| paras[i]["paragraph"]["paragraphStyle"]["namedStyleType"].as_str().unwrap_or("NORMAL_TEXT");
    let bullet = |i: usize| paras[i]["paragraph"]["bullet"].clone();
    assert_eq!((text_of(&paras[0]).as_str(), style(0)), ("Plan\n", "HEADING_1"));
    assert_eq!(style(1), "NORMAL_TEXT");
    assert_eq!((text_of(&paras[2]).as_str(), style(2)), ("Steps & notes\n", "HEADING_2"));
    // The bulleted items share a list and "nested" is one level in; the numbered items are another
    // list whose glyph is a number.
    assert_eq!(bullet(3)["listId"], bullet(4)["listId"]);
    assert_eq!(bullet(5)["listId"], bullet(3)["listId"]);
    assert_eq!(bullet(4)["nestingLevel"].as_u64().unwrap_or(0), 0);
    assert_eq!(bullet(5)["nestingLevel"], 1);
    assert_eq!(bullet(6)["listId"], bullet(7)["listId"]);
    assert_ne!(bullet(6)["listId"], bullet(3)["listId"]);
    let numbered = bullet(6)["listId"].as_str().unwrap().to_owned();
    let glyph = doc["lists"][&numbered]["listProperties"]["nestingLevels"][0]["glyphType"].as_str().unwrap();
    assert!(glyph.contains("DECIMAL"), "{glyph}");
    assert!(bullet(8).is_null(), "the last paragraph is not a list item");
    assert!(paras.iter().all(|p| !text_of(p).contains("never") && !text_of(p).contains("ignored")));

    assert_eq!(run_style(&doc, "bold")["bold"], true);
    assert_eq!(run_style(&doc, "italic")["italic"], true);
    assert_eq!(run_style(&doc, "a link")["link"]["url"], "https://example.com/a?x=1&y=2");

    let markdown = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert_eq!(
        markdown["markdown"].as_str().unwrap(),
        "# Plan\n\nSome **bold** and _italic_ and [a link](https://example.com/a?x=1&y=2).\n\n## Steps & notes\n\n\
         - first\n- second\n  - nested\n\n1. one\n2. two\n\nline one\\\nline two\n"
    );
}

#[tokio::test]
async fn tables_code_and_strikethrough() {
    let h = Harness::new().await;
    let html = "<p>Stock:</p><table><tr><th>Item</th><th>Qty</th></tr><tr><td><i>apple</i></td><td>3</td></tr></table>\
                <pre>let x = 1;\n  x &lt; 2</pre><p><del>old</del> and <code>new()</code> <u>under</u></p>";
    let id = create(&h, json!({"title": "Stock", "content": html, "content_format": "html"})).await;
    let doc = raw_doc(&h, &id).await;
    let content = doc["body"]["content"].as_array().unwrap();
    let table = content.iter().find_map(|e| e.get("table")).unwrap_or_else(|| panic!("no table in {doc}"));
    assert_eq!((table["rows"].as_u64(), table["columns"].as_u64()), (Some(2), Some(2)));
    let cell = |r: usize, c: usize| -> String {
        table["tableRows"][r]["tableCells"][c]["content"].as_array().unwrap().iter().map(text_of).collect()
    };
    assert_eq!([cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1)], ["Item\n", "Qty\n", "apple\n", "3\n"]);
    assert_eq!(run_style(&doc, "old")["strikethrough"], true);
    assert_eq!(run_style(&doc, "under")["underline"], true);

    let markdown = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert_eq!(
        markdown["markdown"].as_str().unwrap(),
        "Stock:\n\n| Item | Qty |\n| --- | --- |\n| _apple_ | 3 |\n\n```\nlet x = 1;\n  x < 2\n```\n\n~~old~~ and `new()` under\n"
    );
}

#[tokio::test]
async fn plain_text_with_the_default_format_keeps_its_lines() {
    let h = Harness::new().await;
    let text = "Dear team,\nthe report is ready: https://example.org/r\n\n  Bob & <Alice>\n";
    let id = create(&h, json!({"title": "Note", "content": text})).await;
    assert_eq!(
        h.google.world().docs.plain_text(&id).unwrap(),
        "Dear team,\nthe report is ready: https://example.org/r\n\n  Bob & <Alice>\n"
    );
    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    assert!(paras.iter().all(|p| p["paragraph"].get("bullet").is_none()));
    assert!(
        paras.iter().all(|p| p["paragraph"]["paragraphStyle"]["namedStyleType"].as_str() == Some("NORMAL_TEXT")),
        "{doc}"
    );
    // autolink_urls still applies.
    assert_eq!(run_style(&doc, "https://example.org/r")["link"]["url"], "https://example.org/r");
}

#[tokio::test]
async fn broken_html_still_makes_a_document() {
    let h = Harness::new().await;
    let html = "<h2>Unclosed <b>heading<p>body <i>text</b> goes</span> on<li>item<ol><li>deep</ul></div>";
    let id = create(&h, json!({"title": "Broken", "content": html, "content_format": "HTML"})).await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Unclosed heading\nbody text goes on\nitem\ndeep\n");
    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    let style = |i: usize| paras[i]["paragraph"]["paragraphStyle"]["namedStyleType"].clone();
    // As in a browser, `<p>` does not end the open heading.
    assert_eq!(style(0), "HEADING_2");
    assert_eq!(style(1), "HEADING_2");
    assert_eq!(run_style(&doc, "heading")["bold"], true);
    // "item" is a bullet though no list was opened; "deep" is in a numbered list of its own.
    let bullet = |i: usize| paras[i]["paragraph"]["bullet"].clone();
    assert!(bullet(2)["listId"].is_string() && bullet(3)["listId"].is_string(), "{doc}");
    assert_ne!(bullet(2)["listId"], bullet(3)["listId"]);

    // Nothing but hidden content: an empty document, created with no batchUpdate after it.
    let before = h.google.world().count_requests("/v1/documents");
    let id = create(&h, json!({"title": "Hidden", "content": "<script>alert(1)</script><p></p>"})).await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "\n");
    assert_eq!(h.google.world().count_requests("/v1/documents"), before + 1);
}

#[tokio::test]
async fn an_unknown_format_is_refused_before_anything_is_created() {
    let h = Harness::new().await;
    let message = h.err("create_doc", json!({"title": "Web", "content": "{\\rtf1}", "content_format": "rtf"})).await;
    assert!(
        message.contains("content_format \"rtf\"") && message.contains("\"html\", \"markdown\" or \"text\""),
        "{message}"
    );
    assert_eq!(h.google.world().count_requests("/v1/documents"), 0);
}
