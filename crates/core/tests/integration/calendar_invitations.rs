//! Issue 15, item 8: a grant "only this calendar" is about where events go, not whom Google emails. Through a
//! real engine over a real store, with a grant for the calendar: an event inviting only the person's colleagues
//! (or nobody) runs under the grant; one inviting anyone outside the person's domain — anyone at all, for a
//! personal gmail.com account — is asked on a card saying why, and, declined, never reaches Google.
//!
//! The same holds for the people already on an event: Google emails them an update or a cancellation, so
//! `update_event` and `delete_event` of an event with anyone outside on it are asked (the card naming them),
//! and so are they when the event's attendees can't be read; an event with only colleagues on it is changed
//! and deleted under the grant.

use crate::store_engine;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use gatehouse_core::Engine;
use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{Caller, Constraint, Grant};
use gatehouse_core::approval::store::Store;
use gatehouse_core::engine::Reply;
use gatehouse_core::tools::all_tools;
use google_fake::{FakeGoogle, Fault, Identity};
use serde_json::{Map, Value, json};

struct Setup {
    user: String,
    google: FakeGoogle,
    _home: tempfile::TempDir,
    engine: Arc<Engine>,
}

/// An engine signed in as `user` over a real store holding `user`'s grants for `create_event`,
/// `update_event` and `delete_event`, all limited to the calendar `primary`.
async fn setup(user: &str) -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let (engine, store) = store_engine::engine_over_store(&google, home.path(), user, |_| {}).await;
    for tool in ["create_event", "update_event", "delete_event"] {
        grant(&store, user, tool).await;
    }
    Setup { user: user.to_owned(), google, _home: home, engine }
}

async fn grant(store: &Store, user: &str, tool: &str) {
    let def = all_tools().into_iter().find(|t| t.meta.name == tool).unwrap();
    let now = Utc::now();
    let grant = Grant {
        constraint: Some(Constraint { kind: "calendar".into(), value: "primary".into() }),
        ..crate::support::week_grant(format!("only-primary-{tool}"), user, &def, now)
    };
    store.insert_grant(&grant).await.unwrap();
}

fn meta() -> CallMeta {
    CallMeta {
        caller: Caller {
            agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
            interactive: true,
        },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are an object"),
    }
}

fn event(summary: &str, attendees: &[&str]) -> Value {
    json!({
        "calendar_id": "primary",
        "summary": summary,
        "start": "2026-12-01T10:00:00Z",
        "end": "2026-12-01T11:00:00Z",
        "attendees": attendees,
    })
}

impl Setup {
    /// Runs a call that a grant should cover: it must finish without any card.
    async fn covered(&self, tool: &str, args: Value) -> Value {
        let reply =
            tokio::time::timeout(Duration::from_secs(10), self.engine.call_as(&meta(), tool, Some(object(args))))
                .await
                .expect("a covered call runs without waiting for anyone")
                .unwrap();
        assert!(!reply.is_error, "{}", reply.text);
        assert!(self.engine.approvals().broker().pending().is_empty());
        serde_json::from_str(&reply.text).unwrap()
    }

    /// Runs a call that must be asked: returns the card it shows and the reply once the card is declined.
    async fn asked(&self, tool: &str, args: Value) -> (PendingCard, Reply) {
        let call = tokio::spawn({
            let (engine, tool) = (Arc::clone(&self.engine), tool.to_owned());
            async move { engine.call_as(&meta(), &tool, Some(object(args))).await }
        });
        let mut card = None;
        for _ in 0..1000 {
            if let Some(pending) = self.engine.approvals().broker().pending().into_iter().next() {
                card = Some(pending);
                break;
            }
            assert!(!call.is_finished(), "{tool} ran under the calendar grant without asking");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let card = card.expect("a card appeared");
        self.engine.approvals().broker().answer(card.id, RawAnswer::Deny).unwrap();
        (card, call.await.unwrap().unwrap())
    }

    /// Puts an event on the user's primary calendar in the emulator, as if the person had made it in Google
    /// Calendar: attendees as `calendar.v3.json`'s `EventAttendee` (`email`, `responseStatus`). Its id.
    fn seed_event(&self, summary: &str, attendees: &[&str]) -> String {
        let attendees: Vec<Value> =
            attendees.iter().map(|email| json!({ "email": email, "responseStatus": "accepted" })).collect();
        let event = json!({
            "summary": summary,
            "start": { "dateTime": "2026-12-02T10:00:00Z" },
            "end": { "dateTime": "2026-12-02T11:00:00Z" },
            "attendees": attendees,
        });
        self.google.world().calendar.add_event(&self.user, &Identity::user(&self.user), event).unwrap()
    }

    /// The event as the emulator holds it.
    fn stored(&self, id: &str) -> Value {
        self.google.world().calendar.event_json(&self.user, id).expect("the event is in Calendar")
    }

    /// How many live events of the user's primary calendar have this title, in the emulator.
    fn events_named(&self, summary: &str) -> usize {
        let world = self.google.world();
        let ids = world.calendar.live_event_ids(&self.user);
        ids.iter()
            .filter_map(|id| world.calendar.event_json(&self.user, id))
            .filter(|e| e["summary"] == summary)
            .count()
    }
}

#[tokio::test]
async fn a_calendar_grant_covers_colleagues_but_asks_before_google_mails_outsiders() {
    let s = setup("ada@example.com").await;
    // Nobody, oneself, or colleagues at example.com: the grant covers it.
    s.covered("create_event", event("Alone", &[])).await;
    s.covered("create_event", event("Team", &["bob@example.com", "Ada@Example.com"])).await;
    assert_eq!(s.events_named("Team"), 1);

    // Two outsiders (another domain, and a subdomain, which is another domain) among colleagues: asked.
    let (card, reply) =
        s.asked("create_event", event("Leak", &["bob@example.com", "eve@evil.example", "mal@mail.example.com"])).await;
    assert_eq!(card.tool, "create_event");
    let why = card.why_not_grantable.clone().unwrap_or_default();
    assert!(why.contains("invites 2 people outside example.com, who get an email from Google"), "{why}");
    assert!(reply.is_error, "declined: {}", reply.text);
    assert_eq!(s.events_named("Leak"), 0, "declined, Google never saw it, so nobody was mailed");

    // Changing an event's attendees to an outsider is asked too.
    let created = s.covered("create_event", event("Sync", &["bob@example.com"])).await;
    let id = created["event"]["id"].as_str().unwrap().to_owned();
    let change = json!({ "calendar_id": "primary", "event_id": id, "attendees": ["eve@evil.example"] });
    let (card, reply) = s.asked("update_event", change).await;
    assert!(card.why_not_grantable.unwrap_or_default().contains("invites 1 person outside example.com"));
    assert!(reply.is_error);
    // …while a change that invites nobody new stays covered.
    s.covered("update_event", json!({ "calendar_id": "primary", "event_id": id, "summary": "Sync (moved)" })).await;
}

#[tokio::test]
async fn with_a_personal_account_every_invitee_is_asked_for() {
    let s = setup("ada@gmail.com").await;
    s.covered("create_event", event("Alone", &[])).await;
    let (card, reply) = s.asked("create_event", event("Drinks", &["bob@gmail.com"])).await;
    let why = card.why_not_grantable.unwrap_or_default();
    assert!(why.contains("invites 1 person, who gets an email from Google"), "{why}");
    assert!(why.contains("personal Google account"), "{why}");
    assert!(reply.is_error);
    assert_eq!(s.events_named("Drinks"), 0);
}

fn change(id: &str) -> Value {
    json!({ "calendar_id": "primary", "event_id": id, "description": "Agenda attached" })
}

fn cancel(id: &str) -> Value {
    json!({ "calendar_id": "primary", "event_id": id })
}

/// Issue 15, item 8, its last point: Google emails a change or a cancellation to everyone already on the
/// event (`sendUpdates=all`). Before the fix the calendar grant covered both calls here, and the outsider
/// was mailed without the person seeing a card.
#[tokio::test]
async fn a_calendar_grant_asks_before_google_mails_an_events_outsiders_a_change_or_a_cancellation() {
    let s = setup("ada@example.com").await;
    let board = s.seed_event("Board", &["ada@example.com", "bob@example.com", "eve@evil.example"]);
    assert_eq!(s.stored(&board)["attendees"][2]["email"], "eve@evil.example");

    for (tool, args) in [("update_event", change(&board)), ("delete_event", cancel(&board))] {
        let (card, reply) = s.asked(tool, args).await;
        assert_eq!(card.tool, tool);
        assert!(!card.offer.grantable, "{tool}: no Always allow for a call that mails outsiders");
        let why = card.why_not_grantable.unwrap_or_default();
        assert!(
            why.contains("Google emails this change to everyone on the event, and 1 person on it is outside example.com (eve@evil.example)"),
            "{tool}: {why}"
        );
        assert!(!why.contains("bob@example.com"), "only the outsiders are named: {why}");
        assert!(reply.is_error, "declined: {}", reply.text);
    }
    // Declined, neither reached Google: the event is as it was, and still there.
    let stored = s.stored(&board);
    assert_eq!(stored["status"], "confirmed");
    assert!(stored.get("description").is_none(), "{stored}");

    // Taking the outsider off the event mails them a cancellation: asked too.
    let only_colleagues = json!({ "calendar_id": "primary", "event_id": board, "attendees": ["bob@example.com"] });
    let (card, _) = s.asked("update_event", only_colleagues).await;
    assert!(card.why_not_grantable.unwrap_or_default().contains("(eve@evil.example)"));

    // Only the person and colleagues on the event: changed, then deleted, under the grant.
    let team = s.seed_event("Team", &["ada@example.com", "Bob@Example.com"]);
    let out = s.covered("update_event", change(&team)).await;
    assert_eq!(out["event"]["description"], "Agenda attached");
    assert_eq!(s.stored(&team)["description"], "Agenda attached");
    s.covered("delete_event", cancel(&team)).await;
    assert_eq!(s.stored(&team)["status"], "cancelled");
    // Nobody on it at all: the same.
    let alone = s.seed_event("Alone", &[]);
    s.covered("delete_event", cancel(&alone)).await;
}

#[tokio::test]
async fn with_a_personal_account_anyone_else_on_the_event_is_asked_for() {
    let s = setup("ada@gmail.com").await;
    let drinks = s.seed_event("Drinks", &["ada@gmail.com", "bob@gmail.com", "cy@gmail.com"]);
    for (tool, args) in [("update_event", change(&drinks)), ("delete_event", cancel(&drinks))] {
        let (card, reply) = s.asked(tool, args).await;
        let why = card.why_not_grantable.unwrap_or_default();
        assert!(
            why.contains("Google emails this change to everyone on the event: 2 people (bob@gmail.com, cy@gmail.com)"),
            "{tool}: {why}"
        );
        assert!(why.contains("personal Google account"), "{why}");
        assert!(reply.is_error);
    }
    assert_eq!(s.stored(&drinks)["status"], "confirmed");

    let mine = s.seed_event("Dentist", &["ada@gmail.com"]);
    s.covered("update_event", change(&mine)).await;
    s.covered("delete_event", cancel(&mine)).await;
    assert_eq!(s.stored(&mine)["status"], "cancelled");
}

/// Failing closed: when Google won't say who is on the event, whom a grant would let Google mail is unknown,
/// so the call asks, and the card says why.
#[tokio::test]
async fn when_the_events_attendees_cannot_be_read_the_call_is_asked() {
    let s = setup("ada@example.com").await;
    let team = s.seed_event("Team", &["bob@example.com"]);
    // Three reads refused: update_event's card reads the event twice (who is on it, and its preview),
    // delete_event's once.
    s.google.inject(Fault::status(&format!("/calendar/v3/calendars/primary/events/{team}"), 403, 3).for_method("GET"));
    for (tool, args) in [("update_event", change(&team)), ("delete_event", cancel(&team))] {
        let (card, reply) = s.asked(tool, args).await;
        let why = card.why_not_grantable.unwrap_or_default();
        assert!(why.contains("Gatehouse could not read who is on it"), "{tool}: {why}");
        assert!(reply.is_error);
    }
    // Google answering again, the grant covers a change again.
    let moved = json!({ "calendar_id": "primary", "event_id": team, "location": "Room 4" });
    s.covered("update_event", moved).await;
    assert_eq!(s.stored(&team)["location"], "Room 4");
}
