//! The card page itself (ui/card.js), run by Node over a small stand-in for its DOM (`card_page/harness.js`)
//! and fed the queue the card window gets from the real `card_pending` command: what the page shows of
//! hostile text, its *Show all*, and that a card drawn where another just was can't be answered at once
//! (issue 15, item 6). WebKit itself is not needed; Node is (the MCP validators' tests install it).

use crate::mock;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use gatehouse_core::approval::broker::Dismissal;
use gatehouse_core::approval::model::{Agent, Caller};
use gatehouse_core::approval::{CallMeta, Permit};
use gatehouse_core::tools::all_tools;
use gatehouse_desktop::card;
use mock::{ACCOUNT, app, approvals_without_store, invoke, pending, window};
use serde_json::{Value, json};

/// A call of `update_cells` from `agent` (self-reported) writing the row `row`, waiting for the person.
fn ask_as(
    approvals: &std::sync::Arc<gatehouse_core::approval::Approvals>,
    agent: &str,
    row: Vec<String>,
) -> tokio::task::JoinHandle<Permit> {
    let (approvals, agent) = (approvals.clone(), agent.to_owned());
    let args = json!({ "spreadsheet_id": "S1", "sheet": "Sales", "range": "A1", "data": [row] });
    tokio::spawn(async move {
        let tools = all_tools();
        let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
        let meta = CallMeta {
            caller: Caller { agent: Some(Agent::self_reported(agent)), interactive: true },
            ..CallMeta::default()
        };
        approvals.permit(tool, &args, &meta, Some(ACCOUNT)).await
    })
}

/// Runs the page over `queue`; what the harness reports.
fn run_page(queue: &Value) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ui = root.join("../ui");
    let mut node = Command::new("node")
        .arg(root.join("tests/integration/card_page/harness.js"))
        .arg(ui.join("card.html"))
        .arg(ui.join("card.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Node runs the card page: install Node (scripts/install-deps.sh --validators)");
    node.stdin.take().expect("stdin").write_all(queue.to_string().as_bytes()).expect("the queue is written");
    let out = node.wait_with_output().expect("Node finishes");
    assert!(out.status.success(), "the page failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_card_page_shows_hostile_text_as_text_cuts_long_values_and_holds_a_replaced_card_inert() {
    let approvals = approvals_without_store();
    let app = app(&approvals);
    let forged = ask_as(&approvals, "claude\u{202e}\n\u{1b}[8m", vec!["x".repeat(400); 20]);
    pending(&approvals, 1).await;
    let next = ask_as(&approvals, "cursor", vec!["y".into()]);
    let cards = pending(&approvals, 2).await;
    let queue = invoke(&window(&app, card::LABEL), "card_pending", json!({})).expect("the card may list");

    let report = run_page(&queue);
    let first = &report["first"];
    assert_eq!(first["who"], "“claude\\u{202e}\\n\\u{1b}[8m” (says it is) wants to", "{report}");
    assert_eq!(first["allowDisabled"], false, "the first card is answerable at once");
    assert_eq!(first["showAllHidden"], false, "long arguments offer *Show all*: {report}");
    let shown = first["argumentsShown"].as_u64().unwrap();
    let all = first["argumentsAfterShowAll"].as_u64().unwrap();
    assert_eq!(shown, 4001, "cut to 4000 characters and an ellipsis: {report}");
    assert!(all > 5000, "*Show all* shows all of it: {report}");
    assert_eq!(first["showAll"], format!("Show all ({} more characters)", all - 4000));

    let replaced = &report["replaced"];
    assert_eq!(replaced["who"], "“cursor” (says it is) wants to");
    assert_eq!(replaced["allowDisabled"], true, "a card drawn where another was is inert at first: {report}");
    assert_eq!(replaced["answersWhileInert"], 0, "no click or key answered it: {report}");
    assert_eq!(replaced["allowDisabledAfter"], false, "answerable after about 700 ms: {report}");
    assert_eq!(replaced["answers"], json!([{ "id": cards[1].id, "answer": "AllowOnce" }]), "{report}");
    assert_eq!(report["htmlWrites"], 0, "the page never writes HTML");

    approvals.broker().dismiss_all(Dismissal::ShuttingDown);
    forged.await.expect("the call ends");
    next.await.expect("the call ends");
}
