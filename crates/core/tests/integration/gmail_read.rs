//! Reading mail against the emulator: list_messages (search, labels, paging), get_message (plain text,
//! HTML fallback, encoded headers, attachments listed not inlined), list_threads, get_thread, list_labels,
//! and the errors for bad input.

use crate::support;

use serde_json::{Value, json};
use support::{Harness, USER};

const ALEX: &str = "alex@example.com";

fn raw(from: &str, subject: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {USER}\r\nSubject: {subject}\r\nMessage-ID: <{id}@example.com>\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n{body}\r\n"
    )
}

/// A mailbox with a thread of two, an HTML-only message, one with an attachment and one in the trash.
struct Mail {
    kickoff: String,
    thread: String,
    html: String,
    with_file: String,
    trashed: String,
    label: String,
}

fn seed(h: &Harness) -> Mail {
    let mut world = h.google.world();
    let label = world.create_mail_label(USER, "Project X");
    let (kickoff, thread) = world.deliver_mail(
        USER,
        &raw(ALEX, "=?UTF-8?B?Q2Fmw6kgcGxhbg==?=", "k1", "Shall we plan the café launch?"),
        &["INBOX", "UNREAD", &label],
        None,
        3,
    );
    world.deliver_mail(USER, &raw(USER, "Re: Café plan", "k2", "Yes, Monday."), &["SENT"], Some(&thread), 2);
    let html = "From: news@example.org\r\nTo: ada@example.com\r\nSubject: Weekly\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>Hello <b>Ada</b>,</p><p>Tips &amp; news.</p>\r\n";
    let (html, _) = world.deliver_mail(USER, html, &["INBOX"], None, 4);
    let with_file = format!(
        "From: {ALEX}\r\nTo: {USER}\r\nSubject: Report\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nAttached.\r\n--b\r\nContent-Type: application/pdf; name=\"q2.pdf\"\r\nContent-Disposition: attachment; filename=\"q2.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b--\r\n"
    );
    let (with_file, _) = world.deliver_mail(USER, &with_file, &["INBOX"], None, 5);
    let (trashed, _) = world.deliver_mail(USER, &raw(ALEX, "Old stuff", "o1", "Delete me"), &["TRASH"], None, 6);
    Mail { kickoff, thread, html, with_file, trashed, label }
}

fn ids(listing: &Value, key: &str, id: &str) -> Vec<String> {
    listing[key].as_array().unwrap().iter().map(|m| m[id].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn list_messages_searches_filters_and_pages() {
    let h = Harness::new().await;
    let mail = seed(&h);

    let all = h.ok("list_messages", json!({})).await;
    let listed = ids(&all, "messages", "message_id");
    assert_eq!(listed.len(), 4, "trash is left out by default: {all:#}");
    assert!(!listed.contains(&mail.trashed));
    assert_eq!(listed[1], mail.kickoff, "newest first");
    let first = &all["messages"][1];
    assert_eq!(first["from"], ALEX);
    assert_eq!(first["subject"], "Café plan", "encoded words decoded");
    assert_eq!(first["unread"], true);
    assert!(first.get("body").is_none(), "listings carry no bodies");

    let found = h.ok("list_messages", json!({ "query": "from:alex is:unread café" })).await;
    assert_eq!(ids(&found, "messages", "message_id"), [mail.kickoff.as_str()]);
    let labelled = h.ok("list_messages", json!({ "label_ids": [mail.label] })).await;
    assert_eq!(ids(&labelled, "messages", "message_id"), [mail.kickoff.as_str()]);
    let with_trash = h.ok("list_messages", json!({ "include_spam_trash": true })).await;
    assert!(ids(&with_trash, "messages", "message_id").contains(&mail.trashed));

    let page = h.ok("list_messages", json!({ "max_results": 3 })).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 3);
    let token = page["next_page_token"].as_str().expect("a next page");
    let rest = h.ok("list_messages", json!({ "max_results": 3, "page_token": token })).await;
    assert_eq!(ids(&rest, "messages", "message_id"), [mail.with_file.as_str()]);
    assert!(rest.get("next_page_token").is_none());
}

#[tokio::test]
async fn get_message_prefers_plain_text_falls_back_to_html_and_lists_attachments() {
    let h = Harness::new().await;
    let mail = seed(&h);

    let message = h.ok("get_message", json!({ "message_id": mail.kickoff })).await;
    assert_eq!(message["body"], "Shall we plan the café launch?\n");
    assert_eq!(message["thread_id"], mail.thread.as_str());
    assert_eq!(message["to"], USER);
    assert!(message.get("body_format").is_none());

    let html = h.ok("get_message", json!({ "message_id": mail.html })).await;
    assert_eq!(html["body"], "Hello Ada,\n\nTips & news.", "paragraphs apart by one blank line");
    assert_eq!(html["body_format"], "html converted to text");

    let with_file = h.ok("get_message", json!({ "message_id": mail.with_file })).await;
    assert_eq!(with_file["body"], "Attached.");
    let attachment = &with_file["attachments"][0];
    assert_eq!(attachment["filename"], "q2.pdf");
    assert_eq!(attachment["mime_type"], "application/pdf");
    assert_eq!(attachment["size"], 9);
    assert!(attachment["attachment_id"].is_string());
    assert!(!with_file.to_string().contains("JVBERi0"), "attachments are never inlined");

    let headers_only = h.ok("get_message", json!({ "message_id": mail.kickoff, "include_body": false })).await;
    assert!(headers_only.get("body").is_none());
    assert_eq!(headers_only["subject"], "Café plan");
}

#[tokio::test]
async fn get_message_writes_to_local_path() {
    let h = Harness::new().await;
    let mail = seed(&h);
    let reply = h.ok("get_message", json!({ "message_id": mail.kickoff, "local_path": "mail/kickoff.json" })).await;
    let path = reply["local_path"].as_str().expect("the file written");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(saved["body"], "Shall we plan the café launch?\n");
}

#[tokio::test]
async fn threads_list_and_read_whole_conversations() {
    let h = Harness::new().await;
    let mail = seed(&h);

    let threads = h.ok("list_threads", json!({ "query": "café" })).await;
    assert_eq!(ids(&threads, "threads", "thread_id"), [mail.thread.as_str()]);
    let thread = &threads["threads"][0];
    assert_eq!(thread["message_count"], 2);
    assert_eq!(thread["subject"], "Café plan");
    assert_eq!(thread["from"], json!([ALEX, USER]));
    assert_eq!(thread["unread"], true);

    let full = h.ok("get_thread", json!({ "thread_id": mail.thread })).await;
    assert_eq!(full["message_count"], 2);
    assert_eq!(full["messages"][0]["message_id"], mail.kickoff.as_str());
    assert_eq!(full["messages"][1]["body"], "Yes, Monday.\n");
    assert_eq!(full["messages"][1]["label_ids"], json!(["SENT"]));
}

#[tokio::test]
async fn list_labels_shows_system_and_own_labels() {
    let h = Harness::new().await;
    let mail = seed(&h);
    let labels = h.ok("list_labels", json!({})).await;
    let all = labels["labels"].as_array().unwrap();
    assert!(all.iter().any(|l| l["id"] == "INBOX" && l["type"] == "system"));
    assert!(all.iter().any(|l| l["id"] == mail.label.as_str() && l["name"] == "Project X" && l["type"] == "user"));
}

#[tokio::test]
async fn bad_input_says_what_was_wrong_and_what_to_do() {
    let h = Harness::new().await;
    seed(&h);
    let error = h.err("list_messages", json!({ "max_results": 0 })).await;
    assert!(error.contains("max_results is 0") && error.contains("1 to 500"), "{error}");
    let error = h.err("get_message", json!({ "message_id": "18c0ffee00000000" })).await;
    assert!(error.contains("no message 18c0ffee00000000") && error.contains("list_messages"), "{error}");
    let error = h.err("get_thread", json!({ "thread_id": "nope" })).await;
    assert!(error.contains("no thread nope"), "{error}");
    let error = h.err("get_message", json!({})).await;
    assert!(error.contains("message_id"), "{error}");
}
