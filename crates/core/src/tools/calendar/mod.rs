//! Google Calendar tools: the calendar list, calendars and their sharing, events, and free time across
//! calendars.
//!
//! Times are RFC 3339 with an offset, local times with a `timezone`, or dates for all-day events (see
//! [`times`]). A grant can be limited to one calendar (the `calendar` constraint); sharing a calendar is
//! judged by the recipients' domain, as Drive sharing is. An event that invites anyone outside the person's
//! organisation (Google emails each attendee) always asks, whatever grant exists (the `invitees` veto), and
//! so does an update or a delete of an event with anyone outside already on it, since Google emails them the
//! change or the cancellation (the `event_attendees` veto, over the attendees the gate reads first).

mod calendars;
mod events;
mod free_slots;
mod preview;
mod said;
mod sharing;
mod times;

use super::ToolError;
use super::registry::{Cap, Scope, Service, ToolDef, ToolMeta};
use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;

/// The Calendar tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "list_calendars",
                "List calendars",
                "List the calendars on the account's calendar list with their ids, time zones and access roles.",
                Cap::Narrower,
            ),
            calendars::list_calendars,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "get_calendar",
                "Calendar details",
                "Read a calendar's name, description and time zone.",
                Cap::Narrower,
            ),
            calendars::get_calendar,
        ),
        ToolDef::new(
            ToolMeta::write(
                Service::Calendar,
                "create_calendar",
                "Create calendar",
                "Create a new calendar owned by the account and add it to its list.",
                Effect { destructive: false, idempotent: false },
            ),
            calendars::create_calendar,
        )
        .worded(said::create_calendar),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "update_calendar",
                "Change calendar",
                "Change a calendar's name, description or time zone, or its colour in the account's list.",
                Effect { destructive: true, idempotent: true },
            ),
            calendars::update_calendar,
            [Evaluator::calendar(|a: &calendars::UpdateCalendarArgs| &a.calendar_id)],
        )
        .worded(said::update_calendar),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "delete_calendar",
                "Delete calendar",
                "Delete a secondary calendar and all its events, for everyone it is shared with.",
                Effect { destructive: true, idempotent: true },
            ),
            calendars::delete_calendar,
            [Evaluator::calendar(|a: &calendars::CalendarIdArgs| &a.calendar_id)],
        )
        .worded(said::delete_calendar),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "add_calendar_to_list",
                "Add calendar to list",
                "Add a calendar shared with the account to its calendar list.",
                Effect { destructive: false, idempotent: true },
            ),
            calendars::add_calendar_to_list,
            [Evaluator::calendar(|a: &calendars::AddCalendarToListArgs| &a.calendar_id)],
        )
        .worded(said::add_calendar_to_list),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "remove_calendar_from_list",
                "Remove calendar from list",
                "Take a calendar off the account's calendar list; the calendar itself is kept.",
                Effect { destructive: true, idempotent: true },
            ),
            calendars::remove_calendar_from_list,
            [Evaluator::calendar(|a: &calendars::CalendarIdArgs| &a.calendar_id)],
        )
        .worded(said::remove_calendar_from_list),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "list_calendar_acl",
                "Calendar sharing",
                "List who a calendar is shared with: each rule's id, role and scope.",
                Cap::Narrower,
            )
            .with_scope(Scope::CalendarAcl),
            sharing::list_calendar_acl,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "add_calendar_acl",
                "Share calendar",
                "Share a calendar with a person, a group, a domain or everyone, or change the role they have.",
                Effect { destructive: true, idempotent: true },
            ),
            sharing::add_calendar_acl,
            [Evaluator::email_domain(sharing::recipients)],
        )
        .worded(said::add_calendar_acl),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "remove_calendar_acl",
                "Stop sharing calendar",
                "Remove one sharing rule from a calendar.",
                Effect { destructive: true, idempotent: true },
            ),
            sharing::remove_calendar_acl,
            [Evaluator::calendar(|a: &sharing::RemoveCalendarAclArgs| &a.calendar_id)],
        )
        .worded(said::remove_calendar_acl),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "list_events",
                "List events",
                "List a calendar's events in a time window (from now by default), optionally matching free text.",
                Cap::Narrower,
            ),
            events::list_events,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "get_event",
                "Event details",
                "Read one event: times, attendees and their responses, location, description, recurrence.",
                Cap::Narrower,
            ),
            events::get_event,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "create_event",
                "Create event",
                "Create an event (timed or all-day, optionally recurring); attendees get Google's invitation.",
                Effect { destructive: false, idempotent: false },
            ),
            events::create_event,
            [
                Evaluator::calendar(|a: &events::CreateEventArgs| &a.calendar_id),
                Evaluator::invitees(|a: &events::CreateEventArgs| a.attendees.as_deref().unwrap_or_default()),
            ],
        )
        .worded(said::create_event),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "update_event",
                "Change event",
                "Change an event's title, times, place, description, attendees or recurrence; what is not given is kept.",
                Effect { destructive: true, idempotent: true },
            ),
            events::update_event,
            [
                Evaluator::calendar(|a: &events::UpdateEventArgs| &a.calendar_id),
                Evaluator::invitees(|a: &events::UpdateEventArgs| a.attendees.as_deref().unwrap_or_default()),
                Evaluator::event_attendees(|a: &events::UpdateEventArgs| (a.calendar_id.as_str(), a.event_id.as_str())),
            ],
        )
        .worded(said::update_event)
        .previewed(preview::update_event),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Calendar,
                "delete_event",
                "Delete event",
                "Delete an event (a whole series for a recurring one's id); attendees are told.",
                Effect { destructive: true, idempotent: true },
            ),
            events::delete_event,
            [
                Evaluator::calendar(|a: &events::EventIdArgs| &a.calendar_id),
                Evaluator::event_attendees(|a: &events::EventIdArgs| (a.calendar_id.as_str(), a.event_id.as_str())),
            ],
        )
        .worded(said::delete_event),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "find_free_slots",
                "Find free time",
                "Find the times in a window when all the given calendars are free, from their busy periods.",
                Cap::Narrower,
            ),
            free_slots::find_free_slots,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Calendar,
                "list_all_events",
                "List events of all calendars",
                "List events in a time window across calendars (every calendar on the list by default), in one list or grouped.",
                Cap::Narrower,
            ),
            events::list_all_events,
        ),
    ]
}

/// A calendar id argument, trimmed; an error naming what to give when it is empty.
fn calendar_id(id: &str) -> Result<&str, ToolError> {
    let id = id.trim();
    if id.is_empty() {
        return Err(ToolError::invalid(
            "calendar_id is empty: give a calendar's id from list_calendars, or primary for the account's own calendar.",
        ));
    }
    Ok(id)
}

/// A calendar colour id: "1" to "24" (Calendar's `colors.get`, `calendar` palette).
fn color_id(id: &str) -> Result<&str, ToolError> {
    let id = id.trim();
    match id.parse::<u8>() {
        Ok(1..=24) => Ok(id),
        _ => Err(ToolError::invalid(format!(
            "color_id is {id:?}; calendar colours are numbered \"1\" to \"24\" (as Google Calendar's palette)."
        ))),
    }
}
