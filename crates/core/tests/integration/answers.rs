//! Issue 15, item 2: another program of the same OS user can't answer cards for the assistant or plant grants.
//! A real engine over a real store file and its control socket; grant rows planted with sqlx straight into the
//! file (as Python's sqlite3 did), and answers sent from real processes whose family tree the host reads.
#![cfg(unix)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::model::{AnswerChannel, Caller, DecisionSource};
use gatehouse_core::approval::store::{AuditQuery, DATABASE_FILE, Store};
use gatehouse_core::control::process::Origin;
use gatehouse_core::control::{self, Client, ControlHandle};
use gatehouse_core::engine::Reply;
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
        caller: Caller { agent: Some("claude-code".into()), interactive: true },
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
    let reopened = Store::open(&path).await.unwrap();
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
    world.control.answer_on_cards();
    let socket = world.control.path().to_owned();
    let write = start_write(&world, "x", None);
    let id = wait_for_card(world.home.path()).await;
    let refused = answer_from_process(&socket, id).await;
    assert!(refused.contains("Answer on the Gatehouse card next to the tray"), "{refused}");
    assert!(refused.contains("Answer from a terminal"), "{refused}");
    assert!(world.engine.approvals().broker().get(id).is_some(), "the card still waits");

    // Turned on (as the Advanced page saves it): the same answer is taken.
    let policy = world.engine.approvals().policy().clone();
    settings::set(&world.store, settings::Key::AnswerFromTerminal, &json!(true), &policy, |_| None).await.unwrap();
    let answered = answer_from_process(&socket, id).await;
    assert!(answered.contains("answered"), "{answered}");
    assert!(!write.await.unwrap().is_error);
    world.control.shutdown().await;
}
