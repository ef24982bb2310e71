//! The Google client's one retry policy, timeouts and error decoding, through real tool calls against
//! the emulator with injected faults.

use crate::support;

use std::time::{Duration, Instant};

use google_fake::Fault;
use serde_json::json;
use support::Harness;

async fn spreadsheet(h: &Harness) -> String {
    h.google.world().create_spreadsheet("Retry", &[("Data", vec![vec![json!("v")]])], &h.owner())
}

fn requests(h: &Harness, method: &str, prefix: &str) -> usize {
    h.google.world().requests.iter().filter(|r| r.method == method && r.path.starts_with(prefix)).count()
}

#[tokio::test]
async fn reads_are_retried_on_server_errors() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::status("/v4/spreadsheets", 503, 2));
    let sheets = h.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    assert_eq!(sheets[0]["title"], "Data");
    assert_eq!(requests(&h, "GET", "/v4/spreadsheets"), 3);
}

#[tokio::test]
async fn reads_give_up_after_the_attempt_bound_with_plain_words() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::status("/v4/spreadsheets", 500, 100));
    let message = h.err("list_sheets", json!({ "spreadsheet_id": id })).await;
    assert!(message.contains("problem on its side") && message.contains("Try again"), "{message}");
    assert_eq!(requests(&h, "GET", "/v4/spreadsheets"), support::quick_retry().max_attempts as usize);
}

#[tokio::test]
async fn writes_are_not_retried_on_server_errors() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::status("/v4/spreadsheets", 503, 1).for_method("PUT"));
    let message =
        h.err("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "data": [["x"]] })).await;
    assert!(message.contains("503"), "{message}");
    assert_eq!(requests(&h, "PUT", "/v4/spreadsheets"), 1, "a 5xx write may have happened: never repeated");
}

#[tokio::test]
async fn rate_limited_writes_are_retried_honouring_retry_after() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::status("/v4/spreadsheets", 429, 1).for_method("PUT").with_retry_after(1));
    let started = Instant::now();
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "data": [["x"]] })).await;
    // The harness caps delays at 50 ms, so Retry-After is honoured up to the policy's cap.
    assert!(started.elapsed() >= Duration::from_millis(40));
    assert_eq!(requests(&h, "PUT", "/v4/spreadsheets"), 2);
    assert_eq!(h.google.world().sheets.values(&id, "Data")[0][0], "x");
}

#[tokio::test]
async fn every_request_has_a_timeout() {
    let h = Harness::with_config(|c| c.request_timeout = Duration::from_millis(300)).await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::delay("/v4/spreadsheets", 2_000, 100));
    let started = Instant::now();
    let message = h.err("list_sheets", json!({ "spreadsheet_id": id })).await;
    assert!(message.contains("did not answer"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(6), "bounded by attempts and total time");
}

#[tokio::test]
async fn google_4xx_is_not_retried_and_names_the_problem() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    let message = h.err("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Nope" })).await;
    assert!(message.contains("Nope"), "{message}");
}

#[tokio::test]
async fn a_400_from_google_is_answered_at_once_not_retried() {
    let h = Harness::new().await;
    let id = spreadsheet(&h).await;
    h.google.inject(Fault::status("/v4/spreadsheets", 400, 100));
    let message = h.err("list_sheets", json!({ "spreadsheet_id": id })).await;
    assert!(message.contains("refused the request as invalid"), "{message}");
    assert_eq!(requests(&h, "GET", "/v4/spreadsheets"), 1, "no retry can fix a bad request");
}

#[tokio::test]
async fn a_403_rate_limit_is_retried_for_reads_and_writes_but_a_daily_limit_is_not() {
    let h = Harness::new().await;
    h.google.inject(Fault::status("/drive/v3/files", 403, 1).with_reason("userRateLimitExceeded"));
    h.ok("list_files", json!({ "folder_id": "root" })).await;
    assert_eq!(
        requests(&h, "GET", "/drive/v3/files"),
        2,
        "a 403 userRateLimitExceeded is a rate limit: waited and retried"
    );

    let posts = requests(&h, "POST", "/drive/v3/files");
    h.google.inject(Fault::status("/drive/v3/files", 403, 1).with_reason("rateLimitExceeded").for_method("POST"));
    h.ok("create_folder", json!({ "name": "After" })).await;
    assert_eq!(requests(&h, "POST", "/drive/v3/files"), posts + 2, "a rate-limited write had no effect: retried");

    let gets = requests(&h, "GET", "/drive/v3/files");
    h.google.inject(Fault::status("/drive/v3/files", 403, 100).with_reason("dailyLimitExceeded"));
    let message = h.err("list_files", json!({ "folder_id": "root" })).await;
    assert!(message.contains("slow down"), "{message}");
    assert_eq!(requests(&h, "GET", "/drive/v3/files"), gets + 1, "a daily limit lasts until tomorrow: not retried");
}
