//! The control socket end to end inside one process: a real engine with a real store behind `control::serve`,
//! and `control::Client` (or a raw socket) in front, as `gatehouse approvals` uses it.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{RawAnswer, RawChoice};
use gatehouse_core::approval::model::{DecisionSource, Grant, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{AuditQuery, AuditRecord, DATABASE_FILE, IndexSync};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::FailureKind;
use gatehouse_core::control::{Client, ControlError, ControlHandle, RunningServers};
use gatehouse_core::engine::{ApprovalSetup, Reply};
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::ops::Ops;
use gatehouse_core::{Engine, EngineOptions, control};
use google_fake::{FakeGoogle, Identity};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

const USER: &str = "ada@example.com";

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    control: ControlHandle,
    sheet: String,
}

async fn setup() -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let store = crate::support::open_store(&home.path().join(DATABASE_FILE)).await.unwrap();
    let mut config = Config::with_home(home.path());
    // Gatehouse's own cards and grants, on Google's REST APIs: on its MCP servers Google asks about update_cells
    // with its own form at every call (google_mcp.rs and google_forms.rs test that path).
    config.google_backend = gatehouse_core::config::GoogleBackend::Rest;
    config.google_endpoint = Some(google.url().parse().unwrap());
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(google.issue_token(Identity::user(USER)), Some(USER.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store), policy: Policy::default() },
    })
    .unwrap();
    let control = control::serve(Arc::clone(&engine), home.path(), CancellationToken::new()).await.unwrap();
    Setup { google, home, engine, control, sheet }
}

fn cells(sheet: &str, value: &str) -> serde_json::Map<String, Value> {
    let Value::Object(map) = json!({ "spreadsheet_id": sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
    else {
        unreachable!()
    };
    map
}

/// Starts an `update_cells` call that may have to wait for an answer.
fn start_write(setup: &Setup, value: &str) -> tokio::task::JoinHandle<Reply> {
    let engine = Arc::clone(&setup.engine);
    let arguments = cells(&setup.sheet, value);
    tokio::spawn(async move { engine.call("update_cells", Some(arguments)).await.unwrap() })
}

async fn only_client(home: &Path) -> Client {
    let mut clients = Client::connect_all(home).await.unwrap();
    assert_eq!(clients.len(), 1, "one server runs");
    clients.remove(0)
}

async fn wait_for_card(client: &mut Client) -> PendingCard {
    for _ in 0..400 {
        if let Some(card) = client.pending().await.unwrap().into_iter().next() {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

fn always(scope: &str, days: &str, limit: &str) -> RawAnswer {
    RawAnswer::Always(RawChoice { scope: scope.into(), days: days.into(), limit: limit.into() })
}

#[tokio::test]
async fn the_socket_is_private_named_after_the_process_and_removed_at_shutdown() {
    let setup = setup().await;
    let dir = setup.home.path().join("control");
    let socket = dir.join(format!("{}.sock", std::process::id()));
    assert_eq!(setup.control.path(), socket);
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777, 0o600);
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, [format!("{}.sock", std::process::id())], "no half-made socket is left");

    let info = only_client(setup.home.path()).await.info().await.unwrap();
    assert_eq!(info.pid, std::process::id());
    assert_eq!(info.store.as_deref(), Some(setup.home.path().join(DATABASE_FILE).to_str().unwrap()));
    assert!(!info.sandbox);

    setup.control.shutdown().await;
    assert!(!socket.exists());
    assert!(Client::connect_all(setup.home.path()).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_card_is_answered_once_through_the_socket_and_its_grant_covers_the_next_call() {
    let setup = setup().await;
    let mut client = only_client(setup.home.path()).await;
    let first = start_write(&setup, "first");
    let card = wait_for_card(&mut client).await;
    assert_eq!((card.tool.as_str(), card.title.as_str()), ("update_cells", "Update cells"));
    assert_eq!(card.offer.durations, [1, 7, 30]);
    assert!(card.offer.constraint.is_some(), "{card:?}");

    client.answer(card.id, always("TOOL", "7", "CONSTRAINED")).await.unwrap();
    let again = client.answer(card.id, RawAnswer::Deny).await.unwrap_err();
    assert!(
        matches!(&again, ControlError::Server { kind: FailureKind::NotPending, message, .. } if message.contains("already answered")),
        "{again:?}"
    );
    let reply = first.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(setup.google.world().sheets.values(&setup.sheet, "Sales")[0][1], "first");

    let grants = client.grants().await.unwrap();
    assert_eq!(grants.len(), 1);
    let grant = &grants[0];
    assert_eq!(
        (grant.tool.as_str(), grant.agent.as_ref(), &grant.owner),
        ("update_cells", None, &Owner::User(USER.into()))
    );
    assert_eq!(grant.constraint.as_ref().map(|c| c.value.as_str()), Some(setup.sheet.as_str()));

    // The next call on the same spreadsheet runs without a card.
    let second = tokio::time::timeout(Duration::from_secs(20), start_write(&setup, "second")).await.unwrap().unwrap();
    assert!(!second.is_error, "{}", second.text);
    assert!(client.pending().await.unwrap().is_empty());

    // Revoked through the socket: the next call asks again.
    let revoked = client.revoke(&grant.id).await.unwrap();
    assert!(revoked.changed && revoked.grant.as_ref().is_some_and(|g| g.revoked.is_some()));
    assert!(!client.revoke(&grant.id).await.unwrap().changed, "a second revoke changes nothing");
    let third = start_write(&setup, "third");
    let card = wait_for_card(&mut client).await;
    client.answer(card.id, RawAnswer::Deny).await.unwrap();
    let reply = third.await.unwrap();
    assert!(reply.is_error && reply.text.contains("declined"), "{}", reply.text);

    let records = client.audit(&AuditQuery::default()).await.unwrap();
    let sources: Vec<String> = records.iter().map(|record| record.entry.source.to_string()).collect();
    assert_eq!(sources, ["person", format!("grant:{}", grant.id).as_str(), "person"]);
    assert_eq!(records[0].entry.source, DecisionSource::Person);
    let verification = client.verify().await.unwrap();
    assert!(verification.intact, "{verification:?}");
    assert_eq!(verification.message, "The audit log is intact: 3 records.");

    let mut exported = Vec::new();
    assert_eq!(client.export(&mut exported).await.unwrap(), 3);
    let seqs: Vec<i64> = String::from_utf8(exported)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<AuditRecord>(line).unwrap().seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3], "oldest first");
}

#[tokio::test]
async fn a_request_that_cannot_be_read_gets_an_error_naming_it_and_the_server_keeps_serving() {
    let setup = setup().await;
    let stream = tokio::net::UnixStream::connect(setup.control.path()).await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut ask = async |line: &str| -> Value {
        write.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
    };
    for (line, names) in [
        ("{this is not json", "key must be a string"),
        (r#"{"op":"fly"}"#, "unknown variant `fly`"),
        (r#"{"op":"answer","id":"x","answer":"Deny"}"#, "invalid type"),
        (r#"{"op":"revoke"}"#, "missing field `id`"),
    ] {
        let answer = ask(line).await;
        assert_eq!(answer["error"]["kind"], "bad_request", "{line}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(names), "{line}: {message}");
    }
    let answer = ask(r#"{"op":"answer","id":99,"answer":"AllowOnce"}"#).await;
    assert_eq!(answer["error"]["kind"], "not_pending", "{answer}");
    let answer = ask(r#"{"op":"info"}"#).await;
    assert_eq!(answer["info"]["pid"], std::process::id(), "{answer}");

    // A line too long to be a request is answered, then the connection is closed; the server goes on. Only a
    // call may be longer than the small limit, so the server stops reading this one there (issue 15, item 9).
    let answer = ask(&"x".repeat(gatehouse_core::control::protocol::MAX_SMALL_REQUEST_LINE + 10)).await;
    assert!(answer["error"]["message"].as_str().unwrap().contains("longer than 65536 bytes"), "{answer}");
    assert!(only_client(setup.home.path()).await.pending().await.unwrap().is_empty());
}

#[tokio::test]
async fn sockets_left_by_gone_processes_are_removed_and_others_skipped() {
    let setup = setup().await;
    let dir = setup.home.path().join("control");
    // A process that is gone left its socket (bound, never removed).
    let gone = dir.join("1073741808.sock");
    drop(std::os::unix::net::UnixListener::bind(&gone).unwrap());
    // Process 1 runs, but nobody listens on this name: skipped, not removed (it is not ours to judge).
    let not_listening = dir.join("1.sock");
    drop(std::os::unix::net::UnixListener::bind(&not_listening).unwrap());

    let clients = Client::connect_all(setup.home.path()).await.unwrap();
    let pids: Vec<u32> = clients.iter().map(Client::pid).collect();
    assert_eq!(pids, [std::process::id()]);
    assert!(!gone.exists(), "the gone process's socket was removed");
    assert!(not_listening.exists());
}

#[tokio::test]
async fn grants_made_or_revoked_by_another_process_reach_this_ones_index() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(DATABASE_FILE);
    let here = crate::support::open_store(&path).await.unwrap();
    let now = Utc::now();
    for id in ["g1", "g2"] {
        let grant = week_grant(id.into(), now);
        here.insert_grant(&grant).await.unwrap();
    }
    // Another process: its own connection and its own index of the same file.
    let elsewhere = crate::support::open_store(&path).await.unwrap();
    assert!(elsewhere.revoke_grant("g1", now).await.unwrap());
    assert!(elsewhere.revoke_grant("g2", now).await.unwrap());
    assert_eq!(here.candidates("update_cells").len(), 2, "each process has its own index");

    // Told directly (as `gatehouse grants revoke` tells every server): already revoked, still dropped.
    assert!(!here.revoke_grant("g1", now).await.unwrap());
    let ids: Vec<String> = here.candidates("update_cells").iter().map(|grant| grant.id.clone()).collect();
    assert_eq!(ids, ["g2"]);
    // Or found by the refresh.
    assert_eq!(here.sync_index().await.unwrap().forgotten, 1);
    assert!(here.candidates("update_cells").is_empty());
    assert_eq!(here.sync_index().await.unwrap().forgotten, 0);

    // A grant made by the other process joins this one's index at the next refresh.
    let made_elsewhere = Grant { id: "g3".into(), revoked: None, ..elsewhere.get_grant("g2").await.unwrap().unwrap() };
    elsewhere.insert_grant(&made_elsewhere).await.unwrap();
    assert!(here.candidates("update_cells").is_empty());
    assert_eq!(here.sync_index().await.unwrap(), IndexSync { forgotten: 0, joined: 1 });
    let ids: Vec<String> = here.candidates("update_cells").iter().map(|grant| grant.id.clone()).collect();
    assert_eq!(ids, ["g3"]);
}

/// A relay (`gatehouse serve` over stdio, or any program that reaches the socket) can't claim to be a
/// registered assistant: only an HTTP token proves that, so the host takes every relayed name as the
/// assistant's own word (issue 15, item 5).
#[tokio::test]
async fn a_relayed_call_is_never_taken_for_a_registered_assistant() {
    use gatehouse_core::approval::CallMeta;
    use gatehouse_core::approval::model::{Agent, Caller};
    let setup = setup().await;
    let store = setup.engine.approvals().store().unwrap().clone();
    store.add_assistant("chat", true, Utc::now()).await.unwrap();
    let claims = |name: &str| CallMeta {
        caller: Caller { agent: Some(Agent::registered(name)), interactive: true },
        ..CallMeta::default()
    };

    let mut relay = only_client(setup.home.path()).await;
    let Reply { text, is_error, .. } =
        relay.call("update_cells", Some(cells(&setup.sheet, "x")), claims("chat")).await.unwrap();
    assert!(is_error, "{text}");
    assert!(text.contains("registered in Gatehouse") && text.contains("token"), "{text}");
    assert_eq!(setup.google.world().sheets.values(&setup.sheet, "Sales")[0].get(1), None, "nothing was written");
    let query = AuditQuery { limit: 1, before_seq: None, tool: None, agent: None };
    let record = store.list_audit(&query).await.unwrap().remove(0);
    assert_eq!(record.entry.source, DecisionSource::AgentName);
    assert_eq!(record.entry.agent, Some(Agent::self_reported("chat")));

    // Any other name it gives is shown as only what it says.
    let home = setup.home.path().to_owned();
    let waiting = tokio::spawn(async move {
        let mut relay = only_client(&home).await;
        relay.call("update_cells", Some(cells_owned()), claims("cursor")).await
    });
    let mut person = only_client(setup.home.path()).await;
    let card = wait_for_card(&mut person).await;
    assert_eq!(card.agent, Some(Agent::self_reported("cursor")));
    // Answered on the card: this test process is also the relay, whose parent the host takes for the
    // assistant, so its own terminal answer would be refused as the assistant's (issue 15, item 2).
    setup.engine.approvals().broker().answer(card.id, RawAnswer::Deny).unwrap();
    let Reply { is_error, .. } = waiting.await.unwrap().unwrap();
    assert!(is_error);
}

fn cells_owned() -> serde_json::Map<String, Value> {
    cells("any-sheet", "y")
}

/// Every way to revoke a grant — the control socket that `gatehouse grants revoke` reaches, and the operation
/// the desktop's pages call (`ops`, as `src-tauri/src/settings/permissions.rs` does) — tells the other
/// running servers that use the database before it returns, so none of them covers a call by it until its
/// periodic check (issue 16: before, the desktop's revoke told nobody).
#[tokio::test]
async fn a_revoke_by_any_door_reaches_the_other_servers_using_the_database_at_once() {
    let setup = setup().await;
    let path = setup.home.path().join(DATABASE_FILE);
    let here = setup.engine.approvals().store().expect("a store").clone();
    // Another server on the same database: its own connection and index, its own socket. It lives in another
    // folder (one process can't have two sockets of its name), and is named in this home's control folder as
    // another running process's socket would be.
    let other_home = tempfile::tempdir().unwrap();
    let other_store = crate::support::open_store(&path).await.unwrap();
    let other_engine = Engine::new(EngineOptions {
        config: Config::with_home(other_home.path()),
        tokens: Arc::new(StaticToken::new("token", Some(USER.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(other_store.clone()), policy: Policy::default() },
    })
    .unwrap();
    let other = control::serve(other_engine, other_home.path(), CancellationToken::new()).await.unwrap();
    let running = std::os::unix::process::parent_id();
    std::os::unix::fs::symlink(other.path(), setup.home.path().join("control").join(format!("{running}.sock")))
        .unwrap();

    for door in ["the control socket", "the operations the desktop calls"] {
        let grant = week_grant(format!("grant by {door}"), Utc::now());
        here.insert_grant(&grant).await.unwrap();
        other_store.sync_index().await.unwrap();
        let covers = |store: &gatehouse_core::approval::store::Store| {
            store.candidates("update_cells").iter().any(|candidate| candidate.id == grant.id)
        };
        assert!(covers(&other_store), "{door}: the other server knows the grant");

        let revoked = match door {
            "the control socket" => {
                let clients = Client::connect_all(setup.home.path()).await.unwrap();
                assert_eq!(clients.len(), 2, "this server and the other");
                let mut this = clients.into_iter().find(|client| client.pid() == std::process::id()).unwrap();
                this.revoke(&grant.id).await.unwrap()
            }
            _ => {
                let neighbours = Arc::new(RunningServers::new(setup.home.path(), &path));
                Ops::new(here.clone(), neighbours).revoke_grant(&grant.id).await.unwrap()
            }
        };
        assert!(revoked.changed, "{door}: {revoked:?}");
        assert!(!covers(&here), "{door}: this server dropped it");
        assert!(!covers(&other_store), "{door}: the other server was told before the revoke returned");
    }
    other.shutdown().await;
}

/// A tool-wide grant of `update_cells` for a week from `now`, as a card's *Always allow* makes one.
fn week_grant(id: String, now: chrono::DateTime<Utc>) -> Grant {
    let tools = gatehouse_core::tools::all_tools();
    let update_cells = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
    crate::support::week_grant(id, USER, update_cells, now)
}

/// A host of an earlier version, which knows `info` and `tools` but not `tool_list`: what the desktop app not
/// yet updated answers while an assistant's bundled `gatehouse serve` is newer. Answers one connection's
/// requests, line by line, until it closes.
async fn earlier_host(stream: tokio::net::UnixStream, tool: Value) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: Value = serde_json::from_str(&line).unwrap_or_default();
        let answer = match request["op"].as_str() {
            Some("info") => json!({ "info": {
                "pid": std::process::id(), "version": "0.0.9", "sandbox": true, "store": null, "host": true
            } }),
            Some("tools") => json!({ "tools": [tool] }),
            _ => json!({ "error": { "kind": "bad_request", "message": "unknown variant" } }),
        };
        let mut text = answer.to_string();
        text.push('\n');
        if write.write_all(text.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A relay still attaches to a host that doesn't know `tool_list` (an earlier version): it asks `tools` as
/// that host's own relays did, and offers what it answered, as fixed.
#[tokio::test]
async fn a_relay_attaches_to_a_host_of_an_earlier_version_with_its_tool_list_fixed() {
    use gatehouse_core::mcp::backend::Backend as _;
    let home = tempfile::tempdir().unwrap();
    let dir = control::control_dir(home.path());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let listener = tokio::net::UnixListener::bind(dir.join(format!("{}.sock", std::process::id()))).unwrap();
    let tool = json!({ "name": "get_sheet_data", "description": "Read cells.", "inputSchema": { "type": "object" } });
    tokio::spawn({
        let tool = tool.clone();
        async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(earlier_host(stream, tool.clone()));
            }
        }
    });
    let relay = gatehouse_core::mcp::relay::Relay::connect(home.path().to_owned())
        .await
        .expect("the earlier host answers")
        .expect("it is this user's host");
    let names: Vec<String> = relay.tools().into_iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(names, ["get_sheet_data"]);
    assert!(!relay.tools_change(), "an earlier host's list is relayed as fixed");
    relay.refresh_tools().await;
    assert_eq!(relay.tools().len(), 1, "and stays");
}
