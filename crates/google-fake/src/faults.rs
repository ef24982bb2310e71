//! Fault injection: make the next matching requests fail the way Google fails under load.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Shared;
use crate::errors::{ApiError, Shape};
use crate::state::RequestRecord;

/// A queued failure for requests whose path starts with `path_prefix` (empty = every request).
#[derive(Debug, Clone)]
pub struct Fault {
    pub path_prefix: String,
    /// Only requests with this HTTP method (upper case), or any when `None`.
    pub method: Option<String>,
    pub status: u16,
    pub retry_after_secs: Option<u64>,
    /// How many matching requests fail before the fault is used up.
    pub times: u32,
    /// Wait this long before answering (a slow or hung Google); with `status` 0 the request then
    /// proceeds normally.
    pub delay_ms: u64,
    /// How many matching requests pass untouched before the fault starts (a failure midway).
    pub skip: u32,
    /// The error's reason (Drive's legacy `errors[0].reason`, e.g. `userRateLimitExceeded`), instead of the
    /// usual one for the status.
    pub reason: Option<&'static str>,
}

impl Fault {
    /// `times` requests under `path_prefix` answer `status`.
    pub fn status(path_prefix: &str, status: u16, times: u32) -> Self {
        Self {
            path_prefix: path_prefix.to_owned(),
            method: None,
            status,
            retry_after_secs: None,
            times,
            delay_ms: 0,
            skip: 0,
            reason: None,
        }
    }

    /// `times` requests under `path_prefix` are answered normally, but only after `delay_ms`.
    pub fn delay(path_prefix: &str, delay_ms: u64, times: u32) -> Self {
        Self { delay_ms, ..Self::status(path_prefix, 0, times) }
    }

    /// Adds a `Retry-After` header to the injected answers.
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_secs = Some(seconds);
        self
    }

    /// Lets the first `count` matching requests through before the fault applies.
    pub fn after(mut self, count: u32) -> Self {
        self.skip = count;
        self
    }

    /// Answers with this reason (as Drive and Calendar say `userRateLimitExceeded` with a 403).
    pub fn with_reason(mut self, reason: &'static str) -> Self {
        self.reason = Some(reason);
        self
    }

    /// Restricts the fault to one HTTP method.
    pub fn for_method(mut self, method: &str) -> Self {
        self.method = Some(method.to_ascii_uppercase());
        self
    }
}

/// Records every request, then fails it if a queued fault matches.
pub async fn middleware(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().as_str().to_owned();
    let host = request.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or_default().to_owned();
    let injected = {
        let mut world = shared.lock();
        world.requests.push(RequestRecord { method: method.clone(), host, path: path.clone() });
        let hit = world.faults.iter_mut().find(|fault| {
            fault.times > 0
                && path.starts_with(&fault.path_prefix)
                && fault.method.as_deref().is_none_or(|m| m == method)
        });
        hit.and_then(|fault| {
            if fault.skip > 0 {
                fault.skip -= 1;
                return None;
            }
            fault.times -= 1;
            Some((fault.status, fault.retry_after_secs, fault.delay_ms, fault.reason))
        })
    };
    if let Some((_, _, delay_ms, _)) = injected.filter(|(_, _, delay, _)| *delay > 0) {
        tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
    }
    match injected.filter(|(status, _, _, _)| *status != 0) {
        Some((status, retry_after, _, reason)) => {
            let shape = if path.starts_with("/drive/")
                || path.starts_with("/upload/drive/")
                // A reason is said in the legacy body (Drive's, and Calendar's and Gmail's v1/v3).
                || reason.is_some()
            {
                Shape::Legacy
            } else {
                Shape::Rpc
            };
            let message = match status {
                403 if reason.is_some() => "Rate Limit Exceeded",
                429 => "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user'.",
                500 => "Internal error encountered.",
                503 => "The service is currently unavailable.",
                _ => "Injected failure.",
            };
            let mut error = match shape {
                Shape::Rpc => ApiError::rpc(status, message),
                Shape::Legacy => {
                    ApiError::legacy(status, reason.unwrap_or_else(|| crate::errors::reason_for(status)), message)
                }
            };
            if let Some(seconds) = retry_after {
                error = error.retry_after(seconds);
            }
            error.into_response()
        }
        None => next.run(request).await,
    }
}
