//! `list_file_activity`: who did what to a file, newest first (Drive Activity v2).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::google::activity::{Actor, DriveActivity, QueryRequest};

use super::super::registry::{Cap, Scope, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        ToolMeta::read(
            Service::Drive,
            "list_file_activity",
            "List file activity",
            "List who edited, renamed, moved, shared, commented on or deleted a file, newest first; page with page_token.",
            Cap::Paging,
        )
        .with_scope(Scope::DriveActivity),
        list_file_activity,
    )]
}

fn fifty() -> u32 {
    50
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFileActivityArgs {
    /// The file's or folder's id.
    pub file_id: String,
    /// About how many activities to return per page.
    #[schemars(range(min = 1))]
    #[serde(default = "fifty")]
    pub page_size: u32,
    /// The next_page_token of the previous page, to continue.
    #[serde(default)]
    pub page_token: Option<String>,
}

/// An actor in a few words: "you", a person's resource name, or the kind of non-person actor.
fn actor(actor: &Actor) -> String {
    match &actor.user {
        Some(user) => match &user.known_user {
            Some(known) if known.is_current_user => "you".to_owned(),
            Some(known) => known.person_name.clone().unwrap_or_else(|| "a known user".to_owned()),
            None if user.deleted_user.is_some() => "a deleted user".to_owned(),
            None => "an unknown user".to_owned(),
        },
        None => actor.other.keys().next().cloned().unwrap_or_else(|| "unknown".to_owned()),
    }
}

fn activity_json(activity: &DriveActivity) -> Value {
    let time = activity.timestamp.clone().or_else(|| activity.time_range.as_ref().and_then(|r| r.end_time.clone()));
    let (action, detail) = activity
        .primary_action_detail
        .iter()
        .next()
        .map_or(("unknown".to_owned(), Value::Null), |(kind, detail)| (kind.clone(), detail.clone()));
    let mut out = json!({
        "time": time,
        "action": action,
        "actors": activity.actors.iter().map(actor).collect::<Vec<_>>(),
        "targets": activity
            .targets
            .iter()
            .filter_map(|t| t.drive_item.as_ref())
            .map(|item| json!({ "id": item.name.as_deref().map(|n| n.trim_start_matches("items/")), "title": item.title }))
            .collect::<Vec<_>>(),
    });
    // `edit: {}` says all there is; other details (old and new title, who gained access…) are kept.
    if detail.as_object().is_some_and(|d| !d.is_empty()) {
        out["detail"] = detail;
    }
    out
}

async fn list_file_activity(ctx: ToolContext, args: ListFileActivityArgs) -> Result<Value, ToolError> {
    if args.page_size == 0 {
        return Err(ToolError::invalid("page_size must be at least 1."));
    }
    let request = QueryRequest {
        item_name: Some(format!("items/{}", args.file_id)),
        page_size: Some(args.page_size),
        page_token: args.page_token.filter(|t| !t.is_empty()),
    };
    let response = ctx.google.activity().query(&request).await?;
    let mut out = json!({
        "file_id": args.file_id,
        "activities": response.activities.iter().map(activity_json).collect::<Vec<_>>(),
    });
    if let Some(token) = response.next_page_token.filter(|t| !t.is_empty()) {
        out["next_page_token"] = json!(token);
    }
    Ok(out)
}
