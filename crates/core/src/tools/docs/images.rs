//! `insert_inline_image` and `insert_local_images`: images placed at indexes of a Google Doc.
//!
//! Google fetches an inserted image itself, once, from a URI anyone can read, and keeps its own copy. A
//! Drive file is given as its download link, so it must be readable by anyone with the link at that
//! moment: it is shared that way just for the insertion, and the permission is deleted right after,
//! whether the insertion worked or not. Google takes PNG, JPEG and GIF images under 50 MB and of at most
//! 25 megapixels; local images over that can be scaled down before they are uploaded.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, ImageFormat, ImageReader, imageops::FilterType};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::breaks::body_index;
use super::doc_url;
use super::edit::item_fields;
use crate::google::drive::Permission;
use crate::google::segment;
use crate::limits::local_files::LocalPathError;
use crate::tools::{ToolContext, ToolError};

/// Google's limits on an inserted image: under 50 MB, at most 25 megapixels.
const MAX_BYTES: usize = 50 * 1024 * 1024;
const MAX_PIXELS: u64 = 25_000_000;
/// Google's limit on the length of an image URI.
const MAX_URI_BYTES: usize = 2 * 1024;
/// The image types Docs takes.
const IMAGE_TYPES: [&str; 3] = ["image/png", "image/jpeg", "image/gif"];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertInlineImageArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Where to insert the image (a Docs index inside a paragraph; the body starts at 1); what follows
    /// moves 1 further.
    pub index: i64,
    /// A public http(s) URL of a PNG, JPEG or GIF image (under 50 MB, at most 25 megapixels). Give this
    /// or drive_file_id.
    #[serde(default)]
    pub uri: Option<String>,
    /// A Drive image file to insert instead of uri: it is readable by anyone with the link only while
    /// Google fetches it, then unshared.
    #[serde(default)]
    pub drive_file_id: Option<String>,
    /// Width in points; the height keeps the image's proportions (with both, it fits inside them).
    #[serde(default)]
    pub width: Option<f64>,
    /// Height in points.
    #[serde(default)]
    pub height: Option<f64>,
    /// No effect here: Gatehouse can't change an image it doesn't upload, and Google refuses one over its
    /// limits. insert_local_images can downscale.
    #[serde(default)]
    pub auto_downscale: bool,
}

/// One image, as the schema shows it; items are read by hand so a bad one is named exactly.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct LocalImage {
    /// The image file (PNG, JPEG or GIF; relative paths are inside the export folder).
    local_path: String,
    /// Where to insert it (a Docs index inside a paragraph, in the document before these insertions).
    index: i64,
    /// Width in points; the height keeps the image's proportions.
    width: Option<f64>,
    /// Height in points.
    height: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertLocalImagesArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The images, each `{local_path, index, width?, height?}`; indexes refer to the document before any
    /// of these insertions.
    #[schemars(with = "Vec<LocalImage>")]
    pub images: Vec<Value>,
    /// The Drive folder to upload the images to (default: DRIVE_FOLDER_ID if set, else the top of My Drive).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// Remove the link sharing the upload needed once the images are in (false leaves the uploaded files
    /// readable by anyone with their link).
    #[serde(default = "crate::tools::schema::default_true")]
    pub revoke_sharing: bool,
    /// Scale an image over Google's limits (50 MB, 25 megapixels) down to fit before uploading; without
    /// it such an image is refused.
    #[serde(default)]
    pub auto_downscale: bool,
}

/// `objectSize` from the caller's width and height in points (each optional, positive).
fn object_size(place: &str, width: Option<f64>, height: Option<f64>) -> Result<Option<Value>, ToolError> {
    let mut size = Map::new();
    for (name, value) in [("width", width), ("height", height)] {
        let Some(value) = value else { continue };
        if !(value.is_finite() && value > 0.0) {
            return Err(ToolError::invalid(format!("{place}{name} is {value}: give a size in points above 0.")));
        }
        size.insert(name.to_owned(), json!({"magnitude": value, "unit": "PT"}));
    }
    Ok((!size.is_empty()).then_some(Value::Object(size)))
}

fn image_request(index: u64, uri: &str, size: Option<Value>) -> Value {
    let mut request = json!({"location": {"index": index}, "uri": uri});
    if let Some(size) = size {
        request["objectSize"] = size;
    }
    json!({"insertInlineImage": request})
}

/// The link Google fetches a Drive file's bytes from (its `webContentLink`), under the endpoint in use.
fn download_link(ctx: &ToolContext, file_id: &str) -> String {
    let link = format!("https://drive.google.com/uc?id={}&export=download", segment(file_id));
    ctx.google.endpoints().reroute(&link)
}

/// Makes a file readable by anyone with its link; returns the permission's id.
async fn share_by_link(ctx: &ToolContext, file_id: &str) -> Result<String, ToolError> {
    let permission = Permission { kind: Some("anyone".into()), role: Some("reader".into()), ..Permission::default() };
    let created = ctx.google.drive().create_permission(file_id, &permission, None, false, "id").await?;
    created.id.filter(|id| !id.is_empty()).ok_or_else(|| {
        ToolError::invalid(format!(
            "Drive shared file {file_id} by link but answered no permission id, so Gatehouse can't remove that sharing: remove it in Drive's Share dialog."
        ))
    })
}

/// Deletes the temporary link permissions `shared` (file id, permission id); returns the files whose
/// permission could not be removed, each with why.
async fn revoke_all(ctx: &ToolContext, shared: &[(String, String)]) -> Vec<String> {
    let mut failed = Vec::new();
    for (file_id, permission_id) in shared {
        if let Err(error) = ctx.google.drive().delete_permission(file_id, permission_id).await {
            tracing::warn!(file_id, %error, "removing the temporary link sharing failed");
            failed.push(format!("{file_id} (permission {permission_id}: {error})"));
        }
    }
    failed
}

/// The words for files left readable by anyone with the link after a failed revocation.
fn still_shared(failed: &[String]) -> String {
    format!(
        "Removing the temporary link sharing failed, so these Drive files are STILL READABLE BY ANYONE WITH THE LINK: {}. Remove that sharing with remove_permission or in Drive's Share dialog.",
        failed.join("; ")
    )
}

/// Exactly one of `uri` and `drive_file_id`, empty strings counting as absent.
enum Source {
    Uri(String),
    DriveFile(String),
}

fn source(uri: Option<String>, drive_file_id: Option<String>) -> Result<Source, ToolError> {
    let given = |v: Option<String>| v.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    match (given(uri), given(drive_file_id)) {
        (Some(uri), None) => {
            let parsed = url::Url::parse(&uri).ok().filter(|u| matches!(u.scheme(), "http" | "https"));
            if parsed.is_none() {
                return Err(ToolError::invalid(format!(
                    "uri {uri:?} is not an http or https URL. Give the public URL of a PNG, JPEG or GIF image."
                )));
            }
            if uri.len() > MAX_URI_BYTES {
                return Err(ToolError::invalid(format!(
                    "uri is {} bytes long; Google takes image URIs of at most 2 kB.",
                    uri.len()
                )));
            }
            Ok(Source::Uri(uri))
        }
        (None, Some(id)) => Ok(Source::DriveFile(id)),
        (Some(_), Some(_)) => Err(ToolError::invalid("Give either uri or drive_file_id, not both.")),
        (None, None) => Err(ToolError::invalid(
            "Give the image: uri (a public image URL) or drive_file_id (an image file in Drive). For a file on this computer use insert_local_images.",
        )),
    }
}

pub(super) async fn insert_inline_image(ctx: ToolContext, args: InsertInlineImageArgs) -> Result<Value, ToolError> {
    let index = body_index("index", args.index)?;
    let size = object_size("", args.width, args.height)?;
    let mut out = json!({"document_id": args.doc_id, "url": doc_url(&args.doc_id), "index": index});
    if args.auto_downscale {
        out["auto_downscale"] = json!(
            "No effect: Gatehouse can't change an image it doesn't upload; Google refuses one over 50 MB or 25 megapixels."
        );
    }
    let file_id = match source(args.uri, args.drive_file_id)? {
        Source::Uri(uri) => {
            let reply = ctx.google.docs().batch_update(&args.doc_id, &[image_request(index, &uri, size)]).await?;
            out["object_id"] = object_id(&reply.replies, 0);
            out["uri"] = json!(uri);
            return Ok(out);
        }
        Source::DriveFile(id) => id,
    };
    let file = ctx.google.drive().get(&file_id, "id,name,mimeType,size").await?;
    if !IMAGE_TYPES.contains(&file.mime_type.as_str()) {
        return Err(ToolError::invalid(format!(
            "Drive file {file_id} ({:?}) is {}, not a PNG, JPEG or GIF image: Google Docs inserts only those.",
            file.name, file.mime_type
        )));
    }
    if file.size_bytes().is_some_and(|bytes| bytes >= MAX_BYTES as u64) {
        return Err(ToolError::invalid(format!(
            "Drive file {file_id} ({:?}) is 50 MB or more; Google Docs inserts images under 50 MB.",
            file.name
        )));
    }
    // A file already readable by anyone with the link stays as it is: its sharing is the person's own.
    let permissions = ctx.google.drive().permissions(&file_id, "id,type,role").await?;
    let already_public = permissions.iter().any(|p| p.kind.as_deref() == Some("anyone"));
    let shared =
        if already_public { Vec::new() } else { vec![(file_id.clone(), share_by_link(&ctx, &file_id).await?)] };
    let request = image_request(index, &download_link(&ctx, &file_id), size);
    let inserted = ctx.google.docs().batch_update(&args.doc_id, &[request]).await;
    let failed = revoke_all(&ctx, &shared).await;
    let reply = match (inserted, failed.is_empty()) {
        (Ok(reply), true) => reply,
        (Ok(_), false) => return Err(ToolError::invalid(format!("The image was inserted. {}", still_shared(&failed)))),
        (Err(error), true) => return Err(error.into()),
        (Err(error), false) => return Err(ToolError::invalid(format!("{error} {}", still_shared(&failed)))),
    };
    out["object_id"] = object_id(&reply.replies, 0);
    out["drive_file_id"] = json!(file_id);
    out["link_sharing"] = json!(if already_public {
        "The file was already readable by anyone with the link before this call; that was left as it was."
    } else {
        "Shared by link only for the insertion; that sharing is removed."
    });
    Ok(out)
}

/// The `objectId` of the `insertInlineImage` reply at `i`.
fn object_id(replies: &[Value], i: usize) -> Value {
    replies.get(i).map(|r| r["insertInlineImage"]["objectId"].clone()).unwrap_or(Value::Null)
}

/// One requested image, checked.
struct Wanted {
    local_path: String,
    index: u64,
    size: Option<Value>,
}

fn parse_images(images: &[Value]) -> Result<Vec<Wanted>, ToolError> {
    const SHAPE: &str = "{\"local_path\": \"chart.png\", \"index\": 1, \"width\": 300}";
    if images.is_empty() {
        return Err(ToolError::invalid(format!("images is empty: give at least one image like {SHAPE}.")));
    }
    let mut out = Vec::with_capacity(images.len());
    for (i, item) in images.iter().enumerate() {
        let object = item_fields("images", i, item, &["local_path", "index", "width", "height"], SHAPE)?;
        let local_path = match object.get("local_path") {
            Some(Value::String(path)) if !path.trim().is_empty() => path.clone(),
            Some(other) => {
                return Err(ToolError::invalid(format!("images[{i}].local_path is {other}, not a file path.")));
            }
            None => {
                return Err(ToolError::invalid(format!(
                    "images[{i}] has no \"local_path\". Each image must look like {SHAPE}."
                )));
            }
        };
        let index = match object.get("index") {
            Some(value) => value
                .as_i64()
                .ok_or_else(|| ToolError::invalid(format!("images[{i}].index is {value}, not a whole number.")))?,
            None => {
                return Err(ToolError::invalid(format!(
                    "images[{i}] has no \"index\". Each image must look like {SHAPE}."
                )));
            }
        };
        let index = body_index(&format!("images[{i}].index"), index)?;
        let side = |name: &str| match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_f64()
                .map(Some)
                .ok_or_else(|| ToolError::invalid(format!("images[{i}].{name} is {value}, not a number of points."))),
        };
        let size = object_size(&format!("images[{i}]."), side("width")?, side("height")?)?;
        out.push(Wanted { local_path, index, size });
    }
    Ok(out)
}

/// An image ready to upload.
struct Prepared {
    bytes: Vec<u8>,
    mime_type: &'static str,
    /// The file name in Drive.
    name: String,
    pixels: (u32, u32),
    /// The size before scaling down, when it was.
    downscaled_from: Option<(u32, u32)>,
}

fn mime_of(format: ImageFormat) -> Option<&'static str> {
    match format {
        ImageFormat::Png => Some("image/png"),
        ImageFormat::Jpeg => Some("image/jpeg"),
        ImageFormat::Gif => Some("image/gif"),
        _ => None,
    }
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

fn over_limits(bytes: usize, (width, height): (u32, u32)) -> bool {
    bytes >= MAX_BYTES || u64::from(width) * u64::from(height) > MAX_PIXELS
}

/// Reads an image's type and size, and scales it down to Google's limits when asked (else refuses one
/// over them). CPU-bound: run it off the async threads.
fn prepare(path: &Path, bytes: Vec<u8>, auto_downscale: bool) -> Result<Prepared, ToolError> {
    let shown = path.display();
    let format = image::guess_format(&bytes).ok();
    let Some((format, mime_type)) = format.and_then(|f| mime_of(f).map(|m| (f, m))) else {
        return Err(ToolError::invalid(format!(
            "{shown} is not a PNG, JPEG or GIF image; Google Docs inserts only those."
        )));
    };
    let unreadable = |e: image::ImageError| ToolError::invalid(format!("{shown} can't be read as an image: {e}."));
    let pixels = ImageReader::with_format(Cursor::new(&bytes), format).into_dimensions().map_err(unreadable)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "image".into());
    if !over_limits(bytes.len(), pixels) {
        return Ok(Prepared { bytes, mime_type, name, pixels, downscaled_from: None });
    }
    let (width, height) = pixels;
    if !auto_downscale {
        return Err(ToolError::invalid(format!(
            "{shown} is {width}×{height} pixels ({:.1} megapixels) and {}; Google Docs takes images under 50 MB and of at most 25 megapixels. Pass auto_downscale=true to scale it down to fit before uploading.",
            f64::from(width) * f64::from(height) / 1e6,
            megabytes(bytes.len())
        )));
    }
    let image = ImageReader::with_format(Cursor::new(&bytes), format).decode().map_err(unreadable)?;
    drop(bytes);
    downscale(&image, format, pixels).map(|Scaled { bytes, pixels, mime_type }| Prepared {
        bytes,
        mime_type,
        // A GIF comes back as a PNG of its first frame: name it so.
        name: if format == ImageFormat::Gif {
            Path::new(&name).with_extension("png").display().to_string()
        } else {
            name
        },
        pixels,
        downscaled_from: Some((width, height)),
    })
}

/// An image scaled down and encoded again.
struct Scaled {
    bytes: Vec<u8>,
    pixels: (u32, u32),
    mime_type: &'static str,
}

/// Scales `image` down until it is within Google's limits, keeping its proportions; PNG and JPEG stay
/// what they were, a GIF becomes a PNG of its first frame.
fn downscale(image: &DynamicImage, format: ImageFormat, (width, height): (u32, u32)) -> Result<Scaled, ToolError> {
    let pixels = f64::from(width) * f64::from(height);
    // Just under the pixel limit first; smaller again while the encoding is 50 MB or more.
    let mut scale = (MAX_PIXELS as f64 * 0.99 / pixels).sqrt().min(1.0);
    for _ in 0..12 {
        let size = (((f64::from(width) * scale) as u32).max(1), ((f64::from(height) * scale) as u32).max(1));
        let scaled = image.resize_exact(size.0, size.1, FilterType::Triangle);
        let mut out = Vec::new();
        let mime_type = if format == ImageFormat::Jpeg {
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90);
            DynamicImage::ImageRgb8(scaled.to_rgb8()).write_with_encoder(encoder).map(|()| "image/jpeg")
        } else {
            scaled.write_to(&mut Cursor::new(&mut out), ImageFormat::Png).map(|()| "image/png")
        }
        .map_err(|e| ToolError::invalid(format!("Scaling the image down failed: {e}.")))?;
        if !over_limits(out.len(), size) {
            return Ok(Scaled { bytes: out, pixels: size, mime_type });
        }
        scale *= 0.7;
    }
    Err(ToolError::invalid("The image could not be scaled down under 50 MB; make it smaller and try again."))
}

pub(super) async fn insert_local_images(ctx: ToolContext, args: InsertLocalImagesArgs) -> Result<Value, ToolError> {
    let wanted = parse_images(&args.images)?;
    // Every file is read and checked before anything is uploaded.
    let mut prepared = Vec::with_capacity(wanted.len());
    for item in &wanted {
        let path = ctx.local.allowed(&item.local_path)?;
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() })?;
        let downscale = args.auto_downscale;
        let shown = path.clone();
        let ready = tokio::task::spawn_blocking(move || prepare(&shown, bytes, downscale))
            .await
            .map_err(|e| ToolError::invalid(format!("Preparing {} failed: {e}.", path.display())))??;
        prepared.push((path, ready));
    }
    let folder = args.folder_id.filter(|id| !id.trim().is_empty()).or_else(|| ctx.config.drive_folder_id.clone());
    let mut uploaded: Vec<String> = Vec::with_capacity(prepared.len());
    for (path, image) in &prepared {
        let mut metadata = json!({"name": image.name, "mimeType": image.mime_type});
        if let Some(folder) = &folder {
            metadata["parents"] = json!([folder]);
        }
        let file =
            ctx.google.drive().upload_any(&metadata, image.mime_type, &image.bytes, "id").await.map_err(|e| {
                let done = if uploaded.is_empty() {
                    String::new()
                } else {
                    format!(" The images uploaded before it stay in Drive, not shared: {}.", uploaded.join(", "))
                };
                ToolError::invalid(format!("Uploading {} failed: {e}.{done}", path.display()))
            })?;
        uploaded.push(file.id);
    }
    // Shared by link so Google can fetch them; any failure from here on removes the sharing again.
    let mut shared: Vec<(String, String)> = Vec::with_capacity(uploaded.len());
    for file_id in &uploaded {
        match share_by_link(&ctx, file_id).await {
            Ok(permission) => shared.push((file_id.clone(), permission)),
            Err(error) => {
                let failed = revoke_all(&ctx, &shared).await;
                let tail = if failed.is_empty() { String::new() } else { format!(" {}", still_shared(&failed)) };
                return Err(ToolError::invalid(format!(
                    "Sharing uploaded image {file_id} by link, which Google needs to fetch it, failed: {error}. Nothing was inserted; the images stay in Drive, not shared: {}.{tail}",
                    uploaded.join(", ")
                )));
            }
        }
    }
    // Last index first, so each insertion leaves the indexes before it as they were; images at one index
    // keep their order.
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((wanted[i].index, i)));
    let requests: Vec<Value> = order
        .iter()
        .map(|&i| image_request(wanted[i].index, &download_link(&ctx, &uploaded[i]), wanted[i].size.clone()))
        .collect();
    let inserted = ctx.google.docs().batch_update(&args.doc_id, &requests).await;
    // Sharing served only the insertion: after a failure it goes whatever revoke_sharing says.
    let revoke = args.revoke_sharing || inserted.is_err();
    let failed = if revoke { revoke_all(&ctx, &shared).await } else { Vec::new() };
    let reply = match inserted {
        Ok(reply) => reply,
        Err(error) => {
            let tail =
                if failed.is_empty() { "their link sharing is removed".to_owned() } else { still_shared(&failed) };
            return Err(ToolError::invalid(format!(
                "{error} Nothing was inserted. The images were uploaded to Drive ({}); {tail}",
                uploaded.join(", ")
            )));
        }
    };
    let mut images = vec![Value::Null; wanted.len()];
    for (reply_at, &i) in order.iter().enumerate() {
        let (path, image) = &prepared[i];
        let mut entry = json!({
            "local_path": path.display().to_string(),
            "index": wanted[i].index,
            "drive_file_id": uploaded[i],
            "object_id": object_id(&reply.replies, reply_at),
            "pixels": format!("{}×{}", image.pixels.0, image.pixels.1),
            "bytes": image.bytes.len(),
        });
        if let Some((w, h)) = image.downscaled_from {
            entry["downscaled_from"] = json!(format!("{w}×{h}"));
        }
        images[i] = entry;
    }
    let sharing = match (args.revoke_sharing, failed.is_empty()) {
        (true, true) => "Removed: the uploaded files are private again.".to_owned(),
        (true, false) => still_shared(&failed),
        (false, _) => format!(
            "Kept, as revoke_sharing=false asked: the uploaded files ({}) stay readable by anyone with their link.",
            uploaded.join(", ")
        ),
    };
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "folder_id": folder,
        "images": images,
        "link_sharing": sharing,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_image_item_is_named() {
        let cases = [
            (json!([]), "images is empty"),
            (json!([{"index": 1}]), "images[0] has no \"local_path\""),
            (json!([{"local_path": "a.png", "index": 1}, {"local_path": "b.png"}]), "images[1] has no \"index\""),
            (json!([{"local_path": "a.png", "index": 0}]), "images[0].index is 0"),
            (json!([{"local_path": "a.png", "index": 2, "width": -3}]), "images[0].width is -3"),
            (json!([{"local_path": "a.png", "index": 2, "width": "big"}]), "images[0].width is \"big\""),
            (json!([{"local_path": "a.png", "index": 2, "alt": "x"}]), "unknown field \"alt\""),
        ];
        for (items, needle) in cases {
            let message = parse_images(items.as_array().unwrap()).err().unwrap().to_string();
            assert!(message.contains(needle), "{needle} not in: {message}");
        }
    }

    #[test]
    fn only_one_source_is_taken() {
        assert!(matches!(source(Some("https://x.test/a.png".into()), None), Ok(Source::Uri(_))));
        assert!(matches!(source(Some(" ".into()), Some("F".into())), Ok(Source::DriveFile(_))));
        let both = source(Some("https://x.test/a.png".into()), Some("F".into())).err().unwrap().to_string();
        assert!(both.contains("not both"), "{both}");
        let neither = source(None, None).err().unwrap().to_string();
        assert!(neither.contains("insert_local_images"), "{neither}");
        let ftp = source(Some("ftp://x.test/a.png".into()), None).err().unwrap().to_string();
        assert!(ftp.contains("not an http or https URL"), "{ftp}");
    }

    #[test]
    fn an_image_over_the_limits_is_refused_without_auto_downscale_and_scaled_with_it() {
        // 5100 × 5000 = 25.5 megapixels, one over Google's limit.
        let big = image::GrayImage::new(5100, 5000);
        let mut png = Vec::new();
        big.write_to(&mut Cursor::new(&mut png), ImageFormat::Png).unwrap();
        let refused = prepare(Path::new("big.png"), png.clone(), false).err().unwrap().to_string();
        assert!(refused.contains("5100×5000") && refused.contains("auto_downscale=true"), "{refused}");
        let scaled = prepare(Path::new("big.png"), png, true).unwrap();
        assert_eq!(scaled.downscaled_from, Some((5100, 5000)));
        assert!(u64::from(scaled.pixels.0) * u64::from(scaled.pixels.1) <= MAX_PIXELS);
        assert!(scaled.pixels.0 > 5000 && scaled.pixels.1 > 4900, "{:?}", scaled.pixels);
        assert_eq!(image::guess_format(&scaled.bytes).unwrap(), ImageFormat::Png);
        let reread = ImageReader::with_format(Cursor::new(&scaled.bytes), ImageFormat::Png).into_dimensions();
        assert_eq!(reread.unwrap(), scaled.pixels);
    }
}
