//! The harness the emulator's HTTP tests share: an emulator with a signed-in user, a client that sends as
//! any token, and the check, when the test ends, that every exchange matched Google's discovery documents.

// Each test crate uses the part of the harness it needs.
#![allow(dead_code)]

use google_fake::{FakeGoogle, Identity};
use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, StatusCode};
use serde_json::Value;

pub const ADA: &str = "ada@example.com";
pub const BOB: &str = "bob@example.com";

/// A running emulator and a client for it.
pub struct Env {
    pub google: FakeGoogle,
    /// Follows no redirects: a resumable upload's 308 is an answer.
    pub http: reqwest::Client,
    /// A token of [`ADA`].
    pub ada: String,
}

/// An answer, whole.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl Reply {
    /// The body as JSON (`null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or(Value::Null)
    }

    /// Drive's legacy error `reason`.
    pub fn reason(&self) -> String {
        self.json()["error"]["errors"][0]["reason"].as_str().unwrap_or_default().to_owned()
    }
}

/// Every exchange a test made must match Google's discovery documents.
impl Drop for Env {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let violations = self.google.discovery_violations();
            assert!(violations.is_empty(), "discovery violations: {violations:#?}");
        }
    }
}

impl Env {
    /// An empty emulator, with [`ADA`] signed in.
    pub async fn new() -> Self {
        let google = FakeGoogle::start().await.expect("emulator starts");
        let ada = google.issue_token(Identity::user(ADA));
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
        Self { google, http, ada }
    }

    /// The emulator's URL of `path` (Google's path, with or without its leading `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.google.url(), path.trim_start_matches('/'))
    }

    /// Sends `request` as `token`.
    pub async fn fetch(&self, token: &str, request: RequestBuilder) -> Reply {
        let response = request.bearer_auth(token).send().await.expect("request is answered");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.expect("body").to_vec();
        Reply { status, headers, bytes }
    }

    /// Sends `request` as [`ADA`]: the status and the JSON body.
    /// A GET of `path` with `query`, as `token`.
    pub async fn get_as(&self, token: &str, path: &str, query: &[(&str, &str)]) -> Reply {
        self.fetch(token, self.http.get(self.url(path)).query(query)).await
    }

    pub async fn send(&self, request: RequestBuilder) -> (u16, Value) {
        self.send_as(&self.ada, request).await
    }

    /// Sends `request` as `token`: the status and the JSON body.
    pub async fn send_as(&self, token: &str, request: RequestBuilder) -> (u16, Value) {
        let reply = self.fetch(token, request).await;
        (reply.status.as_u16(), reply.json())
    }
}

/// The sandbox emulator (seeded, its discovery check off) and a token of its user.
pub async fn sandbox() -> (FakeGoogle, String) {
    let google = FakeGoogle::start_sandbox().await.expect("sandbox starts");
    let token = google.issue_token(Identity::user(google_fake::SANDBOX_EMAIL));
    (google, token)
}

/// The JSON `request` is answered with, sent as `token`.
pub async fn json_of(token: &str, request: RequestBuilder) -> Value {
    request.bearer_auth(token).send().await.expect("answered").json().await.expect("json")
}
