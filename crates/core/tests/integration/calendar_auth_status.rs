//! `server://auth-status` for the Calendar tools: a sign-in without Calendar's scope lists them, in plain
//! words with the scope to grant; a read-only grant keeps the reads; and the scopes a sign-in asks for
//! follow the enabled Calendar tools.

use gatehouse_core::auth::identity::AuthMethod;
use gatehouse_core::auth::status::auth_status;
use gatehouse_core::tools::{ToolDef, all_tools, scopes};
use serde_json::Value;

const USER: &str = "ada@example.com";

fn granted(scopes: &[&str]) -> Vec<String> {
    scopes.iter().map(|s| format!("https://www.googleapis.com/auth/{s}")).collect()
}

fn missing_entry(status: &Value) -> &Value {
    status["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["category"] == "missing_scopes")
        .expect("missing_scopes")
}

fn listed(entry: &Value) -> Vec<&str> {
    entry["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect()
}

fn calendar_tools() -> Vec<ToolDef> {
    all_tools().into_iter().filter(|t| t.meta.service.label() == "Calendar").collect()
}

#[test]
fn a_sign_in_without_calendar_lists_every_calendar_tool_and_says_what_to_grant() {
    let scopes = granted(&["drive", "spreadsheets", "documents", "drive.activity.readonly", "gmail.modify"]);
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&scopes), &all_tools());
    let entry = missing_entry(&status);
    let names: Vec<String> = calendar_tools().iter().map(|t| t.meta.name.to_owned()).collect();
    assert_eq!(listed(entry), names, "exactly the Calendar tools");
    assert_eq!(names.len(), 17);
    let reason = entry["reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "This credential was not granted access to Google Calendar (https://www.googleapis.com/auth/calendar), so Google refuses these tools."
    );
    assert!(entry["alternatives"][0].as_str().unwrap().contains("sign in again from the Gatehouse app"));
}

#[test]
fn read_only_calendar_keeps_the_reads_but_not_the_sharing_rules() {
    let scopes = granted(&["calendar.readonly"]);
    let tools = calendar_tools();
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&scopes), &tools);
    let entry = missing_entry(&status);
    let failing = listed(entry);
    for read in ["list_calendars", "list_events", "get_event", "find_free_slots", "list_all_events"] {
        assert!(!failing.contains(&read), "{read} works with calendar.readonly: {failing:?}");
    }
    for tool in ["create_event", "add_calendar_acl", "list_calendar_acl"] {
        assert!(failing.contains(&tool), "{tool} needs more: {failing:?}");
    }

    // Only reads enabled: what is missing is the sharing rules' own read scope, in words.
    let reads: Vec<ToolDef> = tools.into_iter().filter(|t| t.meta.is_read_only()).collect();
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&scopes), &reads);
    let entry = missing_entry(&status);
    assert_eq!(listed(entry), ["list_calendar_acl"]);
    assert!(entry["reason"].as_str().unwrap().contains("Google Calendar sharing"), "{entry}");
    assert_eq!(
        scopes::missing(&reads, &scopes),
        ["https://www.googleapis.com/auth/calendar.acls.readonly"],
        "signing in again asks for just that"
    );
}

#[test]
fn the_sign_in_asks_for_calendar_read_only_when_only_calendar_reads_are_enabled() {
    let reads: Vec<ToolDef> =
        calendar_tools().into_iter().filter(|t| t.meta.is_read_only() && t.meta.name != "list_calendar_acl").collect();
    assert_eq!(scopes::needed(&reads), ["https://www.googleapis.com/auth/calendar.readonly"]);
    assert_eq!(scopes::needed(&calendar_tools()), ["https://www.googleapis.com/auth/calendar"]);
}
