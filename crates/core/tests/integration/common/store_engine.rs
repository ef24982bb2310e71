//! The engine of tests about approvals and assistants: signed in to the emulator, over a real approvals store
//! on disk and with no administrator's policy, so every write asks the person — as a run of the app makes it.

use std::path::Path;
use std::sync::Arc;

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{DATABASE_FILE, Store};
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::{FakeGoogle, Identity};

/// An engine acting as `user` on `google`, its home and store in `home`; `adjust` may change the config.
pub async fn engine_over_store(
    google: &FakeGoogle,
    home: &Path,
    user: &str,
    adjust: impl FnOnce(&mut Config),
) -> (Arc<Engine>, Store) {
    engine_over_store_with(google, home, user, Policy::default(), adjust).await
}

/// [`engine_over_store`] under the administrator's `policy`.
pub async fn engine_over_store_with(
    google: &FakeGoogle,
    home: &Path,
    user: &str,
    policy: Policy,
    adjust: impl FnOnce(&mut Config),
) -> (Arc<Engine>, Store) {
    let store = crate::support::open_store(&home.join(DATABASE_FILE)).await.expect("the store opens");
    let mut config = Config::with_home(home);
    // Gatehouse's own cards and grants, on Google's REST APIs: on its MCP servers Google asks about update_cells
    // with its own form at every call (google_mcp.rs and google_forms.rs test that path).
    config.google_backend = gatehouse_core::config::GoogleBackend::Rest;
    config.google_endpoint = Some(google.url().parse().expect("the emulator's URL"));
    adjust(&mut config);
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(google.issue_token(Identity::user(user)), Some(user.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store.clone()), policy },
    })
    .expect("the engine starts");
    (engine, store)
}
