//! Calendar v3 (`https://www.googleapis.com/calendar/v3/`): the caller's calendar list, calendars, their
//! ACLs, events and `freebusy.query`, with Calendar's legacy error bodies (`errors[{domain, reason}]`).
//!
//! Access follows Calendar: a calendar's owner, else the best ACL rule that names the caller, their domain
//! or everyone (`default`). A calendar the caller has no role on is "Not Found"; one they see but may not
//! change is "Forbidden". `primary` is the caller's own calendar, whose id is their address.
//!
//! Known leniencies: `fields` is not applied (every answer is whole), `events.list`'s `timeZone` names the
//! answer's zone but event times stay in their calendar's, sync tokens and watch channels are not served,
//! colours are only the calendar palette's ids. Known strictness: see [`recur`] and [`events`].

mod acl;
mod calendars;
mod events;
mod freebusy;
mod model;
mod recur;
mod seed;
mod time;

use axum::Router;
use axum::routing::{get, post};

pub use model::Store;
pub(crate) use seed::sandbox as seed_sandbox;

use crate::Shared;
use crate::drive::Params;
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// A Calendar request: its query read as Drive reads it (the same dialect), its errors in the legacy shape.
type Call = crate::call::Call<Params>;

/// Runs a handler as the request's caller (see [`crate::call::Call::run`]), whose primary calendar exists
/// from their first request on.
fn as_caller<T>(
    call: &Call,
    handler: impl FnOnce(&mut World, Identity, &Params) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    call.run(|world, who, params| {
        world.calendar.ensure_primary(&who.email);
        handler(world, who, params)
    })
}

impl Store {
    /// Creates a calendar owned by `owner` in process (seeding, tests), on their list; returns its id.
    pub fn create_calendar(&mut self, summary: &str, owner: &Identity, time_zone: &str) -> String {
        self.insert_calendar(&model::new_calendar_id(), summary, owner, time_zone)
    }

    /// [`Store::create_calendar`] with an id of the caller's choosing (fixtures that name it in advance).
    pub fn insert_calendar(&mut self, id: &str, summary: &str, owner: &Identity, time_zone: &str) -> String {
        self.ensure_primary(&owner.email);
        self.calendars.insert(id.to_owned(), model::Calendar::new(id, summary, &owner.email, time_zone));
        self.lists
            .entry(owner.email.clone())
            .or_default()
            .push(model::ListEntry { id: id.to_owned(), ..Default::default() });
        id.to_owned()
    }

    /// Adds (or changes) an ACL rule in process (seeding, tests); an unknown role or calendar is ignored.
    pub fn share(&mut self, calendar_id: &str, scope_type: &str, value: Option<&str>, role: &str) {
        let (Some(calendar), Some(role)) = (self.calendars.get_mut(calendar_id), model::Role::parse(role)) else {
            return;
        };
        let rule = model::AclRule { role, scope_type: scope_type.to_owned(), scope_value: value.map(str::to_owned) };
        match calendar.acl.iter_mut().find(|existing| existing.id() == rule.id()) {
            Some(existing) => *existing = rule,
            None => calendar.acl.push(rule),
        }
    }

    /// Sets the time zone of `email`'s primary calendar (seeding, tests).
    pub fn set_primary_time_zone(&mut self, email: &str, time_zone: &str) {
        self.ensure_primary(email);
        if let Some(calendar) = self.calendars.get_mut(email) {
            calendar.time_zone = time_zone.to_owned();
        }
    }

    /// The ids of the calendars on `email`'s list, in order (tests).
    pub fn list_ids(&self, email: &str) -> Vec<String> {
        self.lists.get(email).map(|list| list.iter().map(|entry| entry.id.clone()).collect()).unwrap_or_default()
    }

    /// A calendar's `Calendar` resource, whoever asks (tests).
    pub fn calendar_json(&self, id: &str) -> Option<serde_json::Value> {
        self.calendars.get(id).map(model::Calendar::json)
    }

    /// A calendar's ACL rules as `AclRule` resources (tests).
    pub fn acl_json(&self, id: &str) -> Vec<serde_json::Value> {
        self.calendars.get(id).map(|c| c.acl.iter().map(model::AclRule::json).collect()).unwrap_or_default()
    }

    /// A stored event's `Event` resource (tests); a deleted one has `status: cancelled`.
    pub fn event_json(&self, calendar_id: &str, event_id: &str) -> Option<serde_json::Value> {
        let event = self.calendars.get(calendar_id)?.events.get(event_id)?;
        Some(serde_json::Value::Object(event.resource.clone()))
    }

    /// The ids of a calendar's events that are not cancelled (tests).
    pub fn live_event_ids(&self, calendar_id: &str) -> Vec<String> {
        self.calendars
            .get(calendar_id)
            .map(|c| c.events.values().filter(|e| !e.cancelled()).map(|e| e.id().to_owned()).collect())
            .unwrap_or_default()
    }

    /// The `colorId` of a calendar on `email`'s list (tests).
    pub fn list_color(&self, email: &str, calendar_id: &str) -> Option<String> {
        self.lists.get(email)?.iter().find(|entry| entry.id == calendar_id)?.color_id.clone()
    }
}

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/calendar/v3/users/me/calendarList", get(calendars::list_entries).post(calendars::insert_entry))
        .route(
            "/calendar/v3/users/me/calendarList/{calendarId}",
            get(calendars::get_entry).patch(calendars::patch_entry).delete(calendars::delete_entry),
        )
        .route("/calendar/v3/calendars", post(calendars::insert))
        .route(
            "/calendar/v3/calendars/{calendarId}",
            get(calendars::get).patch(calendars::patch).put(calendars::update).delete(calendars::delete),
        )
        .route("/calendar/v3/calendars/{calendarId}/acl", get(acl::list).post(acl::insert))
        .route("/calendar/v3/calendars/{calendarId}/acl/{ruleId}", get(acl::get).delete(acl::delete))
        .route("/calendar/v3/calendars/{calendarId}/events", get(events::list).post(events::insert))
        .route(
            "/calendar/v3/calendars/{calendarId}/events/{eventId}",
            get(events::get).patch(events::patch).put(events::update).delete(events::delete),
        )
        .route("/calendar/v3/freeBusy", post(freebusy::query))
}
