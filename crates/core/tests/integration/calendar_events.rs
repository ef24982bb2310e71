//! Calendar event tools against the emulator: the events they leave in Calendar, time zones, all-day and
//! recurring events, listing windows and free text, and refusals of times that can't be read.

use crate::support;

use serde_json::{Value, json};
use support::{Harness, USER};

/// Adds an event to the harness user's primary calendar in the emulator; returns its id.
fn seed(h: &Harness, event: Value) -> String {
    h.google.world().calendar.add_event(USER, &h.owner(), event).expect("seed event")
}

fn timed(summary: &str, start: &str, end: &str) -> Value {
    json!({ "summary": summary, "start": { "dateTime": start }, "end": { "dateTime": end } })
}

fn stored(h: &Harness, id: &str) -> Value {
    h.google.world().calendar.event_json(USER, id).expect("event in Calendar")
}

fn summaries(events: &Value) -> Vec<String> {
    events.as_array().unwrap().iter().map(|e| e["summary"].as_str().unwrap_or_default().to_owned()).collect()
}

#[tokio::test]
async fn create_event_writes_a_timed_event_with_its_zone_and_attendees() {
    let h = Harness::new().await;
    let out = h
        .ok(
            "create_event",
            json!({
                "calendar_id": "primary",
                "summary": "Planning",
                "start": "2026-12-01T10:00",
                "end": "2026-12-01T11:30",
                "timezone": "Europe/Paris",
                "location": "Room 4",
                "description": "Q1 plan",
                "attendees": ["bob@example.com", "carol@example.org"],
            }),
        )
        .await;
    let id = out["event"]["id"].as_str().unwrap();
    let event = stored(&h, id);
    assert_eq!(event["summary"], "Planning");
    assert_eq!(event["start"], json!({ "dateTime": "2026-12-01T10:00:00+01:00", "timeZone": "Europe/Paris" }));
    assert_eq!(event["end"]["dateTime"], "2026-12-01T11:30:00+01:00");
    assert_eq!(event["location"], "Room 4");
    assert_eq!(event["description"], "Q1 plan");
    let attendees: Vec<&str> =
        event["attendees"].as_array().unwrap().iter().map(|a| a["email"].as_str().unwrap()).collect();
    assert_eq!(attendees, ["bob@example.com", "carol@example.org"]);
    assert_eq!(out["event"]["start"], "2026-12-01T10:00:00+01:00");
}

#[tokio::test]
async fn create_event_makes_all_day_events_from_dates() {
    let h = Harness::new().await;
    let out = h
        .ok(
            "create_event",
            json!({ "calendar_id": USER, "summary": "Offsite", "start": "2026-12-03", "end": "2026-12-03" }),
        )
        .await;
    let event = stored(&h, out["event"]["id"].as_str().unwrap());
    assert_eq!(event["start"], json!({ "date": "2026-12-03" }));
    assert_eq!(event["end"], json!({ "date": "2026-12-04" }), "one day: Google's end is the day after");
    assert_eq!(out["event"]["all_day"], true);
}

#[tokio::test]
async fn a_recurring_event_repeats_in_the_calendars_zone_when_none_is_given() {
    let h = Harness::new().await;
    h.google.world().calendar.set_primary_time_zone(USER, "America/New_York");
    let out = h
        .ok(
            "create_event",
            json!({
                "calendar_id": "primary",
                "summary": "Standup",
                "start": "2026-12-07T09:00:00-05:00",
                "end": "2026-12-07T09:15:00-05:00",
                "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"],
            }),
        )
        .await;
    let id = out["event"]["id"].as_str().unwrap().to_owned();
    let event = stored(&h, &id);
    assert_eq!(event["recurrence"], json!(["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"]));
    assert_eq!(event["start"]["timeZone"], "America/New_York");

    let listed = h
        .ok(
            "list_events",
            json!({ "calendar_id": "primary", "time_min": "2026-12-01T00:00:00Z", "time_max": "2027-01-31T00:00:00Z" }),
        )
        .await;
    let starts: Vec<&str> = listed["events"].as_array().unwrap().iter().map(|e| e["start"].as_str().unwrap()).collect();
    assert_eq!(starts, ["2026-12-07T09:00:00-05:00", "2026-12-14T09:00:00-05:00", "2026-12-21T09:00:00-05:00"]);
    assert!(listed["events"].as_array().unwrap().iter().all(|e| e["recurring_event_id"] == id.as_str()));

    let series = h
        .ok(
            "list_events",
            json!({ "calendar_id": "primary", "time_min": "2026-12-01T00:00:00Z", "expand_recurring": false }),
        )
        .await;
    assert_eq!(series["count"], 1, "the series once: {series}");
    assert_eq!(series["events"][0]["recurrence"], json!(["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"]));
}

#[tokio::test]
async fn create_event_refuses_times_it_cannot_read_and_says_what_to_write() {
    let h = Harness::new().await;
    let base = json!({ "calendar_id": "primary", "summary": "X" });
    let call = |start: &str, end: &str, extra: Value| {
        let mut args = base.clone();
        args["start"] = json!(start);
        args["end"] = json!(end);
        for (key, value) in extra.as_object().unwrap() {
            args[key] = value.clone();
        }
        args
    };
    let message = h.err("create_event", call("next tuesday", "2026-12-01T11:00:00Z", json!({}))).await;
    assert!(message.contains("start is \"next tuesday\"") && message.contains("RFC 3339"), "{message}");
    let message = h.err("create_event", call("2026-12-01T10:00", "2026-12-01T11:00", json!({}))).await;
    assert!(message.contains("without a time zone") && message.contains("timezone"), "{message}");
    let message = h.err("create_event", call("2026-12-01T10:00:00Z", "2026-12-01T09:00:00Z", json!({}))).await;
    assert!(message.contains("end is not after start"), "{message}");
    let message = h.err("create_event", call("2026-12-01", "2026-12-01T09:00:00Z", json!({}))).await;
    assert!(message.contains("both be dates"), "{message}");
    let message =
        h.err("create_event", call("2026-12-01T10:00", "2026-12-01T11:00", json!({ "timezone": "Paris" }))).await;
    assert!(message.contains("not a time zone name"), "{message}");
    let message = h
        .err("create_event", call("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z", json!({ "attendees": ["bob"] })))
        .await;
    assert!(message.contains("not an email address"), "{message}");
    let message = h
        .err("create_event", call("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z", json!({ "recurrence": ["weekly"] })))
        .await;
    assert!(message.contains("not an iCalendar rule"), "{message}");
    assert!(h.google.world().calendar.live_event_ids(USER).is_empty(), "nothing was created");
}

#[tokio::test]
async fn list_events_filters_by_window_and_text_and_caps_the_count() {
    let h = Harness::new().await;
    seed(&h, timed("Dentist", "2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"));
    seed(&h, timed("Budget review", "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"));
    seed(&h, timed("Lunch", "2026-12-03T12:00:00Z", "2026-12-03T13:00:00Z"));
    seed(&h, timed("Next year", "2027-01-05T12:00:00Z", "2027-01-05T13:00:00Z"));
    let window = json!({ "calendar_id": "primary", "time_min": "2026-12-01T08:30:00Z", "time_max": "2026-12-31" });
    let out = h.ok("list_events", window.clone()).await;
    assert_eq!(summaries(&out["events"]), ["Dentist", "Budget review", "Lunch"], "an event still going counts");
    let mut text = window.clone();
    text["query"] = json!("budget");
    assert_eq!(summaries(&h.ok("list_events", text).await["events"]), ["Budget review"]);
    let mut few = window.clone();
    few["max_results"] = json!(2);
    let out = h.ok("list_events", few).await;
    assert_eq!(out["count"], 2);
    assert_eq!(out["more"], true);
    let mut bad = window;
    bad["max_results"] = json!(0);
    assert!(h.err("list_events", bad).await.contains("from 1 to 2500"));
    let message = h
        .err(
            "list_events",
            json!({ "calendar_id": "primary", "time_min": "2026-12-05T00:00:00Z", "time_max": "2026-12-01" }),
        )
        .await;
    assert!(message.contains("time_max is not after time_min"), "{message}");
}

#[tokio::test]
async fn list_all_events_merges_or_groups_every_calendar_on_the_list() {
    let h = Harness::new().await;
    let team = h.google.world().calendar.create_calendar("Team", &h.owner(), "UTC");
    seed(&h, timed("Mine later", "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"));
    h.google
        .world()
        .calendar
        .add_event(&team, &h.owner(), timed("Team first", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"))
        .unwrap();
    let window = json!({ "time_min": "2026-12-01", "time_max": "2026-12-31" });
    let out = h.ok("list_all_events", window.clone()).await;
    assert_eq!(summaries(&out["events"]), ["Team first", "Mine later"], "one list by start: {out}");
    assert_eq!(out["events"][0]["calendar_id"], team);

    let mut grouped = window.clone();
    grouped["group_by_calendar"] = json!(true);
    let out = h.ok("list_all_events", grouped).await;
    let groups = out["calendars"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[1]["summary"], "Team");
    assert_eq!(summaries(&groups[1]["events"]), ["Team first"]);

    let mut some = window;
    some["calendar_ids"] = json!([team, "missing@group.calendar.google.com"]);
    let out = h.ok("list_all_events", some).await;
    assert_eq!(summaries(&out["events"]), ["Team first"]);
    assert_eq!(out["errors"][0]["calendar_id"], "missing@group.calendar.google.com");
}

#[tokio::test]
async fn get_event_reads_an_event_and_names_a_missing_one() {
    let h = Harness::new().await;
    let id = seed(&h, timed("Dentist", "2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"));
    let out = h.ok("get_event", json!({ "calendar_id": "primary", "event_id": id })).await;
    assert_eq!(out["summary"], "Dentist");
    assert_eq!(out["start"], "2026-12-01T08:00:00Z");
    let message = h.err("get_event", json!({ "calendar_id": "primary", "event_id": "nope" })).await;
    assert!(message.contains("could not find it"), "{message}");
}

#[tokio::test]
async fn update_event_changes_only_what_is_given_and_checks_times_against_the_event() {
    let h = Harness::new().await;
    let id = seed(&h, timed("Dentist", "2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"));
    let out = h
        .ok(
            "update_event",
            json!({ "calendar_id": "primary", "event_id": id, "summary": "Dentist (moved)", "start": "2026-12-01T08:30:00Z" }),
        )
        .await;
    assert_eq!(out["event"]["summary"], "Dentist (moved)");
    let event = stored(&h, &id);
    assert_eq!(event["summary"], "Dentist (moved)");
    assert_eq!(event["start"]["dateTime"], "2026-12-01T08:30:00Z");
    assert_eq!(event["end"]["dateTime"], "2026-12-01T09:00:00Z", "the end is kept");
    assert_eq!(event["sequence"], 1);

    let message = h
        .err("update_event", json!({ "calendar_id": "primary", "event_id": id, "start": "2026-12-01T10:00:00Z" }))
        .await;
    assert!(message.contains("end is not after start"), "{message}");
    let message = h.err("update_event", json!({ "calendar_id": "primary", "event_id": id })).await;
    assert!(message.contains("Nothing to change"), "{message}");

    h.ok("update_event", json!({ "calendar_id": "primary", "event_id": id, "attendees": ["ann@example.com"] })).await;
    assert_eq!(stored(&h, &id)["attendees"][0]["email"], "ann@example.com");
    assert_eq!(stored(&h, &id)["start"]["dateTime"], "2026-12-01T08:30:00Z", "times untouched");
}

#[tokio::test]
async fn delete_event_cancels_it_in_calendar() {
    let h = Harness::new().await;
    let id = seed(&h, timed("Dentist", "2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"));
    let out = h.ok("delete_event", json!({ "calendar_id": "primary", "event_id": id })).await;
    assert_eq!(out["deleted"], true);
    assert_eq!(stored(&h, &id)["status"], "cancelled");
    assert!(h.google.world().calendar.live_event_ids(USER).is_empty());
    let message = h.err("delete_event", json!({ "calendar_id": "primary", "event_id": id })).await;
    assert!(message.contains("Google Calendar"), "{message}");
}
