//! The *Permissions* page's commands on Tauri's mock runtime, with the app's real capabilities and a running
//! engine over a real approvals database: grants listed in words and revoked, never-allow rules added, listed
//! and removed, each change obeyed by the engine's very next call, and every command refused outside the
//! settings window.

use crate::settings_pages;

use gatehouse_core::approval::Permit;
use gatehouse_core::approval::model::DecisionSource;
use gatehouse_desktop::settings::permissions::NO_STORE;
use serde_json::{Value, json};
use settings_pages::{NORMAL, Setup, assert_refused_by_acl, error_text, invoke, page};

/// Each command with arguments it would accept.
fn commands() -> [(&'static str, Value); 4] {
    [
        ("permissions_list", json!({})),
        ("permissions_revoke", json!({ "id": "0" })),
        ("permissions_never_add", json!({ "tool": "update_cells", "days": 1 })),
        ("permissions_never_remove", json!({ "id": "0" })),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_are_listed_in_words_and_a_revoke_stops_them_covering_calls_at_once() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let old = page.grant(None, None, 30).await;
    page.store().revoke_grant(&old.id, chrono::Utc::now()).await.expect("revoked");
    let grant = page.grant(Some("claude"), Some("S1"), 7).await;

    // Covered before the revoke, and the use is counted.
    assert_eq!(
        page.decide("claude", "S1", "A1").await,
        Some(Permit::Run { source: DecisionSource::Grant(grant.id.clone()) })
    );

    let listed = invoke(&settings, "permissions_list", json!({})).expect("the settings window may list");
    assert_eq!(listed["unavailable"], Value::Null);
    let grants = listed["grants"].as_array().expect("grants");
    assert_eq!(grants.len(), 2, "{listed}");
    let row = &grants[0];
    assert_eq!(row["id"], json!(grant.id), "newest first");
    assert_eq!(row["tool"], "update_cells");
    assert_eq!(row["tool_title"], "Update cells");
    assert_eq!(row["scope"], "only an assistant that says it is “claude” (not a registered one)");
    assert!(row["limit"].as_str().expect("limit").contains("S1"), "{row}");
    assert_eq!(row["owner"], "ada@example.com");
    assert_eq!((row["state"].as_str(), row["active"].as_bool()), (Some("active"), Some(true)));
    assert_eq!(row["use_count"], 1);
    assert!(row["uses"].as_str().expect("uses").starts_with("1, last "), "{row}");
    assert!(row["last_used"].is_string() && row["expires"].is_string(), "{row}");
    assert_eq!(grants[1]["scope"], "any assistant");
    assert_eq!(grants[1]["limit"], "any arguments");
    assert_eq!(grants[1]["active"], false);
    assert!(grants[1]["state"].as_str().expect("state").starts_with("revoked "), "{}", grants[1]);
    // The never-allow form offers the tools that ask (writes), not the reads.
    let tools: Vec<&str> =
        listed["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"update_cells") && !tools.contains(&"list_sheets"), "{tools:?}");
    assert_eq!(listed["assistants"], json!(["claude"]));

    let revoked = invoke(&settings, "permissions_revoke", json!({ "id": grant.id })).expect("revoked");
    assert_eq!(revoked["changed"], true);
    assert!(revoked["message"].as_str().expect("message").starts_with("Revoked: Update cells"), "{revoked}");
    assert_eq!(revoked["row"]["active"], false);

    // The running engine no longer lets it cover a call: the next one shows a card.
    assert_eq!(page.decide("claude", "S1", "B2").await, None, "the revoked grant must not cover the call");

    let again = invoke(&settings, "permissions_revoke", json!({ "id": grant.id })).expect("a second revoke answers");
    assert_eq!(again["changed"], false);
    assert!(again["message"].as_str().expect("message").contains("was already revoked"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn revoking_an_unknown_or_empty_id_says_so_in_words() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let unknown = error_text(invoke(&settings, "permissions_revoke", json!({ "id": "no-such-grant" })));
    assert!(unknown.starts_with("There is no standing approval no-such-grant."), "{unknown}");
    let empty = error_text(invoke(&settings, "permissions_revoke", json!({ "id": "  " })));
    assert!(empty.contains("no id was given"), "{empty}");
    let unknown = error_text(invoke(&settings, "permissions_never_remove", json!({ "id": "nope" })));
    assert!(unknown.starts_with("There is no never-allow rule nope."), "{unknown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn never_allow_rules_are_added_listed_and_removed_and_the_engine_obeys_each_at_once() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    assert_eq!(invoke(&settings, "permissions_list", json!({})).expect("listed")["rules"], json!([]));

    let added =
        invoke(&settings, "permissions_never_add", json!({ "tool": "update_cells", "agent": " claude ", "days": 7 }))
            .expect("the rule is added");
    let id = added["id"].as_str().expect("id").to_owned();
    assert_eq!(added["scope"], "only the assistant “claude”");
    assert_eq!(added["limit"], "any arguments");
    assert_eq!(added["account"], "ada@example.com");
    assert_eq!((added["state"].as_str(), added["active"].as_bool()), (Some("active"), Some(true)));

    // Refused at once for claude, without a card; another assistant is still asked.
    assert_eq!(
        page.decide("claude", "S1", "A1").await.map(|permit| match permit {
            Permit::Refuse { source, .. } => source,
            Permit::Run { source } => panic!("ran: {source}"),
        }),
        Some(DecisionSource::Deny(id.clone()))
    );
    assert_eq!(page.decide("cursor", "S1", "A2").await, None, "another assistant's call asks");

    let any = invoke(&settings, "permissions_never_add", json!({ "tool": "delete_file", "agent": null, "days": 365 }))
        .expect("a rule for any assistant");
    assert_eq!(any["scope"], "any assistant");
    let listed = invoke(&settings, "permissions_list", json!({})).expect("listed");
    let ids: Vec<&str> = listed["rules"].as_array().expect("rules").iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, [any["id"].as_str().expect("id"), id.as_str()], "newest first");

    let removed = invoke(&settings, "permissions_never_remove", json!({ "id": id })).expect("removed");
    assert_eq!((removed["changed"].as_bool(), removed["row"]["active"].as_bool()), (Some(true), Some(false)));
    assert!(removed["message"].as_str().expect("message").contains("asked about again"), "{removed}");
    assert_eq!(page.decide("claude", "S1", "A3").await, None, "the removed rule refuses nothing: the card shows");
    let again = invoke(&settings, "permissions_never_remove", json!({ "id": id })).expect("answers");
    assert_eq!(again["changed"], false);
    assert!(again["message"].as_str().expect("message").contains("was already removed"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_never_allow_rule_that_cannot_be_kept_is_refused_in_words() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let add = |body: Value| error_text(invoke(&settings, "permissions_never_add", body));
    let unknown = add(json!({ "tool": "frobnicate", "days": 7 }));
    assert_eq!(unknown, "There is no tool “frobnicate” in Gatehouse. Choose one from the list.");
    let read = add(json!({ "tool": "list_sheets", "days": 7 }));
    assert!(read.contains("only reads"), "{read}");
    let days = add(json!({ "tool": "update_cells", "days": 0 }));
    assert!(days.contains("from 1 to 3650 days, not 0"), "{days}");
    let long = add(json!({ "tool": "update_cells", "days": 4000 }));
    assert!(long.contains("not 4000"), "{long}");
    assert_eq!(page.store().list_never_allow().await.expect("rules"), [], "nothing was saved");

    let signed_out = settings_pages::page(Setup { store: true, signed_in: false }).await;
    let text = error_text(invoke(
        &signed_out.window("settings"),
        "permissions_never_add",
        json!({ "tool": "update_cells", "days": 7 }),
    ));
    assert!(text.starts_with("Nobody is signed in to Google") && text.contains("Account page"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_approvals_database_the_page_says_so() {
    let page = page(Setup { store: false, signed_in: true }).await;
    let settings = page.window("settings");
    let listed = invoke(&settings, "permissions_list", json!({})).expect("listed");
    assert_eq!(listed["unavailable"], NO_STORE);
    assert_eq!((listed["grants"].clone(), listed["rules"].clone()), (json!([]), json!([])));
    assert_eq!(error_text(invoke(&settings, "permissions_revoke", json!({ "id": "x" }))), NO_STORE);
    assert_eq!(error_text(invoke(&settings, "permissions_never_remove", json!({ "id": "x" }))), NO_STORE);
    let add = invoke(&settings, "permissions_never_add", json!({ "tool": "update_cells", "days": 7 }));
    assert_eq!(error_text(add), NO_STORE);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_permissions_command_is_refused_outside_the_settings_window() {
    let page = page(NORMAL).await;
    let grant = page.grant(None, None, 7).await;
    for (command, body) in commands() {
        for label in ["card", "main"] {
            assert_refused_by_acl(&page, label, command, body.clone());
        }
    }
    // Nothing was revoked by the refused calls, and the card's commands stay the card's.
    assert_eq!(page.store().get_grant(&grant.id).await.expect("grant").expect("kept").revoked, None);
    assert_refused_by_acl(&page, "settings", "card_pending", json!({}));
    assert_refused_by_acl(&page, "settings", "card_answer", json!({ "id": 1, "answer": "AllowOnce" }));
}
