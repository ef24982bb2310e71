//! The card's commands on Tauri's mock runtime, with the app's real configuration and capabilities: they work
//! from the `card` window only, and what the card answers reaches the core's waiting call.

use crate::mock;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::{Dismissal, PendingCard};
use gatehouse_core::approval::model::{DecisionSource, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::Store;
use gatehouse_core::approval::{Approvals, Permit};
use gatehouse_core::tools::all_tools;
use gatehouse_desktop::card;
use mock::{ACCOUNT, app, approvals_without_store, ask, assert_refused_by_acl, invoke, pending, window};
use serde_json::{Value, json};
use tauri::{Listener, Manager};

#[tokio::test(flavor = "multi_thread")]
async fn card_pending_lists_the_waiting_calls_to_the_card_window_only() {
    let approvals = approvals_without_store();
    let app = app(&approvals);
    let card = window(&app, card::LABEL);
    assert_eq!(invoke(&card, "card_pending", json!({})), Ok(json!([])));

    let waiting = ask(&approvals, "S1");
    let expected = pending(&approvals, 1).await;
    let listed = invoke(&card, "card_pending", json!({})).expect("the card may list");
    let listed: Vec<PendingCard> = serde_json::from_value(listed).expect("pending cards");
    assert_eq!(listed, expected);
    assert_eq!(
        (listed[0].tool.as_str(), listed[0].agent.as_ref().map(|agent| agent.name.as_str())),
        ("update_cells", Some("claude"))
    );

    for label in ["settings", "main"] {
        assert_refused_by_acl(invoke(&window(&app, label), "card_pending", json!({})), "card_pending", label);
    }
    approvals.broker().dismiss_all(Dismissal::ShuttingDown);
    waiting.await.expect("the call ends");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cards_answer_reaches_the_waiting_call() {
    let approvals = approvals_without_store();
    let app = app(&approvals);
    let card = window(&app, card::LABEL);

    let allowed = ask(&approvals, "S1");
    let id = pending(&approvals, 1).await[0].id;
    assert_eq!(invoke(&card, "card_answer", json!({ "id": id, "answer": "AllowOnce" })), Ok(Value::Null));
    assert_eq!(allowed.await.expect("the call ends"), Permit::Run { source: DecisionSource::Person });

    let denied = ask(&approvals, "S2");
    let id = pending(&approvals, 1).await[0].id;
    assert_eq!(invoke(&card, "card_answer", json!({ "id": id, "answer": "Deny" })), Ok(Value::Null));
    assert!(matches!(denied.await.expect("the call ends"), Permit::Refuse { source: DecisionSource::Person, .. }));

    // A second answer to the same card changes nothing, and says so in words.
    let again = invoke(&card, "card_answer", json!({ "id": id, "answer": "AllowOnce" })).unwrap_err();
    assert!(again.to_string().contains("is not waiting any more"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn card_answer_is_refused_outside_the_card_window_and_the_call_keeps_waiting() {
    let approvals = approvals_without_store();
    let app = app(&approvals);
    let waiting = ask(&approvals, "S1");
    let id = pending(&approvals, 1).await[0].id;
    for label in ["settings", "main"] {
        let reply = invoke(&window(&app, label), "card_answer", json!({ "id": id, "answer": "AllowOnce" }));
        assert_refused_by_acl(reply, "card_answer", label);
    }
    assert_eq!(pending(&approvals, 1).await[0].id, id, "nothing was answered");
    assert!(!waiting.is_finished());

    let card = window(&app, card::LABEL);
    invoke(&card, "card_answer", json!({ "id": id, "answer": "Deny" })).expect("the card may answer");
    assert!(matches!(waiting.await.expect("the call ends"), Permit::Refuse { source: DecisionSource::Person, .. }));
}

#[tokio::test(flavor = "multi_thread")]
async fn always_allow_makes_the_grant_offered_and_an_unoffered_choice_is_refused_in_words() {
    let home = tempfile::tempdir().expect("temp dir");
    let store = Store::open_with(
        &home.path().join("gatehouse.db"),
        gatehouse_core::approval::store::StoreOptions::with_key([0x5a; 32]),
    )
    .await
    .expect("store");
    let approvals = Arc::new(Approvals::new(Some(store), Policy::default(), &all_tools()));
    let app = app(&approvals);
    let card = window(&app, card::LABEL);

    let waiting = ask(&approvals, "S1");
    let shown = pending(&approvals, 1).await.remove(0);
    assert!(shown.offer.grantable, "{shown:?}");
    let offered = shown.offer.constraint.clone().expect("update_cells offers this spreadsheet only");

    // 90 days was not offered: refused with what was, and the card still waits for a real answer.
    let unoffered = json!({ "Always": { "scope": "AGENT", "days": "90", "limit": "CONSTRAINED" } });
    let refused = invoke(&card, "card_answer", json!({ "id": shown.id, "answer": unoffered })).unwrap_err();
    let refused = refused.to_string();
    assert!(refused.contains("Nothing was answered") && refused.contains("1, 7 or 30 days"), "{refused}");
    assert_eq!(pending(&approvals, 1).await[0].id, shown.id);

    let choice = json!({ "Always": { "scope": "AGENT", "days": 7, "limit": "CONSTRAINED" } });
    assert_eq!(invoke(&card, "card_answer", json!({ "id": shown.id, "answer": choice })), Ok(Value::Null));
    assert_eq!(waiting.await.expect("the call ends"), Permit::Run { source: DecisionSource::Person });

    let grants = approvals.store().expect("store").list_grants().await.expect("grants");
    assert_eq!(grants.len(), 1, "{grants:?}");
    let grant = &grants[0];
    assert_eq!(grant.owner, Owner::User(ACCOUNT.into()));
    assert_eq!(
        (grant.tool.as_str(), grant.agent.as_ref().map(|agent| agent.name.as_str())),
        ("update_cells", Some("claude"))
    );
    assert_eq!(grant.constraint.as_ref(), Some(&offered.constraint));
    let days = (grant.expires.expect("expires") - grant.created).num_days();
    assert_eq!(days, 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_waiting_call_opens_the_card_window_and_tells_it_the_queue() {
    let approvals = approvals_without_store();
    let app = app(&approvals);
    let (sender, mut queues) = tokio::sync::mpsc::unbounded_channel::<Vec<PendingCard>>();
    app.listen_any(card::QUEUE_EVENT, move |event| {
        let queue = serde_json::from_str(event.payload()).expect("the queue as JSON");
        let _ = sender.send(queue);
    });
    card::watch(app.handle().clone(), approvals.clone());
    assert!(app.get_webview_window(card::LABEL).is_none(), "no card until a call waits");

    let first = ask(&approvals, "S1");
    let told = tokio::time::timeout(Duration::from_secs(5), queues.recv()).await.expect("told in time").expect("told");
    assert_eq!(told.len(), 1);
    let window = app.get_webview_window(card::LABEL).expect("the card window opened");

    let second = ask(&approvals, "S2");
    let told = tokio::time::timeout(Duration::from_secs(5), queues.recv()).await.expect("told in time").expect("told");
    assert_eq!(
        told.iter().map(|card| card.id).collect::<Vec<_>>(),
        approvals.broker().pending().iter().map(|c| c.id).collect::<Vec<_>>()
    );
    assert_eq!(told.len(), 2, "the card shows “1 of 2”");

    for card in &told {
        invoke(&window, "card_answer", json!({ "id": card.id, "answer": "Deny" })).expect("answered");
    }
    let mut last = None;
    while let Ok(Some(queue)) = tokio::time::timeout(Duration::from_secs(5), queues.recv()).await {
        let empty = queue.is_empty();
        last = Some(queue);
        if empty {
            break;
        }
    }
    assert_eq!(last, Some(Vec::new()), "the card is told nothing waits any more");
    for call in [first, second] {
        assert!(matches!(call.await.expect("the call ends"), Permit::Refuse { .. }));
    }
}
