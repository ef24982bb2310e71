//! The two token sources ADC adds to the service-account key's: a person's `authorized_user` refresh token
//! and the GCE metadata server. Both cache their token until shortly before it expires, refresh one at a
//! time however many calls wait (single-flight), and learn the account and the granted scopes on the way.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;

use crate::auth::Secret;
use crate::auth::oauth::{self, OAuthFailure};
use crate::google::auth::{AuthError, SCOPES};
use crate::google::token_cache::{CachedTokens, TokenCache};

/// Google's token endpoint, where `authorized_user` files are refreshed unless they name another.
pub(super) const TOKEN_URL: &str = "https://oauth2.googleapis.com/token";
/// Google's tokeninfo endpoint: the account and scopes of an access token.
pub(super) const TOKENINFO_URL: &str = "https://oauth2.googleapis.com/tokeninfo";

/// What a credential taught us about itself: the account's email and the scopes Google granted.
#[derive(Default, Clone)]
pub(super) struct Learned {
    pub account: Option<String>,
    pub scopes: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct TokenInfo {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// The account and scopes of `access_token`, from Google's tokeninfo endpoint; `None` when it can't say
/// (the answer only carries the email when the token has the email scope).
async fn token_info(http: &reqwest::Client, url: &str, access_token: &str) -> Option<TokenInfo> {
    let response = http.get(url).query(&[("access_token", access_token)]).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.json().await.ok()
}

fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

/// A person's credential from an `authorized_user` file (`gcloud auth application-default login`): the
/// refresh token grant at the token endpoint, with the OAuth client the file names.
pub(super) struct AuthorizedUser {
    pub client_id: String,
    pub client_secret: Secret,
    pub refresh_token: Secret,
    pub token_url: String,
    pub tokeninfo_url: String,
    /// The file, named in errors so the person knows which credential stopped working.
    pub path: String,
    pub http: reqwest::Client,
    cache: TokenCache,
    learned: StdMutex<Learned>,
}

impl AuthorizedUser {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        client_id: String,
        client_secret: Secret,
        refresh_token: Secret,
        token_url: String,
        tokeninfo_url: String,
        path: String,
        account: Option<String>,
        http: reqwest::Client,
    ) -> Self {
        Self {
            client_id,
            client_secret,
            refresh_token,
            token_url,
            tokeninfo_url,
            path,
            http,
            cache: TokenCache::default(),
            learned: StdMutex::new(Learned { account, scopes: None }),
        }
    }

    pub fn learned(&self) -> Learned {
        self.learned.lock().map(|l| l.clone()).unwrap_or_default()
    }

    async fn fetch(&self) -> Result<(String, Duration), AuthError> {
        let refreshed = oauth::refresh(
            &self.http,
            &self.client_id,
            Some(&self.client_secret),
            &self.token_url,
            &self.refresh_token,
        );
        let answer = refreshed.await.map_err(|failure| match failure {
            OAuthFailure::Network(detail) => AuthError::Network(detail),
            OAuthFailure::Refused { error, description } => {
                let remedy = if error == "invalid_grant" {
                    "the sign-in stored there was revoked or expired: run `gcloud auth application-default login` again"
                } else {
                    "run `gcloud auth application-default login` to write it again"
                };
                let description = format!("{description} — Application Default Credentials in {}: {remedy}", self.path);
                AuthError::Refused { error, description }
            }
        })?;
        let granted = answer.scope.as_deref().map(split_scopes);
        let known = self.learned();
        let (mut account, mut scopes) = (known.account, granted.or(known.scopes));
        if (account.is_none() || scopes.is_none())
            && let Some(info) = token_info(&self.http, &self.tokeninfo_url, &answer.access_token).await
        {
            account = account.or(info.email.filter(|e| !e.is_empty()));
            scopes = scopes.or(info.scope.as_deref().map(split_scopes));
        }
        if let Ok(mut learned) = self.learned.lock() {
            *learned = Learned { account, scopes };
        }
        Ok((answer.access_token.clone(), answer.lifetime()))
    }
}

impl CachedTokens for AuthorizedUser {
    fn token_cache(&self) -> &TokenCache {
        &self.cache
    }

    fn fetch_token(&self) -> BoxFuture<'_, Result<(String, Duration), AuthError>> {
        Box::pin(self.fetch())
    }

    fn cached_account(&self) -> Option<String> {
        self.learned().account
    }
}

/// The service account attached to a Google Cloud machine, through the metadata server.
pub(super) struct MetadataTokens {
    /// `http://HOST`.
    pub base: String,
    pub email: String,
    pub tokeninfo_url: String,
    pub http: reqwest::Client,
    cache: TokenCache,
    scopes: StdMutex<Option<Vec<String>>>,
}

#[derive(Deserialize)]
struct MetadataToken {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// The header every metadata request carries; the server refuses requests without it.
pub(super) const FLAVOR: (&str, &str) = ("Metadata-Flavor", "Google");

/// The path of the attached service account's items (`email`, `token`, `scopes`).
pub(super) const ACCOUNT_PATH: &str = "/computeMetadata/v1/instance/service-accounts/default/";

impl MetadataTokens {
    pub fn new(base: String, email: String, tokeninfo_url: String, http: reqwest::Client) -> Self {
        Self { base, email, tokeninfo_url, http, cache: TokenCache::default(), scopes: StdMutex::new(None) }
    }

    pub fn granted_scopes(&self) -> Option<Vec<String>> {
        self.scopes.lock().ok().and_then(|s| s.clone())
    }

    async fn fetch(&self) -> Result<(String, Duration), AuthError> {
        let refused = |detail: String| AuthError::Refused {
            error: "metadata server".into(),
            description: format!(
                "the metadata server at {} gave no token for {} ({detail}); check the machine's service account, or use another credential",
                self.base, self.email
            ),
        };
        // Asking for Gatehouse's scopes, as Google's libraries do when given scopes; a Compute Engine VM
        // may still grant only its own access scopes, which tokeninfo then reports.
        let response = self
            .http
            .get(format!("{}{ACCOUNT_PATH}token", self.base))
            .query(&[("scopes", SCOPES.join(","))])
            .header(FLAVOR.0, FLAVOR.1)
            .send()
            .await
            .map_err(|e| AuthError::Network(format!("the metadata server at {} did not answer ({e})", self.base)))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| AuthError::Network(e.to_string()))?;
        if !status.is_success() {
            let excerpt: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            return Err(refused(format!("HTTP {}: {excerpt}", status.as_u16())));
        }
        let token: MetadataToken =
            serde_json::from_slice(&body).map_err(|e| refused(format!("unreadable answer: {e}")))?;
        if self.granted_scopes().is_none()
            && let Some(scope) =
                token_info(&self.http, &self.tokeninfo_url, &token.access_token).await.and_then(|info| info.scope)
            && let Ok(mut scopes) = self.scopes.lock()
        {
            *scopes = Some(split_scopes(&scope));
        }
        Ok((token.access_token, Duration::from_secs(token.expires_in.unwrap_or(3600))))
    }
}

impl CachedTokens for MetadataTokens {
    fn token_cache(&self) -> &TokenCache {
        &self.cache
    }

    fn fetch_token(&self) -> BoxFuture<'_, Result<(String, Duration), AuthError>> {
        Box::pin(self.fetch())
    }

    fn cached_account(&self) -> Option<String> {
        Some(self.email.clone())
    }
}
