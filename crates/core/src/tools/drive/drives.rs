//! Shared drives: `list_drives`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::drive_query::quote;
use crate::google::drive::{MAX_DRIVES_PAGE_SIZE, SharedDrive};

use super::super::registry::{Cap, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        ToolMeta::read(
            Service::Drive,
            "list_drives",
            "List shared drives",
            "List the shared drives you can see, optionally only those whose name contains query.",
            Cap::Paging,
        ),
        list_drives,
    )]
}

fn hundred() -> u32 {
    100
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDrivesArgs {
    /// Text the drive's name contains, or a shared-drive query such as `name contains 'Team' and hidden = false`.
    #[serde(default)]
    pub query: Option<String>,
    /// How many shared drives to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "hundred")]
    pub max_results: u32,
}

/// The terms a shared-drive query is made of (`drives.list` `q`): text starting with one and using an
/// operator is passed as written.
const QUERY_TERMS: &[&str] = &["name", "createdTime", "hidden", "memberCount", "organizerCount", "orgUnitId"];
const OPERATORS: &[&str] = &[" contains ", "=", "<", ">"];

/// `query` as the `q` of `drives.list`: a query passes through, plain text becomes `name contains '…'`.
fn drives_query(query: &str) -> Option<String> {
    let query = query.trim();
    if query.is_empty() {
        return None;
    }
    if QUERY_TERMS.iter().any(|term| query.starts_with(term)) && OPERATORS.iter().any(|op| query.contains(op)) {
        return Some(query.to_owned());
    }
    Some(format!("name contains {}", quote(query)))
}

fn drive_json(drive: &SharedDrive) -> Value {
    let mut out = json!({ "id": drive.id, "name": drive.name });
    if let Some(created) = &drive.created_time {
        out["created_time"] = json!(created);
    }
    if drive.hidden {
        out["hidden"] = json!(true);
    }
    out
}

async fn list_drives(ctx: ToolContext, args: ListDrivesArgs) -> Result<Value, ToolError> {
    if args.max_results == 0 {
        return Err(ToolError::invalid("max_results must be at least 1."));
    }
    let q = args.query.as_deref().and_then(drives_query);
    let max = args.max_results as usize;
    let drive = ctx.google.drive();
    let (mut drives, mut token) = (Vec::new(), None::<String>);
    let more = loop {
        let wanted = u32::try_from(max - drives.len()).unwrap_or(MAX_DRIVES_PAGE_SIZE);
        let page = drive
            .list_drives(q.as_deref(), wanted, token.as_deref(), "nextPageToken,drives(id,name,createdTime,hidden)")
            .await?;
        drives.extend(page.drives);
        let next = page.next_page_token.filter(|t| !t.is_empty());
        if drives.len() >= max || next.is_none() {
            let more = next.is_some() || drives.len() > max;
            drives.truncate(max);
            break more;
        }
        token = next;
    };
    let mut out = json!({ "drives": drives.iter().map(drive_json).collect::<Vec<_>>(), "count": drives.len() });
    if let Some(q) = q {
        out["query"] = json!(q);
    }
    if more {
        out["note"] = json!(format!("There are more shared drives than max_results ({max}); raise it to see more."));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::drives_query;

    #[test]
    fn plain_text_searches_names_and_queries_pass() {
        assert_eq!(drives_query("Team's").as_deref(), Some("name contains 'Team\\'s'"));
        assert_eq!(drives_query("hidden = true").as_deref(), Some("hidden = true"));
        assert_eq!(drives_query("name of the team").as_deref(), Some("name contains 'name of the team'"));
        assert_eq!(drives_query("  "), None);
    }
}
