//! Google's sign-in endpoints, as an installed app, a service account and a GCE workload meet them:
//!
//! - `GET /o/oauth2/v2/auth` (accounts.google.com): the authorization request of OAuth 2.0 for installed
//!   apps, with PKCE (RFC 7636); the person's answer comes from [`World::consent`] ([`authorize`]);
//! - `POST /token` (oauth2.googleapis.com): the `authorization_code`, `refresh_token` and JWT bearer
//!   (RFC 7523) grants ([`token`]);
//! - `POST /revoke` (oauth2.googleapis.com, RFC 7009) ([`revoke`]);
//! - `GET /tokeninfo` (oauth2.googleapis.com), `GET /v1/userinfo` (openidconnect.googleapis.com) and
//!   `GET /oauth2/v3/userinfo` (www.googleapis.com) ([`userinfo`]), and `GET /oauth2/v3/certs`, the keys
//!   ID tokens are signed with ([`id_token`]);
//! - the GCE metadata server, on a listener of its own ([`metadata`]).
//!
//! Bodies and error messages are Google's, word for word where Google's are known. None of these endpoints is
//! in a discovery document: [`crate::discovery::non_discovery_route`] lists them.

mod authorize;
mod id_token;
mod metadata;
mod revoke;
mod token;
mod userinfo;

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use md5::{Digest, Md5};
use serde_json::json;

pub use authorize::AuthorizeRequest;
pub use metadata::{GceMetadata, MetadataServer};

use crate::Shared;
use crate::state::{AccessToken, Identity, World};

pub fn routes() -> Router<Shared> {
    Router::new()
        .route(authorize::AUTHORIZE_PATH, get(authorize::authorize))
        .route(authorize::CONSENT_PATH, post(authorize::consent))
        .route("/token", post(token::token))
        .route("/revoke", post(revoke::revoke))
        .route("/tokeninfo", get(userinfo::tokeninfo).post(userinfo::tokeninfo))
        .route("/oauth2/v3/tokeninfo", get(userinfo::tokeninfo).post(userinfo::tokeninfo))
        .route("/v1/userinfo", get(userinfo::userinfo).post(userinfo::userinfo))
        .route("/oauth2/v3/userinfo", get(userinfo::userinfo).post(userinfo::userinfo))
        .route("/oauth2/v3/certs", get(id_token::certs))
}

/// The scopes of [`World::issue_token`]'s fixture tokens: every API the emulator serves, and the account's
/// identity.
pub const FIXTURE_SCOPES: &[&str] = &[
    "https://www.googleapis.com/auth/drive",
    "https://www.googleapis.com/auth/spreadsheets",
    "https://www.googleapis.com/auth/documents",
    "https://www.googleapis.com/auth/presentations",
    "https://www.googleapis.com/auth/drive.activity",
    "https://www.googleapis.com/auth/gmail.modify",
    "https://www.googleapis.com/auth/calendar",
    "https://www.googleapis.com/auth/userinfo.email",
    "https://www.googleapis.com/auth/userinfo.profile",
    "openid",
];

/// The client id fixture tokens report in `tokeninfo` (they were issued to no registered client).
const FIXTURE_CLIENT_ID: &str = "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com";

/// The scopes the authorize endpoint knows; any other is `invalid_scope`, as at Google.
const KNOWN_SCOPES: &[&str] = &[
    "openid",
    "email",
    "profile",
    "https://www.googleapis.com/auth/userinfo.email",
    "https://www.googleapis.com/auth/userinfo.profile",
    "https://www.googleapis.com/auth/drive",
    "https://www.googleapis.com/auth/drive.file",
    "https://www.googleapis.com/auth/drive.readonly",
    "https://www.googleapis.com/auth/drive.metadata",
    "https://www.googleapis.com/auth/drive.metadata.readonly",
    "https://www.googleapis.com/auth/drive.appdata",
    "https://www.googleapis.com/auth/drive.apps.readonly",
    "https://www.googleapis.com/auth/drive.photos.readonly",
    "https://www.googleapis.com/auth/drive.scripts",
    "https://www.googleapis.com/auth/drive.meet.readonly",
    "https://www.googleapis.com/auth/drive.activity",
    "https://www.googleapis.com/auth/drive.activity.readonly",
    "https://www.googleapis.com/auth/spreadsheets",
    "https://www.googleapis.com/auth/spreadsheets.readonly",
    "https://www.googleapis.com/auth/documents",
    "https://www.googleapis.com/auth/documents.readonly",
    "https://www.googleapis.com/auth/presentations",
    "https://www.googleapis.com/auth/presentations.readonly",
    "https://mail.google.com/",
    "https://www.googleapis.com/auth/gmail.modify",
    "https://www.googleapis.com/auth/gmail.readonly",
    "https://www.googleapis.com/auth/gmail.compose",
    "https://www.googleapis.com/auth/gmail.send",
    "https://www.googleapis.com/auth/gmail.labels",
    "https://www.googleapis.com/auth/calendar",
    "https://www.googleapis.com/auth/calendar.readonly",
    "https://www.googleapis.com/auth/calendar.acls",
    "https://www.googleapis.com/auth/calendar.acls.readonly",
    "https://www.googleapis.com/auth/calendar.events",
    "https://www.googleapis.com/auth/calendar.events.readonly",
    "https://www.googleapis.com/auth/cloud-platform",
    "https://www.googleapis.com/auth/cloud-platform.read-only",
    "https://www.googleapis.com/auth/devstorage.read_only",
];

const EMAIL_SCOPE: &str = "https://www.googleapis.com/auth/userinfo.email";
const PROFILE_SCOPE: &str = "https://www.googleapis.com/auth/userinfo.profile";

/// How long an authorization code can be redeemed (Google: 10 minutes).
const CODE_LIFETIME: Duration = Duration::from_secs(600);

/// What kind of OAuth client the Cloud console registered: it decides which redirect URIs are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// A *Desktop app* client: any loopback redirect (`http://127.0.0.1:PORT[/path]`, `http://[::1]:PORT`,
    /// `http://localhost:PORT`), plus the registered ones.
    Installed,
    /// A *Web application* client: only the registered redirect URIs, exactly.
    Web,
}

/// An OAuth client registered in the Cloud console.
#[derive(Debug, Clone)]
pub struct OAuthClient {
    pub client_id: String,
    pub client_secret: String,
    pub kind: ClientKind,
    pub redirect_uris: Vec<String>,
    /// Whether an authorization request must carry an S256 PKCE challenge (Google makes PKCE optional; the
    /// emulator requires it of installed clients by default, as Gatehouse always sends one).
    pub require_pkce: bool,
    /// Marked "Use this client for an AI-powered agent" in the Cloud console. Google's Workspace MCP servers
    /// refuse access tokens issued to a client without the mark (since 2026-11-11); the REST APIs take them.
    /// The constructors mark clients agentic, so existing fixtures reach both; [`OAuthClient::non_agentic`]
    /// makes the other kind.
    pub agentic: bool,
}

impl OAuthClient {
    /// A *Desktop app* client, requiring PKCE (S256).
    pub fn installed(client_id: &str, client_secret: &str) -> Self {
        Self {
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            kind: ClientKind::Installed,
            redirect_uris: Vec::new(),
            require_pkce: true,
            agentic: true,
        }
    }

    /// A *Web application* client with its registered redirect URIs (PKCE optional).
    pub fn web(client_id: &str, client_secret: &str, redirect_uris: &[&str]) -> Self {
        Self {
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            kind: ClientKind::Web,
            redirect_uris: redirect_uris.iter().map(|uri| (*uri).to_owned()).collect(),
            require_pkce: false,
            agentic: true,
        }
    }

    /// The same client without the "AI-powered agent" mark: a client created before Google asked for it, or
    /// kept for an app's non-agent features. Its tokens reach the REST APIs, not the MCP servers.
    pub fn non_agentic(mut self) -> Self {
        self.agentic = false;
        self
    }

    /// Whether Google would redirect to `uri` for this client.
    pub fn accepts_redirect(&self, uri: &str) -> bool {
        self.redirect_uris.iter().any(|registered| registered == uri)
            || (self.kind == ClientKind::Installed && is_loopback_redirect(uri))
    }
}

/// `http://127.0.0.1[:PORT][/path]`, `http://[::1][:PORT]…` or `http://localhost[:PORT]…`, without a fragment.
fn is_loopback_redirect(uri: &str) -> bool {
    let Ok(url) = url::Url::parse(uri) else { return false };
    url.scheme() == "http"
        && url.fragment().is_none()
        && url.username().is_empty()
        && matches!(url.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"))
}

/// A Google account that can sign in on the consent page.
#[derive(Debug, Clone)]
pub struct Account {
    pub identity: Identity,
    /// The display name (`name` in userinfo and the ID token).
    pub name: String,
}

impl Account {
    pub fn user(email: &str, name: &str) -> Self {
        Self { identity: Identity::user(email), name: name.to_owned() }
    }
}

/// How the person at the authorize endpoint answers.
#[derive(Debug, Clone, Default)]
pub enum ConsentMode {
    /// Signs in as this account and allows at once: the endpoint redirects with a code.
    Approve(Identity),
    /// Refuses at once: the endpoint redirects with `error=access_denied`.
    Deny,
    /// Shows a consent page whose form posts the person's choice (a test plays the browser).
    #[default]
    Page,
}

/// An authorization code waiting to be redeemed at the token endpoint.
#[derive(Debug, Clone)]
pub struct AuthorizationCode {
    pub client_id: String,
    pub redirect_uri: String,
    pub identity: Identity,
    pub scopes: Vec<String>,
    /// The PKCE challenge and its method (`S256` or `plain`).
    pub code_challenge: Option<(String, String)>,
    /// `access_type=offline`: redeeming the code also issues a refresh token.
    pub offline: bool,
    pub issued_at: SystemTime,
}

/// A live refresh token.
#[derive(Debug, Clone)]
pub struct RefreshGrant {
    pub client_id: String,
    pub identity: Identity,
    pub scopes: Vec<String>,
}

/// The authorization server's memory.
#[derive(Debug, Default)]
pub struct OAuthStore {
    pub codes: HashMap<String, AuthorizationCode>,
    pub refresh_tokens: HashMap<String, RefreshGrant>,
    /// The scopes each account granted each client, by `(client_id, email)` (for `include_granted_scopes`
    /// and `prompt=none`).
    pub grants: HashMap<(String, String), BTreeSet<String>>,
    /// Authorization requests shown on the consent page and not answered yet, by the page's request id.
    pub pending: HashMap<String, authorize::AuthorizeRequest>,
    /// Every authorization request received, as its query parameters, for tests to check what a client asked.
    pub authorize_requests: Vec<Vec<(String, String)>>,
}

impl OAuthStore {
    /// The scopes the last authorization request asked for, sorted (empty when none came).
    pub fn last_scopes_asked(&self) -> Vec<String> {
        let asked = self.authorize_requests.last().into_iter().flatten();
        let mut scopes: Vec<String> = asked
            .filter(|(key, _)| key == "scope")
            .flat_map(|(_, value)| value.split(' ').map(str::to_owned))
            .collect();
        scopes.sort();
        scopes
    }
}

impl World {
    /// Seconds an access token issued now lives: [`World::token_lifetime_secs`], or Google's 3599.
    pub fn token_lifetime(&self) -> u64 {
        if self.token_lifetime_secs == 0 { 3599 } else { self.token_lifetime_secs }
    }

    /// Stores `access` under a fresh token string and returns it.
    pub fn grant_access(&mut self, access: AccessToken) -> String {
        let token = format!("ya29.fake-{}", Self::new_id(40));
        self.tokens.insert(token.clone(), access);
        token
    }

    /// Issues an access token that expires after [`World::token_lifetime`].
    pub(crate) fn issue_expiring(
        &mut self,
        identity: Identity,
        scopes: Vec<String>,
        client_id: Option<String>,
        refresh_token: Option<String>,
    ) -> String {
        let expires_at = Some(SystemTime::now() + Duration::from_secs(self.token_lifetime()));
        self.grant_access(AccessToken { identity, expires_at, scopes, client_id, refresh_token })
    }

    /// Expires every access token issued so far, fixtures included (the next API call answers 401).
    pub fn expire_access_tokens(&mut self) {
        let now = SystemTime::now();
        for access in self.tokens.values_mut() {
            access.expires_at = Some(now);
        }
    }

    /// Revokes the refresh tokens of `email` out of band, as Google does after 7 days for an app in testing:
    /// the next refresh answers `invalid_grant`; access tokens already issued live until they expire.
    /// Returns how many were revoked.
    pub fn revoke_refresh_tokens_of(&mut self, email: &str) -> usize {
        let before = self.oauth.refresh_tokens.len();
        self.oauth.refresh_tokens.retain(|_, grant| !grant.identity.email.eq_ignore_ascii_case(email));
        self.oauth.grants.retain(|(_, granted_by), _| !granted_by.eq_ignore_ascii_case(email));
        before - self.oauth.refresh_tokens.len()
    }

    /// The person removes every app's access in their Google Account: the refresh tokens and the access
    /// tokens of `email` stop working at once.
    pub fn revoke_all_tokens_of(&mut self, email: &str) {
        self.revoke_refresh_tokens_of(email);
        self.tokens.retain(|_, access| !access.identity.email.eq_ignore_ascii_case(email));
    }

    /// Revokes a refresh token and every access token minted from it; false if it was not live.
    pub(crate) fn revoke_refresh_token(&mut self, refresh_token: &str) -> bool {
        let Some(grant) = self.oauth.refresh_tokens.remove(refresh_token) else { return false };
        self.tokens.retain(|_, access| access.refresh_token.as_deref() != Some(refresh_token));
        self.oauth.grants.remove(&(grant.client_id, grant.identity.email));
        true
    }

    /// The live access token `token`, if any.
    pub(crate) fn live_access(&self, token: &str) -> Option<&AccessToken> {
        self.tokens.get(token).filter(|access| access.is_live())
    }

    /// The display name of `identity`: the registered account's, or one made from the address.
    pub(crate) fn display_name(&self, identity: &Identity) -> String {
        let registered =
            self.accounts.iter().find(|account| account.identity.email.eq_ignore_ascii_case(&identity.email));
        match registered {
            Some(account) => account.name.clone(),
            None => name_from_email(&identity.email),
        }
    }
}

/// `ada.lovelace@example.com` → `Ada Lovelace`.
fn name_from_email(email: &str) -> String {
    let local = email.split('@').next().unwrap_or(email);
    let words: Vec<String> = local
        .split(['.', '_', '-', '+'])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
        })
        .collect();
    words.join(" ")
}

/// Google's stable numeric account id (`sub`), 21 digits, derived from the address.
pub(crate) fn subject(email: &str) -> String {
    let digest = Md5::digest(email.to_ascii_lowercase().as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    format!("1{:020}", u64::from_be_bytes(bytes))
}

/// Seconds since the epoch.
pub(crate) fn unix(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map(|elapsed| elapsed.as_secs()).unwrap_or_default()
}

/// A requested scope as Google grants it: `email` and `profile` become their `userinfo` URLs.
fn normalize_scope(scope: &str) -> String {
    match scope {
        "email" => EMAIL_SCOPE.to_owned(),
        "profile" => PROFILE_SCOPE.to_owned(),
        other => other.to_owned(),
    }
}

/// Space-separated scopes, normalized and without duplicates, in the order given.
pub(crate) fn parse_scopes(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for scope in scope.split_whitespace().map(normalize_scope) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes
}

fn has_scope(scopes: &[String], wanted: &str) -> bool {
    scopes.iter().any(|scope| scope == wanted)
}

/// An RFC 6749 error body (`{"error","error_description"}`), as every OAuth endpoint answers.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    OAuthError::new(status, error, description).into_response()
}

/// An RFC 6749 error, answered as its JSON body.
struct OAuthError(Box<(StatusCode, String, String)>);

impl OAuthError {
    fn new(status: StatusCode, error: &str, description: &str) -> Self {
        Self(Box::new((status, error.to_owned(), description.to_owned())))
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let (status, error, description) = *self.0;
        (status, axum::Json(json!({ "error": error, "error_description": description }))).into_response()
    }
}

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_redirects_are_those_of_installed_apps() {
        let client = OAuthClient::installed("id", "secret");
        for uri in
            ["http://127.0.0.1:8080", "http://127.0.0.1:53123/callback", "http://localhost:9000/", "http://[::1]:1/"]
        {
            assert!(client.accepts_redirect(uri), "{uri}");
        }
        for uri in
            ["https://127.0.0.1:8080", "http://example.com:8080", "urn:ietf:wg:oauth:2.0:oob", "http://127.0.0.1:1/#x"]
        {
            assert!(!client.accepts_redirect(uri), "{uri}");
        }
        let web = OAuthClient::web("id", "secret", &["https://app.example/cb"]);
        assert!(web.accepts_redirect("https://app.example/cb"));
        assert!(!web.accepts_redirect("http://127.0.0.1:8080"));
    }

    #[test]
    fn subjects_are_stable_21_digit_ids_and_names_come_from_addresses() {
        let sub = subject("Ada@example.com");
        assert_eq!(sub, subject("ada@example.com"));
        assert_eq!(sub.len(), 21);
        assert!(sub.chars().all(|ch| ch.is_ascii_digit()));
        assert_ne!(sub, subject("grace@example.com"));
        assert_eq!(name_from_email("ada.lovelace@example.com"), "Ada Lovelace");
        assert_eq!(parse_scopes("email openid email profile"), [EMAIL_SCOPE, "openid", PROFILE_SCOPE]);
    }
}
