//! Issue 15, item 2: another program of the same OS user can't answer cards for the assistant or plant grants.
//! A real engine over a real store file and its control socket; grant rows planted with sqlx straight into the
//! file (as Python's sqlite3 did), and answers sent from real processes whose family tree the host reads.
#![cfg(unix)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::model::{Agent, AnswerChannel, Caller, DecisionSource};
use gatehouse_core::approval::store::{AuditQuery, DATABASE_FILE, Store};
use gatehouse_core::control::{self, Client, ControlHandle};
use gatehouse_core::engine::Reply;
use gatehouse_core::process::Origin;
use gatehouse_core::{Engine, settings};
use google_fake::{FakeGoogle, Identity};
use serde_json::{Value, json};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio_util::sync::CancellationToken;

use crate::store_engine::engine_over_store;

const USER: &str = "ada@example.com";

struct World {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    control: ControlHandle,
    sheet: String,
}

async fn world() -> World {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let (engine, store) = engine_over_store(&google, home.path(), USER, |_| {}).await;
    let control = control::serve(Arc::clone(&engine), home.path(), CancellationToken::new()).await.unwrap();
    World { google, home, engine, store, control, sheet }
}

fn cells(sheet: &str, value: &str) -> serde_json::Map<String, Value> {
    let Value::Object(map) = json!({ "spreadsheet_id": sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
    else {
        unreachable!()
    };
    map
}

/// Starts an `update_cells` call from the assistant whose process is `origin`.
fn start_write(world: &World, value: &str, origin: Option<u32>) -> tokio::task::JoinHandle<Reply> {
    let engine = Arc::clone(&world.engine);
    let arguments = cells(&world.sheet, value);
    let meta = CallMeta {
        caller: Caller { agent: Some(Agent::self_reported("claude-code")), interactive: true },
        origin: origin.map(Origin::Pid),
        ..CallMeta::default()
    };
    tokio::spawn(async move { engine.call_as(&meta, "update_cells", Some(arguments)).await.unwrap() })
}

async fn wait_for_card(home: &Path) -> u64 {
    let mut client = Client::connect_all(home).await.unwrap().remove(0);
    for _ in 0..400 {
        if let Some(card) = client.pending().await.unwrap().into_iter().next() {
            return card.id;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

/// Inserts a grant row straight into the file, as a program other than Gatehouse would.
async fn plant(path: &Path, id: &str, owner_kind: &str, account: Option<&str>, days: Option<i64>, fingerprint: &str) {
    let mut db = SqliteConnectOptions::new().filename(path).connect().await.unwrap();
    let now = Utc::now();
    let text = |time: chrono::DateTime<Utc>| time.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
    sqlx::query(
        "INSERT INTO grants (id, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, \
         unattended, created, expires, revoked, last_used, use_count, fingerprint) \
         VALUES (?1, ?2, ?3, 'update_cells', NULL, NULL, NULL, 1, ?4, ?5, NULL, NULL, 0, ?6)",
    )
    .bind(id)
    .bind(owner_kind)
    .bind(account)
    .bind(text(now))
    .bind(days.map(|days| text(now + TimeDelta::days(days))))
    .bind(fingerprint)
    .execute(&mut db)
    .await
    .unwrap();
    db.close().await.unwrap();
}

/// The fingerprint the running engine gives `update_cells`, so a planted row differs from a real grant only
/// in what the rules look at.
async fn current_fingerprint(world: &World) -> String {
    // A real grant, made on a card, carries it.
    let write = start_write(world, "seed", None);
    let id = wait_for_card(world.home.path()).await;
    let choice =
        gatehouse_core::approval::card::RawChoice { scope: "TOOL".into(), days: "1".into(), limit: "ANY".into() };
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Always(choice)).unwrap();
    assert!(!write.await.unwrap().is_error);
    let grant = world.store.list_grants().await.unwrap().remove(0);
    assert!(world.store.revoke_grant(&grant.id, Utc::now()).await.unwrap());
    grant.fingerprint
}

#[tokio::test]
async fn planted_platform_and_overlong_rows_cover_no_call_and_are_reported() {
    let world = world().await;
    let path = world.home.path().join(DATABASE_FILE);
    let print = current_fingerprint(&world).await;
    // What the attacker wrote: a platform, unattended grant until far away; and a person's grant
    // longer than any card offers (the policy's max_days is 90).
    plant(&path, "planted-platform", "platform", None, Some(365 * 70), &print).await;
    plant(&path, "planted-long", "user", Some(USER), Some(400), &print).await;
    let mut client = Client::connect_all(world.home.path()).await.unwrap().remove(0);
    client.refresh().await.unwrap();

    // Still asked: neither row covers the call.
    let write = start_write(&world, "after", None);
    let id = wait_for_card(world.home.path()).await;
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Deny).unwrap();
    let reply = write.await.unwrap();
    assert!(reply.is_error, "the planted rows must not allow it: {}", reply.text);
    assert_ne!(world.google.world().sheets.values(&world.sheet, "Sales")[0].get(1).map(String::as_str), Some("after"));

    // Reported: by `gatehouse grants` (over the socket) and `audit verify`, and left out of the list.
    let ignored = client.ignored_grants().await.unwrap();
    let ids: Vec<&str> = ignored.iter().map(|row| row.id.as_str()).collect();
    assert_eq!(ids, ["planted-platform", "planted-long"], "{ignored:?}");
    assert!(ignored[0].to_string().contains("policy file"), "{}", ignored[0]);
    assert!(ignored[1].to_string().contains("longer than the 90 days"), "{}", ignored[1]);
    let verification = client.verify().await.unwrap();
    assert_eq!(verification.ignored.len(), 2, "{verification:?}");
    let listed = client.grants().await.unwrap();
    assert!(listed.iter().all(|grant| !grant.id.starts_with("planted")), "{listed:?}");

    // A store opened later (a restart) ignores them too.
    let reopened = crate::support::open_store(&path).await.unwrap();
    assert!(reopened.candidates("update_cells").is_empty());
    // And the store itself never writes one.
    let platform = gatehouse_core::approval::model::Grant {
        id: "p".into(),
        owner: gatehouse_core::approval::model::Owner::Platform,
        ..listed[0].clone()
    };
    assert!(reopened.insert_grant(&platform).await.unwrap_err().to_string().contains("policy file"));
    world.control.shutdown().await;
}

/// Sends one `answer` line to the host's socket from a new `python3` process (a child of this test) and
/// returns the response line.
async fn answer_from_process(socket: &Path, id: u64) -> String {
    let script = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect({socket:?})\ns.sendall(b'{{\"op\":\"answer\",\"id\":{id},\"answer\":\"AllowOnce\"}}\\n')\nsys.stdout.write(s.makefile().readline())",
        socket = socket.display().to_string()
    );
    // Waited for off the runtime's thread: the host answering it runs there.
    let output =
        tokio::task::spawn_blocking(move || std::process::Command::new("python3").args(["-c", &script]).output())
            .await
            .unwrap()
            .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn a_terminal_answer_from_the_assistants_own_process_tree_is_refused_and_others_are_recorded() {
    let world = world().await;
    let socket = world.control.path().to_owned();
    // The assistant: this test's process tree stands in for it (`gatehouse serve`'s parent). A program it
    // starts (python3, a grandchild of the test through `sh`) answers: refused, on a headless host too.
    let write = start_write(&world, "mine", Some(std::process::id()));
    let id = wait_for_card(world.home.path()).await;
    let refused = answer_from_process(&socket, id).await;
    assert!(refused.contains("refused") && refused.contains("can't approve its own changes"), "{refused}");
    assert!(world.engine.approvals().broker().get(id).is_some(), "the card still waits");
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Deny).unwrap();
    assert!(write.await.unwrap().is_error);

    // A call from another assistant (a process unrelated to the answering one): the answer is taken, and
    // the audit record names the terminal process.
    let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let write = start_write(&world, "theirs", Some(other.id()));
    let id = wait_for_card(world.home.path()).await;
    let answered = answer_from_process(&socket, id).await;
    assert!(answered.contains("answered"), "{answered}");
    let reply = write.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    other.kill().unwrap();
    other.wait().unwrap();
    let records = world.store.list_audit(&AuditQuery { limit: 1, before_seq: None, tool: None, agent: None }).await;
    let entry = records.unwrap().remove(0).entry;
    assert_eq!(entry.source, DecisionSource::Person);
    let Some(AnswerChannel::Terminal { pid: Some(_), exe: Some(exe) }) = &entry.answered_via else {
        panic!("the record names the terminal: {:?}", entry.answered_via);
    };
    assert!(exe.contains("python"), "{exe}");

    // The card window's answers are recorded as such.
    let write = start_write(&world, "card", None);
    let id = wait_for_card(world.home.path()).await;
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::AllowOnce).unwrap();
    assert!(!write.await.unwrap().is_error);
    let records = world.store.list_audit(&AuditQuery { limit: 1, before_seq: None, tool: None, agent: None }).await;
    assert_eq!(records.unwrap()[0].entry.answered_via, Some(AnswerChannel::Card));
    world.control.shutdown().await;
}

#[tokio::test]
async fn while_the_desktop_hosts_terminal_answers_wait_for_the_persons_setting() {
    let world = world().await;
    world.control.answer_on_cards(Some(world.store.clone()));
    let socket = world.control.path().to_owned();
    let write = start_write(&world, "x", None);
    let id = wait_for_card(world.home.path()).await;
    let refused = answer_from_process(&socket, id).await;
    assert!(refused.contains("Answer on the Gatehouse card next to the tray"), "{refused}");
    assert!(refused.contains("Answer from a terminal"), "{refused}");
    assert!(world.engine.approvals().broker().get(id).is_some(), "the card still waits");

    // Turned on (as the Advanced page saves it): the same answer is taken.
    let policy = world.engine.approvals().policy().clone();
    settings::set(
        &world.store,
        settings::Key::AnswerFromTerminal,
        &json!(true),
        &policy,
        |_| None,
        gatehouse_core::tools::sets::catalogue(),
    )
    .await
    .unwrap();
    let answered = answer_from_process(&socket, id).await;
    assert!(answered.contains("answered"), "{answered}");
    assert!(!write.await.unwrap().is_error);
    world.control.shutdown().await;
}

/// Runs `script` in Python with `sqlite3` open on the database at `path` as `db`, as the attacker did
/// (a program of the same user, writing straight into the file), and commits.
fn python_sqlite(path: &Path, script: &str) {
    let program = format!("import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n{script}\ndb.commit()\n");
    let output = std::process::Command::new("python3").args(["-c", &program]).arg(path).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// Issue 15, item 2 (the keyed seal): a person's grant row written into the file by another program, with
/// every field a real grant has and within `max_days`, covers nothing: it has no seal made with the key in
/// the keychain. Nor does one given another grant's seal, nor a revoked grant whose revocation was erased.
/// Each is reported in words. Before the seal, the first of these was honoured (as the platform row
/// was), within the server's next index sync.
#[tokio::test]
async fn grant_rows_written_into_the_file_without_gatehouses_seal_are_not_honoured() {
    let world = world().await;
    let path = world.home.path().join(DATABASE_FILE);
    let print = current_fingerprint(&world).await;
    // The grant `current_fingerprint` made and revoked: its revocation is erased below.
    let revoked = world.store.list_grants().await.unwrap().remove(0);
    let now = Utc::now();
    let text = |time: chrono::DateTime<Utc>| time.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
    python_sqlite(
        &path,
        &format!(
            "row = ('planted-user', 'user', '{USER}', 'update_cells', None, None, None, 1, '{created}', '{expires}', None, None, 0, '{print}')\n\
             db.execute('INSERT INTO grants (id, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, unattended, created, expires, revoked, last_used, use_count, fingerprint) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)', row)\n\
             db.execute('INSERT INTO grants (id, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, unattended, created, expires, revoked, last_used, use_count, fingerprint, mac) SELECT ?, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, unattended, ?, ?, NULL, NULL, 0, fingerprint, mac FROM grants WHERE id = ?', ('planted-copy', '{created}', '{expires}', '{revoked}'))\n\
             db.execute('UPDATE grants SET revoked = NULL WHERE id = ?', ('{revoked}',))",
            created = text(now),
            expires = text(now + TimeDelta::days(30)),
            revoked = revoked.id,
        ),
    );
    let mut client = Client::connect_all(world.home.path()).await.unwrap().remove(0);
    client.refresh().await.unwrap();

    let write = start_write(&world, "after", None);
    let id = wait_for_card(world.home.path()).await;
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Deny).unwrap();
    assert!(write.await.unwrap().is_error, "a planted row must not allow it");

    let report = client.seal_report().await.unwrap();
    for id in ["planted-user", "planted-copy", revoked.id.as_str()] {
        let line = report.iter().find(|line| line.contains(gatehouse_core::approval::words::one_line(id, 40).as_str()));
        let line = line.unwrap_or_else(|| panic!("{id} is reported: {report:?}"));
        assert!(line.contains("seal is missing or wrong"), "{line}");
    }
    let verification = client.verify().await.unwrap();
    assert!(verification.ignored.len() >= 3, "{verification:?}");
    let listed = client.grants().await.unwrap();
    assert!(listed.iter().all(|grant| !grant.id.starts_with("planted")), "{listed:?}");
    // A restart ignores them too, and a grant made on a card is honoured.
    let reopened = crate::support::open_store(&path).await.unwrap();
    assert!(reopened.candidates("update_cells").is_empty());
    world.control.shutdown().await;
}

/// Issue 15, item 2: a *never allow* rule marked removed in the file by another program stays in force (its
/// removal is not sealed), and the store says so; one removed through Gatehouse is gone.
#[tokio::test]
async fn a_never_allow_removed_in_the_file_by_another_program_stays_in_force() {
    let world = world().await;
    let path = world.home.path().join(DATABASE_FILE);
    let rule = |id: &str| gatehouse_core::approval::store::NeverAllow {
        id: id.into(),
        owner_account: USER.into(),
        tool: "update_cells".into(),
        agent: None,
        constraint: None,
        created: Utc::now(),
        expires: Utc::now() + TimeDelta::days(7),
        removed: None,
    };
    world.store.add_never_allow(&rule("kept")).await.unwrap();
    world.store.add_never_allow(&rule("removed-here")).await.unwrap();
    assert!(world.store.remove_never_allow("removed-here", Utc::now()).await.unwrap());
    python_sqlite(
        &path,
        "db.execute(\"UPDATE never_allow SET removed = '2026-12-01T00:00:00.000000000Z' WHERE id = 'kept'\")",
    );
    world.store.sync_index().await.unwrap();

    let ids: Vec<String> = world.store.never_allows().iter().map(|rule| rule.id.clone()).collect();
    assert_eq!(ids, ["kept"], "the rule removed in the file is in force, the one removed here is not");
    // Refused by the rule at once: no card (a card would leave this waiting).
    let reply = tokio::time::timeout(Duration::from_secs(20), start_write(&world, "x", None)).await;
    let reply = reply.expect("refused without a card").unwrap();
    assert!(reply.is_error, "refused by the rule: {}", reply.text);
    let report = world.store.seal_report().await.unwrap();
    assert!(
        report.iter().any(|line| line.contains("never-allow rule kept") && line.contains("stays in force")),
        "{report:?}"
    );
    world.control.shutdown().await;
}

/// Issue 15, item 2: *Answer from a terminal* written into the file by another program (it can't reach the
/// Advanced page) leaves terminal answers refused while the desktop hosts, and is reported.
#[tokio::test]
async fn answer_from_a_terminal_written_into_the_file_leaves_terminal_answers_off() {
    let world = world().await;
    world.control.answer_on_cards(Some(world.store.clone()));
    let path = world.home.path().join(DATABASE_FILE);
    python_sqlite(&path, "db.execute(\"INSERT INTO settings (key, value) VALUES ('answer_from_terminal', 'true')\")");
    let write = start_write(&world, "x", None);
    let id = wait_for_card(world.home.path()).await;
    let refused = answer_from_process(world.control.path(), id).await;
    assert!(refused.contains("Answer from a terminal"), "{refused}");
    assert!(world.engine.approvals().broker().get(id).is_some(), "the card still waits");
    let report = world.store.seal_report().await.unwrap();
    assert!(report.iter().any(|line| line.contains("answer_from_terminal") && line.contains("ignored")), "{report:?}");
    world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Deny).unwrap();
    assert!(write.await.unwrap().is_error);
    world.control.shutdown().await;
}

/// Issue 15, item 2: the audit chain rewritten by another program, every hash and the head recomputed to
/// match (the chain's hashes have no key), is found by `audit verify`: the head's seal is Gatehouse's.
#[tokio::test]
async fn a_rewritten_audit_chain_with_its_head_recomputed_fails_verification() {
    let world = world().await;
    let path = world.home.path().join(DATABASE_FILE);
    for value in ["one", "two"] {
        let write = start_write(&world, value, None);
        let id = wait_for_card(world.home.path()).await;
        world.engine.approvals().broker().answer(id, gatehouse_core::approval::card::RawAnswer::Deny).unwrap();
        assert!(write.await.unwrap().is_error);
    }
    assert!(world.store.verify_audit().await.unwrap().is_ok());
    // Record 1 says another spreadsheet; every hash after it and the head follow, as an attacker would.
    let mut records = world.store.list_audit(&AuditQuery::default()).await.unwrap();
    records.reverse();
    let mut prev = gatehouse_core::approval::store::GENESIS.to_owned();
    let mut rewritten = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let mut entry = record.entry.clone();
        if i == 0 {
            entry.target = Some("Somewhere else".into());
        }
        let hash = gatehouse_core::approval::store::record_hash(record.seq, &prev, &entry).unwrap();
        rewritten.push((record.seq, entry.target.clone(), prev.clone(), hash.clone()));
        prev = hash;
    }
    let mut db = SqliteConnectOptions::new().filename(&path).connect().await.unwrap();
    sqlx::query("DROP TRIGGER audit_no_update").execute(&mut db).await.unwrap();
    sqlx::query("DROP TRIGGER audit_head_only_forward").execute(&mut db).await.unwrap();
    for (seq, target, prev_hash, hash) in &rewritten {
        sqlx::query("UPDATE audit SET target = ?2, prev_hash = ?3, hash = ?4 WHERE seq = ?1")
            .bind(seq)
            .bind(target)
            .bind(prev_hash)
            .bind(hash)
            .execute(&mut db)
            .await
            .unwrap();
    }
    sqlx::query("UPDATE audit_head SET hash = ?1 WHERE id = 1").bind(&prev).execute(&mut db).await.unwrap();
    db.close().await.unwrap();

    let verification = world.store.verify_audit().await.unwrap();
    assert!(!verification.is_ok(), "the rewritten chain must not verify");
    assert!(verification.to_string().contains("not sealed with Gatehouse's key"), "{verification}");
    world.control.shutdown().await;
}
