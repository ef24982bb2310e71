//! `find_free_slots` against the emulator's `freebusy.query`: gaps around busy events of several calendars,
//! what doesn't block time, zones, and calendars that can't be read.

use crate::support;

use google_fake::Identity;
use serde_json::{Value, json};
use support::{Harness, USER};

const BOB: &str = "bob@example.com";

fn timed(summary: &str, start: &str, end: &str) -> Value {
    json!({ "summary": summary, "start": { "dateTime": start }, "end": { "dateTime": end } })
}

fn slots(out: &Value) -> Vec<(String, String)> {
    out["free_slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["start"].as_str().unwrap().to_owned(), s["end"].as_str().unwrap().to_owned()))
        .collect()
}

fn pair(start: &str, end: &str) -> (String, String) {
    (start.to_owned(), end.to_owned())
}

#[tokio::test]
async fn free_slots_are_the_gaps_between_busy_events_of_every_calendar() {
    let h = Harness::new().await;
    let bob = Identity::user(BOB);
    let gone = {
        let mut world = h.google.world();
        let cal = &mut world.calendar;
        cal.add_event(USER, &h.owner(), timed("Standup", "2026-12-01T09:00:00Z", "2026-12-01T09:30:00Z")).unwrap();
        // Overlapping and touching busy periods merge into one.
        cal.add_event(USER, &h.owner(), timed("Review", "2026-12-01T11:00:00Z", "2026-12-01T12:00:00Z")).unwrap();
        cal.add_event(USER, &h.owner(), timed("Lunch", "2026-12-01T11:30:00Z", "2026-12-01T13:00:00Z")).unwrap();
        // Free time and cancelled events block nothing.
        let mut free = timed("Focus (free)", "2026-12-01T14:00:00Z", "2026-12-01T15:00:00Z");
        free["transparency"] = json!("transparent");
        cal.add_event(USER, &h.owner(), free).unwrap();
        let gone = cal.add_event(USER, &h.owner(), timed("Gone", "2026-12-01T15:00:00Z", "2026-12-01T16:00:00Z"));
        // Bob, who shares only his free/busy, is away in the afternoon; an event running past the window is cut.
        cal.add_event(BOB, &bob, timed("Away", "2026-12-01T16:00:00Z", "2026-12-01T19:00:00Z")).unwrap();
        cal.share(BOB, "user", Some(USER), "freeBusyReader");
        gone.unwrap()
    };
    h.ok("delete_event", json!({ "calendar_id": "primary", "event_id": gone })).await;

    let out = h
        .ok(
            "find_free_slots",
            json!({
                "calendar_ids": ["primary", BOB],
                "time_min": "2026-12-01T08:00:00Z",
                "time_max": "2026-12-01T18:00:00Z",
            }),
        )
        .await;
    assert_eq!(
        slots(&out),
        [
            pair("2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"),
            pair("2026-12-01T09:30:00Z", "2026-12-01T11:00:00Z"),
            pair("2026-12-01T13:00:00Z", "2026-12-01T16:00:00Z"),
        ],
        "{out:#}"
    );
    assert_eq!(out["free_slots"][1]["minutes"], 90);
    assert_eq!(out["busy"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn slots_are_written_in_the_zone_asked_for_and_dates_are_days_there() {
    let h = Harness::new().await;
    h.google
        .world()
        .calendar
        .add_event(USER, &h.owner(), timed("Call", "2026-12-01T09:00:00+01:00", "2026-12-01T10:00:00+01:00"))
        .unwrap();
    let out = h
        .ok(
            "find_free_slots",
            json!({ "calendar_ids": ["primary"], "time_min": "2026-12-01", "time_max": "2026-12-02", "timezone": "Europe/Paris" }),
        )
        .await;
    assert_eq!(
        slots(&out),
        [
            pair("2026-12-01T00:00:00+01:00", "2026-12-01T09:00:00+01:00"),
            pair("2026-12-01T10:00:00+01:00", "2026-12-02T00:00:00+01:00"),
        ]
    );
    assert_eq!(out["timezone"], "Europe/Paris");
}

#[tokio::test]
async fn recurring_busy_events_block_each_occurrence() {
    let h = Harness::new().await;
    let mut series = timed("Daily", "2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z");
    series["start"]["timeZone"] = json!("UTC");
    series["recurrence"] = json!(["RRULE:FREQ=DAILY;COUNT=3"]);
    h.google.world().calendar.add_event(USER, &h.owner(), series).unwrap();
    let out = h
        .ok(
            "find_free_slots",
            json!({ "calendar_ids": ["primary"], "time_min": "2026-12-02T08:00:00Z", "time_max": "2026-12-02T12:00:00Z" }),
        )
        .await;
    assert_eq!(
        slots(&out),
        [pair("2026-12-02T08:00:00Z", "2026-12-02T09:00:00Z"), pair("2026-12-02T10:00:00Z", "2026-12-02T12:00:00Z")]
    );
}

#[tokio::test]
async fn a_calendar_that_cannot_be_read_fails_the_call_rather_than_giving_wrong_slots() {
    let h = Harness::new().await;
    h.google.world().calendar.create_calendar("Private", &Identity::user(BOB), "UTC");
    let message = h
        .err(
            "find_free_slots",
            json!({ "calendar_ids": ["primary", BOB], "time_min": "2026-12-01T08:00:00Z", "time_max": "2026-12-01T18:00:00Z" }),
        )
        .await;
    assert!(message.contains(BOB) && message.contains("notFound") && message.contains("free/busy"), "{message}");
}

#[tokio::test]
async fn bad_windows_zones_and_empty_lists_are_refused_before_calling_google() {
    let h = Harness::new().await;
    let base =
        json!({ "calendar_ids": ["primary"], "time_min": "2026-12-01T08:00:00Z", "time_max": "2026-12-01T18:00:00Z" });
    let with = |key: &str, value: Value| {
        let mut args = base.clone();
        args[key] = value;
        args
    };
    assert!(h.err("find_free_slots", with("calendar_ids", json!([]))).await.contains("calendar_ids is empty"));
    assert!(h.err("find_free_slots", with("timezone", json!("CET+1"))).await.contains("not a time zone name"));
    assert!(h.err("find_free_slots", with("time_max", json!("2026-12-01T07:00:00Z"))).await.contains("not after"));
    assert!(h.err("find_free_slots", with("time_min", json!("8am"))).await.contains("time_min is \"8am\""));
    assert_eq!(h.google.world().count_requests("/calendar/v3/freeBusy"), 0);
}
