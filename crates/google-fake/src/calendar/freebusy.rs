//! `freebusy.query`: the busy periods of calendars in a window: every event that isn't cancelled or
//! `transparent` (recurring ones by instance), cut to the window and merged where they touch or overlap,
//! written in the request's `timeZone` (UTC without one). A calendar the caller cannot see is answered
//! with `errors: [{reason: notFound}]`, as at Google.

use axum::Json;
use axum::body::Bytes;
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::events::occurrences;
use super::model::{Role, invalid, required};
use super::time::{render, zone};
use super::{Call, as_caller};
use crate::call::Reply;
use crate::drive::{json_body, str_field};
use crate::errors::ApiError;

fn time(body: &Map<String, Value>, name: &'static str) -> Result<DateTime<Utc>, ApiError> {
    let text = str_field(body, name)?.ok_or_else(|| required(name))?;
    DateTime::parse_from_rfc3339(text).map(|at| at.with_timezone(&Utc)).map_err(|_| invalid("Bad Request").at(name))
}

/// `POST /calendar/v3/freeBusy`.
pub(super) async fn query(call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, _params| {
        let body = json_body(&body)?;
        let (from, to) = (time(&body, "timeMin")?, time(&body, "timeMax")?);
        if to <= from {
            return Err(ApiError::legacy(400, "timeRangeEmpty", "The specified time range is empty.").at("timeMax"));
        }
        let answer_zone = str_field(&body, "timeZone")?.filter(|name| zone(name).is_some()).map(str::to_owned);
        let write = |at: DateTime<Utc>| render(at, answer_zone.as_deref());
        let ids: Vec<String> = body
            .get("items")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|i| i.get("id")?.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let mut calendars = Map::new();
        for id in ids {
            let entry = match world.calendar.open(&id, &who.email, Role::FreeBusyReader) {
                Err(_) => json!({ "busy": [], "errors": [{ "domain": "global", "reason": "notFound" }] }),
                Ok(calendar) => {
                    let mut periods: Vec<(DateTime<Utc>, DateTime<Utc>)> = calendar
                        .events
                        .values()
                        .filter(|event| event.busy())
                        .flat_map(|event| occurrences(calendar, event, from, to))
                        .map(|o| (o.start.max(from), o.end.min(to)))
                        .collect();
                    periods.sort();
                    let mut merged: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
                    for (start, end) in periods {
                        match merged.last_mut() {
                            Some(last) if start <= last.1 => last.1 = last.1.max(end),
                            _ => merged.push((start, end)),
                        }
                    }
                    let busy: Vec<Value> =
                        merged.iter().map(|(s, e)| json!({ "start": write(*s), "end": write(*e) })).collect();
                    json!({ "busy": busy })
                }
            };
            calendars.insert(id, entry);
        }
        let answer = json!({
            "kind": "calendar#freeBusy",
            "timeMin": write(from),
            "timeMax": write(to),
            "calendars": calendars,
        });
        Ok(Json(answer).into_response())
    })
}
