//! Calendar sharing tools against the emulator (the ACL rules they leave), and how approvals judge Calendar
//! calls: sharing by the recipients' domain, everything else limited to one calendar named on the card.

use crate::support;

use gatehouse_core::approval::evaluator::{offered_constraint, standing_approval};
use gatehouse_core::approval::model::Constraint;
use gatehouse_core::tools::all_tools;
use serde_json::{Value, json};
use support::{Harness, USER};

/// (scope, role) of every rule on the calendar, sorted.
fn rules(h: &Harness, id: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = h
        .google
        .world()
        .calendar
        .acl_json(id)
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["role"].as_str().unwrap().to_owned()))
        .collect();
    out.sort();
    out
}

fn pair(scope: &str, role: &str) -> (String, String) {
    (scope.to_owned(), role.to_owned())
}

#[tokio::test]
async fn add_list_and_remove_sharing_rules() {
    let h = Harness::new().await;
    let team = h.google.world().calendar.create_calendar("Team", &h.owner(), "UTC");
    let out = h
        .ok("add_calendar_acl", json!({ "calendar_id": team, "role": "reader", "scope_value": "bob@example.com" }))
        .await;
    assert_eq!(out["rule"]["id"], "user:bob@example.com");
    h.ok(
        "add_calendar_acl",
        json!({ "calendar_id": team, "role": "freeBusyReader", "scope_type": "domain", "scope_value": "example.org" }),
    )
    .await;
    h.ok(
        "add_calendar_acl",
        json!({ "calendar_id": team, "role": "writer", "scope_value": "bob@example.com", "send_notifications": false }),
    )
    .await;
    assert_eq!(
        rules(&h, &team),
        [
            pair("domain:example.org", "freeBusyReader"),
            pair("user:ada@example.com", "owner"),
            pair("user:bob@example.com", "writer")
        ],
        "a second rule for the same person changes their role"
    );

    let listed = h.ok("list_calendar_acl", json!({ "calendar_id": team })).await;
    let ids: Vec<&str> = listed["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["user:ada@example.com", "user:bob@example.com", "domain:example.org"]);
    assert_eq!(listed["rules"][2]["scope_type"], "domain");

    let out = h.ok("remove_calendar_acl", json!({ "calendar_id": team, "rule_id": "user:bob@example.com" })).await;
    assert_eq!(out["removed"], true);
    assert_eq!(rules(&h, &team), [pair("domain:example.org", "freeBusyReader"), pair("user:ada@example.com", "owner")]);
}

#[tokio::test]
async fn sharing_refuses_unknown_roles_missing_addresses_and_removing_the_owner() {
    let h = Harness::new().await;
    let message = h
        .err("add_calendar_acl", json!({ "calendar_id": "primary", "role": "editor", "scope_value": "b@x.com" }))
        .await;
    assert!(message.contains("role is \"editor\"") && message.contains("writer"), "{message}");
    let message = h.err("add_calendar_acl", json!({ "calendar_id": "primary", "role": "reader" })).await;
    assert!(message.contains("needs scope_value"), "{message}");
    let message = h
        .err("add_calendar_acl", json!({ "calendar_id": "primary", "role": "reader", "scope_type": "everyone" }))
        .await;
    assert!(message.contains("scope_type is \"everyone\""), "{message}");
    assert_eq!(h.google.world().count_requests("/calendar/v3/calendars"), 0, "refused before any Google call");
    let message =
        h.err("remove_calendar_acl", json!({ "calendar_id": "primary", "rule_id": format!("user:{USER}") })).await;
    assert!(message.contains("Google Calendar") || message.contains("may not do this"), "{message}");
    assert_eq!(rules(&h, USER), [pair("user:ada@example.com", "owner")]);
}

#[tokio::test]
async fn public_sharing_makes_the_calendar_readable_to_anyone() {
    let h = Harness::new().await;
    h.ok("add_calendar_acl", json!({ "calendar_id": "primary", "role": "reader", "scope_type": "default" })).await;
    assert!(rules(&h, USER).contains(&pair("default", "reader")));
}

fn tool_evaluators(name: &str) -> Vec<std::sync::Arc<dyn gatehouse_core::approval::evaluator::ArgEvaluator>> {
    all_tools().into_iter().find(|t| t.meta.name == name).unwrap().evaluators().to_vec()
}

fn offered(name: &str, args: Value) -> Option<Constraint> {
    offered_constraint(&tool_evaluators(name), &args).unwrap()
}

#[test]
fn sharing_is_limited_by_the_recipients_domain_and_a_whole_domain_or_everyone_by_nothing() {
    let one = json!({ "calendar_id": "c1", "role": "reader", "scope_value": "bob@Example.com" });
    assert_eq!(
        offered("add_calendar_acl", one),
        Some(Constraint { kind: "email_domain".into(), value: "example.com".into() })
    );
    let domain = json!({ "calendar_id": "c1", "role": "reader", "scope_type": "domain", "scope_value": "example.com" });
    assert_eq!(offered("add_calendar_acl", domain), None);
    let anyone = json!({ "calendar_id": "c1", "role": "reader", "scope_type": "default" });
    assert_eq!(offered("add_calendar_acl", anyone), None);
    let bad = json!({ "calendar_id": "c1", "role": "boss", "scope_value": "bob@example.com" });
    assert!(
        standing_approval(&tool_evaluators("add_calendar_acl"), &bad, None).is_err(),
        "what can't be judged always asks"
    );
}

#[test]
fn event_and_calendar_changes_are_limited_to_their_calendar() {
    let calendar = Some(Constraint { kind: "calendar".into(), value: "team@group.calendar.google.com".into() });
    let args = json!({ "calendar_id": "team@group.calendar.google.com", "summary": "X", "start": "2026-12-01", "end": "2026-12-01" });
    assert_eq!(offered("create_event", args), calendar);
    let args = json!({ "calendar_id": "team@group.calendar.google.com", "event_id": "e1" });
    assert_eq!(offered("delete_event", args.clone()), calendar);
    assert_eq!(offered("update_event", args), calendar);
    let args = json!({ "calendar_id": "team@group.calendar.google.com" });
    assert_eq!(offered("delete_calendar", args), calendar);
    assert!(
        standing_approval(
            &tool_evaluators("create_event"),
            &json!({ "calendar_id": " ", "summary": "X", "start": "a", "end": "b" }),
            None
        )
        .is_err()
    );
}

#[tokio::test]
async fn the_card_names_the_calendar_a_grant_is_limited_to() {
    let h = Harness::new().await;
    let team = h.google.world().calendar.create_calendar("Team", &h.owner(), "UTC");
    let limit = Constraint { kind: "calendar".into(), value: team };
    let words = h.engine.approvals().limit_words(Some(&limit)).await;
    assert!(words.starts_with("only this calendar") && words.ends_with(": “Team”"), "{words}");
    let unknown = Constraint { kind: "calendar".into(), value: "gone@group.calendar.google.com".into() };
    let words = h.engine.approvals().limit_words(Some(&unknown)).await;
    assert!(words.starts_with("only this calendar (gone@g") && !words.contains('“'), "{words}");
}
