//! `star_file` and `unstar_file`: the star is the caller's own mark (each person stars for themselves), so
//! both are small, undoable writes.

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
                "star_file",
                "Star file",
                "Star a file or folder (for you only).",
                Effect { destructive: false, idempotent: true },
            ),
            star_file,
            [Evaluator::file(|a: &StarArgs| &a.file_id)],
        )
        .worded(super::said::star_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "unstar_file",
                "Unstar file",
                "Remove your star from a file or folder.",
                Effect { destructive: false, idempotent: true },
            ),
            unstar_file,
            [Evaluator::file(|a: &StarArgs| &a.file_id)],
        )
        .worded(super::said::unstar_file),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StarArgs {
    /// The file's or folder's id.
    pub file_id: String,
}

async fn star_file(ctx: ToolContext, args: StarArgs) -> Result<Value, ToolError> {
    set_star(ctx, args, true).await
}

async fn unstar_file(ctx: ToolContext, args: StarArgs) -> Result<Value, ToolError> {
    set_star(ctx, args, false).await
}

async fn set_star(ctx: ToolContext, args: StarArgs, starred: bool) -> Result<Value, ToolError> {
    if args.file_id.trim().is_empty() {
        return Err(ToolError::invalid("file_id is empty: give the id of the file to star or unstar."));
    }
    let file = ctx.google.drive().update(&args.file_id, &json!({ "starred": starred }), "id,name,starred").await?;
    Ok(json!({ "id": file.id, "name": file.name, "starred": file.starred }))
}
