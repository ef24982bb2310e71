//! Google's errors, typed.
//!
//! Google answers errors in two shapes: `google.rpc.Status` (`{"error":{"code","message","status"}}`,
//! Sheets, Docs, Activity) and Drive's legacy shape (`errors[{reason, domain, location}]`). Both become one
//! [`GoogleError`] whose message says in plain words what happened and what to do.

use std::time::Duration;

use serde::Deserialize;

use super::endpoint::Api;

/// What kind of failure Google reported, independent of the body's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidArgument,
    Unauthenticated,
    PermissionDenied,
    NotFound,
    Conflict,
    /// Service accounts have no Drive storage of their own.
    StorageQuota,
    /// The sign-in was not granted the OAuth scope this call needs (`insufficientPermissions`).
    InsufficientScopes,
    RateLimited,
    /// Google failed on its side (5xx).
    Unavailable,
    Other,
}

/// An error answered by Google, with the fields of either body shape.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub api: Api,
    pub http_status: u16,
    pub kind: ErrorKind,
    /// `google.rpc` `status` (e.g. `NOT_FOUND`), when given.
    pub status: Option<String>,
    /// Legacy `errors[0].reason` (e.g. `storageQuotaExceeded`), when given.
    pub reason: Option<String>,
    /// Google's own message.
    pub message: String,
    /// `Retry-After`, when Google sent one.
    pub retry_after: Option<Duration>,
}

/// Everything that can go wrong talking to Google.
#[derive(Debug, thiserror::Error)]
pub enum GoogleError {
    #[error("{}", plain_words(.0))]
    Api(Box<ApiError>),
    #[error("{api} did not answer within {}s. Try again in a moment; if it keeps happening, ask for less data at once.", .timeout.as_secs())]
    Timeout { api: &'static str, timeout: Duration },
    #[error("Gatehouse could not reach {api}: {detail}. Check the internet connection and try again.")]
    Network { api: &'static str, detail: String },
    #[error(
        "{api} answered something Gatehouse did not understand ({detail}). This is a bug in Gatehouse: please report it."
    )]
    Decode { api: &'static str, detail: String },
    #[error("{0}")]
    Auth(#[from] crate::google::auth::AuthError),
    #[error("{0}")]
    Invalid(String),
}

impl GoogleError {
    /// The typed kind when Google itself answered.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            GoogleError::Api(error) => Some(error.kind),
            _ => None,
        }
    }

    /// The HTTP status Google answered, when it did.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            GoogleError::Api(error) => Some(error.http_status),
            _ => None,
        }
    }
}

#[derive(Deserialize)]
struct Envelope {
    error: Body,
}

#[derive(Deserialize)]
struct Body {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    errors: Vec<LegacyItem>,
}

#[derive(Deserialize)]
struct LegacyItem {
    #[serde(default)]
    reason: Option<String>,
}

impl ApiError {
    /// Whether Google answered that the caller goes too fast for now, in a shape other than HTTP 429: Drive
    /// and Calendar send 403 with the reason `rateLimitExceeded` or `userRateLimitExceeded`. Waiting helps
    /// those; a `dailyLimitExceeded` (also a rate limit in [`ErrorKind`]) lasts until tomorrow, so is not one.
    pub fn is_short_rate_limit(&self) -> bool {
        self.http_status == 403 && matches!(self.reason.as_deref(), Some("rateLimitExceeded" | "userRateLimitExceeded"))
    }

    /// Reads an error response body in either of Google's shapes. A body that is neither (an HTML error
    /// page from a proxy, say) still yields an error carrying the HTTP status.
    pub fn parse(api: Api, http_status: u16, body: &[u8], retry_after: Option<Duration>) -> Self {
        let parsed: Option<Body> = serde_json::from_slice::<Envelope>(body).ok().map(|e| e.error);
        let (status, reason, message) = match parsed {
            Some(body) => {
                (body.status, body.errors.into_iter().find_map(|item| item.reason), body.message.unwrap_or_default())
            }
            None => (None, None, String::from_utf8_lossy(body).chars().take(200).collect()),
        };
        let kind = classify(http_status, status.as_deref(), reason.as_deref(), &message);
        Self { api, http_status, kind, status, reason, message, retry_after }
    }
}

fn classify(http_status: u16, status: Option<&str>, reason: Option<&str>, message: &str) -> ErrorKind {
    // Sheets and Docs refuse a service account's create with a bare PERMISSION_DENIED whose only sign is
    // the message ("The user's Drive storage quota has been exceeded.").
    if http_status == 403 && message.contains("storage quota") {
        return ErrorKind::StorageQuota;
    }
    match (reason, status) {
        (Some("storageQuotaExceeded"), _) => return ErrorKind::StorageQuota,
        (Some("insufficientPermissions"), _) => return ErrorKind::InsufficientScopes,
        (Some("rateLimitExceeded" | "userRateLimitExceeded" | "dailyLimitExceeded"), _) => {
            return ErrorKind::RateLimited;
        }
        (_, Some("RESOURCE_EXHAUSTED")) => return ErrorKind::RateLimited,
        _ => {}
    }
    match http_status {
        400 => ErrorKind::InvalidArgument,
        401 => ErrorKind::Unauthenticated,
        403 => ErrorKind::PermissionDenied,
        404 => ErrorKind::NotFound,
        409 => ErrorKind::Conflict,
        429 => ErrorKind::RateLimited,
        500..=599 => ErrorKind::Unavailable,
        _ => ErrorKind::Other,
    }
}

/// The message an assistant relays: what happened, Google's own words, and what to do.
fn plain_words(error: &ApiError) -> String {
    let api = error.api.name();
    let google = if error.message.is_empty() { String::new() } else { format!(" Google said: \"{}\"", error.message) };
    match error.kind {
        ErrorKind::InvalidArgument => {
            format!("{api} refused the request as invalid.{google} Check the arguments and try again.")
        }
        ErrorKind::Unauthenticated => {
            format!("{api} did not accept Gatehouse's sign-in.{google} Sign in to Google again from Gatehouse.")
        }
        ErrorKind::InsufficientScopes => format!(
            "The Google sign-in was not given permission to use {api}.{google} Sign in to Google again from the Gatehouse app (tray menu › Open Gatehouse › Account) or with `gatehouse login` and allow access to {api}; only the missing permission is asked."
        ),
        ErrorKind::PermissionDenied => format!(
            "The signed-in Google account may not do this.{google} Ask the file's owner for access, or use a file this account can edit."
        ),
        ErrorKind::NotFound => format!(
            "{api} could not find it.{google} Check the id, or whether the file was deleted or is not shared with this account."
        ),
        ErrorKind::Conflict => format!("{api} reported a conflict.{google} Fetch the current state and try again."),
        ErrorKind::StorageQuota => format!(
            "This Google identity has no Drive storage of its own (service accounts don't).{google} Put the file in a shared drive, or sign in with a person's Google account."
        ),
        ErrorKind::RateLimited => {
            format!("{api} asked Gatehouse to slow down (rate limit).{google} Wait a minute and try again.")
        }
        ErrorKind::Unavailable => {
            format!("{api} had a problem on its side (HTTP {}).{google} Try again in a moment.", error.http_status)
        }
        ErrorKind::Other => format!("{api} answered HTTP {}.{google}", error.http_status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_status_shape_is_understood() {
        let body = br#"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}"#;
        let error = ApiError::parse(Api::Sheets, 404, body, None);
        assert_eq!(error.kind, ErrorKind::NotFound);
        assert_eq!(error.status.as_deref(), Some("NOT_FOUND"));
        let text = GoogleError::Api(Box::new(error)).to_string();
        assert!(text.contains("Google Sheets could not find it"), "{text}");
        assert!(text.contains("Requested entity was not found."), "{text}");
    }

    #[test]
    fn legacy_reason_shape_is_understood() {
        let body = br#"{"error":{"code":403,"message":"Service Accounts do not have storage quota.","errors":[{"domain":"usageLimits","reason":"storageQuotaExceeded","message":"Service Accounts do not have storage quota."}]}}"#;
        let error = ApiError::parse(Api::Drive, 403, body, None);
        assert_eq!(error.kind, ErrorKind::StorageQuota);
        assert_eq!(error.reason.as_deref(), Some("storageQuotaExceeded"));
        assert!(GoogleError::Api(Box::new(error)).to_string().contains("shared drive"));
    }

    #[test]
    fn sheets_storage_quota_refusal_is_recognised_by_its_message() {
        let body = br#"{"error":{"code":403,"message":"The user's Drive storage quota has been exceeded.","status":"PERMISSION_DENIED"}}"#;
        let error = ApiError::parse(Api::Sheets, 403, body, None);
        assert_eq!(error.kind, ErrorKind::StorageQuota);
        assert!(GoogleError::Api(Box::new(error)).to_string().contains("shared drive"));
    }

    #[test]
    fn legacy_rate_limit_reason_wins_over_403() {
        let body = br#"{"error":{"code":403,"message":"Rate Limit Exceeded","errors":[{"domain":"usageLimits","reason":"userRateLimitExceeded"}]}}"#;
        assert_eq!(ApiError::parse(Api::Drive, 403, body, None).kind, ErrorKind::RateLimited);
    }

    #[test]
    fn only_a_403_with_a_short_rate_limit_reason_is_one() {
        let body = |reason: &str| {
            format!(
                r#"{{"error":{{"code":403,"message":"m","errors":[{{"domain":"usageLimits","reason":"{reason}"}}]}}}}"#
            )
        };
        assert!(ApiError::parse(Api::Drive, 403, body("userRateLimitExceeded").as_bytes(), None).is_short_rate_limit());
        assert!(ApiError::parse(Api::Drive, 403, body("rateLimitExceeded").as_bytes(), None).is_short_rate_limit());
        assert!(!ApiError::parse(Api::Drive, 403, body("dailyLimitExceeded").as_bytes(), None).is_short_rate_limit());
        assert!(!ApiError::parse(Api::Drive, 403, body("forbidden").as_bytes(), None).is_short_rate_limit());
        assert!(!ApiError::parse(Api::Drive, 429, body("rateLimitExceeded").as_bytes(), None).is_short_rate_limit());
    }

    #[test]
    fn a_non_json_body_keeps_the_status() {
        let error = ApiError::parse(Api::Docs, 502, b"<html>Bad Gateway</html>", None);
        assert_eq!(error.kind, ErrorKind::Unavailable);
        assert!(error.message.contains("Bad Gateway"));
    }
}
