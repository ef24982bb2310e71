//! The calendars themselves and the signed-in person's calendar list: list, read, create, change, delete,
//! and put on or take off the list.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{calendar_id, color_id, times};
use crate::google::calendar::{CalendarChange, CalendarListEntry, CalendarResource};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarIdArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCalendarArgs {
    /// The new calendar's name.
    pub summary: String,
    /// What the calendar is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Its time zone, an IANA name such as Europe/Paris (default UTC).
    #[serde(default)]
    pub timezone: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCalendarArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// A new name.
    #[serde(default)]
    pub summary: Option<String>,
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// A new time zone, an IANA name such as Europe/Paris.
    #[serde(default)]
    pub timezone: Option<String>,
    /// The colour it shows in this account's list: a calendar colour id, "1" to "24".
    #[serde(default)]
    pub color_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddCalendarToListArgs {
    /// The id of a calendar shared with this account (often an email address or …@group.calendar.google.com).
    pub calendar_id: String,
    /// The colour it shows in the list: a calendar colour id, "1" to "24".
    #[serde(default)]
    pub color_id: Option<String>,
}

/// A calendar-list entry as the tools show it.
fn entry_json(entry: &CalendarListEntry) -> Value {
    json!({
        "id": entry.id,
        "summary": entry.summary_override.as_deref().unwrap_or(&entry.summary),
        "description": entry.description,
        "time_zone": entry.time_zone,
        "access_role": entry.access_role,
        "primary": entry.primary,
        "color_id": entry.color_id,
        "background_color": entry.background_color,
        "hidden": entry.hidden,
    })
}

fn calendar_json(calendar: &CalendarResource) -> Value {
    json!({
        "id": calendar.id,
        "summary": calendar.summary,
        "description": calendar.description,
        "time_zone": calendar.time_zone,
    })
}

pub(super) async fn list_calendars(ctx: ToolContext, _args: NoArgs) -> Result<Value, ToolError> {
    let entries = ctx.google.calendar().calendar_list().await?;
    Ok(json!({
        "count": entries.len(),
        "calendars": entries.iter().map(entry_json).collect::<Vec<_>>(),
    }))
}

pub(super) async fn get_calendar(ctx: ToolContext, args: CalendarIdArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    Ok(calendar_json(&ctx.google.calendar().get(id).await?))
}

/// A time-zone argument checked before it reaches Google (which answers only "Invalid time zone").
fn checked_zone(timezone: Option<&str>) -> Result<Option<&str>, ToolError> {
    timezone.map(str::trim).filter(|tz| !tz.is_empty()).map(|tz| times::zone(tz, "timezone").map(|_| tz)).transpose()
}

pub(super) async fn create_calendar(ctx: ToolContext, args: CreateCalendarArgs) -> Result<Value, ToolError> {
    let summary = args.summary.trim();
    if summary.is_empty() {
        return Err(ToolError::invalid("summary is empty: give the new calendar a name."));
    }
    let change = CalendarChange {
        summary: Some(summary),
        description: args.description.as_deref(),
        time_zone: checked_zone(args.timezone.as_deref())?,
    };
    let created = ctx.google.calendar().insert(&change).await?;
    Ok(json!({ "created": true, "calendar": calendar_json(&created) }))
}

pub(super) async fn update_calendar(ctx: ToolContext, args: UpdateCalendarArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    if args.summary.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(ToolError::invalid("summary is empty: give a name, or leave summary out to keep the current one."));
    }
    let color = args.color_id.as_deref().map(color_id).transpose()?;
    let change = CalendarChange {
        summary: args.summary.as_deref().map(str::trim),
        description: args.description.as_deref(),
        time_zone: checked_zone(args.timezone.as_deref())?,
    };
    let changes_calendar = change.summary.is_some() || change.description.is_some() || change.time_zone.is_some();
    if !changes_calendar && color.is_none() {
        return Err(ToolError::invalid(
            "Nothing to change: give at least one of summary, description, timezone or color_id.",
        ));
    }
    let api = ctx.google.calendar();
    let calendar = if changes_calendar { api.patch(id, &change).await? } else { api.get(id).await? };
    let mut out = json!({ "updated": true, "calendar": calendar_json(&calendar) });
    if let Some(color) = color {
        let entry = api.set_list_color(id, color).await?;
        out["color_id"] = json!(entry.color_id);
    }
    Ok(out)
}

pub(super) async fn delete_calendar(ctx: ToolContext, args: CalendarIdArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    if id == "primary" {
        return Err(ToolError::invalid(
            "The primary calendar cannot be deleted. Delete its events one by one with delete_event instead.",
        ));
    }
    ctx.google.calendar().delete(id).await?;
    Ok(json!({ "deleted": true, "calendar_id": id }))
}

pub(super) async fn add_calendar_to_list(ctx: ToolContext, args: AddCalendarToListArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let color = args.color_id.as_deref().map(color_id).transpose()?;
    let entry = ctx.google.calendar().add_to_list(id, color).await?;
    Ok(json!({ "added": true, "calendar": entry_json(&entry) }))
}

pub(super) async fn remove_calendar_from_list(ctx: ToolContext, args: CalendarIdArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    ctx.google.calendar().remove_from_list(id).await?;
    Ok(
        json!({ "removed": true, "calendar_id": id, "note": "The calendar itself still exists; only this account's list changed." }),
    )
}
