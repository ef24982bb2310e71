//! `create_doc_from_file` and `update_doc_from_file`: `create_doc` and `write_doc_content` with the
//! content of a local file (inside the folders Gatehouse may use), its format named by its extension.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::create::{CreateDocArgs, create_doc};
use super::write::{Replacement, replace_body};
use crate::tools::{ToolContext, ToolError};

/// Far more than a Google Doc holds (about 1.02 million characters): a larger file is refused unread.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The extensions Gatehouse reads, and the `content_format` each means.
const EXTENSIONS: &[(&str, &str)] =
    &[("md", "markdown"), ("markdown", "markdown"), ("txt", "text"), ("html", "html"), ("htm", "html")];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDocFromFileArgs {
    /// The file to read: .md or .markdown (Markdown), .txt (plain text), .html or .htm. Relative paths are inside the export folder.
    pub local_path: String,
    /// The new document's title (default: the file's name without its extension).
    #[serde(default)]
    pub title: Option<String>,
    /// The Drive folder to put the document in (default: the configured folder, else My Drive).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// Turn bare http(s) addresses in the content into links.
    #[serde(default = "crate::tools::schema::default_true")]
    pub autolink_urls: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default = "crate::tools::schema::default_true")]
    pub revoke_sharing: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default)]
    pub auto_downscale: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateDocFromFileArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The file whose content replaces the document's whole body. Relative paths are inside the export folder.
    pub local_path: String,
    /// "markdown", "text" or "html" (default: from the extension: .md/.markdown, .txt, .html/.htm).
    #[serde(default)]
    pub content_format: Option<String>,
    /// Turn bare http(s) addresses in the content into links.
    #[serde(default = "crate::tools::schema::default_true")]
    pub autolink_urls: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default = "crate::tools::schema::default_true")]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub revoke_sharing: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub auto_downscale: bool,
    /// Write without first keeping a backup copy of the document (default: keep one, or refuse to write).
    #[serde(default)]
    pub allow_no_backup: bool,
}

/// The `content_format` a file's extension means, if Gatehouse knows it.
fn format_of(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    EXTENSIONS.iter().find(|(ext, _)| *ext == extension).map(|(_, format)| *format)
}

fn unknown_extension(path: &Path) -> String {
    format!(
        "Gatehouse can't tell the format of {} from its name: it reads .md and .markdown (Markdown), .txt (plain text) \
         and .html or .htm files.",
        path.display()
    )
}

/// The text of `local_path`, checked against the allowed folders; the resolved path comes back too.
async fn read_text(ctx: &ToolContext, local_path: &str) -> Result<(std::path::PathBuf, String), ToolError> {
    let path = ctx.local.allowed(local_path)?;
    let metadata = match tokio::fs::metadata(&path).await {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::NotFound(format!(
                "There is no file at {}. Check the path (a relative path is inside the export folder).",
                path.display()
            )));
        }
        Err(error) => return Err(ToolError::invalid(format!("Gatehouse could not read {}: {error}.", path.display()))),
    };
    if !metadata.is_file() {
        return Err(ToolError::invalid(format!("{} is not a file. Give the path of one file.", path.display())));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(ToolError::invalid(format!(
            "{} is {} bytes, far more than a Google Doc holds (about a million characters). Split it into smaller files.",
            path.display(),
            metadata.len()
        )));
    }
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|error| ToolError::invalid(format!("Gatehouse could not read {}: {error}.", path.display())))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::invalid(format!("{} is not UTF-8 text. Save it as UTF-8 and try again.", path.display()))
    })?;
    let text = text.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(text);
    Ok((path, text))
}

pub(super) async fn create_doc_from_file(ctx: ToolContext, args: CreateDocFromFileArgs) -> Result<Value, ToolError> {
    // The extension is checked before the file is read.
    let requested = Path::new(&args.local_path);
    let format = match format_of(requested) {
        Some(format) => format,
        None => {
            return Err(ToolError::invalid(format!(
                "{} Rename it with one of those extensions.",
                unknown_extension(requested)
            )));
        }
    };
    let (path, content) = read_text(&ctx, &args.local_path).await?;
    let title = match args.title.filter(|t| !t.trim().is_empty()) {
        Some(title) => title,
        None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let args = CreateDocArgs {
        title,
        content: Some(content),
        folder_id: args.folder_id,
        content_format: format.to_owned(),
        autolink_urls: args.autolink_urls,
        revoke_sharing: args.revoke_sharing,
        auto_downscale: args.auto_downscale,
    };
    let mut out = create_doc(ctx, args).await?;
    out["source"] = Value::String(path.display().to_string());
    Ok(out)
}

pub(super) async fn update_doc_from_file(ctx: ToolContext, args: UpdateDocFromFileArgs) -> Result<Value, ToolError> {
    let requested = Path::new(&args.local_path);
    let format = match (args.content_format.as_deref().filter(|f| !f.trim().is_empty()), format_of(requested)) {
        (Some(format), _) => format.to_owned(),
        (None, Some(format)) => format.to_owned(),
        (None, None) => {
            return Err(ToolError::invalid(format!(
                "{} Give content_format (\"markdown\", \"text\" or \"html\") or rename the file.",
                unknown_extension(requested)
            )));
        }
    };
    let (path, content) = read_text(&ctx, &args.local_path).await?;
    let replacement = Replacement {
        doc_id: &args.doc_id,
        content: &content,
        content_format: &format,
        autolink_urls: args.autolink_urls,
        allow_no_backup: args.allow_no_backup,
    };
    let mut out = replace_body(&ctx, replacement).await?;
    out["source"] = Value::String(path.display().to_string());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_format() {
        assert_eq!(format_of(Path::new("notes/plan.MD")), Some("markdown"));
        assert_eq!(format_of(Path::new("a.markdown")), Some("markdown"));
        assert_eq!(format_of(Path::new("a.txt")), Some("text"));
        assert_eq!(format_of(Path::new("a.htm")), Some("html"));
        assert_eq!(format_of(Path::new("a.docx")), None);
        assert_eq!(format_of(Path::new("README")), None);
    }
}
