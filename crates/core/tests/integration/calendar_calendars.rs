//! Calendar tools for calendars and the calendar list, against the emulator: what each leaves in Calendar,
//! and the refusals that name what to fix.

use crate::support;

use google_fake::Identity;
use serde_json::json;
use support::{Harness, USER};

const BOB: &str = "bob@example.com";

#[tokio::test]
async fn list_calendars_shows_the_primary_and_created_calendars() {
    let h = Harness::new().await;
    let team = h.google.world().calendar.create_calendar("Team", &h.owner(), "Europe/Paris");
    let out = h.ok("list_calendars", json!({})).await;
    let calendars = out["calendars"].as_array().unwrap();
    assert_eq!(out["count"], 2);
    assert_eq!(calendars[0]["id"], USER);
    assert_eq!(calendars[0]["primary"], true);
    assert_eq!(calendars[0]["access_role"], "owner");
    assert_eq!(calendars[1]["id"], team);
    assert_eq!(calendars[1]["summary"], "Team");
    assert_eq!(calendars[1]["time_zone"], "Europe/Paris");
}

#[tokio::test]
async fn get_calendar_reads_name_and_zone_and_primary_means_ones_own() {
    let h = Harness::new().await;
    h.google.world().calendar.set_primary_time_zone(USER, "America/New_York");
    let out = h.ok("get_calendar", json!({ "calendar_id": "primary" })).await;
    assert_eq!(out["id"], USER);
    assert_eq!(out["time_zone"], "America/New_York");
    let message = h.err("get_calendar", json!({ "calendar_id": "nobody@group.calendar.google.com" })).await;
    assert!(message.contains("Google Calendar could not find it"), "{message}");
    let message = h.err("get_calendar", json!({ "calendar_id": " " })).await;
    assert!(message.contains("calendar_id is empty"), "{message}");
}

#[tokio::test]
async fn create_calendar_makes_an_owned_calendar_on_the_list() {
    let h = Harness::new().await;
    let out = h
        .ok("create_calendar", json!({ "summary": "Trips", "description": "Travel plans", "timezone": "Asia/Tokyo" }))
        .await;
    let id = out["calendar"]["id"].as_str().unwrap().to_owned();
    assert!(id.ends_with("@group.calendar.google.com"), "{id}");
    let world = h.google.world();
    let calendar = world.calendar.calendar_json(&id).expect("created in Calendar");
    assert_eq!(calendar["summary"], "Trips");
    assert_eq!(calendar["description"], "Travel plans");
    assert_eq!(calendar["timeZone"], "Asia/Tokyo");
    assert_eq!(calendar["dataOwner"], USER);
    assert!(world.calendar.list_ids(USER).contains(&id));
}

#[tokio::test]
async fn create_calendar_refuses_an_empty_name_or_an_unknown_zone_before_calling_google() {
    let h = Harness::new().await;
    let message = h.err("create_calendar", json!({ "summary": "  " })).await;
    assert!(message.contains("summary is empty"), "{message}");
    let message = h.err("create_calendar", json!({ "summary": "X", "timezone": "Mars/Olympus" })).await;
    assert!(message.contains("not a time zone name") && message.contains("Europe/Paris"), "{message}");
    assert_eq!(h.google.world().count_requests("/calendar/v3/calendars"), 0);
}

#[tokio::test]
async fn update_calendar_changes_what_is_given_and_the_list_colour() {
    let h = Harness::new().await;
    let id = h.google.world().calendar.create_calendar("Team", &h.owner(), "UTC");
    let out = h
        .ok(
            "update_calendar",
            json!({ "calendar_id": id, "summary": "Team A", "timezone": "Europe/Berlin", "color_id": "7" }),
        )
        .await;
    assert_eq!(out["calendar"]["summary"], "Team A");
    assert_eq!(out["color_id"], "7");
    let world = h.google.world();
    let calendar = world.calendar.calendar_json(&id).unwrap();
    assert_eq!(calendar["summary"], "Team A");
    assert_eq!(calendar["timeZone"], "Europe/Berlin");
    assert!(calendar.get("description").is_none(), "untouched members stay as they were");
    assert_eq!(world.calendar.list_color(USER, &id).as_deref(), Some("7"));
}

#[tokio::test]
async fn update_calendar_refuses_nothing_to_change_and_bad_colours() {
    let h = Harness::new().await;
    let id = h.google.world().calendar.create_calendar("Team", &h.owner(), "UTC");
    let message = h.err("update_calendar", json!({ "calendar_id": id })).await;
    assert!(message.contains("Nothing to change"), "{message}");
    let message = h.err("update_calendar", json!({ "calendar_id": id, "color_id": "99" })).await;
    assert!(message.contains("\"1\" to \"24\""), "{message}");
}

#[tokio::test]
async fn delete_calendar_removes_it_for_everyone_but_never_the_primary() {
    let h = Harness::new().await;
    let id = h.google.world().calendar.create_calendar("Old", &h.owner(), "UTC");
    let out = h.ok("delete_calendar", json!({ "calendar_id": id })).await;
    assert_eq!(out["deleted"], true);
    assert!(h.google.world().calendar.calendar_json(&id).is_none());
    assert!(!h.google.world().calendar.list_ids(USER).contains(&id));
    let message = h.err("delete_calendar", json!({ "calendar_id": "primary" })).await;
    assert!(message.contains("primary calendar cannot be deleted"), "{message}");
}

#[tokio::test]
async fn a_calendar_shared_with_the_account_is_added_to_and_removed_from_its_list() {
    let h = Harness::new().await;
    let bob = Identity::user(BOB);
    let shared = {
        let mut world = h.google.world();
        let id = world.calendar.create_calendar("Bob's shifts", &bob, "UTC");
        world.calendar.share(&id, "user", Some(USER), "reader");
        id
    };
    assert!(!h.google.world().calendar.list_ids(USER).contains(&shared));
    let out = h.ok("add_calendar_to_list", json!({ "calendar_id": shared, "color_id": "3" })).await;
    assert_eq!(out["calendar"]["access_role"], "reader");
    assert!(h.google.world().calendar.list_ids(USER).contains(&shared));
    assert_eq!(h.google.world().calendar.list_color(USER, &shared).as_deref(), Some("3"));

    let out = h.ok("remove_calendar_from_list", json!({ "calendar_id": shared })).await;
    assert_eq!(out["removed"], true);
    let world = h.google.world();
    assert!(!world.calendar.list_ids(USER).contains(&shared));
    assert!(world.calendar.calendar_json(&shared).is_some(), "the calendar itself stays");
}

#[tokio::test]
async fn a_calendar_not_shared_with_the_account_cannot_be_added() {
    let h = Harness::new().await;
    let private = h.google.world().calendar.create_calendar("Private", &Identity::user(BOB), "UTC");
    let message = h.err("add_calendar_to_list", json!({ "calendar_id": private })).await;
    assert!(message.contains("could not find it"), "{message}");
}
