//! Shared by the drive_* tests: a harness with a default folder, the My Drive root, listing names, and the
//! other accounts the tests share with.
#![allow(dead_code)]

use google_fake::Identity;
use serde_json::Value;

use crate::support::{Harness, USER};

pub const SERVICE_ACCOUNT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";
pub const BOB: &str = "bob@example.com";

/// A harness for the usual user whose DRIVE_FOLDER_ID is a seeded folder "Default"; returns its id.
pub async fn with_default_folder() -> (Harness, String) {
    let mut folder = String::new();
    let h = Harness::acting_as(Identity::user(USER), |google, config| {
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
