//! What Calendar keeps: calendars with their ACL and events, and each person's calendar list.
//!
//! A person's primary calendar has their email address as its id and exists from their first request on,
//! as at Google (every account has one); other calendars are made by `calendars.insert`.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::time::When;
use crate::errors::ApiError;

/// An access role, weakest first (`CalendarListEntry.accessRole`, `AclRule.role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Role {
    None,
    FreeBusyReader,
    Reader,
    Writer,
    Owner,
}

impl Role {
    pub(crate) fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "none" => Role::None,
            "freeBusyReader" => Role::FreeBusyReader,
            "reader" => Role::Reader,
            "writer" => Role::Writer,
            "owner" => Role::Owner,
            _ => return None,
        })
    }

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Role::None => "none",
            Role::FreeBusyReader => "freeBusyReader",
            Role::Reader => "reader",
            Role::Writer => "writer",
            Role::Owner => "owner",
        }
    }
}

/// One ACL rule: who (`scope`) gets which role.
#[derive(Debug, Clone)]
pub(crate) struct AclRule {
    pub(crate) role: Role,
    /// `default`, `user`, `group` or `domain`.
    pub(crate) scope_type: String,
    /// The address or domain; `None` for `default`.
    pub(crate) scope_value: Option<String>,
}

impl AclRule {
    /// Google's rule id: `user:ann@example.com`, `domain:example.com`, `default`.
    pub(crate) fn id(&self) -> String {
        match &self.scope_value {
            Some(value) => format!("{}:{value}", self.scope_type),
            None => self.scope_type.clone(),
        }
    }

    pub(crate) fn json(&self) -> Value {
        let mut scope = json!({ "type": self.scope_type });
        if let Some(value) = &self.scope_value {
            scope["value"] = json!(value);
        }
        json!({
            "kind": "calendar#aclRule",
            "etag": etag(&format!("{}{}", self.id(), self.role.name())),
            "id": self.id(),
            "scope": scope,
            "role": self.role.name(),
        })
    }

    /// The role this rule gives `email`, if it applies to them.
    fn role_for(&self, email: &str) -> Option<Role> {
        let value = self.scope_value.as_deref().unwrap_or_default();
        let applies = match self.scope_type.as_str() {
            "default" => true,
            "user" | "group" => value.eq_ignore_ascii_case(email),
            "domain" => email.rsplit_once('@').is_some_and(|(_, domain)| domain.eq_ignore_ascii_case(value)),
            _ => false,
        };
        applies.then_some(self.role)
    }
}

/// A stored event: the `Event` resource as Calendar answers it, and its times read once.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) resource: Map<String, Value>,
    pub(crate) start: When,
    pub(crate) end: When,
    pub(crate) updated: DateTime<Utc>,
}

impl Event {
    pub(crate) fn id(&self) -> &str {
        self.resource.get("id").and_then(Value::as_str).unwrap_or_default()
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.resource.get("status").and_then(Value::as_str) == Some("cancelled")
    }

    /// The `RRULE` lines of `recurrence`, if the event repeats.
    pub(crate) fn recurrence(&self) -> Vec<String> {
        self.resource
            .get("recurrence")
            .and_then(Value::as_array)
            .map(|lines| lines.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// Whether it blocks time in free/busy (`transparency` other than `transparent`).
    pub(crate) fn busy(&self) -> bool {
        self.resource.get("transparency").and_then(Value::as_str) != Some("transparent") && !self.cancelled()
    }

    /// Whether the free-text query `q` matches its summary, description, location or attendees.
    pub(crate) fn matches(&self, q: &str) -> bool {
        let q = q.to_lowercase();
        let text = |key: &str| self.resource.get(key).and_then(Value::as_str).unwrap_or_default().to_lowercase();
        ["summary", "description", "location"].iter().any(|key| text(key).contains(&q))
            || self.resource.get("attendees").and_then(Value::as_array).is_some_and(|attendees| {
                attendees.iter().any(|a| {
                    ["email", "displayName"]
                        .iter()
                        .any(|key| a.get(key).and_then(Value::as_str).is_some_and(|v| v.to_lowercase().contains(&q)))
                })
            })
    }
}

/// One calendar.
#[derive(Debug, Clone)]
pub(crate) struct Calendar {
    pub(crate) id: String,
    pub(crate) summary: String,
    pub(crate) description: Option<String>,
    pub(crate) time_zone: String,
    /// The address of the person who owns it.
    pub(crate) owner: String,
    pub(crate) acl: Vec<AclRule>,
    pub(crate) events: BTreeMap<String, Event>,
    pub(crate) updated: DateTime<Utc>,
}

impl Calendar {
    pub(crate) fn new(id: &str, summary: &str, owner: &str, time_zone: &str) -> Self {
        let owner_rule =
            AclRule { role: Role::Owner, scope_type: "user".to_owned(), scope_value: Some(owner.to_owned()) };
        Self {
            id: id.to_owned(),
            summary: summary.to_owned(),
            description: None,
            time_zone: time_zone.to_owned(),
            owner: owner.to_owned(),
            acl: vec![owner_rule],
            events: BTreeMap::new(),
            updated: Utc::now(),
        }
    }

    /// The best role `email` has: owner for the owner, else the best ACL rule that applies.
    pub(crate) fn role_of(&self, email: &str) -> Role {
        if self.owner.eq_ignore_ascii_case(email) {
            return Role::Owner;
        }
        self.acl.iter().filter_map(|rule| rule.role_for(email)).max().unwrap_or(Role::None)
    }

    /// Whether it is somebody's primary calendar (its id is its owner's address).
    pub(crate) fn is_primary(&self) -> bool {
        self.id == self.owner
    }

    /// The `Calendar` resource.
    pub(crate) fn json(&self) -> Value {
        let mut value = json!({
            "kind": "calendar#calendar",
            "etag": etag(&format!("{}{}", self.id, self.updated.timestamp_micros())),
            "id": self.id,
            "summary": self.summary,
            "timeZone": self.time_zone,
            "dataOwner": self.owner,
        });
        if let Some(description) = &self.description {
            value["description"] = json!(description);
        }
        value
    }
}

/// One entry of a person's calendar list: the calendar, and how they show it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ListEntry {
    pub(crate) id: String,
    pub(crate) color_id: Option<String>,
    pub(crate) hidden: bool,
    pub(crate) summary_override: Option<String>,
}

/// Everything Calendar knows.
#[derive(Debug, Default)]
pub struct Store {
    pub(crate) calendars: BTreeMap<String, Calendar>,
    /// Each person's calendar list, by address, in the order the calendars were added.
    pub(crate) lists: HashMap<String, Vec<ListEntry>>,
}

impl Store {
    /// Makes sure `email` has their primary calendar, in their list: every Google account has one.
    pub(crate) fn ensure_primary(&mut self, email: &str) {
        if !self.calendars.contains_key(email) {
            self.calendars.insert(email.to_owned(), Calendar::new(email, email, email, "UTC"));
        }
        let list = self.lists.entry(email.to_owned()).or_default();
        if !list.iter().any(|entry| entry.id == email) {
            list.insert(0, ListEntry { id: email.to_owned(), ..ListEntry::default() });
        }
    }

    /// The calendar `id` (`primary` is the caller's own) as `email` may see it with at least `at_least`;
    /// Calendar's 404 when it doesn't exist or they may not see it, its 403 when they may see but not act.
    pub(crate) fn open(&self, id: &str, email: &str, at_least: Role) -> Result<&Calendar, ApiError> {
        let id = if id == "primary" { email } else { id };
        let calendar = self.calendars.get(id).ok_or_else(not_found)?;
        let role = calendar.role_of(email);
        if role == Role::None {
            return Err(not_found());
        }
        if role < at_least {
            return Err(forbidden());
        }
        Ok(calendar)
    }

    /// [`Store::open`], for a change.
    pub(crate) fn open_mut(&mut self, id: &str, email: &str, at_least: Role) -> Result<&mut Calendar, ApiError> {
        let id = self.open(id, email, at_least)?.id.clone();
        self.calendars.get_mut(&id).ok_or_else(not_found)
    }

    /// The `CalendarListEntry` of `entry` for `email`.
    pub(crate) fn entry_json(&self, entry: &ListEntry, email: &str) -> Option<Value> {
        let calendar = self.calendars.get(&entry.id)?;
        let mut value = calendar.json();
        value["kind"] = json!("calendar#calendarListEntry");
        value["accessRole"] = json!(calendar.role_of(email).name());
        value["defaultReminders"] = json!([]);
        let color = entry.color_id.clone().unwrap_or_else(|| "14".to_owned());
        value["backgroundColor"] = json!(background_color(&color));
        value["foregroundColor"] = json!("#000000");
        value["colorId"] = json!(color);
        value["selected"] = json!(!entry.hidden);
        if entry.hidden {
            value["hidden"] = json!(true);
        }
        if calendar.is_primary() && calendar.owner == email {
            value["primary"] = json!(true);
        }
        if let Some(summary) = &entry.summary_override {
            value["summaryOverride"] = json!(summary);
        }
        Some(value)
    }
}

/// Calendar's 404.
pub(crate) fn not_found() -> ApiError {
    ApiError::legacy(404, "notFound", "Not Found")
}

/// Calendar's 403 for a calendar the caller sees but may not change.
pub(crate) fn forbidden() -> ApiError {
    ApiError::legacy(403, "forbidden", "Forbidden")
}

/// Calendar's 400 for an invalid value.
pub(crate) fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::legacy(400, "invalid", message)
}

/// Calendar's 400 for a missing field.
pub(crate) fn required(field: &'static str) -> ApiError {
    ApiError::legacy(400, "required", "Required").at(field)
}

/// A new secondary calendar's id, as Calendar makes them (`…@group.calendar.google.com`).
pub(crate) fn new_calendar_id() -> String {
    let local: String = crate::World::new_id(26).to_lowercase().replace(['_', '-'], "0");
    format!("{local}@group.calendar.google.com")
}

/// An etag as Calendar writes them: a quoted number.
pub(crate) fn etag(seed: &str) -> String {
    format!("\"{}\"", crate::drive::fnv(seed) % 10_000_000_000_000_000)
}

/// The calendar palette's background colours (`colors.get`, `calendar`), ids 1 to 24.
const PALETTE: [&str; 24] = [
    "#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692", "#16a765", "#7bd148", "#b3dc6c",
    "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7", "#9a9cff", "#b99aff", "#c2c2c2", "#cabdbf",
    "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2",
];

/// Whether `id` is a colour id of the calendar palette.
pub(crate) fn is_color_id(id: &str) -> bool {
    id.parse::<usize>().is_ok_and(|n| (1..=PALETTE.len()).contains(&n))
}

fn background_color(id: &str) -> &'static str {
    id.parse::<usize>().ok().and_then(|n| PALETTE.get(n.wrapping_sub(1))).copied().unwrap_or(PALETTE[13])
}
