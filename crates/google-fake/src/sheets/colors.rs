//! Colours as Google answers them. `Color` is proto3 JSON: a component that is 0 is left out (black is
//! `{}`), whatever the request spelled out; only `alpha` (a wrapper type) keeps an explicit 0.
//!
//! Every colour of a cell format, border and sheet tab has two spellings, the deprecated `Color`
//! (`backgroundColor`) and the `ColorStyle` that replaced it (`backgroundColorStyle: {rgbColor}`); Google
//! stores one colour and answers both. Here the style wins when both are stored (Google: "if the style
//! is also set, this field takes precedence"), and a theme colour has no plain spelling.

use serde_json::{Map, Value, json};

use super::fields::Mask;

/// Fields whose value is a `Color` in the Sheets schema (`rgbColor` inside every `ColorStyle`).
const COLOR_FIELDS: &[&str] = &["rgbColor", "foregroundColor", "backgroundColor", "color", "tabColor"];

/// (`Color` field, `ColorStyle` field) pairs of `CellFormat`, `TextFormat`, `Border` and `SheetProperties`.
const PAIRS: &[(&str, &str)] = &[
    ("backgroundColor", "backgroundColorStyle"),
    ("foregroundColor", "foregroundColorStyle"),
    ("color", "colorStyle"),
    ("tabColor", "tabColorStyle"),
];

/// Renders colours inside `value` as Google does: both spellings of each colour, zero components
/// left out.
pub(crate) fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (plain, style) in PAIRS {
                let rgb = map.get(*style).and_then(|s| s.get("rgbColor")).cloned();
                match rgb {
                    Some(rgb) => {
                        map.insert((*plain).to_owned(), rgb);
                    }
                    None if map.get(*style).is_none() => {
                        // Only a `Color` (a `ThemeColorPair.color` is a `ColorStyle` with no twin).
                        let color =
                            map.get(*plain).filter(|c| c.get("rgbColor").is_none() && c.get("themeColor").is_none());
                        if let Some(color) = color.cloned() {
                            map.insert((*style).to_owned(), json!({ "rgbColor": color }));
                        }
                    }
                    None => {}
                }
            }
            for (key, item) in map.iter_mut() {
                if COLOR_FIELDS.contains(&key.as_str())
                    && let Value::Object(color) = item
                {
                    color.retain(|k, v| !(matches!(k.as_str(), "red" | "green" | "blue") && v.as_f64() == Some(0.0)));
                }
                tidy(item);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// After a masked update of `target`: a colour written under one spelling replaces the colour, so the
/// other spelling's stored value is dropped (else a stale twin would come back in answers).
pub(crate) fn forget_twins(target: &mut Map<String, Value>, mask: &Mask) {
    if mask.all {
        return;
    }
    for (plain, style) in PAIRS {
        match (mask.children.contains_key(*plain), mask.children.contains_key(*style)) {
            (true, false) => {
                target.remove(*style);
            }
            (false, true) => {
                target.remove(*plain);
            }
            _ => {}
        }
    }
    for (key, child) in &mask.children {
        if let Some(Value::Object(inner)) = target.get_mut(key) {
            forget_twins(inner, child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_without_zero_components() {
        let mut value = json!({
            "backgroundColorStyle": { "rgbColor": { "red": 1.0, "green": 0.0, "blue": 0, "alpha": 0.0 } },
            "borders": { "top": { "style": "SOLID", "color": { "red": 0.0 } } },
            "textFormat": { "bold": false, "foregroundColorStyle": { "themeColor": "ACCENT1" } },
        });
        tidy(&mut value);
        assert_eq!(
            value,
            json!({
                "backgroundColor": { "red": 1.0, "alpha": 0.0 },
                "backgroundColorStyle": { "rgbColor": { "red": 1.0, "alpha": 0.0 } },
                "borders": { "top": { "style": "SOLID", "color": {}, "colorStyle": { "rgbColor": {} } } },
                "textFormat": { "bold": false, "foregroundColorStyle": { "themeColor": "ACCENT1" } },
            })
        );
    }

    #[test]
    fn a_colour_written_under_one_spelling_replaces_the_other() {
        let mut target = json!({ "userEnteredFormat": {
            "backgroundColor": { "red": 1 },
            "backgroundColorStyle": { "rgbColor": { "red": 1 } },
            "textFormat": { "foregroundColor": { "blue": 1 }, "foregroundColorStyle": { "rgbColor": { "blue": 1 } } },
        } });
        let mask = Mask::parse("userEnteredFormat.backgroundColor,userEnteredFormat.textFormat.foregroundColorStyle")
            .unwrap_or_default();
        if let Value::Object(map) = &mut target {
            forget_twins(map, &mask);
        }
        assert_eq!(
            target,
            json!({ "userEnteredFormat": {
                "backgroundColor": { "red": 1 },
                "textFormat": { "foregroundColorStyle": { "rgbColor": { "blue": 1 } } },
            } })
        );
    }

    #[test]
    fn the_style_wins_over_a_stale_plain_colour() {
        let mut value = json!({ "tabColor": { "blue": 1 }, "tabColorStyle": { "rgbColor": { "red": 1 } } });
        tidy(&mut value);
        assert_eq!(value, json!({ "tabColor": { "red": 1 }, "tabColorStyle": { "rgbColor": { "red": 1 } } }));
    }
}
