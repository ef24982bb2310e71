//! Cards a person can read (issue 18, item 4), against the real emulator: every write says in one sentence
//! what it will do, naming its target; a cell write's card previews its cells as the emulator holds them,
//! before → after, and after *Allow once* the emulator holds the "after"; a write whose cells changed since
//! its preview asks again with what they hold now; a slow Google shows the card first and fills the preview
//! in; a delete previews what it removes; mail previews whom it goes to.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::{BrokerEvent, PendingCard};
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::preview::{CellChange, MAX_CELLS, Preview, PreviewState};
use gatehouse_core::config::{Config, GoogleBackend};
use gatehouse_core::engine::{ApprovalSetup, Reply};
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::tools::{Access, all_tools};
use gatehouse_core::{Engine, EngineOptions};
use google_fake::Fault;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use crate::support::{self, Harness};

/// An engine on the harness's emulator whose cards nobody answers but the test (the harness's own engine
/// approves everything: it plays someone else editing the same spreadsheet).
struct Cards {
    engine: Arc<Engine>,
    events: broadcast::Receiver<BrokerEvent>,
    _home: tempfile::TempDir,
}

fn cards(h: &Harness) -> Cards {
    let home = tempfile::tempdir().expect("temp home");
    let mut config = Config::with_home(home.path());
    config.google_endpoint = Some(h.google.url().parse().expect("emulator url"));
    config.google_backend = GoogleBackend::Rest;
    let token = h.google.issue_token(h.owner());
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token, Some(support::USER.to_owned()))),
        sandbox: false,
        approvals: ApprovalSetup { store: None, policy: Policy::default() },
        retry: support::quick_retry(),
    })
    .expect("engine");
    let events = engine.approvals().broker().subscribe();
    Cards { engine, events, _home: home }
}

impl Cards {
    fn call(&self, tool: &str, args: Value) -> tokio::task::JoinHandle<Reply> {
        let engine = Arc::clone(&self.engine);
        let (tool, args) = (tool.to_owned(), args.as_object().cloned());
        tokio::spawn(async move { engine.call(&tool, args).await.expect("a known tool") })
    }

    /// The next card shown, or an update of one shown.
    async fn next(&mut self) -> BrokerEvent {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv()).await;
            match event.expect("a card within 20 s").expect("the broker is up") {
                BrokerEvent::Removed(_) => continue,
                other => return other,
            }
        }
    }

    async fn card(&mut self) -> PendingCard {
        match self.next().await {
            BrokerEvent::Added(card) => *card,
            other => panic!("expected a new card, got {other:?}"),
        }
    }

    fn answer(&self, card: &PendingCard, answer: RawAnswer) {
        self.engine.approvals().broker().answer(card.id, answer).expect("the card waits");
    }
}

fn cells(card: &PendingCard) -> (Vec<CellChange>, usize) {
    match &card.preview {
        PreviewState::Ready { preview: Preview::Cells { cells, more } } => (cells.clone(), *more),
        other => panic!("expected a cell preview, got {other:?}"),
    }
}

fn change(cell: &str, before: &str, after: &str) -> CellChange {
    CellChange { cell: cell.into(), before: before.into(), after: after.into() }
}

fn values(h: &Harness, id: &str, sheet: &str) -> Vec<Vec<String>> {
    h.google.world().sheets.values(id, sheet)
}

fn seed(h: &Harness, rows: &[&[&str]]) -> String {
    let rows: Vec<Vec<Value>> = rows.iter().map(|row| row.iter().map(|cell| json!(cell)).collect()).collect();
    h.google.world().create_spreadsheet("Budget 2026", &[("Sheet1", rows)], &h.owner())
}

#[tokio::test]
async fn a_cell_writes_card_previews_what_the_emulator_holds_and_allow_once_leaves_the_after() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["Name", "Total"], &["Pens", "3"]]);
    let mut cards = cards(&h);
    let call = cards.call(
        "update_cells",
        json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": [["Item", "Sum"], ["Ink", null]] }),
    );
    let card = cards.card().await;
    assert_eq!(card.sentence.text(), "write 3 cells in “Budget 2026” › “Sheet1” (A1:B2)");
    let (listed, more) = cells(&card);
    assert_eq!(listed, [change("A1", "Name", "Item"), change("B1", "Total", "Sum"), change("A2", "Pens", "Ink")]);
    assert_eq!(more, 0);
    // The preview's "before" is what the emulator holds.
    let held = values(&h, &id, "Sheet1");
    for change in &listed {
        let (column, row) = (change.cell.as_bytes()[0] - b'A', change.cell[1..].parse::<usize>().unwrap() - 1);
        assert_eq!(held[row][usize::from(column)], change.before, "{change:?} against {held:?}");
    }

    cards.answer(&card, RawAnswer::AllowOnce);
    let reply = call.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(values(&h, &id, "Sheet1"), [["Item", "Sum"], ["Ink", "3"]], "the emulator holds the after");
}

#[tokio::test]
async fn a_cell_write_whose_cells_changed_since_its_preview_asks_again_and_runs_only_on_the_new_answer() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["Plan"]]);
    let mut cards = cards(&h);
    let args = json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": [["Ours"]] });
    let call = cards.call("update_cells", args);
    let first = cards.card().await;
    assert_eq!(cells(&first).0, [change("A1", "Plan", "Ours")]);
    assert_eq!(first.asked_again, None);

    // Someone else writes the cell while the card waits.
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": [["Theirs"]] })).await;
    cards.answer(&first, RawAnswer::AllowOnce);
    let again = cards.card().await;
    assert!(again.asked_again.as_deref().is_some_and(|why| why.contains("no longer what you saw")), "{again:?}");
    assert_eq!(cells(&again).0, [change("A1", "Theirs", "Ours")], "the new card shows what the cell holds now");
    assert_eq!(values(&h, &id, "Sheet1"), [["Theirs"]], "the first answer did not cover it: nothing written");

    cards.answer(&again, RawAnswer::AllowOnce);
    let reply = call.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(values(&h, &id, "Sheet1"), [["Ours"]]);
}

#[tokio::test]
async fn a_denied_card_writes_nothing_and_an_empty_cell_previews_as_empty() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["a"]]);
    let mut cards = cards(&h);
    let args = json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "B1", "data": [["b"]] });
    let call = cards.call("update_cells", args.clone());
    let card = cards.card().await;
    assert_eq!(cells(&card).0, [change("B1", "", "b")], "an empty cell before");
    cards.answer(&card, RawAnswer::Deny);
    assert!(call.await.unwrap().is_error);
    assert_eq!(values(&h, &id, "Sheet1"), [["a"]]);
}

#[tokio::test]
async fn twenty_cells_are_previewed_and_the_rest_counted() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["x"]]);
    let mut cards = cards(&h);
    let data: Vec<Vec<Value>> = (0..50).map(|r| (0..10).map(|c| json!(r * 10 + c)).collect()).collect();
    let call =
        cards.call("update_cells", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": data }));
    let card = cards.card().await;
    assert_eq!(card.sentence.text(), "write 500 cells in “Budget 2026” › “Sheet1” (A1:J50)");
    let (listed, more) = cells(&card);
    assert_eq!((listed.len(), more), (MAX_CELLS, 500 - MAX_CELLS));
    assert_eq!(listed[0], change("A1", "x", "0"));
    cards.answer(&card, RawAnswer::Deny);
    call.await.unwrap();
}

#[tokio::test]
async fn a_slow_google_shows_the_card_first_and_fills_the_preview_in_when_it_comes() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["Plan"]]);
    let mut cards = cards(&h);
    h.google.inject(Fault::delay(&format!("/v4/spreadsheets/{id}/values"), 2_500, 1));
    let started = std::time::Instant::now();
    let call = cards
        .call("update_cells", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": [["Ours"]] }));
    let card = cards.card().await;
    assert!(started.elapsed() < Duration::from_millis(2_400), "the card did not wait for the slow preview");
    assert_eq!(card.preview, PreviewState::Reading);
    let updated = match cards.next().await {
        BrokerEvent::Updated(updated) => *updated,
        other => panic!("expected the preview to arrive, got {other:?}"),
    };
    assert_eq!(updated.id, card.id);
    assert_eq!(cells(&updated).0, [change("A1", "Plan", "Ours")]);
    assert_eq!(cards.engine.approvals().broker().get(card.id).map(|card| card.preview), Some(updated.preview));
    cards.answer(&card, RawAnswer::AllowOnce);
    assert!(!call.await.unwrap().is_error);
    assert_eq!(values(&h, &id, "Sheet1"), [["Ours"]]);
}

#[tokio::test]
async fn a_preview_google_refuses_says_it_could_not_be_read_and_the_person_still_decides() {
    let h = Harness::new().await;
    let id = seed(&h, &[&["Plan"]]);
    let mut cards = cards(&h);
    h.google.inject(Fault::status(&format!("/v4/spreadsheets/{id}/values"), 403, 1));
    let call = cards
        .call("update_cells", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A1", "data": [["Ours"]] }));
    let card = cards.card().await;
    assert!(matches!(&card.preview, PreviewState::Unread { why } if why.contains("Google")), "{:?}", card.preview);
    cards.answer(&card, RawAnswer::AllowOnce);
    assert!(!call.await.unwrap().is_error, "no preview shown, nothing to hold the call to: it runs");
    assert_eq!(values(&h, &id, "Sheet1"), [["Ours"]]);
}

#[tokio::test]
async fn a_delete_previews_what_it_removes_and_where_it_goes() {
    let h = Harness::new().await;
    let folder = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Old notes", None, &h.owner());
        world.drive.create_folder("2024", Some(&folder), &h.owner());
        world.drive.create_blob("todo.txt", "text/plain", b"milk".to_vec(), Some(&folder), &h.owner());
        folder
    };
    let mut cards = cards(&h);
    let call = cards.call("delete_file", json!({ "file_id": folder }));
    let card = cards.card().await;
    assert_eq!(card.sentence.text(), "move “Old notes” to the trash");
    match &card.preview {
        PreviewState::Ready { preview: Preview::Removal { name, what, items, permanent, .. } } => {
            assert_eq!((name.as_str(), what.as_str(), *items, *permanent), ("Old notes", "folder", Some(2), false));
        }
        other => panic!("expected a removal preview, got {other:?}"),
    }
    cards.answer(&card, RawAnswer::Deny);
    call.await.unwrap();
}

#[tokio::test]
async fn mail_previews_whom_it_goes_to_its_subject_and_first_lines() {
    let h = Harness::new().await;
    let mut cards = cards(&h);
    let call = cards.call(
        "send_message",
        json!({ "to": ["ann@example.com", "bo@example.com"], "cc": "cy@example.com", "subject": "Budget", "body": "Hi all,\n\nthe budget is done." }),
    );
    let card = cards.card().await;
    assert_eq!(
        card.sentence.text(),
        "send an email to 3 people: ann@example.com, bo@example.com and cy@example.com, subject “Budget”"
    );
    let PreviewState::Ready { preview: Preview::Mail { to, cc, subject, first_lines, .. } } = &card.preview else {
        panic!("expected a mail preview, got {:?}", card.preview)
    };
    assert_eq!((to.len(), cc.as_slice(), subject.as_str()), (2, &["cy@example.com".to_owned()][..], "Budget"));
    assert_eq!(first_lines, "Hi all,\nthe budget is done.");
    cards.answer(&card, RawAnswer::Deny);
    call.await.unwrap();
}

/// Arguments a tool takes, made from its own input schema: every property given (so every target it can
/// name is named), each value the simplest its type allows, ids distinct by their argument's name.
#[tokio::test]
async fn a_rename_a_move_and_an_event_change_preview_what_is_there_and_what_it_becomes() {
    let h = Harness::new().await;
    let (file, to) = {
        let mut world = h.google.world();
        let from = world.drive.create_folder("Drafts", None, &h.owner());
        let to = world.drive.create_folder("Final", None, &h.owner());
        let file = world.drive.create_blob("notes.txt", "text/plain", b"milk".to_vec(), Some(&from), &h.owner());
        (file, to)
    };
    let text = |card: &PendingCard| match &card.preview {
        PreviewState::Ready { preview: Preview::Text { before, after } } => (before.clone(), after.clone()),
        other => panic!("expected a before/after preview, got {other:?}"),
    };
    let mut cards = cards(&h);

    let call = cards.call("rename_file", json!({ "file_id": file, "new_name": "notes-final.txt" }));
    let card = cards.card().await;
    assert_eq!(text(&card), ("notes.txt".to_owned(), "notes-final.txt".to_owned()));
    cards.answer(&card, RawAnswer::Deny);
    call.await.unwrap();

    let call = cards.call("move_file", json!({ "file_id": file, "destination_folder_id": to }));
    let card = cards.card().await;
    assert_eq!(text(&card), ("“notes.txt”, in “Drafts”".to_owned(), "“notes.txt”, in “Final”".to_owned()));
    cards.answer(&card, RawAnswer::Deny);
    call.await.unwrap();

    let email = support::USER;
    let event = json!({ "summary": "Tea", "location": "Room 1", "start": { "dateTime": "2026-12-10T10:00:00Z" }, "end": { "dateTime": "2026-12-10T11:00:00Z" } });
    let id = h.google.world().calendar.add_event(email, &h.owner(), event).expect("an event");
    let change = json!({ "calendar_id": email, "event_id": id, "summary": "Coffee" });
    let call = cards.call("update_event", change);
    let card = cards.card().await;
    let (before, after) = text(&card);
    assert!(
        before.starts_with("Title: Tea\nWhen: 2026-12-10T10:00:00Z") && before.contains("Where: Room 1"),
        "{before}"
    );
    assert!(
        after.starts_with("Title: Coffee\nWhen: 2026-12-10T10:00:00Z") && after.contains("Where: Room 1"),
        "{after}"
    );
    cards.answer(&card, RawAnswer::AllowOnce);
    let reply = call.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    let now = h.google.world().calendar.event_json(email, &id).expect("the event");
    assert_eq!(now["summary"], "Coffee", "the after is what the emulator holds");
}

fn sample(schema: &Value, root: &Value, name: &str) -> Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let path = reference.trim_start_matches("#/").split('/').fold(root, |node, key| &node[key]);
        return sample(path, root, name);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|options| {
            options.iter().find(|option| option.get("type").and_then(Value::as_str) != Some("null"))
        }) {
            return sample(first, root, name);
        }
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|values| values.first()) {
        return first.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).find(|kind| *kind != "null").unwrap_or(""),
        Some(Value::String(kind)) => kind.as_str(),
        _ => "",
    };
    match kind {
        "string" => json!(match name {
            name if name.contains("email") || ["to", "cc", "bcc", "email_address"].contains(&name) => {
                "anna@example.com".to_owned()
            }
            name if name.contains("range") => "A1:B2".to_owned(),
            "sheet" | "src_sheet" | "dst_sheet" | "sheet_name" => "Sheet1".to_owned(),
            "start" | "end" | "time_min" | "time_max" => "2026-03-01T10:00:00Z".to_owned(),
            "role" => "writer".to_owned(),
            "direction" => "upload".to_owned(),
            name => format!("{name}-1"),
        }),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "boolean" => json!(false),
        "array" => json!([sample(schema.get("items").unwrap_or(&Value::Null), root, name)]),
        "object" => {
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (key, property) in properties {
                    object.insert(key.clone(), sample(property, root, key));
                }
            } else if let Some(values) = schema.get("additionalProperties").filter(|values| values.is_object()) {
                object.insert("A1".into(), sample(values, root, name));
            }
            Value::Object(object)
        }
        _ => json!("x"),
    }
}

/// Every write of the catalogue says in its own words what a call will do (not the generic sentence of a
/// tool nobody worded), and names the target it acts on: each file, folder, spreadsheet, document or
/// calendar its evaluators would limit a grant to is in its sentence.
#[test]
fn every_write_tool_says_what_it_does_and_names_its_target() {
    let mut problems = Vec::new();
    for tool in all_tools().iter().filter(|tool| matches!(tool.meta.access, Access::Write(_))) {
        let name = tool.meta.name;
        if !tool.is_worded() {
            problems.push(format!("{name}: no sentence declared (ToolDef::worded)"));
            continue;
        }
        let schema = Value::Object((**tool.input_schema()).clone());
        let args = sample(&schema, &schema, "");
        let said = tool.said(&args);
        let generic = gatehouse_core::approval::sentence::Said::generic(tool.meta.title, tool.meta.description);
        if said == generic {
            // The tool's wording takes its own arguments type: these did not parse as it.
            problems.push(format!("{name}: its sentence did not take the arguments {args}"));
            continue;
        }
        for evaluator in tool.evaluators().iter().filter(|evaluator| evaluator.constrains()) {
            let Ok(Some(target)) = evaluator.propose(&args) else { continue };
            let named = ["spreadsheet", "document", "file", "folder", "calendar"].contains(&target.kind.as_str());
            if named && !said.mentions(&target.value) {
                problems.push(format!("{name}: its sentence does not name its {} {}", target.kind, target.value));
            }
        }
        let text = said.named(|_| None).text();
        if text.trim().is_empty() || text.contains("  ") {
            problems.push(format!("{name}: its sentence reads badly: {text:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
