//! A resource holding the person's data (`spreadsheet://ID/info`) is read as a call of the tool it mirrors
//! (`list_sheets`): the same decision (a card when the policy gates reads), deny rules, tool selection and
//! audit record, over HTTP and over a relay (issue 15, item 7). `server://auth-status` stays ungated.
//!
//! A real engine over a SQLite store and the Google emulator, rmcp's HTTP client against `mcp::http::serve`,
//! and the real control socket for the relay.

use crate::store_engine;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::CallMeta;
use gatehouse_core::approval::broker::{BrokerEvent, PendingCard};
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{DecisionSource, Verdict};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{AuditQuery, AuditRecord, NeverAllow, Store};
use gatehouse_core::mcp::backend::Backend;
use gatehouse_core::resources::{AUTH_STATUS_URI, ResourceError};
use gatehouse_core::tools::all_tools;
use gatehouse_core::tools::sets::ToolSelection;
use gatehouse_core::{Engine, mcp};
use google_fake::{FakeGoogle, Identity};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ReadResourceRequestParams, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

const USER: &str = "ada@example.com";
const SERVER_TOKEN: &str = "the-servers-own-token";

struct Setup {
    _google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    url: String,
    uri: String,
    events: broadcast::Receiver<BrokerEvent>,
    cancel: CancellationToken,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn policy(text: &str) -> Policy {
    let tools = all_tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.meta.name).collect();
    Policy::parse(text, Path::new("policy.toml"), &names).unwrap()
}

async fn setup(policy_text: &str) -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Salaries 2026", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let (engine, store) =
        store_engine::engine_over_store_with(&google, home.path(), USER, policy(policy_text), |_| {}).await;
    let listener = mcp::http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let cancel = CancellationToken::new();
    tokio::spawn(mcp::http::serve(Arc::clone(&engine), listener, SERVER_TOKEN, cancel.clone()));
    let events = engine.approvals().broker().subscribe();
    let uri = format!("spreadsheet://{sheet}/info");
    Setup { _google: google, home, engine, store, url, uri, events, cancel }
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(setup: &Setup, token: &str) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(setup.url.as_str());
    config.auth_header = Some(token.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new("some-client", "1"));
    info.serve(transport).await.unwrap()
}

/// Reads `uri` in its own task (it may wait for the person): its text, or the error's words.
fn read(client: &Client, uri: &str) -> tokio::task::JoinHandle<Result<String, String>> {
    let (peer, uri) = (client.peer().clone(), uri.to_owned());
    tokio::spawn(async move {
        match peer.read_resource(ReadResourceRequestParams::new(uri)).await {
            Ok(result) => Ok(result
                .contents
                .iter()
                .map(|contents| match contents {
                    ResourceContents::TextResourceContents { text, .. } => text.clone(),
                    other => panic!("not text: {other:?}"),
                })
                .collect()),
            Err(error) => Err(error.to_string()),
        }
    })
}

impl Setup {
    async fn next_card(&mut self) -> PendingCard {
        let card = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let BrokerEvent::Added(card) = self.events.recv().await.unwrap() {
                    return *card;
                }
            }
        });
        card.await.expect("a card appeared")
    }

    async fn audit(&self) -> Vec<AuditRecord> {
        self.engine.approvals().settle().await;
        self.store.list_audit(&AuditQuery::default()).await.unwrap()
    }
}

#[tokio::test]
async fn a_spreadsheet_resource_is_asked_about_and_audited_as_list_sheets_when_reads_are_gated() {
    let mut setup = setup("gate_reads = true").await;
    let client = connect(&setup, SERVER_TOKEN).await;

    // Declined on the card: no data, and the audit log says the person refused list_sheets.
    let declined = read(&client, &setup.uri);
    let card = setup.next_card().await;
    assert_eq!(card.tool, "list_sheets");
    setup.engine.approvals().broker().answer(card.id, RawAnswer::Deny).unwrap();
    let error = declined.await.unwrap().expect_err("a declined read returned data");
    assert!(error.contains("declined") && !error.contains("Salaries"), "{error}");
    let audit = setup.audit().await;
    assert_eq!(audit.len(), 1);
    let entry = &audit[0].entry;
    assert_eq!(
        (entry.tool.as_str(), entry.verdict, &entry.source),
        ("list_sheets", Verdict::Denied, &DecisionSource::Person)
    );
    assert_eq!(entry.agent.as_ref().map(|agent| agent.name.as_str()), Some("some-client"));

    // Allowed once: the resource's data, and a record of it.
    let allowed = read(&client, &setup.uri);
    let card = setup.next_card().await;
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    let text = allowed.await.unwrap().expect("an allowed read");
    assert!(text.contains("Salaries 2026") && text.contains("\"sheets\""), "{text}");
    let audit = setup.audit().await;
    assert_eq!((audit.len(), audit[0].entry.verdict), (2, Verdict::Allowed));

    // A never-allow rule for list_sheets refuses the resource without a card.
    let now = Utc::now();
    let rule = NeverAllow {
        id: "n1".into(),
        owner_account: USER.into(),
        tool: "list_sheets".into(),
        agent: None,
        constraint: None,
        created: now,
        expires: now + TimeDelta::days(1),
        removed: None,
    };
    setup.store.add_never_allow(&rule).await.unwrap();
    let refused = tokio::time::timeout(Duration::from_secs(10), read(&client, &setup.uri)).await.expect("no card");
    let error = refused.unwrap().expect_err("a forbidden read returned data");
    assert!(error.contains("chose never to allow"), "{error}");
    assert_eq!(setup.audit().await[0].entry.source, DecisionSource::Deny("n1".into()));

    // server://auth-status holds no data of the person's: read without a card or a record.
    let status = tokio::time::timeout(Duration::from_secs(10), read(&client, AUTH_STATUS_URI)).await.expect("no card");
    assert!(status.unwrap().is_ok());
    assert_eq!(setup.audit().await.len(), 3);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_spreadsheet_resource_outside_the_assistants_tool_set_is_refused_unread() {
    let setup = setup("").await;
    let reader = setup.store.add_assistant("docs-reader", true, Utc::now()).await.unwrap();
    let selection = ToolSelection::parse("docs-read").unwrap();
    assert!(setup.store.set_assistant_tools(&reader.assistant.id, Some(selection.spec())).await.unwrap());
    let client = connect(&setup, &reader.token).await;
    let error = read(&client, &setup.uri).await.unwrap().expect_err("a read outside the set returned data");
    assert!(error.contains("list_sheets") && !error.contains("Salaries"), "{error}");
    assert!(setup.audit().await.is_empty(), "a refused selection reached the decision");

    // The whole set may read it; it is audited (not gated here, so recorded as not-gated).
    let everything = connect(&setup, SERVER_TOKEN).await;
    let text = read(&everything, &setup.uri).await.unwrap().expect("a read in the set");
    assert!(text.contains("Salaries 2026"), "{text}");
    let audit = setup.audit().await;
    assert_eq!((audit.len(), &audit[0].entry.source), (1, &DecisionSource::NotGated));
    client.cancel().await.unwrap();
    everything.cancel().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn over_a_relay_the_host_decides_a_resource_read_and_refuses_one_outside_the_relays_tools() {
    use gatehouse_core::mcp::relay::Relay;
    let mut setup = setup("gate_reads = true").await;
    let control =
        gatehouse_core::control::serve(Arc::clone(&setup.engine), setup.home.path(), CancellationToken::new())
            .await
            .unwrap();
    control.accept_relays();
    let relay = Relay::connect(setup.home.path().to_owned()).await.unwrap().expect("the host");
    let meta = CallMeta {
        caller: gatehouse_core::approval::model::Caller {
            agent: Some(gatehouse_core::approval::model::Agent::self_reported("relayed")),
            interactive: true,
        },
        retry_marked: false,
        request: None,
        origin: None,
    };

    // Outside `--tools docs-read`: refused by the host, nobody asked, nothing recorded.
    let narrow = Relay::connect(setup.home.path().to_owned()).await.unwrap().expect("the host");
    let narrow = narrow.offering(&ToolSelection::parse("docs-read").unwrap());
    let refused = narrow.read_resource(meta.clone(), setup.uri.clone()).await;
    assert!(matches!(&refused, Err(ResourceError::Refused(words)) if words.contains("list_sheets")), "{refused:?}");
    assert!(setup.audit().await.is_empty());

    // Within: the host asks the person, then answers, and records the relayed assistant's read.
    let reading = tokio::spawn({
        let (uri, meta) = (setup.uri.clone(), meta.clone());
        async move { relay.read_resource(meta, uri).await }
    });
    let card = setup.next_card().await;
    assert_eq!(
        (card.tool.as_str(), card.agent.as_ref().map(|agent| agent.name.as_str())),
        ("list_sheets", Some("relayed"))
    );
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    let text = reading.await.unwrap().expect("an allowed relayed read");
    assert!(text.contains("Salaries 2026"), "{text}");
    let audit = setup.audit().await;
    assert_eq!((audit.len(), audit[0].entry.agent.as_ref().map(|agent| agent.name.as_str())), (1, Some("relayed")));
    control.shutdown().await;
}
