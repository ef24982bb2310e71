//! End-to-end checks: Markdown → requests → a simulated Docs body → `Document` JSON → Markdown.
//!
//! The simulator applies the few request kinds we send the way Docs does (inherited styles when text
//! is inserted, leading tabs turned into nesting by `createParagraphBullets`), and panics on any
//! out-of-range or empty range, so it also checks every index the requests carry.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::code::CODE_FONT;
use super::markdown::{Placement, markdown_to_requests, markdown_to_requests_placed};
use super::render::{Run, render_runs};
use super::to_markdown::{structure, to_markdown, to_plain_text};

#[derive(Clone, Debug, PartialEq)]
struct Unit {
    u: u16,
    bold: bool,
    italic: bool,
    strike: bool,
    code: bool,
    link: Option<String>,
    /// Set on newlines: the paragraph's attributes.
    para: Option<Attrs>,
}

/// A paragraph's named style, bullet (list id, nesting level) and whether it is shaded.
#[derive(Clone, Debug, PartialEq)]
struct Attrs(String, Option<(String, usize)>, bool);

#[derive(Default)]
struct Sim {
    /// The body from index 1; always ends with a newline.
    units: Vec<Unit>,
    /// List id → numbered.
    lists: BTreeMap<String, bool>,
}

impl Sim {
    fn new() -> Sim {
        let mut sim = Sim::default();
        sim.units.push(newline("NORMAL_TEXT", None));
        sim
    }

    fn apply_all(&mut self, requests: &[Value]) {
        for request in requests {
            self.apply(request);
        }
    }

    fn apply(&mut self, request: &Value) {
        let (kind, body) = request.as_object().unwrap().iter().next().unwrap();
        match kind.as_str() {
            "insertText" => self.insert(idx(&body["location"]["index"]), body["text"].as_str().unwrap()),
            "updateParagraphStyle" => {
                let style = &body["paragraphStyle"];
                let named = style["namedStyleType"].as_str().unwrap_or("NORMAL_TEXT");
                let shaded = style.pointer("/shading/backgroundColor/color").is_some();
                for (_, nl) in self.overlapping(&body["range"]) {
                    let attrs = self.units[nl].para.as_mut().unwrap();
                    for field in fields(body) {
                        match field {
                            "namedStyleType" => attrs.0 = named.to_string(),
                            "shading" => attrs.2 = shaded,
                            "indentStart" | "indentFirstLine" => {}
                            other => panic!("unexpected paragraph style field {other}"),
                        }
                    }
                }
            }
            "updateTextStyle" => {
                let (s, e) = self.range(&body["range"]);
                let style = &body["textStyle"];
                for unit in &mut self.units[s..e] {
                    for field in fields(body) {
                        match field {
                            "bold" => unit.bold = style["bold"].as_bool().unwrap_or(false),
                            "italic" => unit.italic = style["italic"].as_bool().unwrap_or(false),
                            "link" => unit.link = style["link"]["url"].as_str().map(str::to_string),
                            "strikethrough" => unit.strike = style["strikethrough"].as_bool().unwrap_or(false),
                            "weightedFontFamily" => {
                                unit.code = style["weightedFontFamily"]["fontFamily"].as_str() == Some(CODE_FONT);
                            }
                            "underline" => {}
                            other => panic!("unexpected text style field {other}"),
                        }
                    }
                }
            }
            "deleteParagraphBullets" => {
                for (_, nl) in self.overlapping(&body["range"]) {
                    self.units[nl].para.as_mut().unwrap().1 = None;
                }
            }
            "createParagraphBullets" => {
                let numbered = body["bulletPreset"].as_str().unwrap().starts_with("NUMBERED");
                let id = format!("kix.list{}", self.lists.len());
                self.lists.insert(id.clone(), numbered);
                for (start, _) in self.overlapping(&body["range"]).into_iter().rev() {
                    let tabs = self.units[start..].iter().take_while(|u| u.u == u16::from(b'\t')).count();
                    self.units.drain(start..start + tabs);
                    let nl = start + self.units[start..].iter().position(|u| u.para.is_some()).unwrap();
                    self.units[nl].para.as_mut().unwrap().1 = Some((id.clone(), tabs));
                }
            }
            other => panic!("the simulator does not know {other}"),
        }
    }

    fn insert(&mut self, index: usize, text: &str) {
        assert!(index >= 1 && index <= self.units.len(), "insert index {index} outside the body");
        let pos = index - 1;
        let from = match pos.checked_sub(1).map(|p| &self.units[p]) {
            Some(prev) if prev.para.is_none() => prev.clone(),
            _ => self.units[pos].clone(),
        };
        let nl = pos + self.units[pos..].iter().position(|u| u.para.is_some()).unwrap();
        let para = self.units[nl].para.clone();
        let new: Vec<Unit> = text
            .encode_utf16()
            .map(|u| Unit {
                u,
                bold: from.bold,
                italic: from.italic,
                strike: from.strike,
                code: from.code,
                link: None,
                para: (u == u16::from(b'\n')).then(|| para.clone().unwrap()),
            })
            .collect();
        self.units.splice(pos..pos, new);
    }

    /// A request range as unit positions, checked the way Docs checks it.
    fn range(&self, range: &Value) -> (usize, usize) {
        let (s, e) = (idx(&range["startIndex"]), idx(&range["endIndex"]));
        assert!(1 <= s && s < e && e <= self.units.len() + 1, "bad range {range} for body of {}", self.units.len());
        (s - 1, e - 1)
    }

    /// Paragraphs (start, newline position) touching a range.
    fn overlapping(&self, range: &Value) -> Vec<(usize, usize)> {
        let (s, e) = self.range(range);
        self.paragraphs().into_iter().filter(|&(ps, nl)| ps < e && s <= nl).collect()
    }

    fn paragraphs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, unit) in self.units.iter().enumerate() {
            if unit.para.is_some() {
                out.push((start, i));
                start = i + 1;
            }
        }
        out
    }

    fn text(&self) -> String {
        String::from_utf16(&self.units.iter().map(|u| u.u).collect::<Vec<_>>()).unwrap()
    }

    /// The body as `documents.get` would return it.
    fn document(&self) -> Value {
        let mut content = vec![json!({"endIndex": 1, "sectionBreak": {}})];
        for (start, nl) in self.paragraphs() {
            let mut elements = Vec::new();
            let mut i = start;
            while i <= nl {
                let key = |u: &Unit| (u.bold, u.italic, u.strike, u.code, u.link.clone());
                let len = self.units[i..=nl].iter().take_while(|u| key(u) == key(&self.units[i])).count();
                let unit = &self.units[i];
                let mut style = Map::new();
                if unit.bold {
                    style.insert("bold".into(), json!(true));
                }
                if unit.italic {
                    style.insert("italic".into(), json!(true));
                }
                if unit.strike {
                    style.insert("strikethrough".into(), json!(true));
                }
                if unit.code {
                    style.insert("weightedFontFamily".into(), json!({"fontFamily": CODE_FONT, "weight": 400}));
                }
                if let Some(url) = &unit.link {
                    style.insert("link".into(), json!({"url": url}));
                }
                let units: Vec<u16> = self.units[i..i + len].iter().map(|u| u.u).collect();
                elements.push(json!({"startIndex": i + 1, "endIndex": i + len + 1,
                    "textRun": {"content": String::from_utf16(&units).unwrap(), "textStyle": style}}));
                i += len;
            }
            let Attrs(named, bullet, shaded) = self.units[nl].para.clone().unwrap();
            let mut paragraph = json!({"elements": elements, "paragraphStyle": {"namedStyleType": named}});
            if shaded {
                paragraph["paragraphStyle"]["shading"] =
                    json!({"backgroundColor": {"color": {"rgbColor": {"red": 0.9, "green": 0.9, "blue": 0.9}}}});
            }
            if let Some((list, level)) = bullet {
                paragraph["bullet"] = json!({"listId": list, "nestingLevel": level});
            }
            content.push(json!({"startIndex": start + 1, "endIndex": nl + 2, "paragraph": paragraph}));
        }
        let lists: Map<String, Value> = self
            .lists
            .iter()
            .map(|(id, &numbered)| {
                let levels: Vec<Value> = (0..9)
                    .map(|l| match numbered {
                        true => json!({"glyphType": (["DECIMAL", "ALPHA", "ROMAN"][l % 3]), "glyphFormat": "%0."}),
                        false => json!({"glyphSymbol": (["●", "○", "■"][l % 3])}),
                    })
                    .collect();
                (id.clone(), json!({"listProperties": {"nestingLevels": levels}}))
            })
            .collect();
        json!({"documentId": "doc1", "title": "Test", "body": {"content": content}, "lists": lists})
    }
}

fn newline(style: &str, bullet: Option<(String, usize)>) -> Unit {
    Unit {
        u: u16::from(b'\n'),
        bold: false,
        italic: false,
        strike: false,
        code: false,
        link: None,
        para: Some(Attrs(style.to_string(), bullet, false)),
    }
}

fn idx(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

fn fields(body: &Value) -> Vec<&str> {
    body["fields"].as_str().unwrap().split(',').collect()
}

fn doc_from(md: &str) -> Sim {
    let mut sim = Sim::new();
    sim.apply_all(&markdown_to_requests(md, 1));
    sim
}

const CANONICAL: &str = "# Title

Intro with **bold**, _italic_, **_both_** and a [link](https://example.com/a_(b)).

## Section 😀 two

- one
- two
  - nested **deep**
- three

1. first
2. second
   1. inner
   2. inner two
3. third

###### Small

Escapes: 2 \\* 3, snake_case, \\[not a link\\], back\\\\slash.

\\# not a heading

1\\. not a list
";

#[test]
fn canonical_markdown_round_trips_exactly() {
    let sim = doc_from(CANONICAL);
    assert_eq!(to_markdown(&sim.document()), CANONICAL);
}

#[test]
fn other_spellings_come_back_canonical() {
    let md = "Title\n=====\n\n*it* and ***both*** and __bold__\n\n+ a\n    + b\n\n1) x\n1) y\n";
    let want = "# Title\n\n_it_ and **_both_** and **bold**\n\n- a\n  - b\n\n1. x\n2. y\n";
    assert_eq!(to_markdown(&doc_from(md).document()), want);
}

#[test]
fn the_document_holds_what_the_markdown_said() {
    let sim = doc_from("# Head\n\nA **b** c\n\n- x\n  - y\n");
    assert_eq!(sim.text(), "Head\nA b c\nx\ny\n\n");
    let doc = sim.document();
    let content = doc["body"]["content"].as_array().unwrap();
    assert_eq!(content[1]["paragraph"]["paragraphStyle"]["namedStyleType"], "HEADING_1");
    assert_eq!(content[2]["paragraph"]["elements"][1]["textRun"]["content"], "b");
    assert_eq!(content[2]["paragraph"]["elements"][1]["textRun"]["textStyle"]["bold"], true);
    assert_eq!(content[4]["paragraph"]["bullet"]["nestingLevel"], 1);
    assert_eq!(content[3]["paragraph"]["bullet"]["listId"], content[4]["paragraph"]["bullet"]["listId"]);
}

#[test]
fn inserting_before_a_heading_leaves_it_alone() {
    let mut sim = doc_from("# Old heading\n");
    sim.apply_all(&markdown_to_requests("New **text**", 1));
    assert_eq!(to_markdown(&sim.document()), "New **text**\n\n# Old heading\n");
}

#[test]
fn appending_after_a_bold_list_item_starts_clean() {
    let mut sim = doc_from("- **last item**\n");
    // The body is "last item\n\n": append at the end of the item's text.
    let end_of_item = 1 + "last item".len() as u32;
    sim.apply_all(&markdown_to_requests_placed("plain\n\n## Head", end_of_item, Placement::ParagraphEnd));
    assert_eq!(to_markdown(&sim.document()), "- **last item**\n\nplain\n\n## Head\n");
}

#[test]
fn an_empty_paragraph_is_filled_without_a_spare_one() {
    let mut sim = Sim::new();
    sim.apply_all(&markdown_to_requests_placed("# A\n\nb", 1, Placement::EmptyParagraph));
    assert_eq!(sim.text(), "A\nb\n");
    assert_eq!(to_markdown(&sim.document()), "# A\n\nb\n");
}

#[test]
fn utf16_indexes_are_used_for_styles() {
    let sim = doc_from("😀😀 **b** [l](u)");
    assert_eq!(to_markdown(&sim.document()), "😀😀 **b** [l](u)\n");
}

#[test]
fn plain_text_and_structure_of_a_built_document() {
    let sim = doc_from("# Head\n\nText here\n\n- item");
    let doc = sim.document();
    assert_eq!(to_plain_text(&doc), "Head\nText here\nitem\n\n");
    let outline = structure(&doc);
    assert_eq!(outline["title"], "Test");
    assert_eq!(outline["bodyEndIndex"], 22);
    let elements = outline["elements"].as_array().unwrap();
    assert_eq!(elements[0], json!({"type": "heading", "level": 1, "text": "Head", "startIndex": 1, "endIndex": 6}));
    assert_eq!(elements[1]["type"], "paragraph");
    assert_eq!(elements[2]["type"], "list_item");
    assert_eq!(elements[2]["numbered"], false);
    assert_eq!(elements[3]["text"], "");
}

/// A paragraph for the property test: what it is, and its runs (styles change only at spaces).
#[derive(Debug, Clone)]
enum Gen {
    Normal,
    Heading(usize),
    Item(bool, usize),
    /// A code-block line: shaded, all in the code font, its text taken as it is.
    Code,
}

fn arb_paragraphs() -> impl Strategy<Value = Vec<(Gen, Vec<Run>)>> {
    let word = "[a-z0-9*_`\\[\\]\\\\<#!()|é😀.=~+-]{1,5}";
    let link = prop_oneof![4 => Just(None), 1 => "[a-z()]{1,3}".prop_map(|s| Some(format!("https://x.test/{s}")))];
    let rare = || prop_oneof![4 => Just(false), 1 => Just(true)];
    let marks = (any::<bool>(), any::<bool>(), rare(), rare());
    let runs = proptest::collection::vec((word, marks, link), 1..4).prop_map(|v| {
        let n = v.len();
        v.into_iter()
            .enumerate()
            .map(|(i, (mut text, (bold, italic, strike, code), link))| {
                if i + 1 < n {
                    text.push(' ');
                }
                Run { text, bold, italic, strike, code, link }
            })
            .collect::<Vec<_>>()
    });
    let kind = prop_oneof![
        Just(Gen::Normal),
        (1usize..=6).prop_map(Gen::Heading),
        (any::<bool>(), 0usize..3).prop_map(|(o, l)| Gen::Item(o, l)),
        Just(Gen::Code),
    ];
    proptest::collection::vec((kind, runs), 1..8).prop_map(|mut paras| {
        // Lists nest one level at a time and keep one kind throughout.
        let mut prev: Option<(bool, usize)> = None;
        for (kind, _) in &mut paras {
            if let Gen::Item(ordered, level) = kind {
                match prev {
                    None => *level = 0,
                    Some((o, l)) => {
                        *ordered = o;
                        *level = (*level).min(l + 1);
                    }
                }
                prev = Some((*ordered, *level));
            } else {
                prev = None;
            }
        }
        paras
    })
}

/// Builds the `Document` JSON for generated paragraphs directly, without requests.
fn document_of(paras: &[(Gen, Vec<Run>)]) -> Value {
    let mut sim = Sim::new();
    sim.units.clear();
    let mut list: Option<String> = None;
    for (kind, runs) in paras {
        let code = matches!(kind, Gen::Code);
        for run in runs {
            for u in run.text.encode_utf16() {
                sim.units.push(Unit {
                    u,
                    bold: run.bold && !code,
                    italic: run.italic && !code,
                    strike: run.strike && !code,
                    code: run.code || code,
                    link: run.link.clone().filter(|_| !code),
                    para: None,
                });
            }
        }
        let (style, bullet) = match kind {
            Gen::Normal | Gen::Code => ("NORMAL_TEXT".to_string(), None),
            Gen::Heading(n) => (format!("HEADING_{n}"), None),
            Gen::Item(ordered, level) => {
                let id = list.get_or_insert_with(|| format!("gen{}", sim.lists.len())).clone();
                sim.lists.insert(id.clone(), *ordered);
                ("NORMAL_TEXT".to_string(), Some((id, *level)))
            }
        };
        if !matches!(kind, Gen::Item(..)) {
            list = None;
        }
        let mut newline = newline(&style, bullet);
        newline.para.as_mut().unwrap().2 = code;
        sim.units.push(newline);
    }
    sim.document()
}

/// Per paragraph: its kind and per-character styles, ignoring emphasis on spaces and list ids.
/// A character with its bold, italic, strikethrough, code and link.
type Styled = (char, [bool; 4], Option<String>);

fn summary(doc: &Value) -> Vec<(String, Vec<Styled>)> {
    let lists = &doc["lists"];
    let content = doc["body"]["content"].as_array().unwrap();
    content
        .iter()
        .filter_map(|e| e.get("paragraph"))
        .map(|p| {
            let kind = match p.get("bullet") {
                Some(b) => {
                    let list = &lists[b["listId"].as_str().unwrap()];
                    let numbered = list["listProperties"]["nestingLevels"][0].get("glyphType").is_some();
                    format!("item {numbered} {}", b["nestingLevel"])
                }
                None if p["paragraphStyle"].get("shading").is_some() => "code".to_string(),
                None => p["paragraphStyle"]["namedStyleType"].as_str().unwrap().to_string(),
            };
            let mut chars = Vec::new();
            for el in p["elements"].as_array().unwrap() {
                let run = &el["textRun"];
                let style = &run["textStyle"];
                for c in run["content"].as_str().unwrap().chars().filter(|&c| c != '\n') {
                    let emph = |k: &str| !c.is_whitespace() && style[k].as_bool().unwrap_or(false);
                    let code = style.get("weightedFontFamily").is_some();
                    let marks = [emph("bold"), emph("italic"), emph("strikethrough"), code];
                    chars.push((c, marks, style["link"]["url"].as_str().map(str::to_string)));
                }
            }
            (kind, chars)
        })
        .filter(|(_, chars)| !chars.is_empty())
        .collect()
}

proptest! {
    /// Docs → Markdown → requests → Docs keeps every paragraph's kind, text and styles.
    #[test]
    fn documents_survive_a_trip_through_markdown(paras in arb_paragraphs()) {
        let original = document_of(&paras);
        let md = to_markdown(&original);
        let mut sim = Sim::new();
        sim.apply_all(&markdown_to_requests(&md, 1));
        let rebuilt = sim.document();
        prop_assert_eq!(summary(&rebuilt), summary(&original), "markdown was:\n{}", md);
        prop_assert_eq!(to_markdown(&rebuilt), md);
    }

    /// (Tables are left to the emulator tests: the simulator has no tables.)
    #[test]
    fn any_markdown_gives_valid_requests(md in "[a-c #*_\\-+1.`~>\\[\\]()\n\t=😀]{0,60}") {
        let mut sim = Sim::new();
        sim.apply_all(&markdown_to_requests(&md, 1));
        let mut end = Sim::new();
        end.apply_all(&markdown_to_requests("x", 1));
        end.apply_all(&markdown_to_requests_placed(&md, 2, Placement::ParagraphEnd));
        let _ = to_markdown(&sim.document());
    }
}

#[test]
fn render_runs_is_what_paragraphs_use() {
    let runs = vec![Run { text: "a".into(), bold: true, ..Run::default() }];
    assert_eq!(render_runs(&runs), "**a**");
}
