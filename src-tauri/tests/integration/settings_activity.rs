//! The *Activity* page's commands on Tauri's mock runtime, with the app's real capabilities and a running
//! engine over a real approvals database: the log newest first, a page at a time, each filter, who decided in
//! words, revoking the grant behind a record (and the engine obeying it at once), the chain's check, and
//! every command refused outside the settings window.

use crate::settings_pages;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::Permit;
use gatehouse_core::approval::model::{AuditEntry, CallOutcome, DecisionSource, Verdict};
use gatehouse_desktop::settings::activity::PAGE;
use gatehouse_desktop::settings::permissions::NO_STORE;
use serde_json::{Value, json};
use settings_pages::{NORMAL, Page, Setup, assert_refused_by_acl, error_text, invoke, page, page_on};

/// Appends a record of a call, as the engine does after deciding and running it.
async fn record(page: &Page, agent: Option<&str>, tool: &str, target: &str, source: DecisionSource, verdict: Verdict) {
    let outcome = match verdict {
        Verdict::Allowed => CallOutcome::Ok,
        Verdict::Denied => CallOutcome::Refused,
    };
    let entry = AuditEntry {
        time: Utc::now() - TimeDelta::minutes(5),
        agent: agent.map(gatehouse_core::approval::model::Agent::self_reported),
        tool: tool.into(),
        arguments: json!({ "spreadsheet_id": target, "api_key": "[redacted]" }),
        target: Some(target.into()),
        verdict,
        source,
        outcome,
        duration_ms: 12,
        answered_via: None,
    };
    page.store().append_audit(entry).await.expect("the record is appended");
}

fn seqs(listed: &Value) -> Vec<i64> {
    listed["rows"].as_array().expect("rows").iter().map(|row| row["seq"].as_i64().expect("seq")).collect()
}

fn list(page: &Page, filter: Value) -> Value {
    invoke(&page.window("settings"), "activity_list", json!({ "filter": filter }))
        .expect("the settings window may list")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_is_listed_newest_first_with_who_decided_in_words_and_each_filter_narrows_it() {
    let page = page(NORMAL).await;
    let grant = page.grant(Some("claude"), Some("S1"), 7).await;
    record(&page, Some("claude"), "update_cells", "Budget", DecisionSource::Person, Verdict::Allowed).await; // 1
    record(&page, Some("claude"), "update_cells", "Budget", DecisionSource::Grant(grant.id.clone()), Verdict::Allowed)
        .await; // 2
    record(&page, Some("cursor"), "delete_file", "Old notes", DecisionSource::Timeout, Verdict::Denied).await; // 3
    record(&page, None, "list_sheets", "Budget", DecisionSource::NotGated, Verdict::Allowed).await; // 4
    record(&page, Some("cursor"), "delete_file", "Plans", DecisionSource::Deny("deny[0]".into()), Verdict::Denied)
        .await; // 5
    record(&page, Some("bot"), "update_cells", "Plans", DecisionSource::Unattended, Verdict::Denied).await; // 6

    let all = list(&page, json!({}));
    assert_eq!(all["unavailable"], Value::Null);
    assert_eq!(seqs(&all), [6, 5, 4, 3, 2, 1], "newest first");
    assert_eq!(all["older"], Value::Null, "one page holds them all");
    let rows = all["rows"].as_array().expect("rows");
    let by_seq = |seq: i64| rows.iter().find(|row| row["seq"] == seq).expect("row");
    assert_eq!(by_seq(1)["decided_by"], "you, on the approval card");
    assert_eq!(by_seq(2)["decided_by"], format!("your standing approval {}", &grant.id[..8]));
    assert_eq!(by_seq(3)["decided_by"], "nobody answered the approval card in time");
    assert_eq!(by_seq(4)["decided_by"], "no approval needed (it only reads)");
    assert!(by_seq(5)["decided_by"].as_str().expect("words").contains("administrator's policy"), "{}", by_seq(5));
    assert!(by_seq(6)["decided_by"].as_str().expect("words").contains("unattended"), "{}", by_seq(6));
    assert_eq!((by_seq(1)["verdict"].as_str(), by_seq(3)["verdict"].as_str()), (Some("allowed"), Some("denied")));
    assert_eq!(by_seq(2)["tool_title"], "Update cells");
    assert_eq!(by_seq(4)["agent"], Value::Null);
    assert!(by_seq(1)["arguments"].as_str().expect("arguments").contains("[redacted]"));
    // The grant behind record 2, still active: the row offers to revoke it. No other row has one.
    assert_eq!(by_seq(2)["grant"]["id"], json!(grant.id));
    assert_eq!(by_seq(2)["grant"]["active"], true);
    assert!(
        by_seq(2)["grant"]["words"]
            .as_str()
            .expect("words")
            .starts_with("only an assistant that says it is “claude” (not a registered one), ")
    );
    assert_eq!(rows.iter().filter(|row| !row["grant"].is_null()).count(), 1);

    assert_eq!(seqs(&list(&page, json!({ "tool": "delete_file" }))), [5, 3]);
    assert_eq!(seqs(&list(&page, json!({ "agent": "claude" }))), [2, 1]);
    assert_eq!(seqs(&list(&page, json!({ "verdict": "denied" }))), [6, 5, 3]);
    assert_eq!(seqs(&list(&page, json!({ "verdict": "allowed", "agent": "claude" }))), [2, 1]);
    assert_eq!(seqs(&list(&page, json!({ "source": "grant" }))), [2]);
    assert_eq!(seqs(&list(&page, json!({ "source": "deny" }))), [5]);
    assert_eq!(seqs(&list(&page, json!({ "source": "person" }))), [1]);
    assert_eq!(seqs(&list(&page, json!({ "text": "PLANS" }))), [6, 5], "any case");
    assert_eq!(seqs(&list(&page, json!({ "text": "old notes", "tool": "delete_file" }))), [3]);
    assert_eq!(
        seqs(&list(&page, json!({ "tool": "", "agent": " ", "text": "" }))),
        [6, 5, 4, 3, 2, 1],
        "empty = no filter"
    );
    assert_eq!(seqs(&list(&page, json!({ "text": "nowhere" }))), Vec::<i64>::new());

    // A never-allow rule of the person's is told apart from the administrator's deny rules.
    let added = invoke(&page.window("settings"), "permissions_never_add", json!({ "tool": "delete_file", "days": 1 }))
        .expect("rule");
    let id = added["id"].as_str().expect("id").to_owned();
    record(&page, Some("cursor"), "delete_file", "Plans", DecisionSource::Deny(id.clone()), Verdict::Denied).await;
    let newest = &list(&page, json!({ "source": "deny" }))["rows"][0];
    assert_eq!(newest["decided_by"], format!("your never-allow rule {}", &id[..8]));
}

/// A record's target reads by name, as on the card and in Permissions: each spreadsheet is looked up once per
/// listing, through the core; one whose name can't be found (or that names no file) shows as recorded.
#[tokio::test(flavor = "multi_thread")]
async fn targets_show_by_name_looked_up_once_per_listing() {
    let google = google_fake::FakeGoogle::start_sandbox().await.expect("the emulator starts");
    let token = google.issue_token(google_fake::Identity::user(google_fake::SANDBOX_EMAIL));
    let page = page_on(NORMAL, Some((&google.url(), &token))).await;
    let found =
        page.engine.call("search_spreadsheets", serde_json::from_value(json!({ "query": "Budget 2026" })).ok()).await;
    let found: Value = serde_json::from_str(&found.expect("search").text).expect("JSON");
    let files = found.get("files").or_else(|| found.get("spreadsheets")).cloned().unwrap_or(found.clone());
    let budget = files.as_array().and_then(|files| files.first()).and_then(|file| file["id"].as_str());
    let budget = budget.unwrap_or_else(|| panic!("Budget 2026's id in {found}")).to_owned();
    let spreadsheet = format!("spreadsheet {budget}");
    for _ in 0..3 {
        record(&page, Some("claude"), "update_cells", &spreadsheet, DecisionSource::Person, Verdict::Allowed).await;
    }
    record(&page, Some("claude"), "update_cells", "spreadsheet gone-0000", DecisionSource::Person, Verdict::Allowed)
        .await;
    record(&page, Some("claude"), "share_file", "domain example.com", DecisionSource::Person, Verdict::Allowed).await;
    let asked_before = google.world().count_requests(&format!("/drive/v3/files/{budget}"));

    // The records made here (the search above is in the log too).
    let listed = list(&page, json!({ "source": "person" }));
    let rows = listed["rows"].as_array().expect("rows");
    let words: Vec<&str> =
        rows.iter().map(|row| row["target_words"].as_str().unwrap_or_else(|| panic!("{row}"))).collect();
    assert_eq!(
        words,
        [
            "domain example.com",
            "spreadsheet gone-0000",
            "spreadsheet “Budget 2026”",
            "spreadsheet “Budget 2026”",
            "spreadsheet “Budget 2026”"
        ]
    );
    assert_eq!(rows[2]["target"], json!(spreadsheet), "the recorded target stays, for the details");
    let asked = google.world().count_requests(&format!("/drive/v3/files/{budget}")) - asked_before;
    assert_eq!(asked, 1, "one lookup for three records of the same spreadsheet");
}

#[tokio::test(flavor = "multi_thread")]
async fn long_logs_come_a_page_at_a_time() {
    let page = page(NORMAL).await;
    let total = i64::from(PAGE) + 5;
    for n in 0..total {
        let tool = if n % 2 == 0 { "update_cells" } else { "delete_file" };
        record(&page, Some("claude"), tool, "Budget", DecisionSource::Person, Verdict::Allowed).await;
    }
    let first = list(&page, json!({}));
    let first_seqs = seqs(&first);
    assert_eq!(first_seqs.len(), PAGE as usize);
    assert_eq!((first_seqs[0], first_seqs[PAGE as usize - 1]), (total, 6));
    assert_eq!(first["older"], 6);
    let settings = page.window("settings");
    let second = invoke(&settings, "activity_list", json!({ "filter": {}, "before": 6 })).expect("older");
    assert_eq!(seqs(&second), [5, 4, 3, 2, 1]);
    assert_eq!(second["older"], Value::Null);
    // Paging keeps the filter: update_cells are the odd records.
    let filtered = invoke(&settings, "activity_list", json!({ "filter": { "tool": "update_cells" }, "before": 6 }))
        .expect("older, filtered");
    assert_eq!(seqs(&filtered), [5, 3, 1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_grant_behind_a_record_is_revoked_from_it_and_covers_no_further_call() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let grant = page.grant(Some("claude"), Some("S1"), 7).await;
    let covered = page.decide("claude", "S1", "A1").await;
    assert_eq!(covered, Some(Permit::Run { source: DecisionSource::Grant(grant.id.clone()) }));
    record(&page, Some("claude"), "update_cells", "S1", DecisionSource::Grant(grant.id.clone()), Verdict::Allowed)
        .await;
    record(&page, Some("claude"), "update_cells", "S2", DecisionSource::Person, Verdict::Allowed).await;

    let revoked = invoke(&settings, "activity_revoke_grant", json!({ "seq": 1 })).expect("revoked from the record");
    assert_eq!((revoked["changed"].as_bool(), revoked["row"]["id"].as_str()), (Some(true), Some(grant.id.as_str())));
    assert_eq!(page.decide("claude", "S1", "B1").await, None, "the next call shows a card");
    let row = &list(&page, json!({ "source": "grant" }))["rows"][0];
    assert_eq!(row["grant"]["active"], false, "the row no longer offers to revoke it: {row}");

    let again = invoke(&settings, "activity_revoke_grant", json!({ "seq": 1 })).expect("answers");
    assert_eq!(again["changed"], false);
    let person = error_text(invoke(&settings, "activity_revoke_grant", json!({ "seq": 2 })));
    assert!(person.contains("was not allowed by a standing approval"), "{person}");
    let missing = error_text(invoke(&settings, "activity_revoke_grant", json!({ "seq": 99 })));
    assert_eq!(missing, "There is no activity record number 99. Look at the list again.");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_chain_check_is_one_plain_line() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let empty = invoke(&settings, "activity_verify", json!({})).expect("checked");
    assert_eq!(empty["intact"], true);
    for _ in 0..3 {
        record(&page, Some("claude"), "update_cells", "S1", DecisionSource::Person, Verdict::Allowed).await;
    }
    let checked = invoke(&settings, "activity_verify", json!({})).expect("checked");
    assert_eq!(checked["intact"], true);
    let message = checked["message"].as_str().expect("message");
    assert!(message.starts_with("The audit log is intact: 3 records.") && !message.contains('\n'), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_filter_is_refused_in_words() {
    let page = page(NORMAL).await;
    let settings = page.window("settings");
    let verdict = error_text(invoke(&settings, "activity_list", json!({ "filter": { "verdict": "maybe" } })));
    assert_eq!(verdict, "The decision filter is wrong: “maybe” is not a decision: choose allowed or denied.");
    let source = error_text(invoke(&settings, "activity_list", json!({ "filter": { "source": "magic" } })));
    assert!(source.starts_with("The “decided by” filter is wrong: “magic” is not a kind of decision"), "{source}");
    let before = error_text(invoke(&settings, "activity_list", json!({ "before": 0 })));
    assert!(before.contains("the log starts at record 1"), "{before}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_approvals_database_the_page_says_so() {
    let page = page(Setup { store: false, signed_in: true }).await;
    let settings = page.window("settings");
    let listed = invoke(&settings, "activity_list", json!({})).expect("listed");
    assert_eq!((listed["unavailable"].as_str(), listed["rows"].clone()), (Some(NO_STORE), json!([])));
    assert_eq!(error_text(invoke(&settings, "activity_verify", json!({}))), NO_STORE);
    assert_eq!(error_text(invoke(&settings, "activity_revoke_grant", json!({ "seq": 1 }))), NO_STORE);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_activity_command_is_refused_outside_the_settings_window() {
    let page = page(NORMAL).await;
    let grant = page.grant(None, None, 7).await;
    record(&page, Some("claude"), "update_cells", "S1", DecisionSource::Grant(grant.id.clone()), Verdict::Allowed)
        .await;
    for label in ["card", "main"] {
        assert_refused_by_acl(&page, label, "activity_list", json!({}));
        assert_refused_by_acl(&page, label, "activity_verify", json!({}));
        assert_refused_by_acl(&page, label, "activity_revoke_grant", json!({ "seq": 1 }));
    }
    assert_eq!(page.store().get_grant(&grant.id).await.expect("grant").expect("kept").revoked, None);
    assert_refused_by_acl(&page, "settings", "card_answer", json!({ "id": 1, "answer": "Deny" }));
}
