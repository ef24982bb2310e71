//! The Gmail v1 emulator over HTTP, as a client sees it: the sandbox's sample mail, search, formats,
//! paging, sending into a thread, and Gmail's refusals — every exchange checked against gmail.v1.json.

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE;
use common::{ADA, BOB, Env, json_of, sandbox};
use google_fake::Identity;
use serde_json::{Value, json};

impl Env {
    fn mail(&self, path: &str) -> String {
        self.url(&format!("gmail/v1/users/me/{path}"))
    }

    fn deliver(&self, raw: &str, labels: &[&str]) -> (String, String) {
        self.google.world().deliver_mail(ADA, raw, labels, None, 1)
    }
}

fn ids(body: &Value, key: &str) -> Vec<String> {
    body[key]
        .as_array()
        .map_or_else(Vec::new, |items| items.iter().map(|m| m["id"].as_str().unwrap().to_owned()).collect())
}

fn raw(subject: &str, body: &str) -> String {
    format!("From: {BOB}\r\nTo: {ADA}\r\nSubject: {subject}\r\nMessage-ID: <{subject}@example.com>\r\n\r\n{body}\r\n")
}

#[tokio::test]
async fn the_sandbox_user_has_sample_mail_that_search_finds() {
    let (google, token) = sandbox().await;
    google.world().skip_discovery_checks = false;
    let http = reqwest::Client::new();
    let url = |path: &str| format!("{}/gmail/v1/users/me/{path}", google.url());
    let inbox = json_of(&token, http.get(url("messages")).query(&[("labelIds", "INBOX")])).await;
    assert_eq!(inbox["resultSizeEstimate"], 4, "{inbox:#}");
    let unread = json_of(&token, http.get(url("threads")).query(&[("q", "is:unread label:projects")])).await;
    let thread = unread["threads"][0]["id"].as_str().expect("the kickoff thread").to_owned();
    let full = json_of(&token, http.get(url(&format!("threads/{thread}")))).await;
    assert_eq!(full["messages"].as_array().unwrap().len(), 3);
    let attachment = json_of(&token, http.get(url("messages")).query(&[("q", "has:attachment")])).await;
    assert_eq!(attachment["resultSizeEstimate"], 1);
    let labels = json_of(&token, http.get(url("labels"))).await;
    assert!(labels["labels"].as_array().unwrap().iter().any(|l| l["name"] == "Projects" && l["type"] == "user"));
    assert!(google.discovery_violations().is_empty(), "{:#?}", google.discovery_violations());
}

#[tokio::test]
async fn formats_show_what_gmail_shows() {
    let env = Env::new().await;
    let (id, thread) = env.deliver(&raw("Hello", "Plain body"), &["INBOX", "UNREAD"]);
    let (status, full) = env.send(env.http.get(env.mail(&format!("messages/{id}")))).await;
    assert_eq!(status, 200, "{full}");
    assert_eq!(full["threadId"], thread.as_str());
    assert_eq!(full["payload"]["mimeType"], "text/plain");
    let data = full["payload"]["body"]["data"].as_str().unwrap();
    assert_eq!(URL_SAFE.decode(data).unwrap(), b"Plain body\r\n");
    assert_eq!(full["snippet"], "Plain body");

    let (_, metadata) = env
        .send(
            env.http
                .get(env.mail(&format!("messages/{id}")))
                .query(&[("format", "metadata"), ("metadataHeaders", "Subject")]),
        )
        .await;
    assert_eq!(metadata["payload"]["headers"], json!([{ "name": "Subject", "value": "Hello" }]));
    let (_, raw_format) = env.send(env.http.get(env.mail(&format!("messages/{id}"))).query(&[("format", "raw")])).await;
    let bytes = URL_SAFE.decode(raw_format["raw"].as_str().unwrap()).unwrap();
    assert!(String::from_utf8(bytes).unwrap().contains("Subject: Hello"));
    let (_, minimal) =
        env.send(env.http.get(env.mail(&format!("messages/{id}"))).query(&[("format", "minimal")])).await;
    assert!(minimal.get("payload").is_none() && minimal["labelIds"] == json!(["INBOX", "UNREAD"]));
}

#[tokio::test]
async fn listings_page_and_leave_out_spam_and_trash() {
    let env = Env::new().await;
    for i in 0..5 {
        env.deliver(&raw(&format!("n{i}"), "x"), &["INBOX"]);
    }
    env.deliver(&raw("junk", "x"), &["SPAM"]);
    let (_, first) = env.send(env.http.get(env.mail("messages")).query(&[("maxResults", "3")])).await;
    assert_eq!(ids(&first, "messages").len(), 3);
    let token = first["nextPageToken"].as_str().unwrap();
    let (_, second) =
        env.send(env.http.get(env.mail("messages")).query(&[("maxResults", "3"), ("pageToken", token)])).await;
    assert_eq!(ids(&second, "messages").len(), 2);
    assert!(second.get("nextPageToken").is_none());
    let (_, all) = env.send(env.http.get(env.mail("messages")).query(&[("includeSpamTrash", "true")])).await;
    assert_eq!(ids(&all, "messages").len(), 6);
    let (status, body) = env.send(env.http.get(env.mail("messages")).query(&[("maxResult", "3")])).await;
    assert_eq!(status, 400, "an unknown parameter is refused: {body}");
}

#[tokio::test]
async fn a_sent_reply_joins_the_thread_it_names_and_labels_change() {
    let env = Env::new().await;
    let (original, thread) = env.deliver(&raw("Plan", "Shall we?"), &["INBOX", "UNREAD"]);
    let reply = format!("To: {BOB}\r\nSubject: Re: Plan\r\nIn-Reply-To: <Plan@example.com>\r\n\r\nYes\r\n");
    let body = json!({ "raw": URL_SAFE.encode(reply), "threadId": thread });
    let (status, sent) = env.send(env.http.post(env.mail("messages/send")).json(&body)).await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!((sent["threadId"].as_str(), sent["labelIds"].clone()), (Some(thread.as_str()), json!(["SENT"])));
    let stored = env.google.world().mail_message(ADA, sent["id"].as_str().unwrap()).unwrap();
    assert_eq!(stored.header("From"), Some(ADA), "Gmail fills in the sender");
    assert!(stored.header("Message-ID").is_some(), "…and a Message-ID");

    let (status, body) = env
        .send(
            env.http
                .post(env.mail(&format!("messages/{original}/modify")))
                .json(&json!({ "removeLabelIds": ["UNREAD"] })),
        )
        .await;
    assert_eq!((status, body["labelIds"].clone()), (200, json!(["INBOX"])));
    let (status, body) = env
        .send(
            env.http
                .post(env.mail(&format!("messages/{original}/modify")))
                .json(&json!({ "addLabelIds": ["Label_9"] })),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = env.send(env.http.post(env.mail(&format!("messages/{original}/trash")))).await;
    assert_eq!((status, body["labelIds"].clone()), (200, json!(["TRASH"])));
}

#[tokio::test]
async fn gmail_refuses_what_google_refuses() {
    let env = Env::new().await;
    let robot = env.google.issue_token(Identity::service_account("robot@p.iam.gserviceaccount.com"));
    let reply = env.fetch(&robot, env.http.get(env.mail("messages"))).await;
    assert_eq!((reply.status.as_u16(), reply.reason()), (400, "failedPrecondition".to_owned()));
    let (status, _) = env.send(env.http.get(env.url(&format!("gmail/v1/users/{BOB}/messages")))).await;
    assert_eq!(status, 403, "another person's mailbox needs delegation");
    let (status, _) = env.send(env.http.get(env.url(&format!("gmail/v1/users/{ADA}/labels")))).await;
    assert_eq!(status, 200, "one's own address works like me");
    let (status, body) = env.send(env.http.post(env.mail("messages/send")).json(&json!({}))).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = env.send(env.http.delete(env.mail("messages/abc"))).await;
    assert_eq!(status, 403, "deleting for good needs mail.google.com, which gmail.modify is not: {body}");
    let (status, body) = env.send(env.http.post(env.mail("messages/abc/untrash"))).await;
    assert_eq!(status, 501, "{body}");
    let (status, _) = env.send(env.http.get(env.mail("messages/18c0ffee00000000"))).await;
    assert_eq!(status, 404);
}
