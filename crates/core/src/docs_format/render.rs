//! Styled runs of one paragraph → inline Markdown that [`super::inline`] reads back to the same runs.
//!
//! Three things make this more than wrapping runs in `**`: Markdown characters in the text must be
//! escaped, emphasis markers must hug non-space text (`**bold** ` not `**bold **`), and neighbouring
//! markers must not fuse into a different run (`**a**_b_`, not `**a***b*`).

/// A stretch of paragraph text with the styles Markdown can carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    pub text: String,
    pub bold: bool,
    pub italic: bool,
    /// Struck through: `~~text~~`.
    pub strike: bool,
    /// Monospace: a code span, its text written literally.
    pub code: bool,
    pub link: Option<String>,
}

impl Run {
    /// Whether two runs look the same in Markdown (and so are written as one).
    fn same_marks(&self, other: &Run) -> bool {
        (self.bold, self.italic, self.strike, self.code, &self.link)
            == (other.bold, other.italic, other.strike, other.code, &other.link)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Bold,
    Italic,
    Strike,
}

const MARKS: [Mark; 3] = [Mark::Bold, Mark::Italic, Mark::Strike];

enum Tok {
    Text(String),
    Open(Mark),
    Close(Mark),
}

/// Renders a paragraph's runs as inline Markdown. Line breaks inside the paragraph (vertical tab or
/// newline) become `\` at the end of a line.
pub fn render_runs(runs: &[Run]) -> String {
    // Runs Docs keeps apart for styles Markdown cannot show are one run here (two code spans side by
    // side would read back as one span holding backticks).
    let mut merged: Vec<Run> = Vec::with_capacity(runs.len());
    for run in runs {
        match merged.last_mut() {
            Some(last) if last.same_marks(run) => last.text.push_str(&run.text),
            _ => merged.push(run.clone()),
        }
    }
    let runs = merged.as_slice();
    let mut out = String::new();
    let mut i = 0;
    while i < runs.len() {
        let link = &runs[i].link;
        let len = runs[i..].iter().take_while(|r| &r.link == link).count();
        let inner = emphasis(&runs[i..i + len]);
        match link {
            Some(url) if !inner.is_empty() => {
                // `!` right before the link would make it an image.
                let backslashes = out.chars().rev().skip(1).take_while(|&c| c == '\\').count();
                if out.ends_with('!') && backslashes % 2 == 0 {
                    out.insert(out.len() - 1, '\\');
                }
                out.push_str(&format!("[{inner}]({})", destination(url)));
            }
            _ => out.push_str(&inner),
        }
        i += len;
    }
    out.split(['\u{b}', '\n']).map(escape_line_start).collect::<Vec<_>>().join("\\\n")
}

/// Emphasis markers around escaped text, for runs that share one link (or none).
fn emphasis(runs: &[Run]) -> String {
    let mut toks = Vec::new();
    let mut open: Vec<Mark> = Vec::new();
    for run in runs {
        let text = if run.code { code_span(&run.text) } else { escape(&run.text) };
        // Styles on spaces alone cannot be written; they take the surrounding style.
        let blank = !run.code && run.text.chars().all(char::is_whitespace);
        let wanted = |m: Mark| match m {
            Mark::Bold => run.bold,
            Mark::Italic => run.italic,
            Mark::Strike => run.strike,
        };
        if !blank && let Some(pos) = open.iter().position(|&m| !wanted(m)) {
            close(&mut toks, &mut open, pos);
        }
        let missing: Vec<Mark> = MARKS.into_iter().filter(|&m| !blank && wanted(m) && !open.contains(&m)).collect();
        let mut text = text.as_str();
        if !missing.is_empty() {
            let rest = text.trim_start();
            push_text(&mut toks, &text[..text.len() - rest.len()]);
            for m in missing {
                toks.push(Tok::Open(m));
                open.push(m);
            }
            text = rest;
        }
        push_text(&mut toks, text);
    }
    close(&mut toks, &mut open, 0);
    render_tokens(&toks)
}

fn push_text(toks: &mut Vec<Tok>, text: &str) {
    if !text.is_empty() {
        toks.push(Tok::Text(text.to_string()));
    }
}

/// Closes the open marks from the innermost down to `open[pos]`, moving trailing spaces outside.
fn close(toks: &mut Vec<Tok>, open: &mut Vec<Mark>, pos: usize) {
    if open.len() <= pos {
        return;
    }
    let mut spaces = String::new();
    while let Some(Tok::Text(t)) = toks.last_mut() {
        let kept = t.trim_end().len();
        spaces.insert_str(0, &t[kept..]);
        t.truncate(kept);
        if !t.is_empty() {
            break;
        }
        toks.pop();
    }
    while open.len() > pos {
        if let Some(m) = open.pop() {
            toks.push(Tok::Close(m));
        }
    }
    push_text(toks, &spaces);
}

/// Writes the tokens, choosing `_` for italic unless it touches a letter or digit (where `_` would
/// not count as emphasis), then `*`.
fn render_tokens(toks: &[Tok]) -> String {
    let is_alnum_text = |t: Option<&Tok>, first: bool| match t {
        Some(Tok::Text(s)) => {
            let c = if first { s.chars().next() } else { s.chars().last() };
            c.is_some_and(char::is_alphanumeric)
        }
        _ => false,
    };
    let mut out = String::new();
    let mut italic = "_";
    for (k, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Text(s) => out.push_str(s),
            Tok::Open(Mark::Bold) | Tok::Close(Mark::Bold) => out.push_str("**"),
            Tok::Open(Mark::Italic) => {
                let close =
                    toks[k..].iter().position(|t| matches!(t, Tok::Close(Mark::Italic))).map_or(toks.len(), |p| k + p);
                let before = k.checked_sub(1).and_then(|p| toks.get(p));
                let touches = is_alnum_text(before, false) || is_alnum_text(toks.get(close + 1), true);
                italic = if touches { "*" } else { "_" };
                out.push_str(italic);
            }
            Tok::Close(Mark::Italic) => out.push_str(italic),
            Tok::Open(Mark::Strike) | Tok::Close(Mark::Strike) => out.push_str("~~"),
        }
    }
    out
}

/// A code span holding `text` literally: fenced by more backticks than any run inside, padded with
/// a space where the text would otherwise touch the fence or lose its own edge spaces.
fn code_span(text: &str) -> String {
    let mut longest = 0;
    let mut current = 0;
    for c in text.chars() {
        current = if c == '`' { current + 1 } else { 0 };
        longest = longest.max(current);
    }
    let fence = "`".repeat(longest + 1);
    let spaced = text.starts_with(' ') && text.ends_with(' ') && !text.trim().is_empty();
    let pad = text.starts_with('`') || text.ends_with('`') || spaced;
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Escapes the characters inline Markdown would read as syntax.
fn escape(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let alnum_at = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
        let escape = match c {
            // `~` too: two strike through, and a lone one can meet a neighbouring run's.
            '\\' | '*' | '`' | '[' | ']' | '~' => true,
            '_' => !(alnum_at(i.checked_sub(1)) && alnum_at(Some(i + 1))),
            '<' => {
                let rest: String = chars[i + 1..].iter().take(7).collect::<String>().to_lowercase();
                rest.starts_with("http") || rest.starts_with("mailto:")
            }
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes a line start the block parser would read as a heading, list, quote, rule or table.
fn escape_line_start(line: &str) -> String {
    let body = line.trim_start();
    let ws = &line[..line.len() - body.len()];
    let digits = body.chars().take_while(char::is_ascii_digit).count();
    // `~~` opens strikethrough; three make a code fence.
    if body.starts_with(['#', '>', '-', '+', '=', '|']) || body.starts_with("~~~") {
        format!("{ws}\\{body}")
    } else if digits > 0 && body[digits..].starts_with(['.', ')']) {
        format!("{ws}{}\\{}", &body[..digits], &body[digits..])
    } else {
        line.to_string()
    }
}

/// A link destination the parser reads back unchanged.
fn destination(url: &str) -> String {
    let awkward = |c: char| c.is_whitespace() || matches!(c, '<' | '>' | '\\');
    let mut depth = 0i64;
    let balanced = url.chars().all(|c| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        depth >= 0
    }) && depth == 0;
    if balanced && !url.contains(awkward) {
        url.to_string()
    } else if !url.contains(['<', '>', '\n']) {
        format!("<{url}>")
    } else {
        url.chars()
            .map(|c| match c {
                ' ' => "%20".to_string(),
                '<' => "%3C".to_string(),
                '>' => "%3E".to_string(),
                '\n' => String::new(),
                other => other.to_string(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::inline::{Span, Style, parse_inline};
    use super::*;
    use proptest::prelude::*;

    fn run(text: &str, bold: bool, italic: bool, link: Option<&str>) -> Run {
        Run { text: text.into(), bold, italic, link: link.map(str::to_string), ..Run::default() }
    }

    #[test]
    fn renders_code_and_strikethrough() {
        let code = |t: &str| Run { text: t.into(), code: true, ..Run::default() };
        let strike = |t: &str| Run { text: t.into(), strike: true, ..Run::default() };
        assert_eq!(render_runs(&[run("run ", false, false, None), code("a *b*"), code(" c")]), "run `a *b* c`");
        assert_eq!(render_runs(&[code("a`b")]), "``a`b``");
        assert_eq!(render_runs(&[code("`x")]), "`` `x ``");
        assert_eq!(render_runs(&[code(" x ")]), "`  x  `");
        assert_eq!(render_runs(&[Run { bold: true, ..code("x") }]), "**`x`**");
        assert_eq!(render_runs(&[strike("gone"), run(" here", false, false, None)]), "~~gone~~ here");
        assert_eq!(render_runs(&[run("a ~~ b ~", false, false, None)]), "a \\~\\~ b \\~");
    }

    #[test]
    fn renders_styles() {
        let cases = [
            (vec![run("plain", false, false, None)], "plain"),
            (
                vec![run("a ", false, false, None), run("b", true, false, None), run(" c", false, false, None)],
                "a **b** c",
            ),
            (vec![run("bold ", true, false, None), run("text", false, false, None)], "**bold** text"),
            (vec![run("x", false, true, None)], "_x_"),
            (
                vec![run("un", false, false, None), run("frig", false, true, None), run("ging", false, false, None)],
                "un*frig*ging",
            ),
            (vec![run("both", true, true, None)], "**_both_**"),
            (vec![run("a", true, false, None), run("b", false, true, None)], "**a**_b_"),
            (vec![run("a", true, true, None), run("b", true, false, None)], "***a*b**"),
            (
                vec![run("see ", false, false, None), run("docs", false, false, Some("https://x.test/a b"))],
                "see [docs](<https://x.test/a b>)",
            ),
            (vec![run("1. not a list", false, false, None)], "1\\. not a list"),
            (vec![run("# no", false, false, None)], "\\# no"),
            (vec![run("a*b_c [d] `e` \\ snake_case", false, false, None)], "a\\*b_c \\[d\\] \\`e\\` \\\\ snake_case"),
            (vec![run("line\u{b}- two", false, false, None)], "line\\\n\\- two"),
        ];
        for (runs, want) in cases {
            assert_eq!(render_runs(&runs), want);
        }
    }

    fn to_runs(spans: Vec<Span>) -> Vec<Run> {
        spans
            .into_iter()
            .map(|s| Run {
                text: s.text,
                bold: s.style.bold,
                italic: s.style.italic,
                strike: s.style.strike,
                code: s.style.code,
                link: s.style.link,
            })
            .collect()
    }

    /// Runs as per-character styles, the way Markdown can express them: emphasis on spaces is
    /// not kept, links are.
    fn normalise(runs: &[Run]) -> Vec<(char, [bool; 4], Option<String>)> {
        runs.iter()
            .flat_map(|r| {
                r.text.chars().map(move |c| {
                    let blank = c.is_whitespace() && !r.code;
                    (c, [r.bold && !blank, r.italic && !blank, r.strike && !blank, r.code], r.link.clone())
                })
            })
            .collect()
    }

    fn arb_runs() -> impl Strategy<Value = Vec<Run>> {
        let text = "[a-c1 *_`~\\[\\]\\\\<#!()|é😀.-]{1,6}";
        let link = prop_oneof![3 => Just(None), 1 => "[a-z()]{1,4}".prop_map(|s| Some(format!("https://x.test/{s}")))];
        let marks = (
            any::<bool>(),
            any::<bool>(),
            prop_oneof![3 => Just(false), 1 => Just(true)],
            prop_oneof![3 => Just(false), 1 => Just(true)],
        );
        proptest::collection::vec((text, marks, link), 1..6).prop_map(|v| {
            v.into_iter()
                .map(|(text, (bold, italic, strike, code), link)| Run { text, bold, italic, strike, code, link })
                .collect()
        })
    }

    /// The block parser trims paragraphs, so runs are compared without edge spaces.
    fn trimmed(mut runs: Vec<Run>) -> Vec<Run> {
        loop {
            if let Some(first) = runs.first_mut() {
                first.text = first.text.trim_start().to_string();
            }
            if let Some(last) = runs.last_mut() {
                last.text = last.text.trim_end().to_string();
            }
            let before = runs.len();
            runs.retain(|r| !r.text.is_empty());
            if runs.len() == before {
                return runs;
            }
        }
    }

    fn parse_back(md: &str) -> Vec<Run> {
        to_runs(parse_inline(md.trim_start()))
    }

    proptest! {
        /// Styles changing between words (the usual case) survive exactly, whatever the text.
        #[test]
        fn styles_survive_at_word_boundaries(runs in arb_runs()) {
            let count = runs.len();
            let runs: Vec<Run> = runs
                .into_iter()
                .enumerate()
                .map(|(i, mut r)| {
                    if i + 1 < count {
                        r.text.push(' ');
                    }
                    r
                })
                .collect();
            let runs = trimmed(runs);
            let md = render_runs(&runs);
            prop_assert_eq!(normalise(&parse_back(&md)), normalise(&runs), "markdown was {:?}", md);
        }

        /// Inside words some style switches have no Markdown spelling, but the text always survives.
        #[test]
        fn text_always_survives(runs in arb_runs()) {
            let runs = trimmed(runs);
            let md = render_runs(&runs);
            let text: String = parse_back(&md).into_iter().map(|r| r.text).collect();
            let want: String = runs.into_iter().map(|r| r.text).collect();
            prop_assert_eq!(text, want, "markdown was {:?}", md);
        }
    }

    #[test]
    fn common_intraword_switches_survive() {
        let cases = [
            vec![run("un", false, false, None), run("frig", false, true, None), run("ging", false, false, None)],
            vec![run("a", true, false, None), run("b", false, true, None)],
            vec![run("a", true, true, None), run("b", true, false, None)],
            vec![run("a", true, false, None), run("b", true, true, None), run("c", true, false, None)],
            vec![run("x", false, false, None), run("y", true, false, None), run("z", false, false, Some("u"))],
        ];
        for runs in cases {
            let md = render_runs(&runs);
            assert_eq!(normalise(&parse_back(&md)), normalise(&runs), "markdown was {md:?}");
        }
    }

    #[test]
    fn span_and_run_agree() {
        let spans = parse_inline("**a** [b](u)");
        assert_eq!(spans[0], Span { text: "a".into(), style: Style { bold: true, ..Style::default() } });
    }
}
