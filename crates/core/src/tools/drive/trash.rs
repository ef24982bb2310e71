//! `empty_trash`: deletes everything in the trash for good. It always asks the person (the `empty_trash`
//! veto): nothing it removes can be restored.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;

use super::super::registry::{Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "empty_trash",
                "Empty trash",
                "Delete every file in your trash (or a shared drive's, with drive_id) for good; this cannot be undone.",
                Effect { destructive: true, idempotent: true },
            ),
            empty_trash,
            [Evaluator::<EmptyTrashArgs>::empty_trash()],
        )
        .worded(super::said::empty_trash),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyTrashArgs {
    /// A shared drive's id, to empty that drive's trash (needs the organizer role); default: your own trash.
    #[serde(default)]
    pub drive_id: Option<String>,
}

async fn empty_trash(ctx: ToolContext, args: EmptyTrashArgs) -> Result<Value, ToolError> {
    let drive_id = args.drive_id.as_deref().map(str::trim);
    if drive_id == Some("") {
        return Err(ToolError::invalid(
            "drive_id is empty: give a shared drive's id (from list_drives), or leave it out to empty your own trash.",
        ));
    }
    ctx.google.drive().empty_trash(drive_id).await?;
    let which = match drive_id {
        Some(id) => format!("The trash of shared drive {id}"),
        None => "Your trash".to_owned(),
    };
    Ok(json!({
        "emptied": true,
        "drive_id": drive_id,
        "message": format!("{which} was emptied; its files are deleted for good."),
    }))
}
