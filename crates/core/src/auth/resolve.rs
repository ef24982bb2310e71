//! Which credential serves: `AUTH_METHOD` pins one method; unset, they are tried in order — the person's
//! sign-in (oauth), a service-account key (`SERVICE_ACCOUNT_PATH`, `CREDENTIALS_CONFIG`), Application Default
//! Credentials — and the first that finds a credential serves.
//!
//! When nothing is found the person's sign-in still serves (when the token store works): every tool then
//! answers that the person must sign in, and a sign-in made later is used without a restart. The identity class
//! reported in `server://auth-status` is the one of the credential actually resolved, never guessed from the
//! method.

use std::path::PathBuf;
use std::sync::Arc;

use super::adc::{self, AdcError, CredentialSource};
use super::identity::{AuthMethod, IdentityClass};
use super::state::AuthSnapshot;
use super::{StoreError, TokenStore, UserTokens};
use crate::config::Config;
use crate::google::auth::{AuthError, SCOPES, ServiceAccount, ServiceAccountKey, SignedOut, TokenSource};
use crate::google::{Endpoints, GoogleClient};

/// Why no credential could be chosen. Only a pinned method (or a setting that is wrong) fails: with
/// `AUTH_METHOD` unset, a method that finds nothing just lets the next one try.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error(
        "AUTH_METHOD is set to {0:?}, which is not a sign-in method. Use oauth, service_account or adc, or unset it to let Gatehouse try them in that order."
    )]
    UnknownMethod(String),
    #[error(
        "AUTH_METHOD=service_account, but neither SERVICE_ACCOUNT_PATH (the path of a JSON key) nor CREDENTIALS_CONFIG (its base64) is set. Set one of them, or unset AUTH_METHOD."
    )]
    NoServiceAccount,
    #[error(
        "AUTH_METHOD=adc, but no Application Default Credentials were found: GOOGLE_APPLICATION_CREDENTIALS is unset, gcloud's credentials file does not exist, and no Google Cloud metadata server answered. Run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or unset AUTH_METHOD."
    )]
    NoAdc,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Key(#[from] AuthError),
    #[error(transparent)]
    Adc(#[from] AdcError),
}

/// The credential that serves, and what `server://auth-status` reports about it.
pub struct Resolution {
    pub tokens: Arc<dyn TokenSource>,
    pub snapshot: AuthSnapshot,
    /// The person's sign-in, when it is the source serving: it reports its own state changes (signed out on
    /// `invalid_grant`, signed in again later), so connect it with [`UserTokens::report_to`].
    pub user: Option<Arc<UserTokens>>,
    /// Where the credential came from, in words, for logs and `gatehouse status`.
    pub source: String,
}

impl Resolution {
    /// Makes `state` report this credential from now on (the person's sign-in keeps it up to date itself).
    pub fn report_to(&self, state: &super::state::AuthState) {
        state.set(self.snapshot.clone());
        if let Some(user) = &self.user {
            user.report_to(state.clone());
        }
    }
}

impl std::fmt::Debug for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolution").field("snapshot", &self.snapshot).field("source", &self.source).finish()
    }
}

/// Chooses the credential (see the module documentation). `lookup` reads the environment, so tests never
/// touch the process's.
pub async fn resolve(config: &Config, lookup: impl Fn(&str) -> Option<String>) -> Result<Resolution, ResolveError> {
    let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
    let pinned = match get("AUTH_METHOD") {
        None => None,
        Some(value) => match AuthMethod::parse(&value) {
            Some(AuthMethod::None) | None => return Err(ResolveError::UnknownMethod(value)),
            Some(method) => Some(method),
        },
    };
    let tries = |method: AuthMethod| pinned.is_none_or(|pinned| pinned == method);
    let endpoints = Endpoints::new(config.google_endpoint.clone());
    let http = GoogleClient::http_client(config.request_timeout);

    let mut waiting_user = None;
    if tries(AuthMethod::OAuth) {
        match user_sign_in(config, &get, &endpoints, &http, pinned.is_some()).await? {
            Some((tokens, Some(account))) => {
                tracing::info!(%account, "acting as the signed-in Google account");
                let source = format!("the signed-in Google account {account}");
                return Ok(Resolution {
                    tokens: tokens.clone(),
                    snapshot: AuthSnapshot::signed_out(),
                    user: Some(tokens),
                    source,
                });
            }
            Some((tokens, None)) => waiting_user = Some(tokens),
            None => {}
        }
        if pinned.is_some() {
            return Ok(waiting_for_sign_in(waiting_user));
        }
    }
    if tries(AuthMethod::ServiceAccount) {
        if let Some(resolution) = service_account(&get, &endpoints, &http)? {
            return Ok(resolution);
        }
        if pinned.is_some() {
            return Err(ResolveError::NoServiceAccount);
        }
    }
    if tries(AuthMethod::Adc) {
        if let Some(credential) = adc::resolve(&get, &endpoints, &http).await? {
            // A first token shows a revoked file at once, and tells a person's file its account and scopes.
            if let Err(error) = credential.check().await {
                tracing::warn!(source = %credential.source, "the Application Default Credentials do not work yet: {error}");
            }
            let snapshot = AuthSnapshot {
                method: credential.method,
                class: Some(credential.class),
                account: credential.account(),
                granted_scopes: credential.granted_scopes(),
            };
            tracing::info!(source = %credential.source, class = ?credential.class, "using Application Default Credentials");
            return Ok(Resolution {
                tokens: credential.token_source(),
                snapshot,
                user: None,
                source: credential.source.to_string(),
            });
        }
        if pinned.is_some() {
            return Err(ResolveError::NoAdc);
        }
    }
    tracing::warn!("no Google credential: every tool will explain how to sign in (or use --sandbox)");
    Ok(waiting_for_sign_in(waiting_user))
}

/// The person's token source, and the active account when someone is signed in. `None` when the token store
/// cannot be used and the method is not pinned (the other methods then get their turn).
async fn user_sign_in(
    config: &Config,
    get: &impl Fn(&str) -> Option<String>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
    pinned: bool,
) -> Result<Option<(Arc<UserTokens>, Option<String>)>, ResolveError> {
    let store = match TokenStore::from_lookup(config, get) {
        Ok(store) => store,
        Err(error) if pinned => return Err(error.into()),
        Err(error) => {
            tracing::warn!("{error}");
            return Ok(None);
        }
    };
    let tokens = UserTokens::new(store, endpoints.clone(), http.clone());
    match tokens.load().await {
        Ok(account) => Ok(Some((Arc::new(tokens), account))),
        Err(error) if pinned => Err(ResolveError::Key(error)),
        Err(error) => {
            tracing::debug!("no user sign-in available: {error}");
            Ok(None)
        }
    }
}

/// A service-account key from `SERVICE_ACCOUNT_PATH`, else `CREDENTIALS_CONFIG`.
fn service_account(
    get: &impl Fn(&str) -> Option<String>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<Option<Resolution>, ResolveError> {
    if let Some(path) = get("SERVICE_ACCOUNT_PATH") {
        let path = PathBuf::from(path);
        let key = ServiceAccountKey::from_file(&path)?;
        let snapshot = AuthSnapshot {
            method: AuthMethod::ServiceAccount,
            class: Some(IdentityClass::ServiceAccount),
            account: Some(key.client_email.clone()),
            granted_scopes: Some(SCOPES.iter().map(|scope| (*scope).to_owned()).collect()),
        };
        let source = format!("SERVICE_ACCOUNT_PATH ({})", path.display());
        let tokens: Arc<dyn TokenSource> = ServiceAccount::new(key, endpoints, http.clone());
        return Ok(Some(Resolution { tokens, snapshot, user: None, source }));
    }
    let Some(credential) = adc::from_credentials_config(get, endpoints, http)? else { return Ok(None) };
    debug_assert_eq!(credential.source, CredentialSource::CredentialsConfig);
    let snapshot = AuthSnapshot {
        method: credential.method,
        class: Some(credential.class),
        account: credential.account(),
        granted_scopes: credential.granted_scopes(),
    };
    Ok(Some(Resolution {
        tokens: credential.token_source(),
        snapshot,
        user: None,
        source: credential.source.to_string(),
    }))
}

/// Nobody signed in: the person's source when the store works (a later sign-in is then used without a
/// restart), else a source that only says how to sign in.
fn waiting_for_sign_in(user: Option<Arc<UserTokens>>) -> Resolution {
    let source = "nothing yet: no account is signed in".to_owned();
    match user {
        Some(tokens) => {
            Resolution { tokens: tokens.clone(), snapshot: AuthSnapshot::signed_out(), user: Some(tokens), source }
        }
        None => Resolution { tokens: Arc::new(SignedOut), snapshot: AuthSnapshot::signed_out(), user: None, source },
    }
}
