//! `events.list/get/insert/patch/update/delete`: events with `date` or `dateTime` boundaries, attendees and
//! recurrence, listed by time window (`timeMin` is exclusive on the end, `timeMax` on the start, as at
//! Google), free text (`q`), expanded into instances (`singleEvents`) and ordered (`orderBy`).
//!
//! Known strictness: only a whole series can be changed or deleted (Google also takes an instance's id and
//! makes an exception); the emulator answers 404 for an instance id there.

use axum::Json;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::model::{Calendar, Event, Role, etag, invalid, not_found};
use super::recur::Rule;
use super::time::{When, query_time, utc_basic};
use super::{Call, Store, as_caller};
use crate::call::Reply;
use crate::drive::{Params, json_body, new_page_token};
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// Members of an `Event` that Calendar sets itself; a request's values for them are ignored.
const SET_BY_CALENDAR: [&str; 12] = [
    "id",
    "kind",
    "etag",
    "htmlLink",
    "created",
    "updated",
    "creator",
    "organizer",
    "iCalUID",
    "sequence",
    "recurringEventId",
    "originalStartTime",
];

/// How far the emulator looks for instances of a series nobody bounded (no `timeMax`).
const OPEN_END_YEARS: i64 = 5;

/// Calendar's 400 when an event ends before it starts.
fn empty_range() -> ApiError {
    ApiError::legacy(400, "timeRangeEmpty", "The specified time range is empty.").at("timeMax")
}

/// Builds the stored event from a request body (`previous` when it replaces an event).
fn build(
    calendar: &Calendar,
    who: &Identity,
    body: Map<String, Value>,
    previous: Option<&Event>,
) -> Result<Event, ApiError> {
    let start = When::parse(&body, "start")?;
    let end = When::parse(&body, "end")?;
    let body_id = match (previous, body.get("id").and_then(Value::as_str)) {
        (None, Some(id)) => Some(client_id(calendar, id)?),
        _ => None,
    };
    if start.is_date() != end.is_date() {
        return Err(invalid("Start and end times must either both be date or both be dateTime."));
    }
    if end.instant(&calendar.time_zone) <= start.instant(&calendar.time_zone) {
        return Err(empty_range());
    }
    let mut resource: Map<String, Value> =
        body.into_iter().filter(|(key, value)| !SET_BY_CALENDAR.contains(&key.as_str()) && !value.is_null()).collect();
    let recurrence: Vec<String> = resource
        .get("recurrence")
        .and_then(Value::as_array)
        .map(|lines| lines.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if recurrence.is_empty() {
        resource.remove("recurrence");
    } else {
        Rule::parse(&recurrence).map_err(|why| invalid(format!("Invalid recurrence rule: {why}.")).at("recurrence"))?;
        if matches!(start, When::At(_, None)) {
            return Err(invalid("Missing time zone definition for start time.").at("start"));
        }
    }
    if let Some(attendees) = resource.get_mut("attendees").and_then(Value::as_array_mut) {
        for attendee in attendees.iter_mut() {
            let email = attendee.get("email").and_then(Value::as_str).unwrap_or_default();
            if !email.contains('@') {
                return Err(invalid("Invalid attendee email.").at("attendees"));
            }
            if attendee.get("responseStatus").is_none() {
                attendee["responseStatus"] = json!("needsAction");
            }
        }
    }
    let now = Utc::now();
    let id = match (previous, body_id) {
        (Some(event), _) => event.id().to_owned(),
        (None, Some(id)) => id,
        (None, None) => new_event_id(),
    };
    let created = previous
        .and_then(|event| event.resource.get("created").cloned())
        .unwrap_or_else(|| json!(crate::drive::rfc3339(&now)));
    let sequence = previous.map_or(0, |event| event.resource.get("sequence").and_then(Value::as_i64).unwrap_or(0) + 1);
    resource.insert("kind".into(), json!("calendar#event"));
    resource.insert("etag".into(), json!(etag(&format!("{id}{}", now.timestamp_micros()))));
    resource.insert("id".into(), json!(id));
    resource.entry("status").or_insert(json!("confirmed"));
    resource.insert("htmlLink".into(), json!(format!("https://www.google.com/calendar/event?eid={id}")));
    resource.insert("created".into(), created);
    resource.insert("updated".into(), json!(crate::drive::rfc3339(&now)));
    resource.insert("creator".into(), json!({ "email": who.email, "self": true }));
    let mut organizer = json!({ "email": calendar.id, "displayName": calendar.summary });
    if calendar.owner == who.email {
        organizer["self"] = json!(true);
    }
    resource.insert("organizer".into(), organizer);
    resource.insert("start".into(), start.json(&calendar.time_zone));
    resource.insert("end".into(), end.json(&calendar.time_zone));
    resource.insert("iCalUID".into(), json!(format!("{id}@google.com")));
    resource.insert("sequence".into(), json!(sequence));
    resource.entry("reminders").or_insert(json!({ "useDefault": true }));
    resource.entry("eventType").or_insert(json!("default"));
    Ok(Event { resource, start, end, updated: now })
}

/// An id the client chose for a new event: 5 to 1024 characters of lowercase base32hex (`a`-`v`, `0`-`9`),
/// not yet used in the calendar.
fn client_id(calendar: &Calendar, id: &str) -> Result<String, ApiError> {
    let valid = (5..=1024).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'v').contains(&b));
    if !valid {
        return Err(invalid("Invalid resource id value.").at("id"));
    }
    if calendar.events.contains_key(id) {
        return Err(ApiError::legacy(409, "duplicate", "The requested identifier already exists."));
    }
    Ok(id.to_owned())
}

/// An event id as Calendar makes them: base32hex, lowercase.
fn new_event_id() -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuv";
    (0..26).map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char).collect()
}

/// One occurrence of an event as listed: when it starts (to order by), when it was updated, its resource.
pub(crate) struct Occurrence {
    pub(crate) start: DateTime<Utc>,
    pub(crate) end: DateTime<Utc>,
    pub(crate) updated: DateTime<Utc>,
    pub(crate) resource: Value,
}

/// The instances of `event` that overlap `[from, to)`: itself when it doesn't repeat.
pub(crate) fn occurrences(
    calendar: &Calendar,
    event: &Event,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<Occurrence> {
    let zone = &calendar.time_zone;
    let overlaps = |start: DateTime<Utc>, end: DateTime<Utc>| end > from && start < to;
    let recurrence = event.recurrence();
    if recurrence.is_empty() {
        let (start, end) = (event.start.instant(zone), event.end.instant(zone));
        return if overlaps(start, end) {
            vec![Occurrence { start, end, updated: event.updated, resource: Value::Object(event.resource.clone()) }]
        } else {
            Vec::new()
        };
    }
    let Ok(rule) = Rule::parse(&recurrence) else { return Vec::new() };
    let series_zone = match &event.start {
        When::At(_, Some(tz)) => tz.clone(),
        _ => zone.clone(),
    };
    let length = event.end.instant(zone) - event.start.instant(zone);
    // An all-day series spans whole days, whatever a clock change does to the hours between them.
    let days = match (&event.start, &event.end) {
        (When::Date(first), When::Date(last)) => u64::try_from((*last - *first).num_days()).unwrap_or(1),
        _ => 0,
    };
    let mut out = Vec::new();
    for start in rule.starts(&event.start, &series_zone, to) {
        let at = start.instant(zone);
        let end_at = at + length;
        if !overlaps(at, end_at) {
            continue;
        }
        let end = match &start {
            When::Date(date) => When::Date(date.checked_add_days(chrono::Days::new(days)).unwrap_or(*date)),
            When::At(_, tz) => When::At(end_at, tz.clone()),
        };
        let suffix = match &start {
            When::Date(date) => date.format("%Y%m%d").to_string(),
            When::At(at, _) => utc_basic(*at),
        };
        let mut resource = event.resource.clone();
        resource.remove("recurrence");
        resource.insert("id".into(), json!(format!("{}_{suffix}", event.id())));
        resource.insert("recurringEventId".into(), json!(event.id()));
        resource.insert("originalStartTime".into(), start.json(zone));
        resource.insert("start".into(), start.json(zone));
        resource.insert("end".into(), end.json(zone));
        out.push(Occurrence { start: at, end: end_at, updated: event.updated, resource: Value::Object(resource) });
    }
    out
}

fn far_future() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::days(365 * OPEN_END_YEARS)
}

/// `GET …/events`.
pub(super) async fn list(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::Reader)?;
        let body = list_body(calendar, calendar.role_of(&who.email), params)?;
        Ok(Json(body).into_response())
    })
}

fn list_body(calendar: &Calendar, role: Role, params: &Params) -> Result<Value, ApiError> {
    let single = params.flag("singleEvents")?;
    let order = params.text("orderBy");
    match order {
        None | Some("updated") => {}
        Some("startTime") if single => {}
        Some("startTime") => {
            return Err(ApiError::legacy(
                400,
                "badRequest",
                "The requested ordering is not available for the particular query.",
            )
            .at("orderBy"));
        }
        Some(_) => return Err(invalid("Invalid Value").at("orderBy")),
    }
    let from = query_time(params, "timeMin")?.unwrap_or(DateTime::<Utc>::MIN_UTC);
    let to = query_time(params, "timeMax")?.unwrap_or_else(far_future);
    if to <= from {
        return Err(empty_range());
    }
    let size = usize::try_from(params.int("maxResults", 250, 1, 2500)?).unwrap_or(250);
    let start = params.page_token::<usize>("offset:")?.unwrap_or(0);
    let show_deleted = params.flag("showDeleted")?;
    let q = params.text("q");
    let mut found: Vec<Occurrence> = Vec::new();
    for event in calendar.events.values() {
        if (event.cancelled() && !show_deleted) || q.is_some_and(|q| !event.matches(q)) {
            continue;
        }
        let instances = occurrences(calendar, event, from, to);
        if single {
            found.extend(instances);
        } else if let Some(first) = instances.first() {
            let resource = Value::Object(event.resource.clone());
            found.push(Occurrence { start: first.start, end: first.end, updated: event.updated, resource });
        }
    }
    if order == Some("updated") {
        found.sort_by_key(|o| o.updated);
    } else {
        found.sort_by_key(|o| o.start);
    }
    let zone = params.text("timeZone").unwrap_or(&calendar.time_zone).to_owned();
    let items: Vec<Value> = found.iter().skip(start).take(size).map(|o| o.resource.clone()).collect();
    let updated = calendar.events.values().map(|e| e.updated).max().unwrap_or(calendar.updated);
    let mut body = json!({
        "kind": "calendar#events",
        "etag": etag(&format!("{}{}", calendar.id, updated.timestamp_micros())),
        "summary": calendar.summary,
        "updated": crate::drive::rfc3339(&updated),
        "timeZone": zone,
        "accessRole": role.name(),
        "defaultReminders": [],
        "items": items,
    });
    if let Some(description) = &calendar.description {
        body["description"] = json!(description);
    }
    if start + size < found.len() {
        body["nextPageToken"] = json!(new_page_token("offset:", start + size));
    }
    Ok(body)
}

/// `GET …/events/{eventId}`: a stored event, or an instance of a series by its instance id.
pub(super) async fn get(Path((calendar_id, event_id)): Path<(String, String)>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::Reader)?;
        if let Some(event) = calendar.events.get(&event_id) {
            return Ok(Json(Value::Object(event.resource.clone())).into_response());
        }
        let (series, suffix) = event_id.rsplit_once('_').ok_or_else(not_found)?;
        let event = calendar.events.get(series).filter(|e| !e.cancelled()).ok_or_else(not_found)?;
        let instance = occurrences(calendar, event, DateTime::<Utc>::MIN_UTC, far_future())
            .into_iter()
            .find(|o| o.resource.get("id").and_then(Value::as_str) == Some(&format!("{series}_{suffix}")))
            .ok_or_else(not_found)?;
        Ok(Json(instance.resource).into_response())
    })
}

/// `POST …/events`.
pub(super) async fn insert(Path(calendar_id): Path<String>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Writer)?;
        let event = build(calendar, &who, body, None)?;
        let answer = Value::Object(event.resource.clone());
        calendar.events.insert(event.id().to_owned(), event);
        Ok(Json(answer).into_response())
    })
}

/// `PATCH …/events/{eventId}`: the body's members replace the event's (`null` clears one).
pub(super) async fn patch(Path((calendar_id, event_id)): Path<(String, String)>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let changes = json_body(&body)?;
        replace(world, &who, &calendar_id, &event_id, |previous| {
            let mut merged = previous.resource.clone();
            for (key, value) in changes {
                merged.insert(key, value);
            }
            merged
        })
    })
}

/// `PUT …/events/{eventId}`: the body is the whole new event.
pub(super) async fn update(Path((calendar_id, event_id)): Path<(String, String)>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        replace(world, &who, &calendar_id, &event_id, |_| body)
    })
}

fn replace(
    world: &mut World,
    who: &Identity,
    calendar_id: &str,
    event_id: &str,
    new_body: impl FnOnce(&Event) -> Map<String, Value>,
) -> Reply {
    let calendar = world.calendar.open_mut(calendar_id, &who.email, Role::Writer)?;
    let previous = calendar.events.get(event_id).filter(|e| !e.cancelled()).ok_or_else(not_found)?;
    let event = build(calendar, who, new_body(previous), Some(previous))?;
    let answer = Value::Object(event.resource.clone());
    calendar.events.insert(event_id.to_owned(), event);
    calendar.updated = Utc::now();
    Ok(Json(answer).into_response())
}

/// `DELETE …/events/{eventId}`: the event stays, `cancelled` (listed with `showDeleted`).
pub(super) async fn delete(Path((calendar_id, event_id)): Path<(String, String)>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Writer)?;
        let event = calendar.events.get_mut(&event_id).ok_or_else(not_found)?;
        if event.cancelled() {
            return Err(ApiError::legacy(410, "deleted", "Resource has been deleted"));
        }
        event.resource.insert("status".into(), json!("cancelled"));
        event.updated = Utc::now();
        event.resource.insert("updated".into(), json!(crate::drive::rfc3339(&event.updated)));
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

impl Store {
    /// Adds an event to a calendar in process (seeding, tests), exactly as `events.insert` builds it.
    pub fn add_event(&mut self, calendar_id: &str, who: &Identity, event: Value) -> Result<String, ApiError> {
        self.ensure_primary(&who.email);
        let body = event.as_object().cloned().unwrap_or_default();
        let calendar = self.open_mut(calendar_id, &who.email, Role::Writer)?;
        let event = build(calendar, who, body, None)?;
        let id = event.id().to_owned();
        calendar.events.insert(id.clone(), event);
        Ok(id)
    }
}
