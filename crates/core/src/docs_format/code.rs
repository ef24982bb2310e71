//! Code in Docs: inline code is text in a monospace font; a code block is a run of paragraphs, one
//! per line, in that font on a light grey shading (what a Docs reader sees as a code box).
//!
//! Writing uses [`CODE_FONT`]; reading accepts any common monospace family, so code typed in Docs in
//! Courier New or Consolas reads back as code too. A code-block paragraph is recognised by its
//! shading together with a monospace font on all its text (an empty line needs only the shading).

use serde_json::{Value, json};

/// The font code is written in.
pub(crate) const CODE_FONT: &str = "Roboto Mono";

/// Families read as code (lower case).
const MONOSPACE: [&str; 22] = [
    "roboto mono",
    "courier new",
    "courier",
    "consolas",
    "source code pro",
    "inconsolata",
    "ubuntu mono",
    "fira code",
    "fira mono",
    "jetbrains mono",
    "ibm plex mono",
    "space mono",
    "menlo",
    "monaco",
    "cousine",
    "pt mono",
    "noto sans mono",
    "dm mono",
    "anonymous pro",
    "lucida console",
    "overpass mono",
    "monospace",
];

/// The grey of a code block's shading.
const SHADE: f64 = 0.95;

/// Whether a `TextStyle` is in a monospace font.
pub(crate) fn is_monospace(text_style: Option<&Value>) -> bool {
    let family = text_style.and_then(|s| s.pointer("/weightedFontFamily/fontFamily")).and_then(Value::as_str);
    family.is_some_and(|f| MONOSPACE.contains(&f.trim().to_ascii_lowercase().as_str()))
}

/// The `textStyle` and `fields` that put text in the code font.
pub(crate) fn code_text_style() -> (Value, &'static str) {
    (json!({"weightedFontFamily": {"fontFamily": CODE_FONT}}), "weightedFontFamily")
}

/// The `updateParagraphStyle` that shades a code-block line.
pub(crate) fn code_block_style(range: Value) -> Value {
    json!({"updateParagraphStyle": {
        "range": range,
        "paragraphStyle": {"shading": {"backgroundColor": {"color": {"rgbColor":
            {"red": SHADE, "green": SHADE, "blue": SHADE}}}}},
        "fields": "shading",
    }})
}

/// Whether a Docs paragraph is a line of a code block: shaded, with all its text monospace.
pub(crate) fn is_code_line(paragraph: &Value) -> bool {
    if paragraph.pointer("/paragraphStyle/shading/backgroundColor/color").is_none() || paragraph.get("bullet").is_some()
    {
        return false;
    }
    let elements = paragraph.get("elements").and_then(Value::as_array);
    elements.into_iter().flatten().all(|e| match e.get("textRun") {
        Some(run) => {
            let text = run.get("content").and_then(Value::as_str).unwrap_or("");
            text.trim_end_matches('\n').is_empty() || is_monospace(run.get("textStyle"))
        }
        None => false,
    })
}

/// The text of a code-block paragraph, without its newline (line breaks inside become lines).
pub(crate) fn code_line_text(paragraph: &Value) -> String {
    let elements = paragraph.get("elements").and_then(Value::as_array);
    let text: String =
        elements.into_iter().flatten().filter_map(|e| e.pointer("/textRun/content").and_then(Value::as_str)).collect();
    text.strip_suffix('\n').unwrap_or(&text).replace('\u{b}', "\n")
}

/// Lines as a fenced code block: three backticks, or more than any backtick run opening a line.
pub(crate) fn fenced(lines: &[String]) -> String {
    let longest = lines.iter().map(|l| l.trim_start().chars().take_while(|&c| c == '`').count()).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut out = fence.clone();
    for line in lines {
        out.push('\n');
        out.push_str(line);
    }
    out.push('\n');
    out.push_str(&fence);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fenced(&["a".into(), "".into()]), "```\na\n\n```");
        assert_eq!(fenced(&["  ```x".into()]), "````\n  ```x\n````");
    }

    #[test]
    fn code_lines_need_shading_and_monospace() {
        let para = |family: &str, shaded: bool| {
            let mut p = json!({"elements": [{"textRun": {"content": "x = 1\n",
                "textStyle": {"weightedFontFamily": {"fontFamily": family}}}}], "paragraphStyle": {}});
            if shaded {
                p["paragraphStyle"]["shading"] = json!({"backgroundColor": {"color": {"rgbColor": {}}}});
            }
            p
        };
        assert!(is_code_line(&para("Courier New", true)));
        assert!(!is_code_line(&para("Courier New", false)));
        assert!(!is_code_line(&para("Arial", true)));
        assert_eq!(code_line_text(&para("Consolas", true)), "x = 1");
    }
}
