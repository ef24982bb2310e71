//! A re-sent request (the same connection, the same JSON-RPC id, the same call) never runs a gated call a
//! second time: it gets the first run's reply, also while the first still waits for the person, and a pause
//! or a *never allow* rule added since refuses it first (issue 15, item 1).
//!
//! A real engine over a SQLite store and the Google emulator; the test answers the cards as the person would.

use crate::store_engine;

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use gatehouse_core::Engine;
use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::broker::BrokerEvent;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{Caller, DecisionSource, Verdict};
use gatehouse_core::approval::store::{AuditQuery, NeverAllow, Store};
use gatehouse_core::engine::Reply;
use google_fake::{FakeGoogle, Identity};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

const ADA: &str = "ada@example.com";

struct Setup {
    google: FakeGoogle,
    _home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    sheet: String,
    events: broadcast::Receiver<BrokerEvent>,
}

async fn setup() -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet = google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(ADA));
    let (engine, store) = store_engine::engine_over_store(&google, home.path(), ADA, |_| {}).await;
    let events = engine.approvals().broker().subscribe();
    Setup { google, _home: home, engine, store, sheet, events }
}

fn meta(request: &str) -> CallMeta {
    CallMeta {
        caller: Caller {
            agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
            interactive: true,
        },
        retry_marked: false,
        request: Some(format!("0000000000000001/{request}")),
        origin: None,
    }
}

impl Setup {
    /// `add_rows` of one row above row 1: each run moves "a" one row down.
    fn add_row(&self) -> Map<String, Value> {
        let Value::Object(arguments) = json!({ "spreadsheet_id": self.sheet, "sheet": "Sales", "count": 1 }) else {
            unreachable!()
        };
        arguments
    }

    /// How many times `add_rows` ran on Google: the rows above "a".
    fn runs(&self) -> usize {
        let values = self.google.world().sheets.values(&self.sheet, "Sales");
        values.iter().position(|row| row.first().map(String::as_str) == Some("a")).expect("a is still there")
    }

    fn call(&self, request: &str) -> tokio::task::JoinHandle<Reply> {
        let (engine, arguments, meta) = (self.engine.clone(), self.add_row(), meta(request));
        tokio::spawn(async move { engine.call_as(&meta, "add_rows", Some(arguments)).await.expect("a known tool") })
    }

    /// The id of the next card that appears.
    async fn next_card(&mut self) -> u64 {
        let card = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let BrokerEvent::Added(card) = self.events.recv().await.unwrap() {
                    return *card;
                }
            }
        })
        .await
        .expect("a card appeared");
        card.id
    }

    /// Answers the next card that appears.
    async fn answer_next(&mut self, answer: RawAnswer) {
        let card = self.next_card().await;
        self.engine.approvals().broker().answer(card, answer).expect("the card waits");
    }

    /// The audit records of `add_rows` that let it run.
    async fn allowed_records(&self) -> usize {
        let query = AuditQuery { tool: Some("add_rows".into()), ..AuditQuery::default() };
        let records = self.store.list_audit(&query).await.unwrap();
        records.iter().filter(|record| record.entry.verdict == Verdict::Allowed).count()
    }
}

#[tokio::test]
async fn a_resent_request_gets_the_first_reply_and_never_runs_twice() {
    let mut setup = setup().await;
    let first = setup.call("777");
    setup.answer_next(RawAnswer::AllowOnce).await;
    let first = first.await.unwrap();
    assert!(!first.is_error, "{}", first.text);
    assert_eq!(setup.runs(), 1);

    // The same request again, twice: the first reply, no card, no second run.
    for _ in 0..2 {
        let resent = tokio::time::timeout(Duration::from_secs(10), setup.call("777")).await.expect("no card").unwrap();
        assert_eq!((resent.text.as_str(), resent.is_error), (first.text.as_str(), false));
    }
    assert!(setup.engine.approvals().broker().pending().is_empty());
    assert_eq!(setup.runs(), 1, "the re-sent write ran again");
    assert_eq!(setup.allowed_records().await, 1);

    // A never-allow rule added since is honoured before the stored reply.
    let now = Utc::now();
    let rule = NeverAllow {
        id: "n1".into(),
        owner_account: ADA.into(),
        tool: "add_rows".into(),
        agent: None,
        constraint: None,
        created: now,
        expires: now + TimeDelta::days(1),
        removed: None,
    };
    setup.store.add_never_allow(&rule).await.unwrap();
    let refused = setup.call("777").await.unwrap();
    assert!(refused.is_error && refused.text.contains("chose never to allow"), "{}", refused.text);
    let records = setup.store.list_audit(&AuditQuery::default()).await.unwrap();
    assert_eq!(records[0].entry.source, DecisionSource::Deny("n1".into()));
    assert_eq!(setup.runs(), 1);
}

#[tokio::test]
async fn a_resend_while_the_first_waits_for_the_person_shares_its_one_card_and_run() {
    let mut setup = setup().await;
    let first = setup.call("778");
    let card = setup.next_card().await;
    // The re-send arrives while the first waits: no second card, and it waits for the first's reply.
    let resent = setup.call("778");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(setup.engine.approvals().broker().pending().len(), 1);
    assert!(!resent.is_finished());
    setup.engine.approvals().broker().answer(card, RawAnswer::AllowOnce).expect("the card waits");
    let (first, resent) = (first.await.unwrap(), resent.await.unwrap());
    assert!(!first.is_error, "{}", first.text);
    assert_eq!(resent.text, first.text);
    assert_eq!(setup.runs(), 1, "the re-sent write ran again");
    assert_eq!(setup.allowed_records().await, 1);

    // A new request (a new id) with the same call is a retry: asked again, run again once approved.
    let again = setup.call("779");
    setup.answer_next(RawAnswer::AllowOnce).await;
    assert!(!again.await.unwrap().is_error);
    assert_eq!(setup.runs(), 2);
}
