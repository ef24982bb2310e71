//! Test harness: a real emulator on loopback and an engine pointed at it, as the sandbox does.
#![allow(dead_code)]

#[path = "../common/approvals.rs"]
pub mod approvals;

use std::path::Path;
use std::sync::Arc;

use gatehouse_core::config::{Config, GoogleBackend};
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::{FakeGoogle, Identity};
use serde_json::Value;

pub const USER: &str = "ada@example.com";

pub struct Harness {
    pub google: FakeGoogle,
    pub engine: Arc<Engine>,
    pub home: tempfile::TempDir,
}

/// Retries fast in tests so injected faults don't slow the suite.
pub fn quick_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: std::time::Duration::from_millis(5),
        max_delay: std::time::Duration::from_millis(50),
        total_budget: std::time::Duration::from_secs(5),
    }
}

impl Harness {
    pub async fn new() -> Self {
        Self::with_config(|_| {}).await
    }

    /// A harness whose config `adjust` may change (cap, enabled tools…).
    pub async fn with_config(adjust: impl FnOnce(&mut Config)) -> Self {
        Self::acting_as(Identity::user(USER), |_, config| adjust(config)).await
    }

    /// A harness acting as `identity`; `seed` runs on the emulator before the engine starts and may adjust
    /// the config (so the config can name seeded ids, e.g. DRIVE_FOLDER_ID).
    pub async fn acting_as(identity: Identity, seed: impl FnOnce(&FakeGoogle, &mut Config)) -> Self {
        let google = FakeGoogle::start().await.expect("start the emulator");
        let home = tempfile::tempdir().expect("temp home");
        let engine = engine(&google, home.path(), identity, |config| seed(&google, config));
        Self { google, engine, home }
    }

    /// A second engine on the same emulator and home, for the harness user, with its config adjusted.
    pub fn engine_with(&self, adjust: impl FnOnce(&mut Config)) -> Arc<Engine> {
        engine(&self.google, self.home.path(), self.owner(), adjust)
    }

    /// Calls a tool; panics if it is unknown. Returns (parsed JSON or the text as a string, is_error).
    pub async fn call(&self, tool: &str, args: Value) -> (Value, bool) {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => panic!("arguments must be an object, got {other}"),
        };
        let reply = self.engine.call(tool, arguments).await.expect("known tool");
        let value = serde_json::from_str(&reply.text).unwrap_or(Value::String(reply.text));
        (value, reply.is_error)
    }

    /// Calls a tool that must succeed and returns its JSON result.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let (value, is_error) = self.call(tool, args).await;
        assert!(!is_error, "{tool} failed: {value}");
        value
    }

    /// Calls a tool that must fail and returns its message.
    pub async fn err(&self, tool: &str, args: Value) -> String {
        let (value, is_error) = self.call(tool, args).await;
        assert!(is_error, "{tool} should have failed but returned {value}");
        value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())
    }

    pub fn owner(&self) -> Identity {
        Identity::user(USER)
    }

    /// What the emulator answers to a GET of `path` (e.g. `/v1/documents/ID`) on the wire, as the harness
    /// user: Google's own JSON, not a tool's rendering of it.
    pub async fn raw_get(&self, path: &str, query: &[(&str, &str)]) -> Value {
        reqwest::Client::new()
            .get(format!("{}{path}", self.google.url()))
            .query(query)
            .bearer_auth(self.google.issue_token(self.owner()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// An engine on `google` acting as `identity`, with its home in `home`; `adjust` may change the config.
fn engine(google: &FakeGoogle, home: &Path, identity: Identity, adjust: impl FnOnce(&mut Config)) -> Arc<Engine> {
    let account = identity.email.clone();
    let token = google.issue_token(identity);
    let mut config = Config::with_home(home);
    config.google_endpoint = Some(google.url().parse().expect("emulator url"));
    // The tool tests are the REST backend's; `google_mcp` tests the others (and sets them through `adjust`).
    config.google_backend = GoogleBackend::Rest;
    adjust(&mut config);
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token, Some(account))),
        sandbox: false,
        approvals: approvals::allow_everything(),
        retry: quick_retry(),
    })
    .expect("engine");
    approvals::approve_every_card(&engine);
    engine
}

/// Every test through the harness is also a check that the emulator answered only what Google's
/// discovery documents define.
impl Drop for Harness {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let violations = self.google.discovery_violations();
            assert!(
                violations.is_empty(),
                "the emulator left Google's discovery documents:\n{}",
                violations.join("\n")
            );
        }
    }
}

/// The key the tests seal the approvals store's rows with: a test has no keychain of its own (the keychain's
/// own path is tested in `seals`, with the real Secret Service).
pub const TEST_KEY: [u8; 32] = [0x5a; 32];

/// Opens the approvals store at `path` as Gatehouse does, with [`TEST_KEY`] in place of the keychain's key.
pub async fn open_store(
    path: &Path,
) -> Result<gatehouse_core::approval::store::Store, gatehouse_core::approval::store::StoreError> {
    gatehouse_core::approval::store::Store::open_with(
        path,
        gatehouse_core::approval::store::StoreOptions::with_key(TEST_KEY),
    )
    .await
}

/// Every `.rs` file under `dir`, at any depth (for the tests that read the sources: architecture, docs).
pub fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|error| panic!("read {}: {error}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// A grant as *Always allow* makes one by default: `owner`'s, of `tool` as it is declared now (its
/// fingerprint), for any assistant and any arguments, made `now` and for a week. Tests change what they test
/// with struct update syntax (`Grant { constraint: Some(…), ..week_grant(…) }`).
pub fn week_grant(
    id: impl Into<String>,
    owner: &str,
    tool: &gatehouse_core::tools::ToolDef,
    now: chrono::DateTime<chrono::Utc>,
) -> gatehouse_core::approval::model::Grant {
    gatehouse_core::approval::model::Grant {
        id: id.into(),
        owner: gatehouse_core::approval::model::Owner::User(owner.into()),
        tool: tool.meta.name.into(),
        agent: None,
        constraint: None,
        target_name: None,
        unattended: false,
        created: now,
        expires: Some(now + chrono::TimeDelta::days(7)),
        revoked: None,
        last_used: None,
        use_count: 0,
        fingerprint: gatehouse_core::approval::fingerprint::fingerprint(tool),
    }
}
