//! Google's approval forms as Gatehouse cards (issue 17, item 3), against the emulator's real Sheets MCP
//! server (`/mcp/sheets/v1`): an rmcp 2026-07-28 client does each round, `Approvals::run_in_rounds` asks the
//! form on a card, and the person answers over the control socket, the path `gatehouse approvals` takes.
//! Accept writes the sheet; decline, cancel (a pause) and a timeout leave it as it was and give the assistant
//! words; a grant and a policy allow in place answer nothing. Each answer is an audit record.
#![cfg(unix)]

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{Agent, Caller, DecisionSource, Verdict};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::rounds::{FormCall, FormEnded, NotApproved, Rounds};
use gatehouse_core::approval::store::{AuditQuery, DATABASE_FILE, Store};
use gatehouse_core::approval::{Approvals, CallMeta, Permit};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::FailureKind;
use gatehouse_core::control::{Client, ControlError, ControlHandle};
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::google::mcp::form::{GoogleForm, Repeat, Round};
use gatehouse_core::tools::all_tools;
use gatehouse_core::{Engine, EngineOptions, control};
use google_fake::{FakeGoogle, Identity};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ElicitationCapability,
    FormElicitationCapability, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const ADA: &str = "ada@example.com";

type Google = RunningService<RoleClient, ClientConfig>;

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    _control: ControlHandle,
    sheet: String,
    client: Google,
}

/// An engine over a store, under `policy`, its control socket served, a spreadsheet of Ada's holding
/// "a" in Sheet1!A1, and a 2026-07-28 client of the emulator's Sheets MCP server signed in as Ada.
async fn setup(policy: &str) -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sheet1", vec![vec![json!("a")]])], &Identity::user(ADA));
    let store = crate::support::open_store(&home.path().join(DATABASE_FILE)).await.unwrap();
    let tools = all_tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.meta.name).collect();
    let policy = Policy::parse(policy, &home.path().join("policy.toml"), &names).expect("the policy parses");
    let mut config = Config::with_home(home.path());
    config.google_endpoint = Some(google.url().parse().unwrap());
    let token = google.issue_token(Identity::user(ADA));
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token.clone(), Some(ADA.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store.clone()), policy },
    })
    .unwrap();
    let control = control::serve(Arc::clone(&engine), home.path(), CancellationToken::new()).await.unwrap();
    let mut info = ClientConfig::default();
    info.protocol_version = ProtocolVersion::V_2026_07_28;
    let mut elicitation = ElicitationCapability::default();
    elicitation.form = Some(FormElicitationCapability::default());
    info.capabilities.elicitation = Some(elicitation);
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp/sheets/v1", google.url())).auth_header(token),
    );
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = info.serve_with_lifecycle(transport, lifecycle).await.expect("a 2026-07-28 client connects");
    Setup { google, home, engine, store, _control: control, sheet, client }
}

fn caller() -> Caller {
    Caller { agent: Some(Agent::self_reported("claude")), interactive: true }
}

/// Gatehouse's `update_cells` call as the assistant made it (the card's arguments and target).
fn update_cells_args(sheet: &str) -> Value {
    json!({ "spreadsheet_id": sheet, "sheet": "Sheet1", "range": "A1", "data": [["written"]] })
}

/// One round of Google's `update_values` through rmcp: the first with no answers, then each repeated with
/// the person's answers and Google's state, as the MCP client backend does.
async fn round(client: &Google, sheet: &str, repeat: Option<Repeat>) -> Result<Round<CallToolResult>, ServiceError> {
    let Value::Object(arguments) = json!({ "spreadsheetId": sheet, "range": "Sheet1!A1", "values": [["written"]] })
    else {
        unreachable!()
    };
    let mut params = CallToolRequestParams::new("update_values").with_arguments(arguments);
    if let Some(repeat) = repeat {
        params = params.with_input_responses(repeat.input_responses);
        params.request_state = repeat.request_state;
    }
    Ok(match client.call_tool_once(params).await? {
        CallToolResponse::Complete(result) => Round::Done(result),
        CallToolResponse::InputRequired(asked) => Round::AsksPerson {
            forms: asked
                .input_requests
                .unwrap_or_default()
                .iter()
                .filter_map(|(key, request)| GoogleForm::from_input_request(key, request))
                .collect(),
            request_state: asked.request_state,
        },
        other => panic!("an unexpected answer: {other:?}"),
    })
}

impl Setup {
    fn approvals(&self) -> Arc<Approvals> {
        Arc::clone(self.engine.approvals())
    }

    /// Starts `update_cells` through Google's server in rounds, its forms asked on cards.
    fn run(self: &Arc<Self>) -> tokio::task::JoinHandle<Rounds<CallToolResult>> {
        self.run_for(caller())
    }

    /// [`Setup::run`] for a call that came from `caller`.
    fn run_for(self: &Arc<Self>, caller: Caller) -> tokio::task::JoinHandle<Rounds<CallToolResult>> {
        let setup = Arc::clone(self);
        tokio::spawn(async move {
            let tools = all_tools();
            let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
            let args = update_cells_args(&setup.sheet);
            let call = FormCall::new(&caller, (tool.meta.name, tool.meta.title), &args, tool.evaluators(), true);
            let approvals = setup.approvals();
            approvals
                .run_in_rounds(&call, |repeat| round(&setup.client, &setup.sheet, repeat))
                .await
                .expect("every round is answered")
        })
    }

    fn a1(&self) -> String {
        self.google.world().sheets.values(&self.sheet, "Sheet1")[0][0].clone()
    }

    async fn terminal(&self) -> Client {
        let mut clients = Client::connect_all(self.home.path()).await.unwrap();
        assert_eq!(clients.len(), 1, "one server runs");
        clients.remove(0)
    }

    /// The form records in the audit log, newest first.
    async fn form_records(&self) -> Vec<(Verdict, DecisionSource, Value)> {
        let records = self.store.list_audit(&AuditQuery { limit: 50, ..AuditQuery::default() }).await.unwrap();
        records
            .into_iter()
            .filter(|record| !record.entry.arguments["google_form"].is_null())
            .map(|record| (record.entry.verdict, record.entry.source, record.entry.arguments["google_form"].clone()))
            .collect()
    }
}

async fn wait_for_card(client: &mut Client) -> PendingCard {
    for _ in 0..1000 {
        if let Some(card) = client.pending().await.unwrap().into_iter().next() {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_google_form_answered_from_the_terminal_path_writes_the_sheet() {
    let setup = Arc::new(setup("").await);
    let running = setup.run();
    let mut terminal = setup.terminal().await;
    let card = wait_for_card(&mut terminal).await;

    let form = card.form.as_ref().expect("the card carries Google's form");
    assert!(form.message.contains("“Budget”"), "Google's own message: {}", form.message);
    assert!(form.google_asks_too, "Gatehouse had allowed the call: the card says Google asks too");
    assert!(form.fields.is_empty(), "the emulator's form asks for no fields");
    assert_eq!(card.agent, Some(Agent::self_reported("claude")));
    assert_eq!((card.tool.as_str(), card.title.as_str()), ("update_cells", "Update cells"));
    assert_eq!(card.target.as_deref(), Some(format!("“Budget” (spreadsheet {})", setup.sheet).as_str()));
    assert_eq!(card.arguments["data"], json!([["written"]]));
    assert!(!card.offer.grantable, "no Always allow on a form");

    // Answers that don't fit answer nothing, and say why.
    for (unfit, says) in [
        (
            RawAnswer::Always(gatehouse_core::approval::card::RawChoice {
                scope: "TOOL".into(),
                days: "1".into(),
                limit: "ANY".into(),
            }),
            "Always allow is not offered on Google's form",
        ),
        (RawAnswer::Form(json!({ "confirm": true }).as_object().unwrap().clone()), "no field “confirm”"),
    ] {
        match terminal.answer(card.id, unfit).await {
            Err(ControlError::Server { kind: FailureKind::Invalid, message, .. }) => {
                assert!(message.contains(says), "{message}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(setup.a1(), "a", "nothing ran before the person accepted");

    terminal.answer(card.id, RawAnswer::AllowOnce).await.expect("the person accepts");
    let Rounds::Done(result) = running.await.unwrap() else { panic!("Google ran the call") };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(setup.a1(), "written", "the accepted form let Google write the sheet");
    let records = setup.form_records().await;
    assert_eq!(records.len(), 1, "{records:?}");
    let (verdict, source, form) = &records[0];
    assert_eq!((verdict, source), (&Verdict::Allowed, &DecisionSource::Person));
    assert_eq!(form["answer"], "accept");
    assert!(form["message"].as_str().unwrap().contains("Budget"), "{form}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_google_form_leaves_the_sheet_and_tells_the_assistant() {
    let setup = Arc::new(setup("").await);
    let running = setup.run();
    let mut terminal = setup.terminal().await;
    let card = wait_for_card(&mut terminal).await;
    terminal.answer(card.id, RawAnswer::Deny).await.expect("the person declines");
    let Rounds::NotApproved { why, message } = running.await.unwrap() else { panic!("not approved") };
    assert_eq!(why, NotApproved::Form(FormEnded::Person));
    assert_eq!(why.source(), Some(DecisionSource::Person));
    assert!(
        message.starts_with("The person declined Google's approval form for Update cells (update_cells)"),
        "{message}"
    );
    assert_eq!(setup.a1(), "a", "declined: Google wrote nothing");
    let records = setup.form_records().await;
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (&records[0].0, &records[0].1, &records[0].2["answer"]),
        (&Verdict::Denied, &DecisionSource::Person, &json!("decline"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_google_form_cancelled_by_a_pause_leaves_the_sheet() {
    let setup = Arc::new(setup("").await);
    let running = setup.run();
    let mut terminal = setup.terminal().await;
    wait_for_card(&mut terminal).await;
    setup.approvals().set_paused(true);
    let Rounds::NotApproved { why, message } = running.await.unwrap() else { panic!("not approved") };
    assert_eq!(why, NotApproved::Form(FormEnded::Dismissed(gatehouse_core::approval::broker::Dismissal::Paused)));
    assert!(message.contains("paused every assistant"), "{message}");
    assert_eq!(setup.a1(), "a", "cancelled: Google wrote nothing");
    let records = setup.form_records().await;
    assert_eq!((&records[0].1, &records[0].2["answer"]), (&DecisionSource::Paused, &json!("cancel")));
}

/// A policy allow and the person's own grant cover `update_cells`, and the gate runs it unasked; Google's
/// form is still asked, and with nobody answering it times out as a cancel.
#[tokio::test(flavor = "multi_thread")]
async fn a_grant_or_a_policy_allow_never_answers_a_google_form_and_no_answer_is_a_cancel() {
    let policy = r#"
approval_timeout_secs = 1

[[allow]]
tool = "update_cells"
expires = "2099-01-01T00:00:00Z"
"#;
    let setup = Arc::new(setup(policy).await);
    let tools = all_tools();
    let tool = tools.iter().find(|tool| tool.meta.name == "update_cells").expect("update_cells");
    let now = Utc::now();
    let grant = crate::support::week_grant("ada-grant", ADA, tool, now);
    setup.store.insert_grant(&grant).await.unwrap();
    let meta = CallMeta { caller: caller(), ..CallMeta::default() };
    let permit = setup.approvals().permit(tool, &update_cells_args(&setup.sheet), &meta, Some(ADA)).await;
    assert!(
        matches!(permit, Permit::Run { source: DecisionSource::Grant(_) }),
        "the grant covers Gatehouse's decision: {permit:?}"
    );

    let running = setup.run();
    let mut terminal = setup.terminal().await;
    let card = wait_for_card(&mut terminal).await;
    assert!(card.form.is_some(), "Google's form is asked all the same");
    let Rounds::NotApproved { why, message } = running.await.unwrap() else { panic!("not approved") };
    assert_eq!(why, NotApproved::Form(FormEnded::TimedOut));
    assert_eq!(why.source(), Some(DecisionSource::Timeout));
    assert!(
        message.contains("did not answer Google's approval form for Update cells (update_cells) in time (1 seconds)"),
        "{message}"
    );
    assert_eq!(setup.a1(), "a", "no answer: Google wrote nothing");
    let records = setup.form_records().await;
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (&records[0].0, &records[0].1, &records[0].2["answer"]),
        (&Verdict::Denied, &DecisionSource::Timeout, &json!("cancel"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unattended_assistants_call_gets_no_form_card_and_google_runs_nothing() {
    let setup = Arc::new(setup("").await);
    let nightly = Caller { agent: Some(Agent::registered("nightly")), interactive: false };
    let ended = tokio::time::timeout(Duration::from_secs(10), setup.run_for(nightly))
        .await
        .expect("ended at once, with nobody asked")
        .unwrap();
    let Rounds::NotApproved { why, message } = ended else { panic!("not approved") };
    assert_eq!(why, NotApproved::Form(FormEnded::Unattended));
    assert_eq!(why.source(), Some(DecisionSource::Unattended));
    assert!(message.contains("came from an unattended assistant, so nobody was asked"), "{message}");
    assert!(setup.engine.approvals().broker().pending().is_empty(), "no card");
    assert_eq!(setup.a1(), "a", "Google wrote nothing");
    let records = setup.form_records().await;
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (&records[0].0, &records[0].1, &records[0].2["answer"]),
        (&Verdict::Denied, &DecisionSource::Unattended, &json!("cancel"))
    );
}
