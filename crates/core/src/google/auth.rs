//! Access tokens for Google calls.
//!
//! This is the part of sign-in the engine needs to make calls: something that hands out a bearer token.
//! Two sources exist today: a fixed token (the sandbox, whose emulator issued it) and a service-account key
//! (the JWT bearer grant, RS256, sent to the key's own `token_uri`). Tokens are cached in memory until a
//! minute before they expire; one refresh runs at a time however many calls wait for it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;

use super::endpoint::Endpoints;
use super::token_cache::{CachedTokens, TokenCache};

/// The OAuth scopes the tools of this build use.
pub const SCOPES: &[&str] = &[
    "https://www.googleapis.com/auth/drive",
    "https://www.googleapis.com/auth/spreadsheets",
    "https://www.googleapis.com/auth/documents",
    "https://www.googleapis.com/auth/drive.activity.readonly",
    "https://www.googleapis.com/auth/calendar",
];

/// Why no token could be had.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error(
        "The service account key at {path} could not be read: {detail}. Check SERVICE_ACCOUNT_PATH points to the JSON key file you downloaded from Google Cloud."
    )]
    KeyUnreadable { path: String, detail: String },
    #[error(
        "The service account key is not usable: {0}. Download a new JSON key from Google Cloud (IAM › Service accounts › Keys)."
    )]
    KeyInvalid(String),
    #[error(
        "Google refused the sign-in ({error}: {description}). Check the credential is still valid, or sign in again."
    )]
    Refused { error: String, description: String },
    #[error("Gatehouse could not reach Google's sign-in service: {0}. Check the internet connection and try again.")]
    Network(String),
    #[error(
        "Not signed in to Google. Sign in from the Gatehouse app (tray menu › Open Gatehouse › Account) or with `gatehouse login`, or run `gatehouse serve --sandbox` to try it with sample files."
    )]
    NotSignedIn,
    /// Google answered `invalid_grant`: the refresh token was revoked or expired (apps in testing: 7 days).
    #[error(
        "Google no longer accepts the sign-in of {account} (it was revoked or it expired). The person must sign in to Google again from the Gatehouse app (tray menu › Open Gatehouse › Account) or with `gatehouse login`; Gatehouse keeps running and uses the new sign-in as soon as it is done."
    )]
    SignInAgain { account: String },
    /// The store that keeps the sign-in (the OS keychain) could not be used; the text says which and what to do.
    #[error("{0}")]
    TokenStore(String),
    /// A kept credential belongs to another place than `GATEHOUSE_GOOGLE_ENDPOINT` names (or than Google), so
    /// it was not sent; the text says which and what to do.
    #[error("{0}")]
    Rerouted(String),
}

/// Hands out bearer tokens for Google calls.
pub trait TokenSource: Send + Sync {
    /// A valid access token, refreshing it first if needed.
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>>;
    /// Forgets a cached token Google refused (a 401), so the next call fetches a new one.
    fn invalidate(&self) -> BoxFuture<'_, ()>;
    /// Forgets `token` after Google refused it, unless a newer token already replaced it: when many calls
    /// carried the same stale token, their 401s then cause one refresh rather than one each.
    fn invalidate_token<'a>(&'a self, token: &'a str) -> BoxFuture<'a, ()> {
        let _ = token;
        self.invalidate()
    }
    /// The account the tokens act as, when known.
    fn account(&self) -> Option<String>;
    /// Looks again at where the sign-in is kept, so a sign-in made elsewhere (another account made active,
    /// more permissions granted) is seen before the next refresh. Nothing to do for most sources.
    fn reload(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// A token that never changes: the sandbox's.
pub struct StaticToken {
    token: String,
    account: Option<String>,
}

impl StaticToken {
    pub fn new(token: impl Into<String>, account: Option<String>) -> Self {
        Self { token: token.into(), account }
    }
}

impl TokenSource for StaticToken {
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async { Ok(self.token.clone()) })
    }

    fn invalidate(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn account(&self) -> Option<String> {
        self.account.clone()
    }
}

/// No credential at all: every call explains how to sign in.
pub struct SignedOut;

impl TokenSource for SignedOut {
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async { Err(AuthError::NotSignedIn) })
    }

    fn invalidate(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn account(&self) -> Option<String> {
        None
    }
}

/// The fields of a Google service-account JSON key that the JWT bearer grant needs.
#[derive(Clone, Deserialize)]
pub struct ServiceAccountKey {
    #[serde(rename = "type")]
    pub kind: String,
    pub client_email: String,
    pub private_key: String,
    #[serde(default)]
    pub private_key_id: Option<String>,
    #[serde(default = "default_token_uri")]
    pub token_uri: String,
}

fn default_token_uri() -> String {
    "https://oauth2.googleapis.com/token".to_owned()
}

impl std::fmt::Debug for ServiceAccountKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAccountKey").field("client_email", &self.client_email).finish_non_exhaustive()
    }
}

impl ServiceAccountKey {
    /// Reads a key file (`SERVICE_ACCOUNT_PATH`).
    pub fn from_file(path: &Path) -> Result<Self, AuthError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AuthError::KeyUnreadable { path: path.display().to_string(), detail: e.to_string() })?;
        Self::from_json(&text)
    }

    /// Parses a key's JSON text.
    pub fn from_json(text: &str) -> Result<Self, AuthError> {
        let key: Self = serde_json::from_str(text).map_err(|e| AuthError::KeyInvalid(e.to_string()))?;
        if key.kind != "service_account" {
            return Err(AuthError::KeyInvalid(format!("its \"type\" is {:?}, not \"service_account\"", key.kind)));
        }
        jsonwebtoken::EncodingKey::from_rsa_pem(key.private_key.as_bytes())
            .map_err(|e| AuthError::KeyInvalid(format!("its private_key is not an RSA key in PEM form ({e})")))?;
        Ok(key)
    }
}

/// Tokens from a service-account key through the JWT bearer grant.
pub struct ServiceAccount {
    key: ServiceAccountKey,
    token_url: String,
    http: reqwest::Client,
    cache: TokenCache,
}

#[derive(serde::Serialize)]
struct Claims<'a> {
    iss: &'a str,
    scope: String,
    aud: &'a str,
    iat: u64,
    exp: u64,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

#[derive(Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: String,
}

impl ServiceAccount {
    /// Tokens are requested from the key's `token_uri`, rerouted only if it is a Google host; the assertion's
    /// audience is the URL it is sent to.
    pub fn new(key: ServiceAccountKey, endpoints: &Endpoints, http: reqwest::Client) -> Arc<Self> {
        let token_url = endpoints.reroute(&key.token_uri);
        Arc::new(Self { key, token_url, http, cache: TokenCache::default() })
    }

    async fn fetch(&self) -> Result<(String, Duration), AuthError> {
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
        let claims = Claims {
            iss: &self.key.client_email,
            scope: SCOPES.join(" "),
            // The URL the assertion is sent to, which Google checks against its token endpoint. With
            // GATEHOUSE_GOOGLE_ENDPOINT set this is the emulator's URL, so what the emulator receives is worth
            // nothing at Google: a key can serve an emulator without handing it a usable credential.
            aud: &self.token_url,
            iat: now,
            exp: now + 3600,
        };
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.kid = self.key.private_key_id.clone();
        let signing = jsonwebtoken::EncodingKey::from_rsa_pem(self.key.private_key.as_bytes())
            .map_err(|e| AuthError::KeyInvalid(e.to_string()))?;
        let assertion =
            jsonwebtoken::encode(&header, &claims, &signing).map_err(|e| AuthError::KeyInvalid(e.to_string()))?;
        let response = self
            .http
            .post(&self.token_url)
            .form(&[("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion.as_str())])
            .send()
            .await
            .map_err(|e| AuthError::Network(e.to_string()))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| AuthError::Network(e.to_string()))?;
        if !status.is_success() {
            let error = serde_json::from_slice::<OAuthError>(&body).unwrap_or(OAuthError {
                error: format!("HTTP {}", status.as_u16()),
                error_description: String::from_utf8_lossy(&body).chars().take(200).collect(),
            });
            return Err(AuthError::Refused { error: error.error, description: error.error_description });
        }
        let token: TokenResponse = serde_json::from_slice(&body)
            .map_err(|e| AuthError::Refused { error: "unreadable answer".into(), description: e.to_string() })?;
        Ok((token.access_token, Duration::from_secs(token.expires_in.unwrap_or(3600))))
    }
}

impl CachedTokens for ServiceAccount {
    fn token_cache(&self) -> &TokenCache {
        &self.cache
    }

    fn fetch_token(&self) -> BoxFuture<'_, Result<(String, Duration), AuthError>> {
        Box::pin(self.fetch())
    }

    fn cached_account(&self) -> Option<String> {
        Some(self.key.client_email.clone())
    }
}
