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
    run_page_with(queue, &[])
}

/// Runs the page over `queue` with the harness's extra arguments (its scenario); what it reports.
fn run_page_with(queue: &Value, scenario: &[String]) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ui = root.join("../ui");
    let mut node = Command::new("node")
        .arg(root.join("tests/integration/card_page/harness.js"))
        .arg(ui.join("card.html"))
        .arg(ui.join("card.js"))
        .args(scenario)
        // A local date and time on the page is read in this zone.
        .env("TZ", "UTC")
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

/// Google's approval form (issue 17, item 3) on the real card page: every field type an elicitation form may
/// use is a real control with the schema's label, description and limits; Google's text is shown escaped;
/// *Always allow* is not offered; and what the page sends on *Allow* is taken by the core as the form's answer,
/// typed as the schema says. A wrong value sent the same way is refused, naming the field.
#[tokio::test(flavor = "multi_thread")]
async fn the_card_page_renders_every_kind_of_google_form_field_and_its_answer_is_the_forms() {
    use gatehouse_core::approval::rounds::{FormCall, FormEnded};
    use gatehouse_core::google::mcp::form::{FormAnswer, GoogleForm};

    let approvals = approvals_without_store();
    let app = app(&approvals);
    let form = GoogleForm {
        key: "approval".into(),
        message: "Allow an AI agent to send mail to “bob”\u{202e}\nas ada?".into(),
        requested_schema: serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "format": "email", "title": "Recipient", "description": "Who gets it"},
                "site": {"type": "string", "format": "uri", "title": "Link"},
                "day": {"type": "string", "format": "date", "title": "Day"},
                "at": {"type": "string", "format": "date-time", "title": "When"},
                "note": {"type": "string", "minLength": 2, "maxLength": 5, "default": "ok", "title": "Note\nhere"},
                "share": {"type": "number", "minimum": 0, "maximum": 1.5, "title": "Share"},
                "copies": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1, "title": "Copies"},
                "notify": {"type": "boolean", "title": "Notify them"},
                "role": {"type": "string", "enum": ["reader", "writer"], "title": "Role"},
                "level": {"type": "string", "oneOf": [{"const": "low", "title": "Low"}, {"const": "high", "title": "High\u{2066}"}], "title": "Level"},
                "labels": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "title": "Labels"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]}, "title": "Tags"}
            },
            "required": ["to", "role", "labels"]
        }))
        .expect("a form's schema"),
    };
    let asked = tokio::spawn({
        let approvals = approvals.clone();
        async move {
            let tools = all_tools();
            let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
            let args = json!({ "spreadsheet_id": "S1", "sheet": "Sales", "range": "A1", "data": [["x"]] });
            let caller = Caller { agent: Some(Agent::self_reported("claude")), interactive: true };
            approvals
                .ask_form(
                    &FormCall::new(&caller, (tool.meta.name, tool.meta.title), &args, tool.evaluators(), true),
                    &form,
                )
                .await
        }
    });
    let cards = pending(&approvals, 1).await;
    let queue = invoke(&window(&app, card::LABEL), "card_pending", json!({})).expect("the card may list");
    let fills = json!([
        {"value": "bob@example.com"}, {"value": "https://example.com/x"}, {"value": "2026-12-31"},
        {"value": "2026-12-31T09:30"}, {"value": "ok"}, {"value": "0.5"}, {"value": "2"}, {"checked": true},
        {"value": "writer"}, {"value": "high"}, {"checked": ["a", "c"]}, {"checked": ["y"]}
    ]);
    let report = run_page_with(&queue, &["form".to_owned(), fills.to_string()]);

    assert_eq!(report["formHidden"], false, "{report}");
    assert_eq!(report["message"], "Allow an AI agent to send mail to “bob”\\u{202e}\\nas ada?", "escaped: {report}");
    assert_eq!(report["tooHidden"], false, "Gatehouse had allowed it: Google asks too");
    assert_eq!(report["allow"], "Allow");
    assert_eq!(report["alwaysHidden"], true, "no Always allow on a form");
    assert!(report["notGrantable"].as_str().unwrap().contains("Google asks for its form each time"), "{report}");
    let fields = report["fields"].as_array().expect("fields");
    assert_eq!(fields.len(), 12, "{report}");
    let field = |i: usize| &fields[i];
    let expect = [
        ("Recipient (required)", "INPUT", json!("email")),
        ("Link", "INPUT", json!("url")),
        ("Day", "INPUT", json!("date")),
        ("When", "INPUT", json!("datetime-local")),
        ("Note\\nhere", "INPUT", json!("text")),
        ("Share", "INPUT", json!("number")),
        ("Copies", "INPUT", json!("number")),
        ("Notify them", "INPUT", json!("checkbox")),
        ("Role (required)", "SELECT", Value::Null),
        ("Level", "SELECT", Value::Null),
        ("Labels (required)", "DIV", Value::Null),
        ("Tags", "DIV", Value::Null),
    ];
    for (i, (label, tag, kind)) in expect.iter().enumerate() {
        assert_eq!(field(i)["label"], *label, "field {i}: {}", field(i));
        assert_eq!(field(i)["tag"], *tag, "field {i}: {}", field(i));
        assert_eq!(field(i).get("type").cloned().unwrap_or(Value::Null), *kind, "field {i}: {}", field(i));
        assert_eq!(field(i)["labelFor"], field(i)["id"], "each label names its control: {}", field(i));
    }
    assert_eq!(
        (field(0)["help"].clone(), field(0)["describedBy"].clone()),
        (json!("Who gets it"), json!("google-field-0-help"))
    );
    assert_eq!(field(0)["required"], true);
    assert_eq!(
        (field(4)["minLength"].clone(), field(4)["maxLength"].clone(), field(4)["value"].clone()),
        (json!(2), json!(5), json!("ok"))
    );
    assert_eq!(
        (field(5)["min"].clone(), field(5)["max"].clone(), field(5)["step"].clone()),
        (json!("0"), json!("1.5"), json!("any"))
    );
    assert_eq!(
        (field(6)["min"].clone(), field(6)["max"].clone(), field(6)["step"].clone(), field(6)["value"].clone()),
        (json!("1"), json!("3"), json!("1"), json!("1"))
    );
    assert_eq!(
        field(8)["options"],
        json!([{"value": "", "text": "Choose…"}, {"value": "reader", "text": "reader"}, {"value": "writer", "text": "writer"}])
    );
    assert_eq!(
        field(9)["options"],
        json!([{"value": "", "text": "(none)"}, {"value": "low", "text": "Low"}, {"value": "high", "text": "High\\u{2066}"}]),
        "titles shown escaped, values sent as Google wrote them"
    );
    assert_eq!(field(11)["options"][1], json!({"value": "y", "type": "checkbox", "checked": false, "text": "Why"}));
    assert_eq!(report["htmlWrites"], 0, "the page never writes HTML");

    let answers = report["answers"].as_array().expect("answers");
    assert_eq!(answers.len(), 1, "{report}");
    let sent = answers[0]["answer"]["Form"].clone();
    let expected = json!({
        "to": "bob@example.com", "site": "https://example.com/x", "day": "2026-12-31", "at": "2026-12-31T09:30:00.000Z",
        "note": "ok", "share": 0.5, "copies": 2, "notify": true, "role": "writer", "level": "high",
        "labels": ["a", "c"], "tags": ["y"]
    });
    assert_eq!(sent, expected, "{report}");

    // The same command the page calls: a wrong value is refused naming the field, and the card still waits.
    let wrong = json!({ "id": cards[0].id, "answer": { "Form": { "to": "bob", "role": "writer", "labels": ["a"] } } });
    let refused = invoke(&window(&app, card::LABEL), "card_answer", wrong).expect_err("refused");
    assert!(refused.to_string().contains("the field “Recipient” takes an email address"), "{refused}");
    invoke(&window(&app, card::LABEL), "card_answer", answers[0].clone()).expect("the page's answer is taken");
    let asked = asked.await.expect("the form was asked");
    assert_eq!(asked.ended, FormEnded::Person);
    let FormAnswer::Accept(content) = asked.answer else { panic!("accepted: {asked:?}") };
    assert_eq!(Value::Object(content), expected);
}

/// Names a spreadsheet with a name written to look like the card's own words, and reads every call's preview
/// slowly (after the card's 1.5 s budget): the card shows first and fills the preview in.
struct SlowGoogle;

impl gatehouse_core::approval::gate::TargetNames for SlowGoogle {
    fn name<'a>(&'a self, _id: &'a str) -> futures_boxed::BoxFuture<'a, Option<String>> {
        Box::pin(async { Some("Budget” with eve@example.com as an owner “\u{202e}".to_owned()) })
    }

    fn preview(
        &self,
        _tool: &gatehouse_core::approval::GatedTool,
        _args: &Value,
    ) -> Option<gatehouse_core::tools::registry::PreviewRead> {
        use gatehouse_core::approval::preview::{CellChange, Preview};
        Some(Box::pin(async {
            tokio::time::sleep(std::time::Duration::from_millis(1_900)).await;
            let change = |cell: &str, before: &str, after: &str| CellChange {
                cell: cell.into(),
                before: before.into(),
                after: after.into(),
            };
            Ok(Preview::Cells { cells: vec![change("A1", "Plan\n<b>", "Ours"), change("B1", "", "2")], more: 3 })
        }))
    }
}

mod futures_boxed {
    pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
}

/// Issue 18, item 4, on the real card page: the sentence is drawn from the core's parts, what comes from outside
/// set apart (a name written like the card's words stays one name, escaped); the preview the core reads after
/// the card showed is filled in where the card is, without drawing the card afresh; the raw arguments wait
/// behind a closed *Details*; and the page never writes HTML.
#[tokio::test(flavor = "multi_thread")]
async fn the_card_page_says_the_sentence_and_fills_in_the_preview_when_it_arrives() {
    let approvals = std::sync::Arc::new(
        gatehouse_core::approval::Approvals::new(
            None,
            gatehouse_core::approval::policy::Policy::default(),
            &all_tools(),
        )
        .with_target_names(std::sync::Arc::new(SlowGoogle)),
    );
    let app = app(&approvals);
    let call = ask_as(&approvals, "claude", vec!["Ours".into(), "2".into()]);
    let card = loop {
        if let Some(card) = approvals.broker().pending().into_iter().next() {
            break card;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    let window = window(&app, card::LABEL);
    let queue = invoke(&window, "card_pending", json!({})).expect("the card may list");
    assert_eq!(queue[0]["preview"], json!({ "state": "reading" }), "{queue}");
    // The core fills the preview in; the page gets the queue again, as the card window would.
    use gatehouse_core::approval::preview::PreviewState;
    for _ in 0..100 {
        let preview = approvals.broker().get(card.id).map(|card| card.preview);
        if matches!(preview, Some(PreviewState::Ready { .. })) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let updated = invoke(&window, "card_pending", json!({})).expect("the card may list");
    let report = run_page_with(&queue, &["update".to_owned(), updated[0].to_string()]);

    let before = &report["before"];
    assert_eq!(
        before["heading"], "write 2 cells in “Budget” with eve@example.com as an owner “\\u{202e}” › “Sales” (A1:B1)",
        "{report}"
    );
    let apart: Vec<&Value> =
        before["parts"].as_array().unwrap().iter().filter(|part| !part["apart"].is_null()).collect();
    assert_eq!(apart[0], &json!({ "text": "“Budget” with eve@example.com as an owner “\\u{202e}”", "apart": "name" }));
    assert_eq!(before["preview"], "Reading what it holds now…");
    assert_eq!(before["details"], true, "Details is closed");

    let after = &report["after"];
    assert_eq!(after["heading"], before["heading"], "the card was not drawn afresh");
    assert_eq!(
        after["rows"],
        json!([
            [["cell", "Cell"], [null, "Now"], [null, "After"]],
            [["cell", "A1"], ["before", "Plan\\n<b>"], ["after", "Ours"]],
            [["cell", "B1"], ["before empty", "(empty)"], ["after", "2"]]
        ]),
        "{report}"
    );
    assert!(after["preview"].as_str().unwrap().ends_with("and 3 more cells"), "{report}");
    assert_eq!(report["answers"], json!([{ "id": card.id, "answer": "AllowOnce" }]));
    assert_eq!(report["htmlWrites"], 0, "the page never writes HTML");

    approvals.broker().dismiss_all(Dismissal::ShuttingDown);
    call.await.expect("the call ends");
}
