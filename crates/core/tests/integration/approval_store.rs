//! The approvals store against real SQLite files: grants and their index, settings, the audit chain and
//! how tampering with it is named, concurrent appends, and a writer killed with SIGKILL mid-stream.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chrono::{DateTime, TimeZone, Utc};
use gatehouse_core::approval::model::{AuditEntry, CallOutcome, Constraint, DecisionSource, Grant, Owner, Verdict};
use gatehouse_core::approval::store::{
    AuditQuery, AuditRecord, AuditVerification, ChainBreak, GENESIS, Store, StoreError, record_hash,
};
use serde_json::json;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000 + seconds, 123_456_789).unwrap()
}

fn grant(id: &str, tool: &str, created: i64) -> Grant {
    Grant {
        id: id.into(),
        owner: Owner::User("ada@example.com".into()),
        tool: tool.into(),
        agent: Some(gatehouse_core::approval::model::Agent::registered("claude-desktop")),
        constraint: Some(Constraint { kind: "spreadsheet".into(), value: "1AbC".into() }),
        target_name: None,
        unattended: false,
        created: at(created),
        expires: Some(at(created + 86_400)),
        revoked: None,
        last_used: None,
        use_count: 0,
        fingerprint: format!("fp-{tool}"),
    }
}

fn entry(i: u64) -> AuditEntry {
    AuditEntry {
        time: at(i as i64),
        agent: if i.is_multiple_of(3) {
            None
        } else {
            Some(gatehouse_core::approval::model::Agent { name: format!("agent-{}", i % 2), self_reported: i % 4 == 1 })
        },
        tool: if i.is_multiple_of(2) { "update_cells".into() } else { "delete_file".into() },
        arguments: json!({"spreadsheetId": "1AbC", "range": format!("A{i}"), "values": [[i, "x"]], "opts": {"z": 1, "a": null}}),
        target: Some("Budget 2026".into()),
        verdict: if i.is_multiple_of(5) { Verdict::Denied } else { Verdict::Allowed },
        source: if i.is_multiple_of(5) {
            DecisionSource::Deny("policy-1".into())
        } else {
            DecisionSource::Grant(format!("g{i}"))
        },
        outcome: match i % 5 {
            0 => CallOutcome::Refused,
            1 => CallOutcome::Error("quota exceeded".into()),
            _ => CallOutcome::Ok,
        },
        duration_ms: i * 7,
        answered_via: None,
    }
}

fn ids(grants: &[std::sync::Arc<Grant>]) -> Vec<&str> {
    grants.iter().map(|grant| grant.id.as_str()).collect()
}

fn db_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("home").join("gatehouse.db")
}

/// A connection that bypasses the store, as someone editing the file would.
async fn raw(path: &Path) -> SqliteConnection {
    SqliteConnectOptions::new().filename(path).connect().await.unwrap()
}

#[tokio::test]
async fn grants_round_trip_and_the_index_follows_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let store = crate::support::open_store(&path).await.unwrap();
    assert!(store.candidates("update_cells").is_empty());
    assert!(store.list_grants().await.unwrap().is_empty());

    let g1 = grant("g1", "update_cells", 0);
    // Platform grants come only from the policy file: the store refuses to keep one (issue 15, item 2).
    let platform = Grant { owner: Owner::Platform, ..grant("p1", "delete_file", 10) };
    let error = store.insert_grant(&platform).await.unwrap_err();
    assert!(matches!(error, StoreError::RefusedGrant { ref id, .. } if id == "p1"), "{error}");
    let mut g2 = grant("g2", "delete_file", 10);
    g2.agent = None;
    g2.constraint = None;
    g2.unattended = true;
    // A grant for a client that only said its name, naming its target as the card did, reads back as such.
    let mut g3 = grant("g3", "update_cells", 20);
    g3.agent = Some(gatehouse_core::approval::model::Agent::self_reported("claude-desktop"));
    g3.target_name = Some("Budget 2026".into());
    for g in [&g1, &g2, &g3] {
        store.insert_grant(g).await.unwrap();
    }
    assert_eq!(ids(&store.candidates("update_cells")), ["g1", "g3"]);
    assert_eq!(store.candidates("delete_file").as_ref(), [std::sync::Arc::new(g2.clone())]);
    assert!(store.candidates("other").is_empty());
    assert_eq!(store.list_grants().await.unwrap(), [g3.clone(), g2.clone(), g1.clone()]);
    assert_eq!(store.get_grant("g1").await.unwrap(), Some(g1.clone()));
    assert_eq!(store.get_grant("nope").await.unwrap(), None);

    // A second grant with the same id is refused, and nothing changes.
    let error = store.insert_grant(&grant("g1", "delete_file", 30)).await.unwrap_err();
    assert!(matches!(error, StoreError::DuplicateGrant { ref id, .. } if id == "g1"), "{error}");
    assert!(error.to_string().contains("g1") && error.to_string().contains(&path.display().to_string()));
    assert_eq!(ids(&store.candidates("delete_file")), ["g2"]);

    // A use is counted in the database and in the index.
    assert!(store.record_use("g1", at(100)).await.unwrap());
    assert!(store.record_use("g1", at(200)).await.unwrap());
    assert!(!store.record_use("nope", at(200)).await.unwrap());
    let used = store.get_grant("g1").await.unwrap().unwrap();
    assert_eq!((used.use_count, used.last_used), (2, Some(at(200))));
    assert_eq!(*store.candidates("update_cells")[0], used);

    // A revoke takes it out of the index at once; revoking twice, or what doesn't exist, reports false.
    assert!(store.revoke_grant("g1", at(300)).await.unwrap());
    assert!(!store.revoke_grant("g1", at(301)).await.unwrap());
    assert!(!store.revoke_grant("nope", at(301)).await.unwrap());
    assert_eq!(ids(&store.candidates("update_cells")), ["g3"]);
    let revoked = store.get_grant("g1").await.unwrap().unwrap();
    assert_eq!(revoked.revoked, Some(at(300)));
    assert_eq!(revoked.use_count, 2);
    // A use recorded after the revoke (the decision read it just before) counts but does not revive it.
    assert!(store.record_use("g1", at(302)).await.unwrap());
    assert_eq!(ids(&store.candidates("update_cells")), ["g3"]);

    // A grant saved already revoked is listed but never indexed.
    let mut g4 = grant("g4", "update_cells", 40);
    g4.revoked = Some(at(41));
    g4.expires = None;
    store.insert_grant(&g4).await.unwrap();
    assert_eq!(ids(&store.candidates("update_cells")), ["g3"]);
    let listed: Vec<String> = store.list_grants().await.unwrap().into_iter().map(|g| g.id).collect();
    assert_eq!(listed, ["g4", "g3", "g2", "g1"]);

    // Reopened, the index is loaded again from the database.
    let before = store.list_grants().await.unwrap();
    store.close().await;
    let store = crate::support::open_store(&path).await.unwrap();
    assert_eq!(store.list_grants().await.unwrap(), before);
    assert_eq!(ids(&store.candidates("update_cells")), ["g3"]);
    assert_eq!(*store.candidates("delete_file")[0], g2);
    assert_eq!(store.get_grant("g1").await.unwrap().unwrap().use_count, 3);
}

#[tokio::test]
async fn the_database_is_created_private_in_a_new_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a").join("b").join("gatehouse.db");
    let store = crate::support::open_store(&path).await.unwrap();
    store.append_audit(entry(1)).await.unwrap();
    assert_eq!(store.path(), path);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for file in ["gatehouse.db", "gatehouse.db-wal"] {
            let mode = std::fs::metadata(path.with_file_name(file)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // An existing file others could read is narrowed.
        store.close().await;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        crate::support::open_store(&path).await.unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

#[tokio::test]
async fn a_database_that_cannot_be_opened_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // The path is a folder, not a file.
    let path = dir.path().join("gatehouse.db");
    std::fs::create_dir(&path).unwrap();
    let error = crate::support::open_store(&path).await.unwrap_err();
    assert!(matches!(error, StoreError::Open { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("GATEHOUSE_HOME"), "{message}");
}

#[tokio::test]
async fn settings_round_trip_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let store = crate::support::open_store(&path).await.unwrap();
    assert_eq!(store.get_setting("gate_reads").await.unwrap(), None);
    store.set_setting("gate_reads", "true").await.unwrap();
    store.set_setting("max_days", "30").await.unwrap();
    store.set_setting("gate_reads", "false").await.unwrap();
    assert_eq!(store.get_setting("gate_reads").await.unwrap().as_deref(), Some("false"));
    store.close().await;
    let store = crate::support::open_store(&path).await.unwrap();
    assert_eq!(store.get_setting("gate_reads").await.unwrap().as_deref(), Some("false"));
    assert_eq!(store.get_setting("max_days").await.unwrap().as_deref(), Some("30"));
}

#[tokio::test]
async fn the_audit_log_chains_lists_exports_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let store = crate::support::open_store(&path).await.unwrap();
    assert_eq!(store.verify_audit().await.unwrap(), AuditVerification::Ok { records: 0 });

    let mut appended = Vec::new();
    for i in 1..=30 {
        let record = store.append_audit(entry(i)).await.unwrap();
        assert_eq!(record.seq, i as i64);
        assert_eq!(record.entry, entry(i));
        let prev = appended.last().map_or(GENESIS.to_owned(), |r: &AuditRecord| r.hash.clone());
        assert_eq!(record.prev_hash, prev);
        assert_eq!(record.hash, record_hash(record.seq, &record.prev_hash, &record.entry).unwrap());
        appended.push(record);
    }
    let verification = store.verify_audit().await.unwrap();
    assert_eq!(verification, AuditVerification::Ok { records: 30 });
    assert!(verification.is_ok());
    assert_eq!(verification.to_string(), "The audit log is intact: 30 records.");

    // Newest first, in pages.
    let newest: Vec<AuditRecord> = appended.iter().rev().cloned().collect();
    assert_eq!(store.list_audit(&AuditQuery::default()).await.unwrap(), newest);
    let page = |limit, before_seq| AuditQuery { limit, before_seq, ..AuditQuery::default() };
    let first = store.list_audit(&page(10, None)).await.unwrap();
    assert_eq!(first, newest[..10]);
    let second = store.list_audit(&page(10, Some(first.last().unwrap().seq))).await.unwrap();
    assert_eq!(second, newest[10..20]);
    // By tool and by agent.
    let by_tool = AuditQuery { tool: Some("delete_file".into()), ..AuditQuery::default() };
    let seqs: Vec<i64> = store.list_audit(&by_tool).await.unwrap().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=30).rev().filter(|s| s % 2 == 1).collect::<Vec<_>>());
    let by_agent = AuditQuery {
        agent: Some("agent-0".into()),
        tool: Some("update_cells".into()),
        limit: 3,
        ..AuditQuery::default()
    };
    let seqs: Vec<i64> = store.list_audit(&by_agent).await.unwrap().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [28, 26, 22]);

    // Exported as JSON Lines, oldest first, each line a whole record.
    let mut out = Vec::new();
    assert_eq!(store.export_audit(&mut out).await.unwrap(), 30);
    let text = String::from_utf8(out).unwrap();
    let exported: Vec<AuditRecord> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(exported, appended);

    // Reopened, the chain continues where it ended.
    store.close().await;
    let store = crate::support::open_store(&path).await.unwrap();
    let next = store.append_audit(entry(31)).await.unwrap();
    assert_eq!((next.seq, next.prev_hash.as_str()), (31, appended[29].hash.as_str()));
    assert_eq!(store.verify_audit().await.unwrap(), AuditVerification::Ok { records: 31 });
}

#[tokio::test]
async fn the_audit_table_refuses_changes_and_removals() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let store = crate::support::open_store(&path).await.unwrap();
    for i in 1..=3 {
        store.append_audit(entry(i)).await.unwrap();
    }
    let mut conn = raw(&path).await;
    let refused = [
        "UPDATE audit SET target = 'Other' WHERE seq = 2",
        "DELETE FROM audit WHERE seq = 3",
        "DELETE FROM audit",
        "UPDATE audit_head SET seq = 1",
        "DELETE FROM audit_head",
    ];
    for sql in refused {
        let error = sqlx::query(sql).execute(&mut conn).await.unwrap_err();
        assert!(error.to_string().contains("audit log"), "{sql}: {error}");
    }
    conn.close().await.unwrap();
    assert_eq!(store.list_audit(&AuditQuery::default()).await.unwrap().len(), 3);
    assert_eq!(store.verify_audit().await.unwrap(), AuditVerification::Ok { records: 3 });
}

const DROP_TRIGGERS: [&str; 4] = [
    "DROP TRIGGER audit_no_update",
    "DROP TRIGGER audit_no_delete",
    "DROP TRIGGER audit_head_only_forward",
    "DROP TRIGGER audit_head_no_delete",
];

/// A log of 20 records, tampered with by `sql` with the guards dropped; returns the store, reopened.
async fn tampered(dir: &tempfile::TempDir, sql: &[&'static str]) -> Store {
    let path = db_path(dir);
    let store = crate::support::open_store(&path).await.unwrap();
    for i in 1..=20 {
        store.append_audit(entry(i)).await.unwrap();
    }
    assert!(store.verify_audit().await.unwrap().is_ok());
    store.close().await;
    let mut conn = raw(&path).await;
    for statement in DROP_TRIGGERS.iter().chain(sql) {
        sqlx::query(*statement).execute(&mut conn).await.unwrap();
    }
    conn.close().await.unwrap();
    crate::support::open_store(&path).await.unwrap()
}

async fn broken(store: &Store) -> (ChainBreak, String) {
    match store.verify_audit().await.unwrap() {
        AuditVerification::Broken(problem) => {
            let words = AuditVerification::Broken(problem.clone()).to_string();
            (problem, words)
        }
        ok => panic!("tampering went unnoticed: {ok}"),
    }
}

#[tokio::test]
async fn a_changed_record_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["UPDATE audit SET arguments = '{\"range\":\"Z9\"}' WHERE seq = 7"]).await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::Changed { seq: 7 });
    assert_eq!(words, "The audit log was tampered with: record 7 was changed.");

    for (sql, seq) in [
        ("UPDATE audit SET verdict = 'allowed', source = 'person' WHERE seq = 5", 5),
        ("UPDATE audit SET hash = prev_hash WHERE seq = 3", 3),
        ("UPDATE audit SET time = 'yesterday' WHERE seq = 2", 2),
        ("UPDATE audit SET duration_ms = 1 WHERE seq = 1", 1),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let store = tampered(&dir, &[sql]).await;
        assert_eq!(broken(&store).await.0, ChainBreak::Changed { seq }, "{sql}");
    }
}

#[tokio::test]
async fn a_changed_record_given_a_fresh_hash_is_still_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &[]).await;
    let path = store.path().to_owned();
    let original =
        store.list_audit(&AuditQuery { before_seq: Some(9), limit: 1, ..AuditQuery::default() }).await.unwrap();
    store.close().await;

    // Someone rewrites record 8 and computes its hash as Gatehouse would.
    let mut forged = original[0].entry.clone();
    forged.outcome = CallOutcome::Ok;
    forged.verdict = Verdict::Allowed;
    forged.source = DecisionSource::Person;
    let hash = record_hash(8, &original[0].prev_hash, &forged).unwrap();
    let mut conn = raw(&path).await;
    sqlx::query("UPDATE audit SET verdict = 'allowed', source = 'person', outcome = 'ok', outcome_detail = NULL, hash = ?1 WHERE seq = 8")
        .bind(&hash)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();

    let store = crate::support::open_store(&path).await.unwrap();
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::Changed { seq: 8 });
    assert!(words.contains("record 8 was changed"), "{words}");
}

#[tokio::test]
async fn a_removed_record_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit WHERE seq = 12"]).await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::Missing { after: 11, next: 13 });
    assert_eq!(problem.seq(), 12);
    assert!(words.contains("record 12 is missing (the chain jumps from 11 to 13)"), "{words}");

    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit WHERE seq IN (1, 2)"]).await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::Missing { after: 0, next: 3 });
    assert!(words.contains("records 1 to 2 are missing (the log starts at record 3)"), "{words}");

    // Removed, and the later records renumbered to close the gap.
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(
        &dir,
        &[
            "DELETE FROM audit WHERE seq = 12",
            "UPDATE audit SET seq = seq - 1 WHERE seq = 13",
            "UPDATE audit SET seq = seq - 1 WHERE seq = 14",
        ],
    )
    .await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::OutOfOrder { seq: 12, written_as: 13 });
    assert!(words.contains("out of order"), "{words}");
}

#[tokio::test]
async fn reordered_records_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(
        &dir,
        &[
            "UPDATE audit SET seq = -1 WHERE seq = 5",
            "UPDATE audit SET seq = 5 WHERE seq = 6",
            "UPDATE audit SET seq = 6 WHERE seq = -1",
        ],
    )
    .await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::OutOfOrder { seq: 5, written_as: 6 });
    assert_eq!(
        words,
        "The audit log was tampered with: records are out of order: the record in place 5 was written as record 6."
    );
}

#[tokio::test]
async fn a_removed_tail_is_named_and_the_log_goes_on_around_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit WHERE seq > 17"]).await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::TailRemoved { last: 17, head: 20 });
    assert_eq!(problem.seq(), 18);
    assert!(words.contains("the last 3 records, 18 to 20, were removed (the log ends at record 17)"), "{words}");

    // New records continue from the head, so the gap stays visible.
    assert_eq!(store.append_audit(entry(99)).await.unwrap().seq, 21);
    assert_eq!(broken(&store).await.0, ChainBreak::Missing { after: 17, next: 21 });

    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit WHERE seq = 20"]).await;
    assert!(broken(&store).await.1.contains("the last record, 20, was removed"));

    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit"]).await;
    let (problem, words) = broken(&store).await;
    assert_eq!(problem, ChainBreak::TailRemoved { last: 0, head: 20 });
    assert!(words.contains("all 20 records were removed"), "{words}");
}

#[tokio::test]
async fn a_tampered_head_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["DELETE FROM audit_head"]).await;
    assert_eq!(broken(&store).await.0, ChainBreak::HeadMissing { last: 20 });

    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["UPDATE audit_head SET hash = (SELECT hash FROM audit WHERE seq = 3)"]).await;
    assert_eq!(broken(&store).await.0, ChainBreak::HeadMismatch { seq: 20 });

    let dir = tempfile::tempdir().unwrap();
    let store = tampered(&dir, &["UPDATE audit_head SET seq = 18"]).await;
    assert_eq!(broken(&store).await.0, ChainBreak::BeyondHead { seq: 19, head: 18 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writes_make_one_gap_free_chain_and_a_complete_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::open_store(&db_path(&dir)).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..200u64 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move { store.append_audit(entry(i)).await.unwrap().seq }));
    }
    let mut grants = Vec::new();
    for i in 0..50 {
        let store = store.clone();
        grants.push(tokio::spawn(async move { store.insert_grant(&grant(&format!("c{i}"), "t", i)).await.unwrap() }));
    }
    let mut seqs = Vec::new();
    for task in tasks {
        seqs.push(task.await.unwrap());
    }
    for task in grants {
        task.await.unwrap();
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=200).collect::<Vec<i64>>());
    assert_eq!(store.verify_audit().await.unwrap(), AuditVerification::Ok { records: 200 });
    assert_eq!(store.candidates("t").len(), 50);
    assert_eq!(store.list_grants().await.unwrap().len(), 50);
}

/// Set in the child process of `acknowledged_writes_survive_kill_9`: the database it writes to.
const CHILD_ENV: &str = "GATEHOUSE_STORE_CHILD";
const CHILD_WRITES: usize = 1000;
const KILL_AFTER: usize = 300;

/// The name libtest knows this test by, for running it alone in the child: its path within the test program.
fn this_test() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, module)| module);
    format!("{module}::acknowledged_writes_survive_kill_9")
}

/// This test is both halves: run normally it is the parent, which starts this same test binary again with
/// `GATEHOUSE_STORE_CHILD` set (the child: it writes and reports each acknowledged write on stdout), kills it
/// with SIGKILL midway, and checks that every write the child was told had been saved is there.
#[test]
fn acknowledged_writes_survive_kill_9() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        runtime.block_on(write_and_acknowledge(Path::new(&path)));
        return;
    }

    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([&this_test(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acked_grants = BTreeSet::new();
    let mut acked_seqs = BTreeSet::new();
    // libtest prints `test … ... ` without a newline before the first ack, so an ack may follow other text.
    let mut record = |line: String| -> bool {
        let Some(start) = line.find("ack ") else { return false };
        match line[start..].split_once(' ').map(|(_, rest)| rest.split_once(' ')) {
            Some(Some(("grant", id))) => acked_grants.insert(id.to_owned()),
            Some(Some(("audit", seq))) => acked_seqs.insert(seq.parse::<i64>().unwrap()),
            _ => panic!("unexpected line from the child: {line}"),
        };
        true
    };
    let mut acks = 0;
    while acks < KILL_AFTER {
        let line = lines.next().expect("the child stopped before it was killed").unwrap();
        acks += usize::from(record(line));
    }
    child.kill().unwrap();
    // Lines already in the pipe were printed after their write returned: they count as acknowledged too.
    for line in lines {
        record(line.unwrap());
    }
    let status = child.wait().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "the child was not killed midway: {status}");
    }
    #[cfg(not(unix))]
    assert!(!status.success(), "the child was not killed midway: {status}");
    let acknowledged = acked_grants.len() + acked_seqs.len();
    assert!((KILL_AFTER..CHILD_WRITES).contains(&acknowledged), "{acknowledged} writes acknowledged");
    assert!(!acked_grants.is_empty() && !acked_seqs.is_empty(), "grant and audit writes were interleaved");

    runtime.block_on(async {
        let store = crate::support::open_store(&path).await.unwrap();
        let saved: BTreeSet<String> = store.list_grants().await.unwrap().into_iter().map(|g| g.id).collect();
        let missing: Vec<&String> = acked_grants.difference(&saved).collect();
        assert!(missing.is_empty(), "acknowledged grants lost: {missing:?}");
        let indexed: BTreeSet<String> = store.candidates("crash_tool").iter().map(|g| g.id.clone()).collect();
        assert_eq!(indexed, saved);

        let all = AuditQuery { limit: u32::MAX, ..AuditQuery::default() };
        let seqs: BTreeSet<i64> = store.list_audit(&all).await.unwrap().into_iter().map(|r| r.seq).collect();
        let missing: Vec<&i64> = acked_seqs.difference(&seqs).collect();
        assert!(missing.is_empty(), "acknowledged audit records lost: {missing:?}");
        match store.verify_audit().await.unwrap() {
            AuditVerification::Ok { records } => assert_eq!(records as usize, seqs.len()),
            broken => panic!("after the crash: {broken}"),
        }
        // And the log goes on.
        let next = store.append_audit(entry(0)).await.unwrap();
        assert_eq!(next.seq, seqs.len() as i64 + 1);
        assert!(store.verify_audit().await.unwrap().is_ok());
    });
}

/// The child: grant inserts and audit appends from two tasks at once, each reported once it has returned.
async fn write_and_acknowledge(path: &Path) {
    let store = crate::support::open_store(path).await.unwrap();
    let grants = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..CHILD_WRITES / 2 {
                let id = format!("crash-{i}");
                store.insert_grant(&grant(&id, "crash_tool", i as i64)).await.unwrap();
                println!("ack grant {id}");
            }
        })
    };
    let audits = tokio::spawn(async move {
        for i in 0..CHILD_WRITES / 2 {
            let record = store.append_audit(entry(i as u64)).await.unwrap();
            println!("ack audit {}", record.seq);
        }
    });
    grants.await.unwrap();
    audits.await.unwrap();
}
