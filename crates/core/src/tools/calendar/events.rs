//! Events: list them in a time window (one calendar or many), read one, create, change and delete.

use chrono::Utc;
use chrono_tz::Tz;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::calendar_id;
use super::times::{Moment, event_span, recurrence, rfc3339, window_bound, zone};
use crate::google::calendar::{Attendee, Event, EventChange, EventDateTime, ListEvents};
use crate::tools::{ToolContext, ToolError};

/// `events.list` serves at most 2,500 events a page.
const MAX_RESULTS: u32 = 2500;

fn fifty() -> u32 {
    50
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListEventsArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// Only events ending after this time: RFC 3339 or a date (midnight UTC); default now.
    #[serde(default)]
    pub time_min: Option<String>,
    /// Only events starting before this time (RFC 3339 or a date).
    #[serde(default)]
    pub time_max: Option<String>,
    /// Free text to find in the events' title, description, location or attendees.
    #[serde(default)]
    pub query: Option<String>,
    /// Events to return at most, 1 to 2500.
    #[serde(default = "fifty")]
    pub max_results: u32,
    /// List each occurrence of a recurring event (ordered by start) instead of the series once.
    #[serde(default = "default_true")]
    pub expand_recurring: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListAllEventsArgs {
    /// Only events ending after this time: RFC 3339 or a date (midnight UTC); default now.
    #[serde(default)]
    pub time_min: Option<String>,
    /// Only events starting before this time (RFC 3339 or a date).
    #[serde(default)]
    pub time_max: Option<String>,
    /// Free text to find in the events' title, description, location or attendees.
    #[serde(default)]
    pub query: Option<String>,
    /// The calendars to read; default: every calendar on the account's list.
    #[serde(default)]
    pub calendar_ids: Option<Vec<String>>,
    /// Events to return at most from each calendar, 1 to 2500.
    #[serde(default = "fifty")]
    pub max_results_per_calendar: u32,
    /// List each occurrence of a recurring event instead of the series once.
    #[serde(default = "default_true")]
    pub expand_recurring: bool,
    /// Group the events by calendar instead of one list ordered by start.
    #[serde(default)]
    pub group_by_calendar: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventIdArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// The event's id (from list_events).
    pub event_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEventArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// The event's title.
    pub summary: String,
    /// RFC 3339 (2026-12-01T10:00:00+01:00), a local time with timezone (2026-12-01T10:00), or a date (all-day).
    pub start: String,
    /// Like start. All-day: the day after the last day (the same day as start means one day).
    pub end: String,
    /// What the event is about.
    #[serde(default)]
    pub description: Option<String>,
    /// Where it takes place.
    #[serde(default)]
    pub location: Option<String>,
    /// Email addresses to invite; Google emails them an invitation.
    #[serde(default)]
    pub attendees: Option<Vec<String>>,
    /// IANA time zone (e.g. Europe/Paris) of local start/end times and recurrence; default the calendar's.
    #[serde(default)]
    pub timezone: Option<String>,
    /// iCalendar lines such as RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10 (RFC 5545) for a recurring event.
    #[serde(default)]
    pub recurrence: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateEventArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// The event's id (from list_events; a recurring series' id changes every occurrence).
    pub event_id: String,
    /// A new title.
    #[serde(default)]
    pub summary: Option<String>,
    /// A new start, written as for create_event.
    #[serde(default)]
    pub start: Option<String>,
    /// A new end, written as for create_event.
    #[serde(default)]
    pub end: Option<String>,
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// A new location.
    #[serde(default)]
    pub location: Option<String>,
    /// The new list of attendees' email addresses (replaces the old one).
    #[serde(default)]
    pub attendees: Option<Vec<String>>,
    /// The IANA time zone of the event (e.g. Europe/Paris), for local start/end times and recurrence.
    #[serde(default)]
    pub timezone: Option<String>,
    /// New iCalendar recurrence lines (replaces the old ones).
    #[serde(default)]
    pub recurrence: Option<Vec<String>>,
}

/// An event's start or end as the tools show it: the date of an all-day event, else the time.
fn when(at: &EventDateTime) -> Value {
    json!(at.date_time.as_deref().or(at.date.as_deref()))
}

/// An event as the tools show it.
pub(super) fn event_json(event: &Event) -> Value {
    let attendees: Vec<Value> = event
        .attendees
        .iter()
        .map(|a| json!({ "email": a.email, "name": a.display_name, "response": a.response_status }))
        .collect();
    let mut out = json!({
        "id": event.id,
        "summary": event.summary,
        "start": when(&event.start),
        "end": when(&event.end),
        "all_day": event.start.date.is_some(),
        "time_zone": event.start.time_zone,
        "status": event.status,
        "description": event.description,
        "location": event.location,
        "attendees": attendees,
        "organizer": event.organizer.as_ref().and_then(|o| o.email.as_deref()),
        "html_link": event.html_link,
    });
    if !event.recurrence.is_empty() {
        out["recurrence"] = json!(event.recurrence);
    }
    if let Some(series) = &event.recurring_event_id {
        out["recurring_event_id"] = json!(series);
    }
    out
}

/// The window of a listing: `time_min` (default now) and `time_max`, in RFC 3339 for Google.
fn window(time_min: Option<&str>, time_max: Option<&str>) -> Result<(String, Option<String>), ToolError> {
    let min = match time_min.filter(|t| !t.trim().is_empty()) {
        Some(text) => window_bound(text, None, "time_min")?,
        None => Utc::now(),
    };
    let max = time_max.filter(|t| !t.trim().is_empty()).map(|text| window_bound(text, None, "time_max")).transpose()?;
    if let Some(max) = max
        && max <= min
    {
        return Err(ToolError::invalid("time_max is not after time_min. Give a window whose end is after its start."));
    }
    Ok((rfc3339(min), max.map(rfc3339)))
}

fn max_results(value: u32, argument: &str) -> Result<u32, ToolError> {
    if (1..=MAX_RESULTS).contains(&value) {
        Ok(value)
    } else {
        Err(ToolError::invalid(format!("{argument} is {value}; use a number from 1 to {MAX_RESULTS}.")))
    }
}

/// Up to `max` events of one calendar in the window.
async fn events_of(
    ctx: &ToolContext,
    calendar: &str,
    window: &(String, Option<String>),
    query: Option<&str>,
    max: u32,
    expand: bool,
) -> Result<(Vec<Event>, bool), ToolError> {
    let list = ListEvents {
        time_min: Some(&window.0),
        time_max: window.1.as_deref(),
        q: query.filter(|q| !q.trim().is_empty()),
        single_events: expand,
        max_results: max,
        page_token: None,
    };
    let page = ctx.google.calendar().events(calendar, &list).await?;
    let more = page.next_page_token.is_some_and(|t| !t.is_empty());
    Ok((page.items, more))
}

pub(super) async fn list_events(ctx: ToolContext, args: ListEventsArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let max = max_results(args.max_results, "max_results")?;
    let window = window(args.time_min.as_deref(), args.time_max.as_deref())?;
    let (events, more) = events_of(&ctx, id, &window, args.query.as_deref(), max, args.expand_recurring).await?;
    Ok(json!({
        "calendar_id": id,
        "time_min": window.0,
        "time_max": window.1,
        "count": events.len(),
        "more": more,
        "events": events.iter().map(event_json).collect::<Vec<_>>(),
    }))
}

pub(super) async fn list_all_events(ctx: ToolContext, args: ListAllEventsArgs) -> Result<Value, ToolError> {
    let max = max_results(args.max_results_per_calendar, "max_results_per_calendar")?;
    let window = window(args.time_min.as_deref(), args.time_max.as_deref())?;
    let calendars: Vec<(String, Option<String>)> = match &args.calendar_ids {
        Some(ids) if !ids.is_empty() => {
            ids.iter().map(|id| calendar_id(id).map(|id| (id.to_owned(), None))).collect::<Result<_, _>>()?
        }
        _ => ctx
            .google
            .calendar()
            .calendar_list()
            .await?
            .into_iter()
            .filter(|entry| !entry.hidden)
            .map(|entry| (entry.id, Some(entry.summary_override.unwrap_or(entry.summary))))
            .collect(),
    };
    let mut groups = Vec::new();
    let mut merged: Vec<(String, Value)> = Vec::new();
    let mut failed = Vec::new();
    for (id, name) in &calendars {
        match events_of(&ctx, id, &window, args.query.as_deref(), max, args.expand_recurring).await {
            Ok((events, more)) => {
                let shown: Vec<Value> = events.iter().map(event_json).collect();
                for (event, mut value) in events.iter().zip(shown.iter().cloned()) {
                    value["calendar_id"] = json!(id);
                    let start = event.start.date_time.clone().or(event.start.date.clone()).unwrap_or_default();
                    merged.push((sort_key(&start), value));
                }
                groups.push(
                    json!({ "calendar_id": id, "summary": name, "count": shown.len(), "more": more, "events": shown }),
                );
            }
            // One calendar that can't be read doesn't hide the others: it is named with the reason.
            Err(error) => failed.push(json!({ "calendar_id": id, "error": error.to_string() })),
        }
    }
    let mut out = json!({ "time_min": window.0, "time_max": window.1 });
    if args.group_by_calendar {
        out["calendars"] = json!(groups);
    } else {
        merged.sort_by(|a, b| a.0.cmp(&b.0));
        out["count"] = json!(merged.len());
        out["events"] = json!(merged.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
    }
    if !failed.is_empty() {
        out["errors"] = json!(failed);
    }
    Ok(out)
}

/// A start as a key that orders events of different calendars and zones by when they happen.
fn sort_key(start: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(start) {
        Ok(at) => rfc3339(at.with_timezone(&Utc)),
        Err(_) => format!("{start}T00:00:00Z"),
    }
}

pub(super) async fn get_event(ctx: ToolContext, args: EventIdArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let event = ctx.google.calendar().event(id, event_id(&args.event_id)?).await?;
    Ok(event_json(&event))
}

fn event_id(id: &str) -> Result<&str, ToolError> {
    let id = id.trim();
    if id.is_empty() {
        return Err(ToolError::invalid("event_id is empty: give an event's id from list_events."));
    }
    Ok(id)
}

fn attendees(emails: &[String]) -> Result<Vec<Attendee>, ToolError> {
    emails
        .iter()
        .map(|email| {
            let email = email.trim();
            match email.split_once('@') {
                Some((local, domain)) if !local.is_empty() && domain.contains('.') => {
                    Ok(Attendee { email: email.to_owned(), ..Attendee::default() })
                }
                _ => Err(ToolError::invalid(format!(
                    "attendees has {email:?}, which is not an email address. List attendees by address, e.g. ann@example.com."
                ))),
            }
        })
        .collect()
}

fn optional_zone(timezone: Option<&str>) -> Result<Option<Tz>, ToolError> {
    timezone.map(str::trim).filter(|tz| !tz.is_empty()).map(|tz| zone(tz, "timezone")).transpose()
}

/// The zone a timed recurring event repeats in: the one given, else the calendar's (Google requires one).
async fn series_zone(ctx: &ToolContext, calendar: &str, given: Option<Tz>) -> Result<Option<Tz>, ToolError> {
    if given.is_some() {
        return Ok(given);
    }
    let calendar = ctx.google.calendar().get(calendar).await?;
    Ok(calendar.time_zone.as_deref().and_then(|name| name.parse::<Tz>().ok()))
}

pub(super) async fn create_event(ctx: ToolContext, args: CreateEventArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    if args.summary.trim().is_empty() {
        return Err(ToolError::invalid("summary is empty: give the event a title."));
    }
    let mut tz = optional_zone(args.timezone.as_deref())?;
    let start = Moment::parse(&args.start, tz, "start")?;
    let end = event_span(&start, &Moment::parse(&args.end, tz, "end")?)?;
    let rules = args.recurrence.unwrap_or_default();
    recurrence(&rules)?;
    if !rules.is_empty() && !start.is_day() {
        tz = series_zone(&ctx, id, tz).await?;
    }
    let event = EventChange {
        summary: Some(args.summary.trim().to_owned()),
        description: args.description,
        location: args.location,
        start: Some(start.to_google(tz)),
        end: Some(end.to_google(tz)),
        attendees: args.attendees.as_deref().map(attendees).transpose()?,
        recurrence: (!rules.is_empty()).then_some(rules),
    };
    let created = ctx.google.calendar().insert_event(id, &event).await?;
    Ok(json!({ "created": true, "calendar_id": id, "event": event_json(&created) }))
}

/// An existing boundary read back as a [`Moment`], to check a new start or end against it.
fn moment_of(at: &EventDateTime, argument: &str) -> Result<Moment, ToolError> {
    let tz = at.time_zone.as_deref().and_then(|name| name.parse::<Tz>().ok());
    let text = at.date_time.as_deref().or(at.date.as_deref()).unwrap_or_default();
    Moment::parse(text, tz, argument)
}

pub(super) async fn update_event(ctx: ToolContext, args: UpdateEventArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let event_id = event_id(&args.event_id)?;
    if args.summary.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(ToolError::invalid(
            "summary is empty: give a title, or leave summary out to keep the current one.",
        ));
    }
    let tz = optional_zone(args.timezone.as_deref())?;
    let rules = args.recurrence.clone();
    if let Some(rules) = &rules {
        recurrence(rules)?;
    }
    let mut change = EventChange {
        summary: args.summary.map(|s| s.trim().to_owned()),
        description: args.description,
        location: args.location,
        attendees: args.attendees.as_deref().map(attendees).transpose()?,
        recurrence: rules.clone(),
        ..EventChange::default()
    };
    if args.start.is_some() || args.end.is_some() || tz.is_some() {
        // The new times are checked against each other, the missing one taken from the event as it is.
        let current = ctx.google.calendar().event(id, event_id).await?;
        let start = match &args.start {
            Some(text) => Moment::parse(text, tz, "start")?,
            None => moment_of(&current.start, "start")?,
        };
        let end = match &args.end {
            Some(text) => Moment::parse(text, tz, "end")?,
            None => moment_of(&current.end, "end")?,
        };
        let end = event_span(&start, &end)?;
        let repeats = rules.as_ref().map_or(!current.recurrence.is_empty(), |r| !r.is_empty());
        // The zone given, else the event's own; a timed series needs one, so the calendar's then.
        let zone = match tz.or_else(|| current.start.time_zone.as_deref().and_then(|name| name.parse::<Tz>().ok())) {
            Some(zone) => Some(zone),
            None if repeats && !start.is_day() => series_zone(&ctx, id, None).await?,
            None => None,
        };
        change.start = Some(start.to_google(zone));
        change.end = Some(end.to_google(zone));
    }
    let nothing = change.summary.is_none()
        && change.description.is_none()
        && change.location.is_none()
        && change.attendees.is_none()
        && change.recurrence.is_none()
        && change.start.is_none();
    if nothing {
        return Err(ToolError::invalid(
            "Nothing to change: give at least one of summary, start, end, description, location, attendees, timezone or recurrence.",
        ));
    }
    let updated = ctx.google.calendar().patch_event(id, event_id, &change).await?;
    Ok(json!({ "updated": true, "calendar_id": id, "event": event_json(&updated) }))
}

pub(super) async fn delete_event(ctx: ToolContext, args: EventIdArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let event_id = event_id(&args.event_id)?;
    ctx.google.calendar().delete_event(id, event_id).await?;
    Ok(json!({ "deleted": true, "calendar_id": id, "event_id": event_id }))
}
