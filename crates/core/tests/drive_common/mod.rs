//! Shared by the drive_* tests: a harness whose emulator is seeded before the engine starts (so the config
//! can name seeded ids, e.g. DRIVE_FOLDER_ID) and whose token may belong to a service account.
#![allow(dead_code)]

use std::sync::Arc;

use gatehouse_core::config::Config;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::{FakeGoogle, Identity};
use serde_json::Value;

use crate::support::{Harness, USER, quick_retry};

pub const SERVICE_ACCOUNT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";
pub const BOB: &str = "bob@example.com";

/// A harness acting as `identity`; `seed` runs on the emulator first and may adjust the config.
pub async fn harness_as(identity: Identity, seed: impl FnOnce(&FakeGoogle, &mut Config)) -> Harness {
    let google = FakeGoogle::start().await.expect("start the emulator");
    let account = identity.email.clone();
    let token = google.issue_token(identity);
    let home = tempfile::tempdir().expect("temp home");
    let mut config = Config::with_home(home.path());
    config.google_endpoint = Some(google.url().parse().expect("emulator url"));
    seed(&google, &mut config);
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token, Some(account))),
        sandbox: false,
        retry: quick_retry(),
    })
    .expect("engine");
    Harness { google, engine, home }
}

/// A harness for the usual user whose DRIVE_FOLDER_ID is a seeded folder "Default"; returns its id.
pub async fn with_default_folder() -> (Harness, String) {
    let mut folder = String::new();
    let h = harness_as(Identity::user(USER), |google, config| {
        folder = google.world().drive.create_folder("Default", None, &Identity::user(USER));
        config.drive_folder_id = Some(folder.clone());
    })
    .await;
    (h, folder)
}

/// The My Drive root of the harness user (the parent of anything created without a parent).
pub fn my_drive_root(h: &Harness) -> String {
    let mut world = h.google.world();
    let probe = world.drive.create_folder("probe", None, &h.owner());
    let root = world.drive.get(&probe).and_then(|f| f.parent.clone()).expect("root");
    // Keep the probe out of listings.
    if let Some(file) = world.drive.get_mut(&probe) {
        file.explicitly_trashed = true;
    }
    root
}

/// The names in a listing's array under `key`, in order.
pub fn names(result: &Value, key: &str) -> Vec<String> {
    result[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {result}"))
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_owned())
        .collect()
}
