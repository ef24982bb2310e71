//! `calendars.get/insert/patch/update/delete` and the caller's calendar list (`calendarList.list/get/
//! insert/patch/delete`). A new calendar is owned by its creator and added to their list; deleting one
//! takes it off every list. A primary calendar cannot be deleted, nor taken off its owner's list.

use axum::Json;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::Utc;
use serde_json::{Map, Value, json};

use super::model::{Calendar, ListEntry, Role, invalid, is_color_id, new_calendar_id, not_found, required};
use super::time::zone;
use super::{Call, as_caller};
use crate::call::Reply;
use crate::drive::{bool_field, json_body, new_page_token, str_field};
use crate::errors::ApiError;

/// `GET /calendar/v3/calendars/{calendarId}`.
pub(super) async fn get(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::FreeBusyReader)?;
        Ok(Json(calendar.json()).into_response())
    })
}

/// `POST /calendar/v3/calendars`.
pub(super) async fn insert(call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let summary =
            str_field(&body, "summary")?.filter(|s| !s.trim().is_empty()).ok_or_else(|| required("summary"))?;
        let time_zone = time_zone(&body)?.unwrap_or("UTC");
        let id = new_calendar_id();
        let mut calendar = Calendar::new(&id, summary, &who.email, time_zone);
        calendar.description = str_field(&body, "description")?.map(str::to_owned);
        let answer = calendar.json();
        world.calendar.calendars.insert(id.clone(), calendar);
        world.calendar.lists.entry(who.email.clone()).or_default().push(ListEntry { id, ..ListEntry::default() });
        Ok(Json(answer).into_response())
    })
}

/// `PATCH /calendar/v3/calendars/{calendarId}`: the members given replace the calendar's.
pub(super) async fn patch(Path(calendar_id): Path<String>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Owner)?;
        change(calendar, &body, false)
    })
}

/// `PUT /calendar/v3/calendars/{calendarId}`: the body is the whole calendar (`summary` required).
pub(super) async fn update(Path(calendar_id): Path<String>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Owner)?;
        change(calendar, &body, true)
    })
}

fn time_zone(body: &Map<String, Value>) -> Result<Option<&str>, ApiError> {
    match str_field(body, "timeZone")? {
        Some(name) if zone(name).is_none() => Err(invalid("Invalid time zone.").at("timeZone")),
        other => Ok(other),
    }
}

fn change(calendar: &mut Calendar, body: &Map<String, Value>, whole: bool) -> Reply {
    let summary = str_field(body, "summary")?;
    match summary {
        Some(summary) if summary.trim().is_empty() => return Err(required("summary")),
        None if whole => return Err(required("summary")),
        Some(summary) => calendar.summary = summary.to_owned(),
        None => {}
    }
    if let Some(time_zone) = time_zone(body)? {
        calendar.time_zone = time_zone.to_owned();
    }
    let description = str_field(body, "description")?;
    if description.is_some() || whole || body.get("description").is_some_and(Value::is_null) {
        calendar.description = description.map(str::to_owned);
    }
    calendar.updated = Utc::now();
    Ok(Json(calendar.json()).into_response())
}

/// `DELETE /calendar/v3/calendars/{calendarId}`.
pub(super) async fn delete(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::Owner)?;
        if calendar.is_primary() {
            return Err(ApiError::legacy(
                400,
                "cannotDeletePrimaryCalendar",
                "The primary calendar cannot be deleted; use calendars.clear to remove its events.",
            ));
        }
        let id = calendar.id.clone();
        world.calendar.calendars.remove(&id);
        for list in world.calendar.lists.values_mut() {
            list.retain(|entry| entry.id != id);
        }
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

/// `GET /calendar/v3/users/me/calendarList`.
pub(super) async fn list_entries(call: Call) -> Reply {
    as_caller(&call, |world, who, params| {
        let min_role = match params.text("minAccessRole") {
            Some(name) => Role::parse(name).ok_or_else(|| invalid("Invalid Value").at("minAccessRole"))?,
            None => Role::FreeBusyReader,
        };
        let show_hidden = params.flag("showHidden")?;
        let size = usize::try_from(params.int("maxResults", 100, 1, 250)?).unwrap_or(100);
        let start = params.page_token::<usize>("offset:")?.unwrap_or(0);
        let store = &world.calendar;
        let entries: Vec<Value> = store
            .lists
            .get(&who.email)
            .into_iter()
            .flatten()
            .filter(|entry| show_hidden || !entry.hidden)
            .filter(|entry| store.calendars.get(&entry.id).is_some_and(|c| c.role_of(&who.email) >= min_role))
            .filter_map(|entry| store.entry_json(entry, &who.email))
            .collect();
        let mut body = json!({
            "kind": "calendar#calendarList",
            "etag": super::model::etag(&format!("{}{}", who.email, entries.len())),
            "items": entries.iter().skip(start).take(size).cloned().collect::<Vec<_>>(),
        });
        if start + size < entries.len() {
            body["nextPageToken"] = json!(new_page_token("offset:", start + size));
        }
        Ok(Json(body).into_response())
    })
}

/// `GET /calendar/v3/users/me/calendarList/{calendarId}`.
pub(super) async fn get_entry(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let id = if calendar_id == "primary" { who.email.clone() } else { calendar_id };
        let store = &world.calendar;
        let entry = store.lists.get(&who.email).and_then(|list| list.iter().find(|e| e.id == id));
        entry
            .and_then(|entry| store.entry_json(entry, &who.email))
            .map(|v| Json(v).into_response())
            .ok_or_else(not_found)
    })
}

/// Reads the list-only members of a `CalendarListEntry` body into `entry`.
fn apply_entry(entry: &mut ListEntry, body: &Map<String, Value>) -> Result<(), ApiError> {
    if let Some(color) = str_field(body, "colorId")? {
        if !is_color_id(color) {
            return Err(invalid("Invalid color id.").at("colorId"));
        }
        entry.color_id = Some(color.to_owned());
    }
    if let Some(hidden) = bool_field(body, "hidden")? {
        entry.hidden = hidden;
    }
    if body.contains_key("summaryOverride") {
        entry.summary_override = str_field(body, "summaryOverride")?.map(str::to_owned);
    }
    Ok(())
}

/// `POST /calendar/v3/users/me/calendarList`: adds a calendar the caller can see to their list.
pub(super) async fn insert_entry(call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let id = str_field(&body, "id")?.ok_or_else(|| required("id"))?.to_owned();
        let id = world.calendar.open(&id, &who.email, Role::FreeBusyReader)?.id.clone();
        let list = world.calendar.lists.entry(who.email.clone()).or_default();
        let position = match list.iter().position(|entry| entry.id == id) {
            Some(position) => position,
            None => {
                list.push(ListEntry { id, ..ListEntry::default() });
                list.len() - 1
            }
        };
        apply_entry(&mut list[position], &body)?;
        let entry = list[position].clone();
        world.calendar.entry_json(&entry, &who.email).map(|v| Json(v).into_response()).ok_or_else(not_found)
    })
}

/// `PATCH /calendar/v3/users/me/calendarList/{calendarId}`.
pub(super) async fn patch_entry(Path(calendar_id): Path<String>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let id = if calendar_id == "primary" { who.email.clone() } else { calendar_id };
        let list = world.calendar.lists.entry(who.email.clone()).or_default();
        let entry = list.iter_mut().find(|entry| entry.id == id).ok_or_else(not_found)?;
        apply_entry(entry, &body)?;
        let entry = entry.clone();
        world.calendar.entry_json(&entry, &who.email).map(|v| Json(v).into_response()).ok_or_else(not_found)
    })
}

/// `DELETE /calendar/v3/users/me/calendarList/{calendarId}`.
pub(super) async fn delete_entry(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let id = if calendar_id == "primary" { who.email.clone() } else { calendar_id };
        if id == who.email {
            return Err(invalid("The primary calendar cannot be removed from the calendar list."));
        }
        let list = world.calendar.lists.entry(who.email.clone()).or_default();
        let before = list.len();
        list.retain(|entry| entry.id != id);
        if list.len() == before {
            return Err(not_found());
        }
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}
