//! The emulator's world: every store, the identities behind bearer tokens, queued faults and a log of the
//! requests served (so tests and benchmarks can count Google calls).

use std::collections::HashMap;
use std::time::SystemTime;

use axum::http::HeaderMap;
use rand::Rng;

use crate::errors::{ApiError, Shape};
use crate::faults::Fault;

/// Who a bearer token belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub email: String,
    pub kind: IdentityKind,
}

/// Google treats people and service accounts differently (service accounts have no Drive storage quota
/// outside shared drives, and cannot receive file ownership).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentityKind {
    User,
    ServiceAccount,
}

impl Identity {
    pub fn user(email: &str) -> Self {
        Self { email: email.to_owned(), kind: IdentityKind::User }
    }

    pub fn service_account(email: &str) -> Self {
        Self { email: email.to_owned(), kind: IdentityKind::ServiceAccount }
    }

    pub fn is_service_account(&self) -> bool {
        self.kind == IdentityKind::ServiceAccount
    }
}

/// One request the emulator served, for counting Google calls per tool call.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    pub method: String,
    /// The `Host` the request was addressed to (one world can be served on several addresses).
    pub host: String,
    pub path: String,
}

/// A service account the token endpoint will accept JWT assertions from.
#[derive(Debug, Clone)]
pub struct ServiceAccountKey {
    pub email: String,
    pub public_key_pem: String,
}

/// An access token the emulator issued, as the API bearer check and the OAuth endpoints see it.
#[derive(Debug, Clone)]
pub struct AccessToken {
    pub identity: Identity,
    /// When Google stops accepting it; `None` for [`World::issue_token`]'s fixtures, which live until
    /// [`World::expire_access_tokens`] or a revocation.
    pub expires_at: Option<SystemTime>,
    /// The scopes granted, normalized as Google returns them (`email` → `…/auth/userinfo.email`).
    pub scopes: Vec<String>,
    /// The OAuth client it was issued to (`None` for service accounts and fixtures).
    pub client_id: Option<String>,
    /// The refresh token it was minted from: revoking that one revokes this one too.
    pub refresh_token: Option<String>,
}

impl AccessToken {
    /// Whether the API still accepts it.
    pub fn is_live(&self) -> bool {
        self.expires_at.is_none_or(|at| at > SystemTime::now())
    }
}

/// Everything the emulator knows.
#[derive(Default)]
pub struct World {
    /// The root URL the emulator is served at (links it returns, e.g. `webViewLink`, use Google's hosts).
    pub base_url: String,
    pub tokens: HashMap<String, AccessToken>,
    pub service_accounts: Vec<ServiceAccountKey>,
    /// Seconds an issued access token lives (tests shorten it).
    pub token_lifetime_secs: u64,
    pub faults: Vec<Fault>,
    /// OAuth clients registered in the Cloud console, and the Google accounts that can consent to them.
    pub oauth_clients: Vec<crate::auth::OAuthClient>,
    pub accounts: Vec<crate::auth::Account>,
    /// How the person at the authorize endpoint answers (see [`crate::auth::ConsentMode`]).
    pub consent: crate::auth::ConsentMode,
    /// Authorization codes, refresh tokens and the scopes granted per client and account.
    pub oauth: crate::auth::OAuthStore,
    /// What the GCE metadata server answers (see [`crate::FakeGoogle::start_metadata_server`]).
    pub metadata: crate::auth::GceMetadata,
    /// Turns off the discovery-document check of every exchange (on by default; the sandbox and the
    /// benchmark turn it off, as it costs time and only tests read its findings). OAuth scopes are
    /// enforced either way (see [`crate::scopes`]).
    pub skip_discovery_checks: bool,
    pub requests: Vec<RequestRecord>,
    pub sheets: crate::sheets::Store,
    pub docs: crate::docs::Store,
    pub slides: crate::slides::Store,
    pub drive: crate::drive::Store,
    pub activity: crate::activity::Store,
    pub gmail: crate::gmail::Store,
    pub calendar: crate::calendar::Store,
    /// The approval forms of the MCP servers waiting for an answer (see [`crate::mcp`]).
    pub mcp: crate::mcp::Store,
    /// Where the emulator diverged from Google's discovery documents, one line per violation (see
    /// [`crate::discovery`]).
    pub discovery_violations: Vec<String>,
}

impl World {
    /// A fresh Google-looking id (`len` chars of `[A-Za-z0-9_-]`).
    pub fn new_id(len: usize) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
        let mut rng = rand::rng();
        let mut id = String::with_capacity(len);
        // Google ids start with an alphanumeric character.
        id.push(ALPHABET[rng.random_range(0..62)] as char);
        for _ in 1..len {
            id.push(ALPHABET[rng.random_range(0..ALPHABET.len())] as char);
        }
        id
    }

    /// Issues an access token for `identity`, as a test fixture: it carries [`crate::auth::FIXTURE_SCOPES`]
    /// and does not expire on its own.
    pub fn issue_token(&mut self, identity: Identity) -> String {
        self.issue_token_with_scopes(identity, crate::auth::FIXTURE_SCOPES)
    }

    /// Issues a fixture access token for `identity` carrying only `scopes` (`email` and `profile` stand
    /// for their `userinfo` URLs, as at Google), to see what a narrowly signed-in app may call. It does
    /// not expire on its own.
    pub fn issue_token_with_scopes(&mut self, identity: Identity, scopes: &[&str]) -> String {
        let scopes = crate::auth::parse_scopes(&scopes.join(" "));
        self.grant_access(AccessToken { identity, expires_at: None, scopes, client_id: None, refresh_token: None })
    }

    /// Issues a fixture access token for `identity` as if it had signed in through the registered OAuth client
    /// `client_id` granting [`crate::auth::FIXTURE_SCOPES`]: the client decides, e.g., whether Google's MCP
    /// servers take the token ([`crate::OAuthClient::agentic`]). It does not expire on its own.
    pub fn issue_token_for_client(&mut self, identity: Identity, client_id: &str) -> String {
        let scopes = crate::auth::parse_scopes(&crate::auth::FIXTURE_SCOPES.join(" "));
        let client_id = Some(client_id.to_owned());
        self.grant_access(AccessToken { identity, expires_at: None, scopes, client_id, refresh_token: None })
    }

    /// The identity behind the request's bearer token, or Google's 401 in the API's error shape. It does
    /// not look at scopes: API handlers authenticate through `Call::run`, which does.
    pub fn authenticate(&self, headers: &HeaderMap, shape: Shape) -> Result<Identity, ApiError> {
        self.bearer(headers, shape).map(|access| access.identity.clone())
    }

    /// The live access token the request bears, or Google's 401 in the API's error shape.
    pub(crate) fn bearer(&self, headers: &HeaderMap, shape: Shape) -> Result<&AccessToken, ApiError> {
        let token = headers
            .get("authorization")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or_else(|| ApiError::unauthenticated(shape))?;
        match self.tokens.get(token.trim()) {
            Some(access) if access.is_live() => Ok(access),
            _ => Err(ApiError::unauthenticated(shape)),
        }
    }

    /// How many requests were served whose path starts with `prefix`.
    pub fn count_requests(&self, prefix: &str) -> usize {
        self.requests.iter().filter(|record| record.path.starts_with(prefix)).count()
    }
}
