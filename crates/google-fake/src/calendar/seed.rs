//! The sandbox's calendar: the sandbox user's primary calendar (in London time) with a week of events from
//! today on (a weekly sync, a review with attendees, a lunch, an all-day planning day, some free "focus"
//! time), and the colleague's calendar shared with them as free/busy, with a customer call on it.

use chrono::{Datelike, Duration, NaiveDate, Utc};
use serde_json::{Value, json};

use crate::state::{Identity, World};

const ZONE: &str = "Europe/London";

/// `date` at `hour:minute` London time, written with the zone.
fn at(date: NaiveDate, hour: u32, minute: u32) -> Value {
    json!({ "dateTime": format!("{}T{hour:02}:{minute:02}:00", date.format("%Y-%m-%d")), "timeZone": ZONE })
}

fn day(date: NaiveDate) -> Value {
    json!({ "date": date.format("%Y-%m-%d").to_string() })
}

pub(crate) fn sandbox(world: &mut World, me: &Identity, colleague: &Identity) {
    let today = Utc::now().date_naive();
    let in_days = |n: i64| today + Duration::days(n);
    let monday = in_days(7 - i64::from(today.weekday().num_days_from_monday()));
    let calendar = &mut world.calendar;
    calendar.set_primary_time_zone(&me.email, ZONE);
    calendar.set_primary_time_zone(&colleague.email, ZONE);
    let mine = [
        json!({
            "summary": "Weekly team sync",
            "description": "Status round, blockers, next steps.",
            "start": at(monday, 10, 0),
            "end": at(monday, 10, 30),
            "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=8"],
            "attendees": [{ "email": colleague.email }, { "email": "priya.natarajan@gatehouse.example" }],
        }),
        json!({
            "summary": "Budget review",
            "location": "Room 2",
            "description": "Walk through Budget 2026 before the quarter closes.",
            "start": at(in_days(1), 14, 0),
            "end": at(in_days(1), 15, 0),
            "attendees": [{ "email": colleague.email }, { "email": "mei.chen@gatehouse.example" }],
        }),
        json!({ "summary": "Lunch with Alex", "start": at(in_days(2), 12, 30), "end": at(in_days(2), 13, 30) }),
        json!({
            "summary": "Focus time",
            "transparency": "transparent",
            "start": at(in_days(3), 9, 0),
            "end": at(in_days(3), 11, 0),
        }),
        json!({ "summary": "Quarterly planning", "start": day(in_days(5)), "end": day(in_days(6)) }),
    ];
    for event in mine {
        if let Err(error) = calendar.add_event(&me.email, me, event) {
            tracing::warn!(message = %error.message, "a sandbox event was not seeded");
        }
    }
    let call = json!({ "summary": "Customer call", "start": at(in_days(1), 10, 0), "end": at(in_days(1), 11, 0) });
    if let Err(error) = calendar.add_event(&colleague.email, colleague, call) {
        tracing::warn!(message = %error.message, "a sandbox event was not seeded");
    }
    calendar.share(&colleague.email, "user", Some(&me.email), "freeBusyReader");
}
