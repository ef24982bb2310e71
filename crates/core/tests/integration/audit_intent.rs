//! No write reaches Google without an audit record (issue 15): a call that changes something is recorded as
//! pending before it is sent and completed after; a process killed with SIGKILL in between leaves its pending
//! records, which the next store opened over the file appends to the chain as `interrupted`.
//!
//! The kill test is both halves, like `approval_store::acknowledged_writes_survive_kill_9`: the parent runs
//! the Google emulator (so Google's data outlives the child) and starts this test binary again as the child,
//! which writes to the emulator through a real engine and store as fast as it can until it is killed at a
//! random moment; then every cell the emulator holds must have a record in the audit log, which verifies.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::model::{AuditEntry, CallOutcome, DecisionSource, Verdict};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{AuditQuery, AuditVerification, DATABASE_FILE};
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::tools::all_tools;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::{FakeGoogle, Identity};
use serde_json::{Value, json};

const USER: &str = "ada@example.com";
/// Set in the child: `<home>\n<emulator URL>\n<token>\n<spreadsheet id>`.
const CHILD_ENV: &str = "GATEHOUSE_AUDIT_INTENT_CHILD";
const RUNS: usize = 12;
/// Writes under way at once in the child.
const BURST: usize = 6;

/// Every write covered by the administrator's policy, so nobody is asked and the writes come fast.
const ALLOW_WRITES: &str = r#"
[[allow]]
tool = "update_cells"
expires = "2100-01-01T00:00:00Z"
"#;

fn policy() -> Policy {
    let names: Vec<&str> = all_tools().iter().map(|tool| tool.meta.name).collect();
    Policy::parse(ALLOW_WRITES, Path::new("policy.toml"), &names).unwrap()
}

fn this_test() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, module)| module);
    format!("{module}::no_write_reaches_google_without_a_record_when_killed_9_at_random_points")
}

/// The row a write number `n` goes to, and the value it writes: `A{n+1}` = `w{n}`.
fn cell(n: usize) -> (String, String) {
    (format!("A{}", n + 1), format!("w{n}"))
}

#[test]
fn no_write_reaches_google_without_a_record_when_killed_9_at_random_points() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    if let Some(setup) = std::env::var_os(CHILD_ENV) {
        runtime.block_on(write_until_killed(&setup.to_string_lossy()));
        return;
    }
    let mut unrecorded_runs = Vec::new();
    let mut interrupted = 0;
    for run in 0..RUNS {
        let (google, sheet, token) = runtime.block_on(async {
            let google = FakeGoogle::start().await.unwrap();
            let sheet = google.world().create_spreadsheet("Log", &[("Sales", vec![])], &Identity::user(USER));
            let token = google.issue_token(Identity::user(USER));
            (google, sheet, token)
        });
        let home = tempfile::tempdir().unwrap();
        let setup = format!("{}\n{}\n{token}\n{sheet}", home.path().display(), google.url());
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([&this_test(), "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, setup)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // Killed a random while after its first write landed: anywhere in the burst.
        loop {
            let line = lines.next().expect("the child stopped before writing").unwrap();
            if line.contains("wrote ") {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(rand::random_range(0..150)));
        child.kill().unwrap();
        drop(lines);
        let status = child.wait().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(9), "run {run}: the child was not killed midway: {status}");
        }
        #[cfg(not(unix))]
        assert!(!status.success(), "run {run}: the child was not killed midway: {status}");

        let in_google: BTreeSet<String> = google
            .world()
            .sheets
            .values(&sheet, "Sales")
            .into_iter()
            .filter_map(|row| row.first().cloned())
            .filter(|value| !value.is_empty())
            .collect();
        assert!(!in_google.is_empty(), "run {run}: nothing reached Google");
        runtime.block_on(async {
            // Opening the store records what the dead child left pending as interrupted.
            let store = crate::support::open_store(&home.path().join(DATABASE_FILE)).await.unwrap();
            assert!(store.pending_audit().await.unwrap().is_empty(), "run {run}: records left pending");
            let all = AuditQuery { limit: u32::MAX, ..AuditQuery::default() };
            let records = store.list_audit(&all).await.unwrap();
            let recorded: BTreeSet<String> = records
                .iter()
                .filter(|record| record.entry.verdict == Verdict::Allowed)
                .filter_map(|record| record.entry.arguments["data"][0][0].as_str().map(str::to_owned))
                .collect();
            let missing: Vec<&String> = in_google.difference(&recorded).collect();
            if !missing.is_empty() {
                unrecorded_runs.push(format!("run {run}: {missing:?} in Google with no audit record"));
            }
            interrupted += records.iter().filter(|record| record.entry.outcome == CallOutcome::Interrupted).count();
            match store.verify_audit().await.unwrap() {
                AuditVerification::Ok { records: verified } => assert_eq!(verified as usize, records.len()),
                broken => panic!("run {run}: the chain does not verify: {broken}"),
            }
            store.close().await;
        });
    }
    assert!(unrecorded_runs.is_empty(), "{unrecorded_runs:#?}");
    // The kills landed mid-write at least once: what the crash left pending is in the log as interrupted.
    assert!(interrupted > 0, "no run was killed while a write was under way");
}

/// The child: `BURST` tasks writing cells through the engine, each reporting a write once it returned.
async fn write_until_killed(setup: &str) {
    let [home, url, token, sheet] = setup.split('\n').collect::<Vec<_>>()[..] else { panic!("bad setup {setup:?}") };
    let store = crate::support::open_store(&Path::new(home).join(DATABASE_FILE)).await.unwrap();
    let mut config = Config::with_home(Path::new(home));
    // Gatehouse's own cards and grants, on Google's REST APIs: on its MCP servers Google asks about update_cells
    // with its own form at every call (google_mcp.rs and google_forms.rs test that path).
    config.google_backend = gatehouse_core::config::GoogleBackend::Rest;
    config.google_endpoint = Some(url.parse().unwrap());
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token.to_owned(), Some(USER.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store), policy: policy() },
    })
    .unwrap();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks: Vec<_> = (0..BURST)
        .map(|_| {
            let (engine, next, sheet) = (engine.clone(), next.clone(), sheet.to_owned());
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let (range, value) = cell(n);
                    let Value::Object(arguments) =
                        json!({ "spreadsheet_id": sheet, "sheet": "Sales", "range": range, "data": [[value]] })
                    else {
                        unreachable!()
                    };
                    let reply = engine.call("update_cells", Some(arguments)).await.unwrap();
                    assert!(!reply.is_error, "{}", reply.text);
                    println!("wrote {n}");
                }
            })
        })
        .collect();
    // The writers go on until this process is killed, so this waits for ever; one that stops (it panicked) ends
    // the child at once, and the parent's checks find the run short.
    let (stopped, _, _) = futures::future::select_all(tasks).await;
    panic!("a writer stopped before this process was killed: {stopped:?}");
}

/// Unit-level: a pending record is off the chain, completed in place of a second record, and one left by a
/// process that is gone is appended as interrupted when a store is next opened; the chain verifies throughout.
#[tokio::test]
async fn a_pending_record_is_completed_once_or_recorded_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE);
    let store = crate::support::open_store(&path).await.unwrap();
    let entry = AuditEntry {
        time: chrono::Utc::now(),
        agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
        tool: "update_cells".into(),
        arguments: json!({ "range": "A1" }),
        target: None,
        verdict: Verdict::Allowed,
        source: DecisionSource::Policy("allow[0]".into()),
        outcome: CallOutcome::Pending,
        duration_ms: 0,
        answered_via: None,
    };
    let pending = store.begin_audit(&entry).await.unwrap();
    assert_eq!(store.pending_audit().await.unwrap().len(), 1);
    assert!(store.list_audit(&AuditQuery::default()).await.unwrap().is_empty(), "pending is not in the chain");
    // This process runs: a store opened meanwhile leaves its record pending.
    let other = crate::support::open_store(&path).await.unwrap();
    assert_eq!(other.pending_audit().await.unwrap().len(), 1);
    let done = store.complete_audit(pending, AuditEntry { outcome: CallOutcome::Ok, ..entry.clone() }).await.unwrap();
    assert_eq!((done.seq, &done.entry.outcome), (1, &CallOutcome::Ok));
    assert!(store.pending_audit().await.unwrap().is_empty());
    assert_eq!(store.verify_audit().await.unwrap(), AuditVerification::Ok { records: 1 });

    // A record left pending by a process that is gone (a child that has exited, its pid written in).
    store.begin_audit(&entry).await.unwrap();
    let mut gone = Command::new(std::env::current_exe().unwrap()).arg("--list").stdout(Stdio::null()).spawn().unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query("UPDATE audit_pending SET pid = ?1").bind(i64::from(dead_pid)).execute(&pool).await.unwrap();
    pool.close().await;
    let reopened = crate::support::open_store(&path).await.unwrap();
    assert!(reopened.pending_audit().await.unwrap().is_empty());
    let records = reopened.list_audit(&AuditQuery::default()).await.unwrap();
    assert_eq!((records.len(), &records[0].entry.outcome), (2, &CallOutcome::Interrupted));
    assert_eq!(reopened.verify_audit().await.unwrap(), AuditVerification::Ok { records: 2 });
}
