//! `get_doc_theme` and `apply_theme`: a document's theme is the font, size, weight, slant and colour of
//! each of its named styles (Docs has no theme object of its own). `get_doc_theme` answers it in the
//! shape `apply_theme` takes, so a theme can be read from one document and applied to another;
//! `apply_theme` changes the named styles with `updateNamedStyle`, so every paragraph using a style
//! follows, as when a style is updated in the editor.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::breaks::NAMED_STYLES;
use super::styles::{docs_color, one_of};
use super::{doc_url, title_of};
use crate::tools::sheets::style::Rgb;
use crate::tools::{ToolContext, ToolError};

/// The text style fields a theme sets, as `updateNamedStyle` masks name them.
const THEME_FIELDS: [&str; 5] = [
    "textStyle.weightedFontFamily",
    "textStyle.fontSize",
    "textStyle.bold",
    "textStyle.italic",
    "textStyle.foregroundColor",
];

/// One named style's part of a theme.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThemeStyle {
    /// Font family, e.g. "Lora".
    #[serde(default)]
    pub font_family: Option<String>,
    /// Font size in points.
    #[serde(default)]
    pub font_size: Option<f64>,
    /// Bold.
    #[serde(default)]
    pub bold: Option<bool>,
    /// Italic.
    #[serde(default)]
    pub italic: Option<bool>,
    /// Text colour, `{red, green, blue}` each 0 to 1.
    #[serde(default)]
    pub foreground_color: Option<Rgb>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocThemeArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyThemeArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Named style (NORMAL_TEXT, TITLE, SUBTITLE, HEADING_1 to HEADING_6) to `{font_family?, font_size?,
    /// bold?, italic?, foreground_color?}`, the shape get_doc_theme answers.
    pub theme: BTreeMap<String, ThemeStyle>,
    /// Replace each named style's theme fields: those not given are cleared (back to Docs' defaults).
    /// Without it, only the given fields change.
    #[serde(default)]
    pub overwrite: bool,
}

/// A named style's theme, read from Google's `NamedStyle.textStyle`.
fn theme_of(text: &Value) -> Value {
    let color = text["foregroundColor"]["color"]["rgbColor"].as_object().map(|rgb| {
        let part = |name: &str| rgb.get(name).and_then(Value::as_f64).unwrap_or(0.0);
        json!({"red": part("red"), "green": part("green"), "blue": part("blue")})
    });
    json!({
        "font_family": text["weightedFontFamily"]["fontFamily"],
        "font_size": text["fontSize"]["magnitude"],
        "bold": text["bold"].as_bool().unwrap_or(false),
        "italic": text["italic"].as_bool().unwrap_or(false),
        "foreground_color": color,
    })
}

pub(super) async fn get_doc_theme(ctx: ToolContext, args: GetDocThemeArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    let mut theme = Map::new();
    for style in doc["namedStyles"]["styles"].as_array().into_iter().flatten() {
        if let Some(kind) = style["namedStyleType"].as_str() {
            theme.insert(kind.to_owned(), theme_of(&style["textStyle"]));
        }
    }
    Ok(json!({
        "document_id": args.doc_id,
        "title": title_of(&doc),
        "url": doc_url(&args.doc_id),
        "theme": theme,
    }))
}

/// The `updateNamedStyle` request for one named style of the theme.
fn style_request(kind: &str, style: &ThemeStyle, overwrite: bool) -> Result<Value, ToolError> {
    let named = one_of("theme key", kind, &NAMED_STYLES)?;
    let mut text = Map::new();
    let mut fields = vec!["namedStyleType"];
    if let Some(family) = &style.font_family {
        if family.trim().is_empty() {
            return Err(ToolError::invalid(format!("theme.{kind}.font_family is empty: name a font, e.g. \"Lora\".")));
        }
        text.insert("weightedFontFamily".into(), json!({"fontFamily": family.trim()}));
        fields.push(THEME_FIELDS[0]);
    }
    if let Some(size) = style.font_size {
        if !(1.0..=400.0).contains(&size) {
            return Err(ToolError::invalid(format!("theme.{kind}.font_size is {size}: give points from 1 to 400.")));
        }
        text.insert("fontSize".into(), json!({"magnitude": size, "unit": "PT"}));
        fields.push(THEME_FIELDS[1]);
    }
    if let Some(bold) = style.bold {
        text.insert("bold".into(), json!(bold));
        fields.push(THEME_FIELDS[2]);
    }
    if let Some(italic) = style.italic {
        text.insert("italic".into(), json!(italic));
        fields.push(THEME_FIELDS[3]);
    }
    if let Some(rgb) = &style.foreground_color {
        text.insert("foregroundColor".into(), docs_color(&format!("theme.{kind}.foreground_color"), rgb)?);
        fields.push(THEME_FIELDS[4]);
    }
    if text.is_empty() && !overwrite {
        return Err(ToolError::invalid(format!(
            "theme.{kind} sets nothing: give font_family, font_size, bold, italic or foreground_color."
        )));
    }
    if overwrite {
        fields = std::iter::once("namedStyleType").chain(THEME_FIELDS).collect();
    }
    Ok(json!({"updateNamedStyle": {
        "namedStyle": {"namedStyleType": named, "textStyle": text},
        "fields": fields.join(","),
    }}))
}

pub(super) async fn apply_theme(ctx: ToolContext, args: ApplyThemeArgs) -> Result<Value, ToolError> {
    if args.theme.is_empty() {
        return Err(ToolError::invalid(format!(
            "theme is empty: give at least one named style ({}) and its font, size or colour.",
            NAMED_STYLES.join(", ")
        )));
    }
    let requests = args
        .theme
        .iter()
        .map(|(kind, style)| style_request(kind, style, args.overwrite))
        .collect::<Result<Vec<_>, _>>()?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "styles_updated": requests.len(),
        "overwrite": args.overwrite,
    }))
}
