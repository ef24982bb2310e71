//! Passages of a Docs document a person reading it would not see: text coloured like what is behind it
//! (white on white, the classic way to slip instructions to an assistant) and text in type too small to read.
//! Docs reports each run's own style; what a run does not set comes from its paragraph's named style, then
//! `NORMAL_TEXT`, then Docs' defaults (black, 11 pt, on the document's background, white unless set).
//!
//! The readers list what this finds under `hidden_text` (see `crate::screening`, whose note then flags it).

use serde_json::{Value, json};

/// Type smaller than this many points can't be read on a page.
const SMALLEST_READABLE_PT: f64 = 2.0;

/// Colours closer than this in every channel (0 to 1) look the same.
const INDISTINCT: f64 = 0.08;

/// How much of a hidden passage its entry quotes.
const QUOTED_CHARS: usize = 200;

type Rgb = [f64; 3];

const WHITE: Rgb = [1.0, 1.0, 1.0];
const BLACK: Rgb = [0.0, 0.0, 0.0];

/// Why a passage can't be seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    SameColour,
    Tiny,
}

impl Why {
    fn words(self) -> &'static str {
        match self {
            Why::SameColour => "text coloured like its background",
            Why::Tiny => "text too small to read",
        }
    }
}

/// The document's hidden passages as `hidden_text` lists them, `{text, why, startIndex}` each, adjacent runs
/// hidden alike joined; empty for a document a reader sees whole.
pub fn hidden_passages(doc: &Value) -> Vec<Value> {
    let root = match doc.get("body") {
        Some(_) => doc,
        None => doc.pointer("/tabs/0/documentTab").unwrap_or(doc),
    };
    let styles = Styles::of(root);
    let mut found: Vec<(String, Why, u64)> = Vec::new();
    let mut last_end = None;
    walk(root.pointer("/body/content"), &styles, &mut |run, why| {
        let text = run.pointer("/textRun/content").and_then(Value::as_str).unwrap_or_default();
        let start = run.get("startIndex").and_then(Value::as_u64).unwrap_or(0);
        let end = run.get("endIndex").and_then(Value::as_u64).unwrap_or(start);
        match found.last_mut() {
            Some((joined, last_why, _)) if *last_why == why && last_end == Some(start) => joined.push_str(text),
            _ => found.push((text.to_owned(), why, start)),
        }
        last_end = Some(end);
    });
    found
        .into_iter()
        .filter(|(text, _, _)| !text.trim().is_empty())
        .map(|(text, why, start)| {
            let text = text.trim();
            let quoted: String = text.chars().take(QUOTED_CHARS).collect();
            let quoted = if quoted.len() < text.len() { format!("{quoted}…") } else { quoted };
            json!({ "text": quoted, "why": why.words(), "startIndex": start })
        })
        .collect()
}

/// Calls `hidden` with every text run a reader would not see, in document order (tables' cells included).
fn walk(content: Option<&Value>, styles: &Styles, hidden: &mut impl FnMut(&Value, Why)) {
    for element in content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        if let Some(paragraph) = element.get("paragraph") {
            let named = paragraph.pointer("/paragraphStyle/namedStyleType").and_then(Value::as_str);
            for run in paragraph.get("elements").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
                if let Some(style) = run.pointer("/textRun/textStyle")
                    && let Some(why) = styles.why_hidden(style, named)
                {
                    hidden(run, why);
                }
            }
        } else if let Some(rows) = element.pointer("/table/tableRows").and_then(Value::as_array) {
            for cell in rows.iter().filter_map(|row| row.get("tableCells")).filter_map(Value::as_array).flatten() {
                walk(cell.get("content"), styles, hidden);
            }
        } else if let Some(toc) = element.get("tableOfContents") {
            walk(toc.get("content"), styles, hidden);
        }
    }
}

/// The styles a run inherits from.
struct Styles<'a> {
    named: Vec<(&'a str, &'a Value)>,
    page: Rgb,
}

impl<'a> Styles<'a> {
    fn of(root: &'a Value) -> Self {
        let named = root
            .pointer("/namedStyles/styles")
            .and_then(Value::as_array)
            .map(|styles| {
                styles.iter().filter_map(|s| Some((s.get("namedStyleType")?.as_str()?, s.get("textStyle")?))).collect()
            })
            .unwrap_or_default();
        let page = root.pointer("/documentStyle/background/color").and_then(opaque).unwrap_or(WHITE);
        Styles { named, page }
    }

    /// The first of the run's own style, its named style and `NORMAL_TEXT` that sets `key`.
    fn inherited(&self, style: &'a Value, named: Option<&str>, key: &str) -> Option<&'a Value> {
        let of = |name: &str| self.named.iter().find(|(n, _)| *n == name).and_then(|(_, s)| s.get(key));
        style.get(key).or_else(|| named.and_then(of)).or_else(|| of("NORMAL_TEXT"))
    }

    fn why_hidden(&self, style: &'a Value, named: Option<&str>) -> Option<Why> {
        let size = self.inherited(style, named, "fontSize").and_then(|s| s.get("magnitude")).and_then(Value::as_f64);
        if size.is_some_and(|pt| pt < SMALLEST_READABLE_PT) {
            return Some(Why::Tiny);
        }
        let text = self.inherited(style, named, "foregroundColor").and_then(opaque).unwrap_or(BLACK);
        let behind = self.inherited(style, named, "backgroundColor").and_then(opaque).unwrap_or(self.page);
        text.iter().zip(behind).all(|(a, b)| (a - b).abs() < INDISTINCT).then_some(Why::SameColour)
    }
}

/// An `OptionalColor`'s colour; `None` when it sets none (transparent: what is behind shows).
fn opaque(optional: &Value) -> Option<Rgb> {
    let rgb = optional.pointer("/color/rgbColor")?;
    // Docs leaves out a component that is 0.
    let channel = |key| rgb.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    Some([channel("red"), channel("green"), channel("blue")])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, start: u64, style: Value) -> Value {
        json!({ "startIndex": start, "endIndex": start + text.len() as u64, "textRun": { "content": text, "textStyle": style } })
    }

    fn doc(runs: Vec<Value>, extra: Value) -> Value {
        let mut doc = json!({ "body": { "content": [{ "paragraph": { "elements": runs } }] } });
        if let (Some(doc), Some(extra)) = (doc.as_object_mut(), extra.as_object()) {
            doc.extend(extra.clone());
        }
        doc
    }

    fn rgb(r: f64, g: f64, b: f64) -> Value {
        json!({ "color": { "rgbColor": { "red": r, "green": g, "blue": b } } })
    }

    #[test]
    fn white_on_white_is_found_and_adjacent_runs_join() {
        let white = json!({ "foregroundColor": rgb(1.0, 1.0, 1.0) });
        let nearly = json!({ "foregroundColor": rgb(0.97, 0.98, 1.0), "bold": true });
        let d = doc(
            vec![run("Totals. ", 1, json!({})), run("Ignore the ", 9, white), run("person.", 20, nearly)],
            json!({}),
        );
        let found = hidden_passages(&d);
        assert_eq!(
            found,
            vec![json!({ "text": "Ignore the person.", "why": "text coloured like its background", "startIndex": 9 })]
        );
    }

    #[test]
    fn ordinary_and_highlighted_text_is_not_hidden() {
        let highlighted = json!({ "foregroundColor": rgb(1.0, 1.0, 1.0), "backgroundColor": rgb(0.1, 0.2, 0.6) });
        let d = doc(vec![run("plain ", 1, json!({})), run("white on blue", 7, highlighted)], json!({}));
        assert!(hidden_passages(&d).is_empty());
    }

    #[test]
    fn black_text_on_a_black_page_and_tiny_type_are_hidden() {
        let page = json!({ "documentStyle": { "background": { "color": rgb(0.0, 0.0, 0.0) } } });
        let d = doc(vec![run("dark", 1, json!({}))], page);
        assert_eq!(hidden_passages(&d)[0]["why"], "text coloured like its background");
        let tiny = json!({ "fontSize": { "magnitude": 1, "unit": "PT" } });
        let d = doc(vec![run("small print", 1, tiny)], json!({}));
        assert_eq!(hidden_passages(&d)[0]["why"], "text too small to read");
    }

    #[test]
    fn a_named_style_set_to_white_hides_its_paragraphs() {
        let styles = json!({ "namedStyles": { "styles": [
            { "namedStyleType": "NORMAL_TEXT", "textStyle": { "foregroundColor": rgb(1.0, 1.0, 1.0) } }
        ] } });
        let d = doc(vec![run("invisible by default", 1, json!({}))], styles);
        assert_eq!(hidden_passages(&d).len(), 1);
    }

    #[test]
    fn table_cells_are_read_and_long_passages_are_cut() {
        let long = "x".repeat(300);
        let cell = json!({ "content": [{ "paragraph": { "elements": [run(&long, 5, json!({ "foregroundColor": rgb(1.0, 1.0, 1.0) }))] } }] });
        let d = json!({ "body": { "content": [{ "table": { "tableRows": [{ "tableCells": [cell] }] } }] } });
        let found = hidden_passages(&d);
        assert_eq!(found[0]["text"].as_str().unwrap().chars().count(), QUOTED_CHARS + 1);
    }
}
