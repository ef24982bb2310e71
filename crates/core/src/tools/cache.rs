//! The response cache's tools: its time to live, and dropping kept answers. The cache itself is
//! [`crate::cache`]; which reads it keeps is declared on each read ([`ToolMeta::cached`]).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::{Cap, Service, ToolDef, ToolMeta};
use super::{ToolContext, ToolError};
use crate::approval::sentence::Said;
use crate::catalog::Effect;
use crate::settings::{MAX_CACHE_TTL_SECS, Source};

/// The cache tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Cache,
                "get_cache_ttl",
                "Cache time",
                "Get how long (seconds) a read's answer is reused from the cache while its file is unchanged; 0 = cache off.",
                Cap::Fixed,
            ),
            get_cache_ttl,
        ),
        ToolDef::new(
            ToolMeta::write(
                Service::Cache,
                "set_cache_ttl",
                "Set cache time",
                "Set how long (seconds, 0 to 86400) a read's answer is reused from the cache while its file is unchanged; 0 turns the cache off.",
                Effect { destructive: false, idempotent: true },
            ),
            set_cache_ttl,
        )
        .worded(set_cache_ttl_said),
        ToolDef::new(
            ToolMeta::write(
                Service::Cache,
                "refresh_cache",
                "Refresh cache",
                "Drop cached answers read from the given spreadsheet, document or files in a folder (all when none is given), so the next reads fetch fresh data.",
                Effect { destructive: false, idempotent: true },
            ),
            refresh_cache,
        )
        .worded(refresh_cache_said),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetCacheTtlArgs {
    /// Seconds a cached answer may be reused, 0 to 86400; 0 turns the cache off.
    pub ttl_seconds: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshCacheArgs {
    /// Drop the answers read from this spreadsheet.
    #[serde(default)]
    pub spreadsheet_id: Option<String>,
    /// Drop the answers read from this Google Doc.
    #[serde(default)]
    pub doc_id: Option<String>,
    /// Drop the answers read from files directly in this folder.
    #[serde(default)]
    pub folder_id: Option<String>,
    /// Calendar answers are never cached: accepted for compatibility, it drops nothing.
    #[serde(default)]
    pub calendar_id: Option<String>,
}

fn set_cache_ttl_said(a: &SetCacheTtlArgs) -> Said {
    match a.ttl_seconds {
        0 => Said::new("turn Gatehouse's answer cache off"),
        seconds => Said::new(format!("let Gatehouse reuse answers it read for up to {seconds} seconds")),
    }
}

fn refresh_cache_said(a: &RefreshCacheArgs) -> Said {
    let said = Said::new("forget the answers Gatehouse keeps");
    match (&a.spreadsheet_id, &a.doc_id, &a.folder_id) {
        (Some(id), _, _) => said.words("from").file("spreadsheet", id),
        (None, Some(id), _) => said.words("from").file("document", id),
        (None, None, Some(id)) => said.words("from the files in").file("folder", id),
        (None, None, None) => said,
    }
}

async fn get_cache_ttl(ctx: ToolContext, _args: NoArgs) -> Result<Value, ToolError> {
    let ttl = ctx.cache.ttl().await?;
    let secs = ttl.value.as_secs();
    let source = match ttl.source {
        Source::Person => "person",
        Source::Default => "default",
        Source::Environment { .. } => "environment",
        Source::Administrator => "administrator",
    };
    let message = if secs == 0 {
        "The cache is off: every read fetches its data from Google.".to_owned()
    } else {
        format!(
            "A read's answer is reused for up to {secs} seconds while its file is unchanged ({}).",
            if source == "default" { "the default" } else { "your setting" }
        )
    };
    Ok(json!({ "ttl_seconds": secs, "enabled": secs > 0, "source": source, "message": message }))
}

async fn set_cache_ttl(ctx: ToolContext, args: SetCacheTtlArgs) -> Result<Value, ToolError> {
    if !(0..=MAX_CACHE_TTL_SECS as i64).contains(&args.ttl_seconds) {
        return Err(ToolError::invalid(format!(
            "ttl_seconds must be from 0 (cache off) to {MAX_CACHE_TTL_SECS} (one day), not {}.",
            args.ttl_seconds
        )));
    }
    let ttl = ctx.cache.set_ttl(&json!(args.ttl_seconds)).await?.as_secs();
    let message = if ttl == 0 {
        "The cache is off: every read now fetches its data from Google.".to_owned()
    } else {
        format!("A read's answer is now reused for up to {ttl} seconds while its file is unchanged.")
    };
    Ok(json!({ "ttl_seconds": ttl, "enabled": ttl > 0, "message": message }))
}

async fn refresh_cache(ctx: ToolContext, args: RefreshCacheArgs) -> Result<Value, ToolError> {
    let named = [&args.spreadsheet_id, &args.doc_id, &args.folder_id, &args.calendar_id];
    if named.iter().any(|id| id.as_deref().is_some_and(|id| id.trim().is_empty())) {
        return Err(ToolError::invalid(
            "An id given to refresh_cache is empty: pass the id, or leave the argument out (or null).",
        ));
    }
    let any_named = named.iter().any(|id| id.is_some());
    // Only calendar_id: calendar answers are never cached, so there is nothing to drop (and not "everything").
    let targets: Vec<String> = [args.spreadsheet_id, args.doc_id, args.folder_id].into_iter().flatten().collect();
    let dropped = if any_named && targets.is_empty() { 0 } else { ctx.cache.refresh(targets).await? };
    let message = match (any_named, dropped) {
        (false, 0) => "The cache was empty: nothing to drop.".to_owned(),
        (false, n) => format!("Dropped all {n} cached answer(s); the next reads fetch fresh data."),
        (true, 0) => "Nothing was cached for what you named.".to_owned(),
        (true, n) => format!("Dropped {n} cached answer(s); the next reads of what you named fetch fresh data."),
    };
    Ok(json!({ "dropped": dropped, "message": message }))
}
