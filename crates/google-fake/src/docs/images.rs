//! `insertInlineImage`: as Google does, the image is fetched from its `uri` once, at insertion time, and
//! must be publicly reachable, under 50 MB, at most 25 megapixels, and PNG, JPEG or GIF; otherwise the
//! request fails. The fetch happens before the world is locked ([`prefetch`]), so a URI served by the
//! emulator itself (a Drive download link, see `drive::link`) answers as it would to Google: only files
//! readable by anyone with the link.
//!
//! The inserted image is one index wide (an `inlineObjectElement`), and the document gains an
//! `inlineObjects` entry with its size: `objectSize` scaled to keep the image's aspect ratio (fitting
//! inside both when both are given), else 0.75 pt per pixel (96 dpi), narrowed to the page's text width.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::edit::{inherited_style, insertion_point};
use super::model::{Document, Kind, Unit, number, short_id};
use super::named_ranges;
use crate::rpc::Failure;

/// Google's limits on an inserted image.
const MAX_BYTES: usize = 50 * 1024 * 1024;
const MAX_PIXELS: u64 = 25_000_000;
/// Google's limit on the length of `uri`.
const MAX_URI_BYTES: usize = 2 * 1024;
/// The text width of the emulator's page (612 pt wide, 72 pt margins).
const TEXT_WIDTH_PT: f64 = 468.0;

/// Google's answer when the image can't be fetched or is refused.
const RETRIEVAL_FAILED: &str = "There was a problem retrieving the image. The provided image should be publicly accessible, within size limit, and in supported formats.";

/// The pixel size of a fetched image that met Google's limits, by URI; `None` when it could not be
/// fetched or was refused.
pub(crate) type Images = HashMap<String, Option<(u32, u32)>>;

/// Fetches every image a `documents.batchUpdate` body inserts. A body that doesn't parse fetches nothing
/// (the request is refused later, by the discovery check).
pub(crate) async fn prefetch(body: &[u8]) -> Images {
    let mut images = Images::new();
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return images;
    };
    let requests = body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default();
    for request in &requests {
        let uri = request.get("insertInlineImage").and_then(|r| r.get("uri")).and_then(Value::as_str);
        if let Some(uri) = uri.filter(|u| u.len() <= MAX_URI_BYTES && !images.contains_key(*u)) {
            let fetched = fetch(uri).await;
            if fetched.is_none() {
                tracing::debug!(uri, "insertInlineImage: the image could not be fetched or was refused");
            }
            images.insert(uri.to_owned(), fetched);
        }
    }
    images
}

/// GETs `uri` without credentials and reads the image's pixel size, if it meets Google's limits.
async fn fetch(uri: &str) -> Option<(u32, u32)> {
    let url = url::Url::parse(uri).ok().filter(|u| matches!(u.scheme(), "http" | "https"))?;
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().ok()?;
    let response = client.get(url).send().await.ok()?;
    if !response.status().is_success() || response.content_length().is_some_and(|n| n >= MAX_BYTES as u64) {
        return None;
    }
    let bytes = response.bytes().await.ok()?;
    if bytes.len() >= MAX_BYTES {
        return None;
    }
    let (width, height) = dimensions(&bytes)?;
    (width > 0 && height > 0 && u64::from(width) * u64::from(height) <= MAX_PIXELS).then_some((width, height))
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?])))
}

/// The pixel size of a PNG, GIF or JPEG image, read from its header; `None` for anything else.
pub(crate) fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let word = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        return Some((word(16)?, word(20)?));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        let half = |at: usize| Some(u32::from(u16::from_le_bytes([*bytes.get(at)?, *bytes.get(at + 1)?])));
        return Some((half(6)?, half(8)?));
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    // JPEG: walk the segments to the first start-of-frame marker, which holds the size.
    let mut at = 2;
    loop {
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        match marker {
            0xFF => at += 1,
            0x01 | 0xD0..=0xD7 => at += 2,
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                return Some((be16(bytes, at + 7)?, be16(bytes, at + 5)?));
            }
            0xD9 | 0xDA => return None,
            _ => at += 2 + usize::try_from(be16(bytes, at + 2)?).ok()?,
        }
    }
}

/// One side of `objectSize` in points, if given: a positive magnitude in PT.
fn side(size: Option<&Map<String, Value>>, name: &str) -> Result<Option<f64>, Failure> {
    let Some(dimension) = size.and_then(|s| s.get(name)).and_then(Value::as_object) else {
        return Ok(None);
    };
    let Some(magnitude) = dimension.get("magnitude").and_then(Value::as_f64) else {
        return Ok(None);
    };
    if dimension.get("unit").and_then(Value::as_str) != Some("PT") {
        return Err(format!("objectSize.{name}.unit must be PT.").into());
    }
    if magnitude <= 0.0 {
        return Err(format!("objectSize.{name}.magnitude must be positive.").into());
    }
    Ok(Some(magnitude))
}

/// The size the image takes in the document, in points, following `InsertInlineImageRequest.objectSize`.
fn placed_size(pixels: (u32, u32), size: Option<&Map<String, Value>>) -> Result<(f64, f64), Failure> {
    let (px_w, px_h) = (f64::from(pixels.0), f64::from(pixels.1));
    let ratio = px_h / px_w;
    Ok(match (side(size, "width")?, side(size, "height")?) {
        (Some(w), Some(h)) => {
            let scale = (w / px_w).min(h / px_h);
            (px_w * scale, px_h * scale)
        }
        (Some(w), None) => (w, w * ratio),
        (None, Some(h)) => (h / ratio, h),
        (None, None) => {
            let w = (px_w * 0.75).min(TEXT_WIDTH_PT);
            (w, w * ratio)
        }
    })
}

fn pt(magnitude: f64) -> Value {
    // Google answers sizes rounded to a hundredth of a point at most.
    json!({ "magnitude": number((magnitude * 100.0).round() / 100.0), "unit": "PT" })
}

pub(crate) fn insert(doc: &mut Document, body: &Map<String, Value>, images: &Images) -> Result<Value, Failure> {
    let uri = body.get("uri").and_then(Value::as_str).unwrap_or("");
    if uri.is_empty() {
        return Err("The image URI must be specified.".into());
    }
    if uri.len() > MAX_URI_BYTES {
        return Err("The image URI must be at most 2 kB long.".into());
    }
    let pos = insertion_point(doc, body)?;
    let pixels = images.get(uri).copied().flatten().ok_or_else(|| Failure::from(RETRIEVAL_FAILED))?;
    let (width, height) = placed_size(pixels, body.get("objectSize").and_then(Value::as_object))?;
    let id = format!("kix.{}", short_id());
    let object = json!({
        "objectId": id,
        "inlineObjectProperties": { "embeddedObject": {
            "imageProperties": {
                "contentUri": format!("https://lh7-rt.googleusercontent.com/docsz/{}", crate::World::new_id(64)),
                "sourceUri": uri,
                "cropProperties": {},
            },
            "embeddedObjectBorder": {
                "color": { "color": { "rgbColor": {} } },
                "width": { "unit": "PT" },
                "dashStyle": "SOLID",
                "propertyState": "NOT_RENDERED",
            },
            "size": { "width": pt(width), "height": pt(height) },
            "marginTop": pt(9.0),
            "marginBottom": pt(9.0),
            "marginRight": pt(9.0),
            "marginLeft": pt(9.0),
        }},
    });
    doc.inline_objects.insert(id.clone(), object);
    let style = inherited_style(doc, pos);
    doc.units.insert(pos, Unit::mark(Kind::InlineObject(id.clone()), style));
    named_ranges::inherit(doc, pos, 1);
    Ok(json!({ "insertInlineImage": { "objectId": id } }))
}

/// Adds `inlineObjects` to a document tab's JSON: the images still in the body.
pub(crate) fn add_json(doc: &Document, tab: &mut Value) {
    let present: Map<String, Value> = doc
        .units
        .iter()
        .filter_map(|unit| match &unit.kind {
            Kind::InlineObject(id) => doc.inline_objects.get(id).map(|object| (id.clone(), object.clone())),
            _ => None,
        })
        .collect();
    if !present.is_empty() {
        tab["inlineObjects"] = Value::Object(present);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_from_png_gif_and_jpeg_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(640u32.to_be_bytes());
        png.extend(480u32.to_be_bytes());
        assert_eq!(dimensions(&png), Some((640, 480)));
        let gif = [b"GIF89a".as_slice(), &300u16.to_le_bytes(), &200u16.to_le_bytes()].concat();
        assert_eq!(dimensions(&gif), Some((300, 200)));
        // SOI, an APP0 segment of 4 bytes, then SOF0: length 17, precision 8, height 120, width 160.
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 17, 8, 0, 120, 0, 160];
        assert_eq!(dimensions(&jpeg), Some((160, 120)));
        assert_eq!(dimensions(b"<svg/>"), None);
    }

    #[test]
    fn the_placed_size_keeps_the_aspect_ratio() {
        let size = |v: Value| placed_size((400, 200), v.as_object()).ok().unwrap();
        assert_eq!(size(json!({})), (300.0, 150.0));
        assert_eq!(size(json!({"width": {"magnitude": 100, "unit": "PT"}})), (100.0, 50.0));
        assert_eq!(size(json!({"height": {"magnitude": 100, "unit": "PT"}})), (200.0, 100.0));
        let both = json!({"width": {"magnitude": 100, "unit": "PT"}, "height": {"magnitude": 100, "unit": "PT"}});
        assert_eq!(size(both), (100.0, 50.0));
        assert_eq!(placed_size((4000, 1000), None).ok(), Some((468.0, 117.0)));
    }
}
