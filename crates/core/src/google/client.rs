//! The HTTP client every Google call goes through: URL building, bearer tokens, timeouts, the retry
//! policy and error decoding all live here, once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::auth::TokenSource;
use super::endpoint::{Api, Endpoints};
use super::error::{ApiError, GoogleError};
use super::retry::{Idempotency, Outcome, RetryPolicy};
use crate::shown::{QUOTED_CHARS, excerpt};

/// Characters left as they are in a path segment (RFC 3986 unreserved). Everything else, notably `/`,
/// `:` and `!`, is escaped, so an A1 range like `Sheet1!A1:B2` stays one segment and never reads as a
/// custom verb (`…/values/{range}:clear`).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// Percent-encodes one path segment (an id, a range).
pub fn segment(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

enum Body {
    Empty,
    Json(serde_json::Value),
    Raw { content_type: String, bytes: Bytes },
}

/// One request to a Google API, built up and then sent with [`GoogleClient::json`] or
/// [`GoogleClient::bytes`].
pub struct Call {
    api: Api,
    method: Method,
    path: String,
    query: Vec<(String, String)>,
    body: Body,
    idempotency: Idempotency,
}

impl Call {
    fn new(api: Api, method: Method, path: String, idempotency: Idempotency) -> Self {
        Self { api, method, path, query: Vec::new(), body: Body::Empty, idempotency }
    }

    /// A read: retried on rate limits, server errors and network failures.
    pub fn get(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::GET, path.into(), Idempotency::Read)
    }

    /// A write by POST: retried only on 429.
    pub fn post(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::POST, path.into(), Idempotency::Write)
    }

    /// A write by PATCH.
    pub fn patch(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::PATCH, path.into(), Idempotency::Write)
    }

    /// A write by PUT.
    pub fn put(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::PUT, path.into(), Idempotency::Write)
    }

    /// A DELETE.
    pub fn delete(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::DELETE, path.into(), Idempotency::Write)
    }

    /// A POST that only reads (e.g. `values:batchGetByDataFilter`, `activity:query`): retried like a read.
    pub fn post_read(api: Api, path: impl Into<String>) -> Self {
        Self::new(api, Method::POST, path.into(), Idempotency::Read)
    }

    /// Adds a query parameter (repeat the call for repeated parameters such as `ranges`).
    pub fn query(mut self, name: &str, value: impl ToString) -> Self {
        self.query.push((name.to_owned(), value.to_string()));
        self
    }

    /// Adds a query parameter when there is a value.
    pub fn query_opt(self, name: &str, value: Option<impl ToString>) -> Self {
        match value {
            Some(value) => self.query(name, value),
            None => self,
        }
    }

    /// Sends `body` as JSON.
    pub fn json(mut self, body: &impl Serialize) -> Self {
        self.body = Body::Json(serde_json::to_value(body).unwrap_or(serde_json::Value::Null));
        self
    }

    /// Sends raw bytes with a content type (media uploads).
    pub fn raw(mut self, content_type: impl Into<String>, bytes: impl Into<Bytes>) -> Self {
        self.body = Body::Raw { content_type: content_type.into(), bytes: bytes.into() };
        self
    }

    /// Sends Drive's `multipart/related` upload: JSON metadata, then the content.
    pub fn multipart(self, metadata: &serde_json::Value, content_type: &str, content: &[u8]) -> Self {
        let boundary = format!("gatehouse-{:016x}", rand::random::<u64>());
        let mut body = Vec::with_capacity(content.len() + 512);
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(metadata.to_string().as_bytes());
        body.extend_from_slice(format!("\r\n--{boundary}\r\nContent-Type: {content_type}\r\n\r\n").as_bytes());
        body.extend_from_slice(content);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        self.query("uploadType", "multipart").raw(format!("multipart/related; boundary={boundary}"), body)
    }
}

/// A successful answer.
pub struct Reply {
    pub headers: HeaderMap,
    pub body: Bytes,
}

struct Inner {
    http: reqwest::Client,
    endpoints: Endpoints,
    tokens: Arc<dyn TokenSource>,
    retry: RetryPolicy,
    timeout: Duration,
}

/// Cheap to clone; one per server.
#[derive(Clone)]
pub struct GoogleClient {
    inner: Arc<Inner>,
}

impl GoogleClient {
    /// `timeout` bounds each request; the retry policy bounds the attempts and their total time.
    pub fn new(
        http: reqwest::Client,
        endpoints: Endpoints,
        tokens: Arc<dyn TokenSource>,
        retry: RetryPolicy,
        timeout: Duration,
    ) -> Self {
        Self { inner: Arc::new(Inner { http, endpoints, tokens, retry, timeout }) }
    }

    /// An HTTP client with the settings Google calls need (used for token requests too).
    pub fn http_client(timeout: Duration) -> reqwest::Client {
        reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10).min(timeout))
            .user_agent(concat!("gatehouse/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default()
    }

    /// The endpoints this client sends to.
    pub fn endpoints(&self) -> &Endpoints {
        &self.inner.endpoints
    }

    /// The token source the calls are signed with.
    pub fn tokens(&self) -> &Arc<dyn TokenSource> {
        &self.inner.tokens
    }

    /// The account the client acts as, when known.
    pub fn account(&self) -> Option<String> {
        self.inner.tokens.account()
    }

    /// Sends the call and decodes a JSON answer.
    pub async fn json<T: DeserializeOwned>(&self, call: Call) -> Result<T, GoogleError> {
        let api = call.api;
        let reply = self.send(call).await?;
        // An empty body (Drive's `files.delete`) decodes as JSON null.
        let body: &[u8] = if reply.body.is_empty() { b"null" } else { &reply.body };
        serde_json::from_slice(body).map_err(|e| GoogleError::Decode { api: api.name(), detail: e.to_string() })
    }

    /// Sends the call and returns the raw answer (downloads, exports).
    pub async fn bytes(&self, call: Call) -> Result<Reply, GoogleError> {
        self.send(call).await
    }

    async fn send(&self, call: Call) -> Result<Reply, GoogleError> {
        let url = self.inner.endpoints.url(call.api, &call.path);
        let started = Instant::now();
        let mut attempt = 1u32;
        let mut reauthenticated = false;
        loop {
            let token = self.inner.tokens.token().await?;
            let mut request = self.inner.http.request(call.method.clone(), &url).bearer_auth(&token).query(&call.query);
            request = match &call.body {
                Body::Empty => request,
                Body::Json(value) => request.json(value),
                Body::Raw { content_type, bytes } => request.header(CONTENT_TYPE, content_type).body(bytes.clone()),
            };
            let (outcome, retry_after, failure) = match request.send().await {
                Ok(response) if response.status().is_success() => {
                    let headers = response.headers().clone();
                    let body = read_body(response).await.map_err(|e| self.network_error(call.api, &e))?;
                    return Ok(Reply { headers, body });
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = parse_retry_after(response.headers());
                    let body = response.bytes().await.unwrap_or_default();
                    let error = ApiError::parse(call.api, status, &body, retry_after);
                    let outcome =
                        if error.is_short_rate_limit() { Outcome::RateLimited } else { Outcome::Status(status) };
                    (outcome, retry_after, GoogleError::Api(Box::new(error)))
                }
                Err(error) => (Outcome::Network, None, self.network_error(call.api, &error)),
            };
            if matches!(outcome, Outcome::Status(401)) && !reauthenticated {
                // The token may have been revoked or expired early: fetch a new one once.
                reauthenticated = true;
                self.inner.tokens.invalidate_token(&token).await;
                continue;
            }
            if !RetryPolicy::is_retryable(outcome, call.idempotency) {
                return Err(failure);
            }
            match self.inner.retry.next_delay(attempt, started.elapsed(), retry_after) {
                Some(delay) => {
                    tracing::debug!(api = call.api.name(), attempt, ?delay, "retrying Google call");
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                None => return Err(failure),
            }
        }
    }

    fn network_error(&self, api: Api, error: &reqwest::Error) -> GoogleError {
        if error.is_timeout() {
            GoogleError::Timeout { api: api.name(), timeout: self.inner.timeout }
        } else {
            // reqwest names the URL, which carries the call's ids: a long one is cut, never echoed whole.
            let mut detail = error.to_string();
            if let Some(url) = error.url().map(|url| url.as_str()).filter(|url| url.chars().count() > QUOTED_CHARS) {
                detail = detail.replace(url, &excerpt(url));
            }
            GoogleError::Network { api: api.name(), detail }
        }
    }
}

/// Reads a body into one buffer sized from `Content-Length`: collecting chunks and then joining them would
/// hold a large answer (a 20,000-row sheet) twice.
async fn read_body(mut response: reqwest::Response) -> Result<Bytes, reqwest::Error> {
    const MAX_PRESIZE: u64 = 64 * 1024 * 1024;
    let presize = response.content_length().unwrap_or(0).min(MAX_PRESIZE);
    let mut body = Vec::with_capacity(usize::try_from(presize).unwrap_or(0));
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_escape_range_punctuation() {
        assert_eq!(segment("'My Sheet'!A1:B2"), "%27My%20Sheet%27%21A1%3AB2");
        assert_eq!(segment("1AbC-_x"), "1AbC-_x");
    }
}
