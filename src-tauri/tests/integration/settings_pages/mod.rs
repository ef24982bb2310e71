//! What the settings pages' tests share: the app on Tauri's mock runtime with the real configuration and
//! capabilities, a running engine over an approvals database in a temp `GATEHOUSE_HOME`, and calls decided
//! by that engine's gate as a tool call would be.

#![allow(dead_code)] // Each test file uses its own part of it.

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::broker::Dismissal;
use gatehouse_core::approval::fingerprint::fingerprint;
use gatehouse_core::approval::model::{Caller, Constraint, Grant, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{DATABASE_FILE, Store};
use gatehouse_core::approval::{CallMeta, Permit};
use gatehouse_core::auth::identity::AuthMethod;
use gatehouse_core::config::Config;
use gatehouse_core::engine::{ApprovalSetup, Engine, EngineOptions};
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_desktop::startup::Mode;
use gatehouse_desktop::{Cards, context, settings, with_commands};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager, WebviewWindow};

pub use crate::mock::{error_text, invoke};

pub use crate::mock::ACCOUNT;

/// The app with a running engine, and the folder its database lives in.
pub struct Page {
    pub app: App<MockRuntime>,
    pub engine: Arc<Engine>,
    _home: tempfile::TempDir,
}

/// How the engine under test starts.
#[derive(Clone, Copy)]
pub struct Setup {
    /// An approvals database is open (else the pages must say there is none).
    pub store: bool,
    /// Someone is signed in to Google (never-allow rules need an account).
    pub signed_in: bool,
}

pub const NORMAL: Setup = Setup { store: true, signed_in: true };

pub async fn page(setup: Setup) -> Page {
    page_on(setup, None).await
}

/// The same, against the Google at `google` (its URL, and a token it issued) instead of nowhere: targets'
/// names are found there.
pub async fn page_on(setup: Setup, google: Option<(&str, &str)>) -> Page {
    let home = tempfile::tempdir().expect("temp dir");
    let store = match setup.store {
        true => Some(
            Store::open_with(
                &home.path().join(DATABASE_FILE),
                gatehouse_core::approval::store::StoreOptions::with_key([0x5a; 32]),
            )
            .await
            .expect("the approvals database opens"),
        ),
        false => None,
    };
    let mut config = Config::with_home(home.path());
    // Nothing listens there: a card's target name is not found, quickly, and shown by id.
    let (endpoint, token) = google.unwrap_or(("http://127.0.0.1:9", "token"));
    config.google_endpoint = Some(endpoint.parse().expect("url"));
    let account = setup.signed_in.then(|| ACCOUNT.to_owned());
    let engine = Engine::new(EngineOptions {
        config: config.clone(),
        tokens: Arc::new(StaticToken::new(token, account.clone())),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store, policy: Policy::default() },
    })
    .expect("the engine starts");
    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Cards::new(engine.approvals().clone()));
    app.manage(settings::Core {
        engine: engine.clone(),
        config,
        mode: Mode::Account { account, method: AuthMethod::OAuth },
        http: None,
    });
    Page { app, engine, _home: home }
}

impl Page {
    /// The window labelled `label`, opened on first use.
    pub fn window(&self, label: &str) -> WebviewWindow<MockRuntime> {
        crate::mock::window(&self.app, label)
    }

    pub fn store(&self) -> &Store {
        self.engine.approvals().store().expect("the test opened a store")
    }

    /// Saves a standing approval for `update_cells` as a card's *Always allow* makes one.
    pub async fn grant(&self, agent: Option<&str>, spreadsheet: Option<&str>, days: i64) -> Grant {
        let tool = self.engine.tool("update_cells").expect("update_cells");
        let created = Utc::now();
        let grant = Grant {
            id: uuid_like(),
            owner: Owner::User(ACCOUNT.into()),
            tool: "update_cells".into(),
            agent: agent.map(gatehouse_core::approval::model::Agent::self_reported),
            constraint: spreadsheet.map(|id| Constraint { kind: "spreadsheet".into(), value: id.into() }),
            target_name: None,
            unattended: false,
            created,
            expires: Some(created + TimeDelta::days(days)),
            revoked: None,
            last_used: None,
            use_count: 0,
            fingerprint: fingerprint(tool),
        };
        self.store().insert_grant(&grant).await.expect("the grant is saved");
        grant
    }

    /// What the running engine's gate decides for an `update_cells` call from `agent` on `spreadsheet`,
    /// writing at `range` (different ranges keep calls from counting as retries of one another). A call that
    /// would show a card is denied once the card is up, and reported as `None`.
    pub async fn decide(&self, agent: &str, spreadsheet: &str, range: &str) -> Option<Permit> {
        let engine = self.engine.clone();
        let args = json!({ "spreadsheet_id": spreadsheet, "sheet": "Sales", "range": range, "data": [["x"]] });
        let meta = CallMeta {
            caller: Caller {
                agent: Some(gatehouse_core::approval::model::Agent::self_reported(agent)),
                interactive: true,
            },
            ..CallMeta::default()
        };
        let call = tokio::spawn(async move {
            let tool = engine.tool("update_cells").expect("update_cells");
            engine.approvals().permit(tool, &args, &meta, Some(ACCOUNT)).await
        });
        for _ in 0..1000 {
            if call.is_finished() {
                return Some(call.await.expect("the decision ends"));
            }
            if !self.engine.approvals().broker().pending().is_empty() {
                self.engine.approvals().broker().dismiss_all(Dismissal::ShuttingDown);
                call.await.expect("the denied call ends");
                return None;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the call was neither decided nor shown on a card");
    }
}

/// A fresh UUID-shaped id (the store's grants use UUID v4 text).
pub fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let nanos = Utc::now().timestamp_nanos_opt().unwrap_or_default() as u64;
    format!("{:08x}-{:04x}-4000-8000-{:012x}", (nanos >> 16) as u32, n as u16, nanos & 0xffff_ffff_ffff)
}

/// `command` is refused to `label`'s window by the capabilities, before it runs.
pub fn assert_refused_by_acl(page: &Page, label: &str, command: &str, body: Value) {
    crate::mock::assert_refused_by_acl(invoke(&page.window(label), command, body), command, label);
}
