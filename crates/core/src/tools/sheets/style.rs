//! The values the formatting tools take that Sheets defines as enums or colours: each is checked here,
//! before any Google call, so a typo is answered with the valid choices instead of Google's
//! `Invalid value at 'requests[0]…' (TYPE_ENUM)`.
//!
//! The enum lists are Sheets v4's discovery enums without their `*_UNSPECIFIED` member (a unit test
//! holds them to the discovery document).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::tools::ToolError;

/// `CellFormat.horizontalAlignment`.
pub(super) const HORIZONTAL_ALIGNMENTS: &[&str] = &["LEFT", "CENTER", "RIGHT"];
/// `CellFormat.verticalAlignment`.
pub(super) const VERTICAL_ALIGNMENTS: &[&str] = &["TOP", "MIDDLE", "BOTTOM"];
/// `NumberFormat.type`.
pub(super) const NUMBER_FORMAT_TYPES: &[&str] =
    &["TEXT", "NUMBER", "PERCENT", "CURRENCY", "DATE", "TIME", "DATE_TIME", "SCIENTIFIC"];
/// `MergeCellsRequest.mergeType`.
pub(super) const MERGE_TYPES: &[&str] = &["MERGE_ALL", "MERGE_COLUMNS", "MERGE_ROWS"];
/// `Border.style` (`NONE` clears a border).
pub(super) const BORDER_STYLES: &[&str] =
    &["DOTTED", "DASHED", "SOLID", "SOLID_MEDIUM", "SOLID_THICK", "DOUBLE", "NONE"];
/// `SortSpec.sortOrder`.
pub(super) const SORT_ORDERS: &[&str] = &["ASCENDING", "DESCENDING"];

/// `value` as the Sheets enum member it names (case and surrounding space ignored), or an error naming
/// the argument and listing the valid values.
pub(super) fn choice(argument: &str, value: &str, valid: &[&'static str]) -> Result<&'static str, ToolError> {
    let wanted = value.trim().to_uppercase();
    valid.iter().copied().find(|v| *v == wanted).ok_or_else(|| {
        ToolError::invalid(format!(
            "{argument} {value:?} is not one of Sheets' values: use one of {}.",
            valid.join(", ")
        ))
    })
}

/// A colour as the tools take it: `{red, green, blue[, alpha]}`, each 0 to 1 (a missing component is 0,
/// as in Google's `Color`).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rgb {
    /// Red, 0 to 1.
    #[serde(default)]
    pub red: Option<f64>,
    /// Green, 0 to 1.
    #[serde(default)]
    pub green: Option<f64>,
    /// Blue, 0 to 1.
    #[serde(default)]
    pub blue: Option<f64>,
    /// Opacity, 0 to 1 (omit for opaque).
    #[serde(default)]
    pub alpha: Option<f64>,
}

impl Rgb {
    /// Whether no component is given (`{}`).
    pub(super) fn is_empty(&self) -> bool {
        self.red.is_none() && self.green.is_none() && self.blue.is_none() && self.alpha.is_none()
    }

    /// Google's `Color` JSON, once every component is checked to lie in 0–1.
    pub(crate) fn color(&self, argument: &str) -> Result<Value, ToolError> {
        let mut color = Map::new();
        let parts = [("red", self.red), ("green", self.green), ("blue", self.blue), ("alpha", self.alpha)];
        for (name, part) in parts {
            let Some(part) = part else { continue };
            if !(0.0..=1.0).contains(&part) {
                let hint = if (1.0..=255.0).contains(&part) {
                    format!(" (for a 0–255 value divide by 255: {part} → {:.3})", part / 255.0)
                } else {
                    String::new()
                };
                return Err(ToolError::invalid(format!(
                    "{argument}.{name} is {part}, but colour components run from 0 to 1{hint}. Give the colour as {{\"red\": 1, \"green\": 0.5, \"blue\": 0}}."
                )));
            }
            color.insert(name.to_owned(), json!(part));
        }
        Ok(Value::Object(color))
    }

    /// Google's `ColorStyle` JSON (`{rgbColor: …}`), the non-deprecated spelling of a colour.
    pub(super) fn style(&self, argument: &str) -> Result<Value, ToolError> {
        Ok(json!({ "rgbColor": self.color(argument)? }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery_enum(schema: &str, field: &str) -> Vec<String> {
        let document: Value =
            serde_json::from_str(include_str!("../../../../google-fake/discovery/sheets.v4.json")).unwrap();
        document["schemas"][schema]["properties"][field]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|v| !v.ends_with("_UNSPECIFIED"))
            .map(str::to_owned)
            .collect()
    }

    fn sorted(values: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = values.iter().map(|s| (*s).to_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn enum_lists_are_the_discovery_documents() {
        let pairs = [
            (HORIZONTAL_ALIGNMENTS, "CellFormat", "horizontalAlignment"),
            (VERTICAL_ALIGNMENTS, "CellFormat", "verticalAlignment"),
            (NUMBER_FORMAT_TYPES, "NumberFormat", "type"),
            (MERGE_TYPES, "MergeCellsRequest", "mergeType"),
            (BORDER_STYLES, "Border", "style"),
            (SORT_ORDERS, "SortSpec", "sortOrder"),
        ];
        for (ours, schema, field) in pairs {
            let mut theirs = discovery_enum(schema, field);
            theirs.sort();
            assert_eq!(sorted(ours), theirs, "{schema}.{field}");
        }
    }

    #[test]
    fn choices_ignore_case_and_list_the_valid_values() {
        assert_eq!(choice("merge_type", " merge_rows ", MERGE_TYPES).unwrap(), "MERGE_ROWS");
        let text = choice("horizontal_alignment", "middle", HORIZONTAL_ALIGNMENTS).unwrap_err().to_string();
        assert!(text.contains("\"middle\"") && text.contains("LEFT, CENTER, RIGHT"), "{text}");
    }

    #[test]
    fn colours_are_checked_to_run_from_0_to_1() {
        let red = Rgb { red: Some(1.0), ..Rgb::default() };
        assert_eq!(red.style("font_color").unwrap(), json!({ "rgbColor": { "red": 1.0 } }));
        let bytes = Rgb { green: Some(128.0), ..Rgb::default() };
        let text = bytes.color("background_color").unwrap_err().to_string();
        assert!(text.contains("background_color.green is 128") && text.contains("0.502"), "{text}");
        assert!(Rgb::default().is_empty());
    }
}
