//! Sharing tools against the emulator: the permissions they leave on the file, notifications, ownership
//! transfer, and refusals before any Google call.

use crate::drive_common;
use crate::support;

use drive_common::{BOB, SERVICE_ACCOUNT};
use google_fake::Identity;
use serde_json::json;
use support::{Harness, USER};

const CAROL: &str = "carol@example.com";

fn blob(h: &Harness) -> String {
    h.google.world().drive.create_blob("plan.txt", "text/plain", b"plan".to_vec(), None, &h.owner())
}

/// (role, email or domain or "anyone") of every permission on the file, sorted.
fn grants(h: &Harness, id: &str) -> Vec<(String, String)> {
    let world = h.google.world();
    let mut out: Vec<(String, String)> = world
        .drive
        .get(id)
        .unwrap()
        .permissions
        .iter()
        .map(|p| {
            let who = p.email.clone().or_else(|| p.domain.clone()).unwrap_or_else(|| p.grantee.as_str().to_owned());
            (p.role.as_str().to_owned(), who)
        })
        .collect();
    out.sort();
    out
}

fn pair(role: &str, who: &str) -> (String, String) {
    (role.to_owned(), who.to_owned())
}

#[tokio::test]
async fn share_file_grants_each_permission_and_notifies_people() {
    let h = Harness::new().await;
    let id = blob(&h);
    let shared = h
        .ok(
            "share_file",
            json!({ "file_id": id, "permissions": [
                { "type": "user", "role": "writer", "email_address": BOB },
                { "role": "commenter", "emailAddress": CAROL },
                { "type": "domain", "role": "reader", "domain": "example.org" },
                { "type": "anyone", "role": "reader" },
            ] }),
        )
        .await;
    assert_eq!(shared["shared"].as_array().unwrap().len(), 4, "{shared}");
    assert!(shared.get("failed").is_none());
    assert_eq!(shared["shared"][0]["email_address"], json!(BOB));
    assert_eq!(shared["shared"][0]["role"], json!("writer"));
    assert_eq!(
        grants(&h, &id),
        [
            pair("commenter", CAROL),
            pair("owner", USER),
            pair("reader", "anyone"),
            pair("reader", "example.org"),
            pair("writer", BOB)
        ]
    );
    let notified: Vec<String> = h.google.world().drive.notifications.iter().map(|n| n.to.clone()).collect();
    assert_eq!(notified, [BOB, CAROL]);
}

/// As in the reference server, a grant without a role gets reader.
#[tokio::test]
async fn share_file_grants_reader_when_no_role_is_given() {
    let h = Harness::new().await;
    let id = blob(&h);
    let shared = h
        .ok(
            "share_file",
            json!({ "file_id": id, "permissions": [
                { "type": "user", "email_address": BOB },
                { "type": "anyone" },
            ] }),
        )
        .await;
    assert_eq!(shared["shared"][0]["role"], json!("reader"), "{shared}");
    assert_eq!(grants(&h, &id), [pair("owner", USER), pair("reader", "anyone"), pair("reader", BOB)]);
}

#[tokio::test]
async fn share_file_without_notification_sends_no_email() {
    let h = Harness::new().await;
    let id = blob(&h);
    h.ok(
        "share_file",
        json!({ "file_id": id, "send_notification": false, "permissions": [{ "role": "reader", "email_address": BOB }] }),
    )
    .await;
    assert_eq!(grants(&h, &id), [pair("owner", USER), pair("reader", BOB)]);
    assert!(h.google.world().drive.notifications.is_empty());
}

#[tokio::test]
async fn share_file_checks_every_grant_before_sharing_any() {
    let h = Harness::new().await;
    let id = blob(&h);
    h.google.world().requests.clear();
    let message = h
        .err(
            "share_file",
            json!({ "file_id": id, "permissions": [
                { "role": "reader", "email_address": BOB },
                { "role": "editor", "email_address": CAROL },
            ] }),
        )
        .await;
    assert!(message.contains("\"editor\"") && message.contains("writer"), "{message}");
    let message =
        h.err("share_file", json!({ "file_id": id, "permissions": [{ "role": "owner", "email_address": BOB }] })).await;
    assert!(message.contains("transfer_ownership"), "{message}");
    let message =
        h.err("share_file", json!({ "file_id": id, "permissions": [{ "type": "user", "role": "reader" }] })).await;
    assert!(message.contains("email_address"), "{message}");
    let message = h.err("share_file", json!({ "file_id": id, "permissions": [] })).await;
    assert!(message.contains("permissions"), "{message}");
    // The card's sentence may name the file (a read); nothing is shared, and no sharing is even tried.
    let world = h.google.world();
    let shared: Vec<_> = world.requests.iter().filter(|r| r.method != "GET").map(|r| r.path.clone()).collect();
    assert!(shared.is_empty(), "{shared:?}");
    drop(world);
    assert_eq!(grants(&h, &id), [pair("owner", USER)]);
}

#[tokio::test]
async fn share_file_reports_a_partial_failure() {
    let h = Harness::new().await;
    let id = blob(&h);
    let result = h
        .ok(
            "share_file",
            json!({ "file_id": id, "permissions": [
                { "role": "reader", "email_address": BOB },
                { "role": "organizer", "email_address": CAROL },
            ] }),
        )
        .await;
    assert_eq!(result["shared"].as_array().unwrap().len(), 1);
    assert_eq!(result["failed"][0]["who"], json!(CAROL));
    assert!(result["failed"][0]["error"].as_str().unwrap().contains("shared drive"), "{result}");
    assert_eq!(grants(&h, &id), [pair("owner", USER), pair("reader", BOB)]);
}

#[tokio::test]
async fn list_update_and_remove_permissions() {
    let h = Harness::new().await;
    let id = blob(&h);
    h.google.world().drive.share_with(&id, BOB, "reader");
    let listed = h.ok("list_permissions", json!({ "file_id": id })).await;
    let permissions = listed["permissions"].as_array().unwrap();
    assert_eq!(permissions.len(), 2, "{listed}");
    let bob = permissions.iter().find(|p| p["email_address"] == json!(BOB)).unwrap();
    assert_eq!(bob["role"], json!("reader"));
    assert_eq!(bob["type"], json!("user"));
    let owner = permissions.iter().find(|p| p["role"] == json!("owner")).unwrap();
    assert_eq!(owner["email_address"], json!(USER));
    let bob_id = bob["id"].as_str().unwrap().to_owned();

    let updated = h.ok("update_permission", json!({ "file_id": id, "permission_id": bob_id, "role": "writer" })).await;
    assert_eq!(updated["role"], json!("writer"));
    assert_eq!(grants(&h, &id), [pair("owner", USER), pair("writer", BOB)]);
    let message = h.err("update_permission", json!({ "file_id": id, "permission_id": bob_id, "role": "owner" })).await;
    assert!(message.contains("transfer_ownership"), "{message}");

    let removed = h.ok("remove_permission", json!({ "file_id": id, "permission_id": bob_id })).await;
    assert_eq!(removed["removed"], json!(true));
    assert_eq!(grants(&h, &id), [pair("owner", USER)]);
    let owner_id = owner["id"].as_str().unwrap();
    let message = h.err("remove_permission", json!({ "file_id": id, "permission_id": owner_id })).await;
    assert!(message.contains("owner"), "{message}");
}

#[tokio::test]
async fn shared_drive_permissions_show_where_they_come_from() {
    let h = Harness::new().await;
    let (drive, file) = {
        let mut world = h.google.world();
        let drive = world.drive.create_shared_drive("Team", &h.owner());
        let file = world.drive.create_blob("t.txt", "text/plain", Vec::new(), Some(&drive), &h.owner());
        (drive, file)
    };
    let shared = h
        .ok(
            "share_file",
            json!({ "file_id": file, "permissions": [{ "role": "fileOrganizer", "email_address": BOB }] }),
        )
        .await;
    assert_eq!(shared["shared"][0]["role"], json!("fileOrganizer"));
    let listed = h.ok("list_permissions", json!({ "file_id": file })).await;
    let member = listed["permissions"].as_array().unwrap().iter().find(|p| p["email_address"] == json!(USER)).unwrap();
    assert_eq!(member["inherited_from"], json!(drive), "{listed}");
}

#[tokio::test]
async fn transfer_ownership_makes_the_new_owner_and_keeps_the_old_as_writer() {
    let h = Harness::new().await;
    let id = blob(&h);
    let result =
        h.ok("transfer_ownership", json!({ "file_id": id, "new_owner_email": BOB, "send_notification": false })).await;
    assert_eq!(result["new_owner"], json!(BOB));
    assert_eq!(result["role"], json!("owner"));
    assert!(result["note"].as_str().unwrap().contains("always emails"));
    assert_eq!(grants(&h, &id), [pair("owner", BOB), pair("writer", USER)]);
    assert_eq!(h.google.world().drive.get(&id).unwrap().owner(), Some(BOB));
    assert_eq!(h.google.world().drive.notifications.last().map(|n| n.to.clone()), Some(BOB.to_owned()));
    let message = h.err("transfer_ownership", json!({ "file_id": id, "new_owner_email": "nobody" })).await;
    assert!(message.contains("not an email"), "{message}");
}

#[tokio::test]
async fn a_service_account_cannot_hand_ownership_to_a_person() {
    let sa = Identity::service_account(SERVICE_ACCOUNT);
    let mut folder = String::new();
    let h = Harness::acting_as(sa.clone(), |google, _| {
        folder = google.world().drive.create_folder("Made by robot", None, &sa)
    })
    .await;
    let message = h.err("transfer_ownership", json!({ "file_id": folder, "new_owner_email": USER })).await;
    assert!(message.contains("same organization"), "{message}");
    assert_eq!(h.google.world().drive.get(&folder).unwrap().owner(), Some(SERVICE_ACCOUNT));
}
