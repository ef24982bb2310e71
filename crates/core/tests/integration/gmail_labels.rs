//! Labels and the trash against the emulator: modify_labels on a message and on a whole thread (by id or
//! name), trash_message, checked in the emulator's mailbox; and the errors for bad input.

use crate::support;

use serde_json::json;
use support::{Harness, USER};

fn raw(subject: &str) -> String {
    format!("From: alex@example.com\r\nTo: {USER}\r\nSubject: {subject}\r\n\r\nHello\r\n")
}

fn labels_of(h: &Harness, id: &str) -> Vec<String> {
    h.google.world().mail_message(USER, id).expect("in the mailbox").label_ids
}

#[tokio::test]
async fn modify_labels_changes_one_message_by_id_or_name() {
    let h = Harness::new().await;
    let (id, label) = {
        let mut world = h.google.world();
        let label = world.create_mail_label(USER, "Project X");
        (world.deliver_mail(USER, &raw("Plan"), &["INBOX", "UNREAD"], None, 1).0, label)
    };
    let reply = h
        .ok(
            "modify_labels",
            json!({ "message_id": id, "add_label_ids": ["project x", "STARRED"], "remove_label_ids": ["UNREAD"] }),
        )
        .await;
    assert_eq!(reply["added"], json!([label, "STARRED"]), "a name resolves to its id");
    assert_eq!(labels_of(&h, &id), ["INBOX", label.as_str(), "STARRED"]);

    h.ok("modify_labels", json!({ "message_id": id, "remove_label_ids": ["INBOX"] })).await;
    assert_eq!(labels_of(&h, &id), [label.as_str(), "STARRED"], "archived");
}

#[tokio::test]
async fn modify_labels_on_a_thread_changes_every_message() {
    let h = Harness::new().await;
    let (first, second, thread) = {
        let mut world = h.google.world();
        let (first, thread) = world.deliver_mail(USER, &raw("Plan"), &["INBOX", "UNREAD"], None, 2);
        let (second, _) = world.deliver_mail(USER, &raw("Re: Plan"), &["INBOX", "UNREAD"], Some(&thread), 1);
        (first, second, thread)
    };
    let reply = h.ok("modify_labels", json!({ "thread_id": thread, "remove_label_ids": ["UNREAD"] })).await;
    assert_eq!(reply["messages"].as_array().unwrap().len(), 2);
    assert_eq!(labels_of(&h, &first), ["INBOX"]);
    assert_eq!(labels_of(&h, &second), ["INBOX"]);
}

#[tokio::test]
async fn trash_message_moves_it_to_the_trash() {
    let h = Harness::new().await;
    let (id, _) = h.google.world().deliver_mail(USER, &raw("Old"), &["INBOX"], None, 1);
    let reply = h.ok("trash_message", json!({ "message_id": id })).await;
    assert_eq!(reply["trashed"], true);
    assert_eq!(labels_of(&h, &id), ["TRASH"]);
    let listed = h.ok("list_messages", json!({})).await;
    assert!(listed.get("messages").is_none_or(|m| m.as_array().unwrap().is_empty()), "{listed}");
    let error = h.err("trash_message", json!({ "message_id": "18c0ffee00000000" })).await;
    assert!(error.contains("no message 18c0ffee00000000"), "{error}");
}

#[tokio::test]
async fn modify_labels_refuses_unclear_calls_before_changing_anything() {
    let h = Harness::new().await;
    let (id, thread) = h.google.world().deliver_mail(USER, &raw("Plan"), &["INBOX"], None, 1);
    let both =
        h.err("modify_labels", json!({ "message_id": id, "thread_id": thread, "add_label_ids": ["STARRED"] })).await;
    assert!(both.contains("not both"), "{both}");
    let neither = h.err("modify_labels", json!({ "add_label_ids": ["STARRED"] })).await;
    assert!(neither.contains("Give message_id"), "{neither}");
    let nothing = h.err("modify_labels", json!({ "message_id": id })).await;
    assert!(nothing.contains("Nothing to change"), "{nothing}");
    let unknown = h.err("modify_labels", json!({ "message_id": id, "add_label_ids": ["STARRED", "Nope"] })).await;
    assert!(unknown.contains("no label \"Nope\"") && unknown.contains("list_labels"), "{unknown}");
    let clash = h
        .err(
            "modify_labels",
            json!({ "message_id": id, "add_label_ids": ["STARRED"], "remove_label_ids": ["starred"] }),
        )
        .await;
    assert!(clash.contains("both added and removed"), "{clash}");
    assert_eq!(labels_of(&h, &id), ["INBOX"], "nothing changed");
}
