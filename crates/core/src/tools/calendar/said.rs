//! What each Calendar write's approval card says it will do (see [`crate::approval::sentence`]), attached
//! to its declaration in `calendar/mod.rs` with `.worded`.

use super::{calendars, events, sharing};
use crate::approval::sentence::{Said, plural};

pub(super) fn create_calendar(a: &calendars::CreateCalendarArgs) -> Said {
    Said::new("create a new calendar").name(&a.summary)
}

pub(super) fn update_calendar(a: &calendars::UpdateCalendarArgs) -> Said {
    let said = Said::new("change").calendar(&a.calendar_id);
    match &a.summary {
        Some(name) => said.words(": rename it").name(name),
        None => said.words("(its description, time zone or colour)"),
    }
}

pub(super) fn delete_calendar(a: &calendars::CalendarIdArgs) -> Said {
    Said::new("delete").calendar(&a.calendar_id).words("and every event on it")
}

pub(super) fn add_calendar_to_list(a: &calendars::AddCalendarToListArgs) -> Said {
    Said::new("add").calendar(&a.calendar_id).words("to your list of calendars")
}

pub(super) fn remove_calendar_from_list(a: &calendars::CalendarIdArgs) -> Said {
    Said::new("remove").calendar(&a.calendar_id).words("from your list of calendars (it is not deleted)")
}

/// A calendar role in the person's words.
fn role_words(role: &str) -> Said {
    match role {
        "freeBusyReader" => Said::new("see when you are busy"),
        "reader" => Said::new("see every event's details"),
        "writer" => Said::new("change events"),
        "owner" => Said::new("change events and who can see it"),
        other => Said::new("have the role").value(other),
    }
}

pub(super) fn add_calendar_acl(a: &sharing::AddCalendarAclArgs) -> Said {
    let who = match (a.scope_type.as_str(), &a.scope_value) {
        ("default", _) => Said::new("let anyone"),
        ("domain", Some(domain)) => Said::new("let everyone at").value(domain),
        (_, Some(value)) => Said::new("let").value(value),
        (kind, None) => Said::new("let a").value(kind),
    };
    who.words("of").calendar(&a.calendar_id).then(role_words(&a.role))
}

pub(super) fn remove_calendar_acl(a: &sharing::RemoveCalendarAclArgs) -> Said {
    Said::new("take away the access").value(&a.rule_id).words("to").calendar(&a.calendar_id)
}

/// "… and invite 3 people: a, b and c (Google emails them)".
fn invited(said: Said, attendees: Option<&[String]>) -> Said {
    match attendees {
        Some(people) if !people.is_empty() => said
            .words(format!("and invite {}:", plural(people.len(), "person", "people")))
            .list(people, 6)
            .words("(Google emails them)"),
        _ => said,
    }
}

pub(super) fn create_event(a: &events::CreateEventArgs) -> Said {
    let said = Said::new("add the event").name(&a.summary).words("to").calendar(&a.calendar_id);
    let said = said.words("from").value(&a.start).words("to").value(&a.end);
    invited(said, a.attendees.as_deref())
}

pub(super) fn update_event(a: &events::UpdateEventArgs) -> Said {
    let said = Said::new("change an event on").calendar(&a.calendar_id);
    let said = match (&a.start, &a.end) {
        (Some(start), Some(end)) => said.words(": move it to").value(start).words("–").value(end),
        (Some(start), None) => said.words(": move its start to").value(start),
        _ => said,
    };
    let said = match &a.summary {
        Some(name) => said.words(": call it").name(name),
        None => said,
    };
    invited(said, a.attendees.as_deref()).words("(Google tells the people on it)")
}

pub(super) fn delete_event(a: &events::EventIdArgs) -> Said {
    Said::new("cancel an event on").calendar(&a.calendar_id).words("(Google tells the people on it)")
}
