//! Issue 15, "every bad input answered": arguments are held to sane bounds by kind (ids, names, paths, ranges,
//! addresses; free text much larger) before the approval gate and before Google. An argument over its bound
//! fails at once, naming itself and its limit, quoting no more than the start of its value; no error quotes a
//! long value whole.

use crate::{store_engine, support};

use std::time::{Duration, Instant};

use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::model::Caller;
use google_fake::FakeGoogle;
use serde_json::{Value, json};
use support::Harness;

const MEGABYTE: usize = 1024 * 1024;

#[tokio::test]
async fn a_megabyte_id_fails_at_once_before_google_naming_the_argument_and_its_limit() {
    let h = Harness::new().await;
    let before = h.google.world().requests.len();
    for (tool, args, argument, limit) in [
        ("get_sheet_data", json!({ "spreadsheet_id": "1".repeat(MEGABYTE), "sheet": "S" }), "spreadsheet_id", "1024"),
        ("get_file_metadata", json!({ "file_id": "f".repeat(MEGABYTE) }), "file_id", "1024"),
        ("get_sheet_data", json!({ "spreadsheet_id": "S", "sheet": "n".repeat(MEGABYTE) }), "sheet", "1024"),
        (
            "get_sheet_data",
            json!({ "spreadsheet_id": "S", "sheet": "S", "local_path": "p".repeat(MEGABYTE) }),
            "local_path",
            "8192",
        ),
    ] {
        let started = Instant::now();
        let message = h.err(tool, args).await;
        assert!(started.elapsed() < Duration::from_secs(1), "{tool}: took {:?}", started.elapsed());
        assert!(message.contains(&format!("`{argument}` is {MEGABYTE} characters long")), "{tool}: {message}");
        assert!(message.contains(&format!("over the {limit} characters")), "{tool}: {message}");
        assert!(message.len() < 500, "{tool}: the message is {} characters", message.len());
    }
    assert_eq!(h.google.world().requests.len(), before, "no request reached Google");
}

#[tokio::test]
async fn no_error_quotes_a_long_value_whole() {
    let h = Harness::new().await;
    // Free text may be long, so this string passes the bounds; the tool's parsing then refuses it, and its
    // error quotes only the start.
    let message = h.err("list_files", json!({ "folder_id": "root", "max_results": "9".repeat(2 * MEGABYTE) })).await;
    assert!(message.contains("max_results"), "{message}");
    assert!(message.len() < 500, "the message is {} characters", message.len());
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are an object"),
    }
}

#[tokio::test]
async fn a_megabyte_recipient_list_is_an_error_not_an_approval_card() {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let (engine, _store) = store_engine::engine_over_store(&google, home.path(), support::USER, |_| {}).await;
    let meta = CallMeta {
        caller: Caller {
            agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
            interactive: true,
        },
        ..CallMeta::default()
    };
    let args = json!({ "to": format!("{}@example.com", "a".repeat(MEGABYTE)), "subject": "Hi", "body": "Hello" });
    let reply = tokio::time::timeout(Duration::from_secs(5), engine.call_as(&meta, "send_message", Some(object(args))))
        .await
        .expect("answered at once, not left waiting on a card")
        .unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("`to` is") && reply.text.contains("65536 characters"), "{}", reply.text);
    assert!(reply.text.len() < 500);
    assert!(engine.approvals().broker().pending().is_empty(), "nobody was asked");
    assert_eq!(google.world().count_requests("/gmail"), 0);
}
