//! Who may use the Gmail tools and how sending is approved: a service account has no mailbox (Google's
//! `failedPrecondition`, said in plain words, and listed under `no_mailbox` in auth-status with every Gmail
//! tool), a sign-in without the Gmail scope is listed under `missing_scopes`, the emulator enforces the
//! scopes the discovery document lists, and the evaluators: send_message's grants limited to one recipient
//! domain, replies and drafts always asking, cards showing recipients and subject.

use crate::support;

use gatehouse_core::approval::evaluator::{offered_constraint, satisfied, standing_approval};
use gatehouse_core::approval::model::Constraint;
use gatehouse_core::approval::redact;
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::status::auth_status;
use gatehouse_core::tools::registry::{Limitation, Service};
use gatehouse_core::tools::{ToolDef, all_tools};
use google_fake::Identity;
use serde_json::{Value, json};
use support::{Harness, USER};

const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";

fn gmail_tools() -> Vec<ToolDef> {
    all_tools().into_iter().filter(|t| t.meta.service == Service::Gmail).collect()
}

fn tool(name: &str) -> ToolDef {
    all_tools().into_iter().find(|t| t.meta.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn names(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

fn entry<'a>(status: &'a Value, category: &str) -> Option<&'a Value> {
    status["limitations"].as_array().unwrap().iter().find(|e| e["category"] == category)
}

#[test]
fn the_eleven_gmail_tools_are_declared_and_each_names_no_mailbox() {
    let names: Vec<&str> = gmail_tools().iter().map(|t| t.meta.name).collect();
    assert_eq!(
        names,
        [
            "list_messages",
            "get_message",
            "list_threads",
            "get_thread",
            "list_labels",
            "send_message",
            "create_draft",
            "send_draft",
            "reply_to_message",
            "modify_labels",
            "trash_message",
        ]
    );
    assert!(gmail_tools().iter().all(|t| t.meta.fails(Limitation::NoMailbox)));
    assert!(Limitation::ALL.contains(&Limitation::NoMailbox));
    assert_eq!(Limitation::NoMailbox.category(), "no_mailbox");
}

#[tokio::test]
async fn a_service_account_is_told_it_has_no_mailbox_by_every_gmail_tool() {
    let h = Harness::acting_as(Identity::service_account(ROBOT), |_, _| {}).await;
    for (name, args) in [
        ("list_messages", json!({})),
        ("get_message", json!({ "message_id": "18c0ffee00000001" })),
        ("list_threads", json!({ "query": "budget" })),
        ("get_thread", json!({ "thread_id": "18c0ffee00000001" })),
        ("list_labels", json!({})),
        ("send_message", json!({ "to": "ann@example.com", "subject": "Hi", "body": "Hello" })),
        ("create_draft", json!({ "to": "ann@example.com", "subject": "Hi", "body": "Hello" })),
        ("send_draft", json!({ "draft_id": "r1" })),
        ("reply_to_message", json!({ "message_id": "18c0ffee00000001", "body": "Thanks" })),
        ("modify_labels", json!({ "message_id": "18c0ffee00000001", "add_label_ids": ["STARRED"] })),
        ("trash_message", json!({ "message_id": "18c0ffee00000001" })),
    ] {
        let error = h.err(name, args).await;
        assert!(error.contains("has no mailbox") && error.contains("person's Google account"), "{name}: {error}");
    }
}

#[test]
fn auth_status_lists_every_gmail_tool_under_no_mailbox_for_service_accounts() {
    let tools = all_tools();
    let gmail: Vec<String> = gmail_tools().iter().map(|t| t.meta.name.to_owned()).collect();
    for (method, class) in
        [(AuthMethod::ServiceAccount, IdentityClass::ServiceAccount), (AuthMethod::Adc, IdentityClass::ServiceAccount)]
    {
        let status = auth_status(method, Some(class), Some(ROBOT), None, &tools);
        let no_mailbox = entry(&status, "no_mailbox").expect("a no_mailbox entry");
        assert_eq!(names(&no_mailbox["tools"]), gmail);
        let reason = no_mailbox["reason"].as_str().unwrap();
        assert!(reason.contains("no Gmail mailbox") && reason.contains("domain-wide delegation"), "{reason}");
        let alternatives = names(&no_mailbox["alternatives"]).join("\n");
        assert!(alternatives.contains("Sign in with a Google account"), "{alternatives}");
        let limited = names(&status["limited_tools"]);
        assert!(gmail.iter().all(|t| limited.contains(t)));
    }
    let person = auth_status(AuthMethod::OAuth, None, Some(USER), None, &tools);
    assert!(entry(&person, "no_mailbox").is_none(), "a person has a mailbox");
}

#[test]
fn a_sign_in_without_the_gmail_scope_lists_the_gmail_tools_as_missing_it() {
    let tools = all_tools();
    let drive_only = vec!["https://www.googleapis.com/auth/drive".to_owned()];
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&drive_only), &tools);
    let missing = entry(&status, "missing_scopes").expect("missing scopes");
    let listed = names(&missing["tools"]);
    assert!(gmail_tools().iter().all(|t| listed.contains(&t.meta.name.to_owned())), "{listed:?}");
    let reason = missing["reason"].as_str().unwrap();
    assert!(reason.contains("Gmail") && reason.contains("auth/gmail.modify"), "{reason}");

    // Read-only Gmail keeps the reads; sending and labelling still need gmail.modify.
    let readonly = vec!["https://www.googleapis.com/auth/gmail.readonly".to_owned()];
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&readonly), &tools);
    let listed = names(&entry(&status, "missing_scopes").unwrap()["tools"]);
    for read in ["list_messages", "get_message", "list_threads", "get_thread", "list_labels"] {
        assert!(!listed.contains(&read.to_owned()), "{read}");
    }
    for write in ["send_message", "reply_to_message", "modify_labels", "trash_message"] {
        assert!(listed.contains(&write.to_owned()), "{write}");
    }
    let full = vec!["https://mail.google.com/".to_owned()];
    let status = auth_status(AuthMethod::OAuth, None, Some(USER), Some(&full), &gmail_tools());
    assert!(entry(&status, "missing_scopes").is_none(), "mail.google.com covers every Gmail tool");
}

#[tokio::test]
async fn the_emulator_enforces_the_scopes_gmail_lists() {
    let h = Harness::new().await;
    let client = reqwest::Client::new();
    let url = |path: &str| format!("{}/gmail/v1/users/me/{path}", h.google.url());
    let drive = h.google.issue_token_with_scopes(Identity::user(USER), &["https://www.googleapis.com/auth/drive"]);
    let refused = client.get(url("messages")).bearer_auth(&drive).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["errors"][0]["reason"], "insufficientPermissions");

    let readonly =
        h.google.issue_token_with_scopes(Identity::user(USER), &["https://www.googleapis.com/auth/gmail.readonly"]);
    let listed = client.get(url("messages")).bearer_auth(&readonly).send().await.unwrap();
    assert_eq!(listed.status(), 200);
    let send = client.post(url("messages/send")).bearer_auth(&readonly).json(&json!({ "raw": "eA" })).send().await;
    assert_eq!(send.unwrap().status(), 403, "gmail.readonly cannot send");

    let robot = h.google.issue_token(Identity::service_account(ROBOT));
    let answer = client.get(url("labels")).bearer_auth(&robot).send().await.unwrap();
    assert_eq!(answer.status(), 400);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["message"], "Precondition check failed.");
    assert_eq!(body["error"]["errors"][0]["reason"], "failedPrecondition");
}

fn domain(value: &str) -> Constraint {
    Constraint { kind: "email_domain".into(), value: value.into() }
}

#[test]
fn send_message_grants_are_limited_to_one_recipient_domain_counting_cc_and_bcc() {
    let evaluators = tool("send_message").evaluators().to_vec();
    let call =
        |to: Value, cc: Value, bcc: Value| json!({ "to": to, "cc": cc, "bcc": bcc, "subject": "Hi", "body": "x" });
    let inside = call(json!("Ann <ann@example.com>, bob@Example.com"), json!(["cy@example.com"]), Value::Null);
    assert_eq!(standing_approval(&evaluators, &inside, None), Ok(()));
    assert_eq!(offered_constraint(&evaluators, &inside).unwrap(), Some(domain("example.com")));
    assert!(satisfied(&evaluators, &domain("example.com"), &inside).unwrap());

    let leak = call(json!("ann@example.com"), Value::Null, json!("eve@evil.example"));
    assert_eq!(offered_constraint(&evaluators, &leak).unwrap(), None, "a bcc elsewhere offers no single domain");
    assert!(!satisfied(&evaluators, &domain("example.com"), &leak).unwrap(), "…and no grant covers it");

    let smuggled = call(json!("ann@example.com\r\nBcc: eve@evil.example"), Value::Null, Value::Null);
    assert!(standing_approval(&evaluators, &smuggled, None).is_err(), "what the tool would refuse is a veto");
    assert!(satisfied(&evaluators, &domain("example.com"), &smuggled).is_err());
}

#[test]
fn replies_and_drafts_always_ask_because_their_recipients_are_not_in_the_call() {
    let reply = tool("reply_to_message");
    let veto = standing_approval(reply.evaluators(), &json!({ "message_id": "m", "body": "x" }), None).unwrap_err();
    assert!(veto.reason.contains("recipients come from the original message"), "{veto}");
    let draft = tool("send_draft");
    let veto = standing_approval(draft.evaluators(), &json!({ "draft_id": "r1" }), None).unwrap_err();
    assert!(veto.reason.contains("saved draft"), "{veto}");
    for name in ["send_message", "create_draft", "send_draft", "reply_to_message", "modify_labels", "trash_message"] {
        assert!(!tool(name).meta.is_read_only(), "{name} is a gated write");
    }
}

#[test]
fn a_send_card_shows_the_recipients_and_the_subject() {
    let args = json!({
        "to": ["ann@example.com"],
        "cc": "bob@example.com",
        "bcc": "carol@example.com",
        "subject": "Quarterly numbers",
        "body": "x".repeat(1000),
    });
    let preview = redact::preview(&args);
    assert_eq!(preview["to"], json!(["ann@example.com"]));
    assert_eq!(preview["cc"], "bob@example.com");
    assert_eq!(preview["bcc"], "carol@example.com");
    assert_eq!(preview["subject"], "Quarterly numbers");
    assert!(preview["body"].as_str().unwrap().contains("1000 characters in all"));
    let target = redact::target(
        tool("send_message").evaluators(),
        &json!({ "to": "ann@example.com", "subject": "s", "body": "b" }),
    );
    assert_eq!(target.as_deref(), Some("email_domain example.com"), "the audit log names the domain");
}

/// The first card that appears while `call` runs.
async fn card_of(h: &Harness, tool: &str, args: Value) -> gatehouse_core::approval::broker::PendingCard {
    use gatehouse_core::approval::broker::BrokerEvent;
    let mut events = h.engine.approvals().broker().subscribe();
    h.ok(tool, args).await;
    loop {
        match events.try_recv() {
            Ok(BrokerEvent::Added(card)) if card.tool == tool => return *card,
            Ok(_) => {}
            Err(error) => panic!("no card for {tool}: {error}"),
        }
    }
}

#[tokio::test]
async fn reply_and_draft_cards_preview_the_recipients_and_subject_they_read_from_gmail() {
    let h = Harness::new().await;
    let original = format!(
        "From: alex@example.com\r\nTo: {USER}\r\nCc: bo@example.com\r\nSubject: Budget\r\nMessage-ID: <b1@example.com>\r\n\r\nNumbers?\r\n"
    );
    let (message_id, _) = h.google.world().deliver_mail(USER, &original, &["INBOX"], None, 1);
    let card =
        card_of(&h, "reply_to_message", json!({ "message_id": message_id, "body": "Here.", "reply_all": true })).await;
    assert_eq!(card.sentence.text(), "send a reply to everyone on a message");
    assert_eq!(mail(&card), (vec!["alex@example.com".into()], vec!["bo@example.com".into()], "Re: Budget".into()));
    assert!(card.why_not_grantable.as_deref().is_some_and(|why| why.contains("always asks")), "{card:?}");

    let draft = h.ok("create_draft", json!({ "to": "ann@example.com", "subject": "Plan", "body": "x" })).await;
    let card = card_of(&h, "send_draft", json!({ "draft_id": draft["draft_id"] })).await;
    assert_eq!(mail(&card), (vec!["ann@example.com".into()], vec![], "Plan".into()));
}

/// Whom a card's mail preview says the mail goes to (to, cc) and its subject.
fn mail(card: &gatehouse_core::approval::broker::PendingCard) -> (Vec<String>, Vec<String>, String) {
    use gatehouse_core::approval::preview::{Preview, PreviewState};
    match &card.preview {
        PreviewState::Ready { preview: Preview::Mail { to, cc, subject, .. } } => {
            (to.clone(), cc.clone(), subject.clone())
        }
        other => panic!("expected a mail preview, got {other:?}"),
    }
}
