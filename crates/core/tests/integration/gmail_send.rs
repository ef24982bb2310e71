//! Sending mail against the emulator, checked in the emulator's mailbox: send_message (headers, RFC 2047
//! subjects and names, HTML alternative, attachments), create_draft + send_draft, reply_to_message (same
//! thread, In-Reply-To / References, Re: subject, sender or everyone), and bad input.

use crate::support;

use google_fake::MailView;
use serde_json::json;
use support::{Harness, USER};

fn sent(h: &Harness, id: &str) -> MailView {
    h.google.world().mail_message(USER, id).unwrap_or_else(|| panic!("message {id} is in the mailbox"))
}

#[tokio::test]
async fn send_message_puts_a_well_formed_message_in_sent() {
    let h = Harness::with_config(|config| {
        std::fs::create_dir_all(&config.export_dir).unwrap();
        std::fs::write(config.export_dir.join("notes.csv"), "a,b\n1,2\n").unwrap();
    })
    .await;
    let reply = h
        .ok(
            "send_message",
            json!({
                "to": "Zoë Lee <zoe@example.com>, bob@example.com",
                "cc": ["carol@example.org"],
                "bcc": "dave@example.net",
                "subject": "Réunion — ordre du jour",
                "body": "Bonjour,\nà demain.",
                "body_html": "<p>Bonjour,<br>à demain.</p>",
                "attachments": [
                    { "local_path": "notes.csv" },
                    { "filename": "hello.txt", "content_base64": "aGVsbG8=" },
                    { "content_base64": "aGk=" }
                ]
            }),
        )
        .await;
    assert_eq!(reply["to"], json!(["zoe@example.com", "bob@example.com"]));
    // As in the reference server: local_path names a local file, and unnamed inline content is "attachment".
    assert_eq!(reply["attachments"], json!(["notes.csv", "hello.txt", "attachment"]));
    let message = sent(&h, reply["message_id"].as_str().unwrap());
    assert_eq!(message.label_ids, ["SENT"]);
    assert_eq!(message.thread_id, message.id, "a new message starts its own thread");
    assert_eq!(message.header("Subject"), Some("Réunion — ordre du jour"));
    assert_eq!(message.header("To"), Some("Zoë Lee <zoe@example.com>, bob@example.com"));
    assert_eq!(message.header("Cc"), Some("carol@example.org"));
    assert_eq!(message.header("Bcc"), Some("dave@example.net"));
    assert!(message.raw.is_ascii(), "headers are encoded, bodies base64: {}", message.raw);
    assert!(message.raw.contains("Subject: =?UTF-8?B?"), "{}", message.raw);
    assert_eq!(message.text.as_deref(), Some("Bonjour,\r\nà demain."), "lines end CRLF on the wire");
    assert!(message.raw.contains("multipart/alternative") && message.raw.contains("text/html"));
    assert_eq!(message.attachments, ["notes.csv", "hello.txt", "attachment"]);
    assert!(message.raw.contains("Content-Type: text/csv; name=\"notes.csv\""), "type from the extension");
}

#[tokio::test]
async fn a_draft_is_saved_then_sent_as_it_is() {
    let h = Harness::new().await;
    let draft =
        h.ok("create_draft", json!({ "to": ["ann@example.com"], "subject": "Plan", "body": "Draft text" })).await;
    let draft_id = draft["draft_id"].as_str().unwrap().to_owned();
    let message_id = draft["message_id"].as_str().unwrap().to_owned();
    assert_eq!(sent(&h, &message_id).label_ids, ["DRAFT"]);
    assert_eq!(h.google.world().mail_drafts(USER), [(draft_id.clone(), message_id.clone())]);

    let reply = h.ok("send_draft", json!({ "draft_id": draft_id })).await;
    assert_eq!(reply["to"], "ann@example.com", "the reply says whom it went to");
    assert_eq!(reply["subject"], "Plan");
    let message = sent(&h, reply["message_id"].as_str().unwrap());
    assert_eq!(message.label_ids, ["SENT"]);
    assert_eq!(message.text.as_deref(), Some("Draft text"));
    assert!(h.google.world().mail_drafts(USER).is_empty(), "a sent draft is gone");

    let error = h.err("send_draft", json!({ "draft_id": draft_id })).await;
    assert!(error.contains(&format!("no draft {draft_id}")), "{error}");
}

#[tokio::test]
async fn a_reply_joins_the_thread_with_the_right_headers() {
    let h = Harness::new().await;
    let original = format!(
        "From: Alex <alex@example.com>\r\nTo: {USER}, bo@example.com\r\nCc: cy@example.com\r\nSubject: Budget\r\nMessage-ID: <m2@example.com>\r\nReferences: <m1@example.com>\r\n\r\nNumbers?\r\n"
    );
    let (original_id, thread) = h.google.world().deliver_mail(USER, &original, &["INBOX"], None, 1);

    let reply = h.ok("reply_to_message", json!({ "message_id": original_id, "body": "Here they are." })).await;
    assert_eq!(reply["thread_id"], thread.as_str());
    assert_eq!(reply["to"], json!(["alex@example.com"]));
    let message = sent(&h, reply["message_id"].as_str().unwrap());
    assert_eq!(message.thread_id, thread);
    assert!(message.label_ids.contains(&"SENT".to_owned()));
    assert_eq!(message.header("Subject"), Some("Re: Budget"));
    assert_eq!(message.header("In-Reply-To"), Some("<m2@example.com>"));
    assert_eq!(message.header("References"), Some("<m1@example.com> <m2@example.com>"));
    assert_eq!(message.header("To"), Some("\"Alex\" <alex@example.com>"));
    assert_eq!(message.header("Cc"), None);

    let all = h.ok("reply_to_message", json!({ "message_id": original_id, "body": "To all", "reply_all": true })).await;
    assert_eq!(all["to"], json!(["alex@example.com"]));
    assert_eq!(all["cc"], json!(["bo@example.com", "cy@example.com"]), "everyone but oneself");
    assert_eq!(sent(&h, all["message_id"].as_str().unwrap()).thread_id, thread);
}

#[tokio::test]
async fn bad_recipients_and_smuggled_headers_are_refused_before_sending() {
    let h = Harness::new().await;
    let error = h.err("send_message", json!({ "to": "ann", "subject": "Hi", "body": "x" })).await;
    assert!(error.contains("to: \"ann\" is not an email address"), "{error}");
    let error = h.err("send_message", json!({ "to": [], "subject": "Hi", "body": "x" })).await;
    assert!(error.contains("to is empty"), "{error}");
    let error = h
        .err("send_message", json!({ "to": "ann@example.com", "subject": "Hi\r\nBcc: eve@evil.example", "body": "x" }))
        .await;
    assert!(error.contains("subject contains a line break"), "{error}");
    let error = h.err("send_message", json!({ "to": 5, "subject": "Hi", "body": "x" })).await;
    assert!(error.contains("email address"), "{error}");
    let error = h
        .err("send_message", json!({ "to": "ann@example.com", "subject": "Hi", "body": "x", "attachments": [{}] }))
        .await;
    assert!(error.contains("attachments[0]: give either local_path"), "{error}");
    let error = h
        .err(
            "send_message",
            json!({ "to": "ann@example.com", "subject": "Hi", "body": "x", "attachments": [{ "path": "/etc/passwd" }] }),
        )
        .await;
    assert!(error.to_lowercase().contains("outside"), "{error}");
    assert!(h.google.world().mail(USER).is_empty(), "nothing was sent");
    let error = h.err("reply_to_message", json!({ "message_id": "18c0ffee00000000", "body": "x" })).await;
    assert!(error.contains("no message 18c0ffee00000000"), "{error}");
}
