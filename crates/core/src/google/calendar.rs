//! Calendar v3 (`https://www.googleapis.com/calendar/v3/`): the calendar list, calendars, ACL rules,
//! events and free/busy, shaped as `calendar.v3.json` defines them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// Pages any listing here reads at most; the response cap bounds the rest.
const MAX_PAGES: usize = 50;

/// `Calendar`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CalendarResource {
    pub id: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

/// The members of a calendar `calendars.insert` and `calendars.patch` send: only those given.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CalendarChange<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<&'a str>,
}

/// `CalendarListEntry`, with the members Gatehouse reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CalendarListEntry {
    pub id: String,
    pub summary: String,
    pub summary_override: Option<String>,
    pub description: Option<String>,
    pub time_zone: Option<String>,
    pub access_role: String,
    pub primary: bool,
    pub color_id: Option<String>,
    pub background_color: Option<String>,
    pub hidden: bool,
    pub selected: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct CalendarList {
    items: Vec<CalendarListEntry>,
    next_page_token: Option<String>,
}

/// `AclRule.scope`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AclScope {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// `AclRule`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AclRule {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
    pub role: String,
    pub scope: AclScope,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Acl {
    items: Vec<AclRule>,
    next_page_token: Option<String>,
}

/// `EventDateTime`: `date` for all-day events, else `dateTime` (with `timeZone` when the event names one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EventDateTime {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

/// `EventAttendee`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Attendee {
    pub email: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_status: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// `Event.organizer`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Person {
    pub email: Option<String>,
    pub display_name: Option<String>,
}

/// `Event`, with the members Gatehouse reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Event {
    pub id: String,
    pub status: Option<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub location: Option<String>,
    pub start: EventDateTime,
    pub end: EventDateTime,
    pub attendees: Vec<Attendee>,
    /// Google left some attendees out of `attendees` (`attendeesOmitted`): the list is not all of them.
    pub attendees_omitted: bool,
    pub recurrence: Vec<String>,
    pub recurring_event_id: Option<String>,
    pub organizer: Option<Person>,
    pub html_link: Option<String>,
    pub transparency: Option<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
}

/// The members of an event `events.insert` and `events.patch` send: only those given.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventChange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<EventDateTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<EventDateTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attendees: Option<Vec<Attendee>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<Vec<String>>,
}

/// `Events`: one page of a calendar's events.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Events {
    pub summary: Option<String>,
    pub time_zone: Option<String>,
    pub items: Vec<Event>,
    pub next_page_token: Option<String>,
}

/// What `events.list` is asked for.
#[derive(Debug, Clone, Default)]
pub struct ListEvents<'a> {
    pub time_min: Option<&'a str>,
    pub time_max: Option<&'a str>,
    pub q: Option<&'a str>,
    /// Expand recurring events into their instances (and order them by start).
    pub single_events: bool,
    pub max_results: u32,
    pub page_token: Option<&'a str>,
}

/// `TimePeriod`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct TimePeriod {
    pub start: String,
    pub end: String,
}

/// `Error` of a free/busy answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FreeBusyError {
    pub domain: String,
    pub reason: String,
}

/// `FreeBusyCalendar`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FreeBusyCalendar {
    pub busy: Vec<TimePeriod>,
    pub errors: Vec<FreeBusyError>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct FreeBusyResponse {
    calendars: BTreeMap<String, FreeBusyCalendar>,
}

#[derive(Serialize)]
struct FreeBusyItem<'a> {
    id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FreeBusyRequest<'a> {
    time_min: &'a str,
    time_max: &'a str,
    time_zone: &'a str,
    items: Vec<FreeBusyItem<'a>>,
}

/// Calendar's API, borrowed from a client.
pub struct CalendarApi<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn calendar(&self) -> CalendarApi<'_> {
        CalendarApi(self)
    }
}

fn calendar_path(calendar_id: &str) -> String {
    format!("calendars/{}", segment(calendar_id))
}

fn list_entry_path(calendar_id: &str) -> String {
    format!("users/me/calendarList/{}", segment(calendar_id))
}

fn event_path(calendar_id: &str, event_id: &str) -> String {
    format!("calendars/{}/events/{}", segment(calendar_id), segment(event_id))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListEntryChange<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    color_id: Option<&'a str>,
}

impl CalendarApi<'_> {
    /// `calendarList.list`, every page: the calendars on the signed-in person's list.
    pub async fn calendar_list(&self) -> Result<Vec<CalendarListEntry>, GoogleError> {
        let mut entries = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let call = Call::get(Api::Calendar, "users/me/calendarList")
                .query("maxResults", 250)
                .query_opt("pageToken", token.as_deref());
            let page: CalendarList = self.0.json(call).await?;
            entries.extend(page.items);
            match page.next_page_token {
                Some(next) if !next.is_empty() => token = Some(next),
                _ => break,
            }
        }
        Ok(entries)
    }

    /// `calendars.get`.
    pub async fn get(&self, calendar_id: &str) -> Result<CalendarResource, GoogleError> {
        self.0.json(Call::get(Api::Calendar, calendar_path(calendar_id))).await
    }

    /// `calendars.insert`: a new secondary calendar, owned by the signed-in account.
    pub async fn insert(&self, calendar: &CalendarChange<'_>) -> Result<CalendarResource, GoogleError> {
        self.0.json(Call::post(Api::Calendar, "calendars").json(calendar)).await
    }

    /// `calendars.patch`: only the members given change.
    pub async fn patch(&self, calendar_id: &str, change: &CalendarChange<'_>) -> Result<CalendarResource, GoogleError> {
        self.0.json(Call::patch(Api::Calendar, calendar_path(calendar_id)).json(change)).await
    }

    /// `calendars.delete`: a secondary calendar, for everyone.
    pub async fn delete(&self, calendar_id: &str) -> Result<(), GoogleError> {
        self.0.bytes(Call::delete(Api::Calendar, calendar_path(calendar_id))).await.map(drop)
    }

    /// `calendarList.insert`: puts a calendar the account can see on its list.
    pub async fn add_to_list(
        &self,
        calendar_id: &str,
        color_id: Option<&str>,
    ) -> Result<CalendarListEntry, GoogleError> {
        let body = ListEntryChange { id: Some(calendar_id), color_id };
        self.0.json(Call::post(Api::Calendar, "users/me/calendarList").json(&body)).await
    }

    /// `calendarList.patch`: the list entry's colour.
    pub async fn set_list_color(&self, calendar_id: &str, color_id: &str) -> Result<CalendarListEntry, GoogleError> {
        let body = ListEntryChange { id: None, color_id: Some(color_id) };
        self.0.json(Call::patch(Api::Calendar, list_entry_path(calendar_id)).json(&body)).await
    }

    /// `calendarList.delete`: takes a calendar off the list (the calendar itself stays).
    pub async fn remove_from_list(&self, calendar_id: &str) -> Result<(), GoogleError> {
        self.0.bytes(Call::delete(Api::Calendar, list_entry_path(calendar_id))).await.map(drop)
    }

    /// `acl.list`, every page.
    pub async fn acl(&self, calendar_id: &str) -> Result<Vec<AclRule>, GoogleError> {
        let mut rules = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let call = Call::get(Api::Calendar, format!("{}/acl", calendar_path(calendar_id)))
                .query_opt("pageToken", token.as_deref());
            let page: Acl = self.0.json(call).await?;
            rules.extend(page.items);
            match page.next_page_token {
                Some(next) if !next.is_empty() => token = Some(next),
                _ => break,
            }
        }
        Ok(rules)
    }

    /// `acl.insert`.
    pub async fn add_acl(
        &self,
        calendar_id: &str,
        rule: &AclRule,
        send_notifications: bool,
    ) -> Result<AclRule, GoogleError> {
        let call = Call::post(Api::Calendar, format!("{}/acl", calendar_path(calendar_id)))
            .query("sendNotifications", send_notifications)
            .json(rule);
        self.0.json(call).await
    }

    /// `acl.delete`.
    pub async fn remove_acl(&self, calendar_id: &str, rule_id: &str) -> Result<(), GoogleError> {
        let path = format!("{}/acl/{}", calendar_path(calendar_id), segment(rule_id));
        self.0.bytes(Call::delete(Api::Calendar, path)).await.map(drop)
    }

    /// `events.list`: one page.
    pub async fn events(&self, calendar_id: &str, list: &ListEvents<'_>) -> Result<Events, GoogleError> {
        let mut call = Call::get(Api::Calendar, format!("{}/events", calendar_path(calendar_id)))
            .query("maxResults", list.max_results)
            .query("singleEvents", list.single_events)
            .query_opt("timeMin", list.time_min)
            .query_opt("timeMax", list.time_max)
            .query_opt("q", list.q)
            .query_opt("pageToken", list.page_token);
        if list.single_events {
            call = call.query("orderBy", "startTime");
        }
        self.0.json(call).await
    }

    /// `events.get`.
    pub async fn event(&self, calendar_id: &str, event_id: &str) -> Result<Event, GoogleError> {
        self.0.json(Call::get(Api::Calendar, event_path(calendar_id, event_id))).await
    }

    /// `events.insert`, telling attendees (`sendUpdates=all`) as Calendar's own editor does.
    pub async fn insert_event(&self, calendar_id: &str, event: &EventChange) -> Result<Event, GoogleError> {
        let call = Call::post(Api::Calendar, format!("{}/events", calendar_path(calendar_id)))
            .query("sendUpdates", "all")
            .json(event);
        self.0.json(call).await
    }

    /// `events.patch`: only the members given change.
    pub async fn patch_event(
        &self,
        calendar_id: &str,
        event_id: &str,
        change: &EventChange,
    ) -> Result<Event, GoogleError> {
        let call =
            Call::patch(Api::Calendar, event_path(calendar_id, event_id)).query("sendUpdates", "all").json(change);
        self.0.json(call).await
    }

    /// `events.delete`.
    pub async fn delete_event(&self, calendar_id: &str, event_id: &str) -> Result<(), GoogleError> {
        let call = Call::delete(Api::Calendar, event_path(calendar_id, event_id)).query("sendUpdates", "all");
        self.0.bytes(call).await.map(drop)
    }

    /// `freebusy.query`: each calendar's busy periods between `time_min` and `time_max`, written in `zone`.
    pub async fn free_busy(
        &self,
        calendar_ids: &[String],
        time_min: &str,
        time_max: &str,
        zone: &str,
    ) -> Result<BTreeMap<String, FreeBusyCalendar>, GoogleError> {
        let body = FreeBusyRequest {
            time_min,
            time_max,
            time_zone: zone,
            items: calendar_ids.iter().map(|id| FreeBusyItem { id }).collect(),
        };
        let answer: FreeBusyResponse = self.0.json(Call::post_read(Api::Calendar, "freeBusy").json(&body)).await?;
        Ok(answer.calendars)
    }
}
