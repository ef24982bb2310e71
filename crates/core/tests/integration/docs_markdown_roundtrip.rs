//! Markdown → Docs → Markdown through the real tools against the emulator: `create_doc` with
//! `content_format` "markdown", then `get_doc_as_markdown` gives the same Markdown back (in its
//! canonical spelling), and the emulator's own document holds the real structure for each construct:
//! heading styles, text styles, links, bullets with nesting levels, tables, monospace code.

use crate::docs_common;
use crate::support;

use docs_common::{paragraphs, raw_doc, text_of};
use serde_json::{Value, json};
use support::Harness;

/// Creates a document from `md`, checks it reads back as `md`, and returns the emulator's document.
async fn round_trip(h: &Harness, md: &str) -> Value {
    let created = h.ok("create_doc", json!({"title": "Round trip", "content": md, "content_format": "markdown"})).await;
    let id = created["document_id"].as_str().unwrap().to_owned();
    let read = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert_eq!(read["markdown"].as_str().unwrap(), md, "read back differs");
    raw_doc(h, &id).await
}

/// The paragraph whose text (without its newline) is `text`.
fn paragraph(doc: &Value, text: &str) -> Value {
    paragraphs(doc)
        .into_iter()
        .find(|p| text_of(p).trim_end_matches('\n') == text)
        .unwrap_or_else(|| panic!("no paragraph {text:?} in {doc}"))
}

/// The text style of the run whose content is exactly `text`, anywhere (table cells too).
fn run_style(doc: &Value, text: &str) -> Value {
    fn find(content: &Value, text: &str) -> Option<Value> {
        content.as_array()?.iter().find_map(|element| {
            if let Some(table) = element.get("table") {
                let cells = table["tableRows"].as_array()?.iter().flat_map(|r| r["tableCells"].as_array().unwrap());
                return cells.into_iter().find_map(|cell| find(&cell["content"], text));
            }
            let runs = element.pointer("/paragraph/elements")?.as_array()?;
            runs.iter().find(|r| r["textRun"]["content"] == text).map(|r| r["textRun"]["textStyle"].clone())
        })
    }
    find(&doc["body"]["content"], text).unwrap_or_else(|| panic!("no run {text:?} in {doc}"))
}

fn font(style: &Value) -> Option<&str> {
    style.pointer("/weightedFontFamily/fontFamily").and_then(Value::as_str)
}

/// Each body element's kind: "table", or the paragraph's text.
fn outline(doc: &Value) -> Vec<String> {
    let content = doc["body"]["content"].as_array().unwrap();
    content
        .iter()
        .filter_map(|e| match (e.get("paragraph"), e.get("table")) {
            (Some(_), _) => Some(text_of(e).trim_end_matches('\n').to_owned()),
            (_, Some(_)) => Some("<table>".to_owned()),
            _ => None,
        })
        .collect()
}

fn bullet(doc: &Value, text: &str) -> Value {
    paragraph(doc, text)["paragraph"]["bullet"].clone()
}

/// Whether the list of the item `text` numbers its level.
fn numbered(doc: &Value, text: &str) -> bool {
    let bullet = bullet(doc, text);
    let level = bullet["nestingLevel"].as_u64().unwrap_or(0) as usize;
    let list = &doc["lists"][bullet["listId"].as_str().unwrap()];
    list["listProperties"]["nestingLevels"][level].get("glyphType").is_some()
}

#[tokio::test]
async fn headings_of_every_level() {
    let h = Harness::new().await;
    let md = "# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\nBody text\n";
    let doc = round_trip(&h, md).await;
    for (level, text) in ["One", "Two", "Three", "Four", "Five", "Six"].into_iter().enumerate() {
        let style = &paragraph(&doc, text)["paragraph"]["paragraphStyle"];
        assert_eq!(style["namedStyleType"], format!("HEADING_{}", level + 1), "{text}");
    }
    assert_eq!(paragraph(&doc, "Body text")["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
}

#[tokio::test]
async fn emphasis_bold_italic_both_and_strikethrough() {
    let h = Harness::new().await;
    let md = "Plain **bold** and _italic_ and **_both_** and ~~struck~~ and **~~bold struck~~** end\n";
    let doc = round_trip(&h, md).await;
    let bold = run_style(&doc, "bold");
    assert_eq!((bold["bold"].as_bool(), bold.get("italic")), (Some(true), None));
    assert_eq!(run_style(&doc, "italic")["italic"], true);
    let both = run_style(&doc, "both");
    assert_eq!((both["bold"].as_bool(), both["italic"].as_bool()), (Some(true), Some(true)));
    let struck = run_style(&doc, "struck");
    assert_eq!((struck["strikethrough"].as_bool(), struck.get("bold")), (Some(true), None));
    let bold_struck = run_style(&doc, "bold struck");
    assert_eq!((bold_struck["bold"].as_bool(), bold_struck["strikethrough"].as_bool()), (Some(true), Some(true)));
    assert_eq!(run_style(&doc, " end\n").as_object().map(|m| m.len()), Some(0));
}

#[tokio::test]
async fn links_keep_their_text_url_and_styles() {
    let h = Harness::new().await;
    let md = "See [the docs](https://example.com/docs?a=1&b=2) and [**bold link**](https://example.com/b_(c)).\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(run_style(&doc, "the docs")["link"]["url"], "https://example.com/docs?a=1&b=2");
    let bold_link = run_style(&doc, "bold link");
    assert_eq!(bold_link["link"]["url"], "https://example.com/b_(c)");
    assert_eq!(bold_link["bold"], true);
    assert!(run_style(&doc, " and ").get("link").is_none());
}

#[tokio::test]
async fn bulleted_lists_nest_three_levels() {
    let h = Harness::new().await;
    let md = "- one\n  - two\n    - three\n  - two again\n- one again\n";
    let doc = round_trip(&h, md).await;
    let levels: Vec<u64> = ["one", "two", "three", "two again", "one again"]
        .iter()
        .map(|t| bullet(&doc, t)["nestingLevel"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(levels, [0, 1, 2, 1, 0]);
    assert_eq!(bullet(&doc, "one")["listId"], bullet(&doc, "three")["listId"]);
    assert!(!numbered(&doc, "one") && !numbered(&doc, "three"));
    // The list's tabs are nesting, not text.
    assert_eq!(text_of(&paragraph(&doc, "three")), "three\n");
}

#[tokio::test]
async fn numbered_lists_nest_three_levels_and_keep_counting() {
    let h = Harness::new().await;
    let md = "1. first\n   1. inner\n      1. deepest\n      2. deeper\n   2. inner two\n2. second\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(bullet(&doc, "deepest")["nestingLevel"], 2);
    assert_eq!(bullet(&doc, "inner two")["nestingLevel"], 1);
    assert!(bullet(&doc, "second").get("nestingLevel").is_none());
    assert_eq!(bullet(&doc, "first")["listId"], bullet(&doc, "second")["listId"]);
    assert!(["first", "inner", "deepest", "second"].iter().all(|t| numbered(&doc, t)));
}

#[tokio::test]
async fn mixed_lists_keep_each_levels_kind() {
    let h = Harness::new().await;
    let md = "- bullet\n  1. numbered inside\n  2. numbered again\n     - bullet in numbers\n- bullet two\n\n1. top number\n   - sub bullet\n2. top two\n";
    let doc = round_trip(&h, md).await;
    assert!(!numbered(&doc, "bullet") && !numbered(&doc, "bullet two"));
    assert!(numbered(&doc, "numbered inside") && numbered(&doc, "numbered again"));
    assert!(!numbered(&doc, "bullet in numbers"));
    assert_eq!(bullet(&doc, "numbered inside")["nestingLevel"], 1);
    assert_eq!(bullet(&doc, "bullet in numbers")["nestingLevel"], 2);
    assert!(numbered(&doc, "top number") && numbered(&doc, "top two") && !numbered(&doc, "sub bullet"));
    // "top two" continues the numbering of "top number" (the same list) after the bullet inside.
    assert_eq!(bullet(&doc, "top number")["listId"], bullet(&doc, "top two")["listId"]);
    assert_ne!(bullet(&doc, "bullet")["listId"], bullet(&doc, "top number")["listId"]);
}

#[tokio::test]
async fn tables_become_docs_tables_with_a_bold_header() {
    let h = Harness::new().await;
    let md = "Before the table\n\n| Name | Role | Notes |\n| --- | --- | --- |\n| Ada | **Lead** | [site](https://ada.test) |\n| Bob | _design_ `x = 1` |  |\n\nAfter the table\n";
    let doc = round_trip(&h, md).await;
    // The table sits between the two paragraphs, with no empty paragraph around it.
    assert_eq!(outline(&doc), ["Before the table", "<table>", "After the table"]);
    let table = doc["body"]["content"].as_array().unwrap().iter().find_map(|e| e.get("table")).unwrap().clone();
    assert_eq!((table["rows"].as_u64(), table["columns"].as_u64()), (Some(3), Some(3)));
    let cell = |r: usize, c: usize| {
        let cell = &table["tableRows"][r]["tableCells"][c];
        cell["content"].as_array().unwrap().iter().map(text_of).collect::<String>()
    };
    let grid: Vec<Vec<String>> = (0..3).map(|r| (0..3).map(|c| cell(r, c)).collect()).collect();
    assert_eq!(
        grid,
        [["Name\n", "Role\n", "Notes\n"], ["Ada\n", "Lead\n", "site\n"], ["Bob\n", "design x = 1\n", "\n"]]
    );
    for header in ["Name", "Role", "Notes"] {
        assert_eq!(run_style(&doc, header)["bold"], true, "{header}");
    }
    // The cell's own newline shares the text's (empty) style: one run.
    assert!(run_style(&doc, "Ada\n").get("bold").is_none());
    assert_eq!(run_style(&doc, "Lead")["bold"], true);
    assert_eq!(run_style(&doc, "site")["link"]["url"], "https://ada.test");
    assert_eq!(run_style(&doc, "design")["italic"], true);
    assert_eq!(font(&run_style(&doc, "x = 1")), Some("Roboto Mono"));
}

#[tokio::test]
async fn tables_at_the_edges_and_side_by_side() {
    let h = Harness::new().await;
    let md = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| c |\n| --- |\n| 3 |\n\n- item\n\n| d |\n| --- |\n";
    let doc = round_trip(&h, md).await;
    // Docs puts a paragraph before a table at the start and after one at the end, and between two.
    assert_eq!(outline(&doc), ["", "<table>", "", "<table>", "item", "<table>", ""]);
    assert!(bullet(&doc, "item").get("listId").is_some());
    let last = paragraphs(&doc).last().cloned().unwrap();
    assert!(last["paragraph"].get("bullet").is_none());
}

#[tokio::test]
async fn inline_code_is_monospace_and_literal() {
    let h = Harness::new().await;
    let md = "Run `cargo test` then `*not bold*` and `[not](a link)` or ``a`b`` and `https://x.test/a`\n";
    let doc = round_trip(&h, md).await;
    for code in ["cargo test", "*not bold*", "[not](a link)", "a`b", "https://x.test/a"] {
        let style = run_style(&doc, code);
        assert_eq!(font(&style), Some("Roboto Mono"), "{code}");
        assert!(style.get("bold").is_none() && style.get("link").is_none(), "{code}: {style}");
    }
    assert_eq!(font(&run_style(&doc, " then ")), None);
}

#[tokio::test]
async fn fenced_code_blocks_are_shaded_monospace_lines() {
    let h = Harness::new().await;
    let md = "Intro\n\n```\nfn main() {\n    println!(\"# not a heading\");\n\n    let x = *y* + [a](b);\n}\n- not a list\n| not | a table |\n|---|---|\n```\n\nAfter\n";
    let doc = round_trip(&h, md).await;
    let lines = [
        "fn main() {",
        "    println!(\"# not a heading\");",
        "",
        "    let x = *y* + [a](b);",
        "}",
        "- not a list",
        "| not | a table |",
        "|---|---|",
    ];
    let mut want = vec!["Intro"];
    want.extend(lines);
    want.push("After");
    assert_eq!(outline(&doc), want);
    let body = paragraphs(&doc);
    for (i, line) in lines.iter().enumerate() {
        let p = &body[i + 1]["paragraph"];
        assert!(p.get("bullet").is_none(), "{line}");
        assert_eq!(p["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
        assert!(p.pointer("/paragraphStyle/shading/backgroundColor/color/rgbColor").is_some(), "{line}");
        if !line.is_empty() {
            let run = &p["elements"][0]["textRun"];
            assert_eq!(run["content"], *line, "{line}: one run for the whole line");
            assert_eq!(font(&run["textStyle"]), Some("Roboto Mono"), "{line}");
        }
    }
    assert!(paragraph(&doc, "After")["paragraph"]["paragraphStyle"].get("shading").is_none());
}

#[tokio::test]
async fn fences_longer_than_the_code_inside() {
    let h = Harness::new().await;
    let md = "````\n```\nnested fence\n```\n````\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(outline(&doc), ["```", "nested fence", "```"]);
}

#[tokio::test]
async fn a_document_of_every_construct() {
    let h = Harness::new().await;
    let md = "# Report\n\nIntro with **bold**, _italic_, ~~old~~, `code` and a [link](https://example.com).\n\n## Tasks\n\n- design\n  1. sketch\n  2. review\n- build\n\n| Task | Owner |\n| --- | --- |\n| design | **Ada** |\n\n```\nlet done = true;\n```\n\n### End\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(
        outline(&doc),
        [
            "Report",
            "Intro with bold, italic, old, code and a link.",
            "Tasks",
            "design",
            "sketch",
            "review",
            "build",
            "<table>",
            "let done = true;",
            "End"
        ]
    );
}

#[tokio::test]
async fn other_spellings_come_back_canonical() {
    let h = Harness::new().await;
    let md = "Title\n=====\n\n* a\n    * b\n\n|x|y|\n|:-|-:|\n|1|\n\n~~~rust\ncode\n~~~\n";
    let created = h.ok("create_doc", json!({"title": "T", "content": md, "content_format": "markdown"})).await;
    let read = h.ok("get_doc_as_markdown", json!({"doc_id": created["document_id"]})).await;
    assert_eq!(read["markdown"], "# Title\n\n- a\n  - b\n\n| x | y |\n| --- | --- |\n| 1 |  |\n\n```\ncode\n```\n");
}

/// Markdown assembled from awkward pieces (tables next to lists, code and headings, pipes and
/// backticks in text, empty cells): the emulator accepts every request (it checks each index), and
/// what reads back reads back the same again.
#[tokio::test]
async fn generated_documents_are_accepted_and_read_back_stably() {
    const PIECES: [&str; 16] = [
        "| a | **b** |\n| --- | --- |\n| `c\\|d` |  |",
        "| one |\n|:-:|",
        "- item\n  1. sub\n     - deep",
        "1. first\n2. second",
        "## Heading `code`",
        "```\n| x |\n- y\n```",
        "Text with | a pipe and `tick` and ~~gone~~",
        "| not | a table |",
        "> quoted **bold**",
        "Link [t](https://x.test/a) and https://x.test/bare",
        "",
        "***",
        "😀 | emoji | row |\n|---|---|---|",
        "- a\n\n| t |\n| - |",
        "```\n\n```",
        "Setext\n---",
    ];
    let h = Harness::new().await;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for case in 0..24 {
        let mut parts = Vec::new();
        for _ in 0..1 + case % 5 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            parts.push(PIECES[(seed >> 33) as usize % PIECES.len()]);
        }
        let md = parts.join("\n\n");
        let (created, is_error) =
            h.call("create_doc", json!({"title": "Generated", "content": md, "content_format": "markdown"})).await;
        assert!(!is_error, "create_doc refused {md:?}: {created}");
        let first = h.ok("get_doc_as_markdown", json!({"doc_id": created["document_id"]})).await;
        let first = first["markdown"].as_str().unwrap().to_owned();
        if first.is_empty() {
            continue;
        }
        let again = round_trip(&h, &first).await;
        assert!(again["body"]["content"].as_array().is_some_and(|c| c.len() > 1), "{md:?}");
    }
}

#[tokio::test]
async fn a_lone_table_and_urls_in_cells() {
    let h = Harness::new().await;
    let md = "| https://x.test/in-a-cell |\n| --- |\n| `https://x.test/code` |\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(outline(&doc), ["", "<table>", ""]);
    // Bare addresses in cells stay text (autolink_urls covers the body text), code stays code.
    assert!(run_style(&doc, "https://x.test/in-a-cell").get("link").is_none());
    assert_eq!(font(&run_style(&doc, "https://x.test/code")), Some("Roboto Mono"));
}

#[tokio::test]
async fn two_tables_at_the_end_have_one_paragraph_between() {
    let h = Harness::new().await;
    let md = "Intro\n\n| a |\n| --- |\n\n| b |\n| --- |\n";
    let doc = round_trip(&h, md).await;
    assert_eq!(outline(&doc), ["Intro", "<table>", "", "<table>", ""]);
}

#[tokio::test]
async fn a_table_wider_than_docs_allows_stays_text() {
    let h = Harness::new().await;
    let header: String = (1..=21).map(|c| format!("| c{c} ")).collect::<String>() + "|";
    let md = format!("{header}\n{}|\n", "| --- ".repeat(21));
    let created = h.ok("create_doc", json!({"title": "Wide", "content": md, "content_format": "markdown"})).await;
    let id = created["document_id"].as_str().unwrap();
    let doc = raw_doc(&h, id).await;
    // Docs tables have at most 20 columns: the header row is kept as a line of text.
    assert_eq!(outline(&doc), [header.trim()]);
    let read = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert_eq!(read["markdown"], format!("\\{header}\n"));
}
