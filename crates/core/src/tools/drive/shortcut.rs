//! `create_shortcut`: a link to a file or folder, placed in another folder (the file itself stays put).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::drive::mime;

use super::super::registry::{Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::{file_json, folder_or_default, metadata, parents};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "create_shortcut",
                "Create shortcut",
                "Create a shortcut to a file or folder in folder_id (else DRIVE_FOLDER_ID, else the top of My Drive).",
                Effect { destructive: false, idempotent: false },
            ),
            create_shortcut,
            // What it writes is the folder the shortcut goes into; the target is only read.
            [Evaluator::folder_or_default(|a: &CreateShortcutArgs| a.folder_id.as_deref())],
        )
        .worded(super::said::create_shortcut),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateShortcutArgs {
    /// The id of the file or folder the shortcut opens.
    pub target_file_id: String,
    /// The folder to put the shortcut in (default: DRIVE_FOLDER_ID if set, else the top of My Drive).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// The shortcut's name (default: the target's name).
    #[serde(default)]
    pub name: Option<String>,
}

async fn create_shortcut(ctx: ToolContext, args: CreateShortcutArgs) -> Result<Value, ToolError> {
    let target_id = args.target_file_id.trim();
    if target_id.is_empty() {
        return Err(ToolError::invalid("target_file_id is empty: give the id of the file the shortcut should open."));
    }
    let drive = ctx.google.drive();
    // Read the target first: a wrong id fails with Drive's own "not found" before anything is created.
    let target = drive.get(target_id, "id,name,mimeType").await?;
    if target.mime_type == mime::SHORTCUT {
        return Err(ToolError::invalid(format!(
            "{:?} is itself a shortcut; Drive cannot make a shortcut to a shortcut. Use the file it points to.",
            target.name
        )));
    }
    let name = args.name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| target.name.clone());
    let folder = folder_or_default(&ctx, args.folder_id);
    let body = metadata(&[
        ("name", json!(name)),
        ("mimeType", json!(mime::SHORTCUT)),
        ("shortcutDetails", json!({ "targetId": target.id })),
        ("parents", parents(folder.as_deref())),
    ]);
    let shortcut = drive.create(&body, "id,name,mimeType,parents,webViewLink,shortcutDetails").await?;
    let mut out = file_json(&shortcut);
    out["target_id"] = json!(target.id);
    out["target_name"] = json!(target.name);
    out["target_mime_type"] = json!(target.mime_type);
    Ok(out)
}
