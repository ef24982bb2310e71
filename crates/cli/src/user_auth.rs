//! The signed-in person as a credential for `gatehouse serve`, and what `login`, `logout` and `status` share.
//!
//! This is the seam for the full method resolution (issue 3: `AUTH_METHOD` pins one of oauth, service account,
//! ADC; unset, they are tried in that order): today it answers only the oauth part, and `credentials()` in
//! main.rs falls back to the service-account key exactly as before.

use std::sync::Arc;

use anyhow::Result;
use gatehouse_core::auth::identity::AuthMethod;
use gatehouse_core::auth::state::AuthSnapshot;
use gatehouse_core::auth::{TokenStore, UserTokens};
use gatehouse_core::config::Config;
use gatehouse_core::google::{Endpoints, GoogleClient, TokenSource};

/// Ends a sign-in command: an error is printed as its message alone and the process exits with status 1. The
/// messages say what to do; a backtrace (which `RUST_BACKTRACE` would add) would only bury them.
pub fn plain_errors(result: Result<()>) -> Result<()> {
    if let Err(error) = result {
        eprintln!("Error: {error:#}");
        std::process::exit(1);
    }
    Ok(())
}

/// Everything a sign-in command needs.
pub struct SignInContext {
    pub config: Config,
    pub store: TokenStore,
    pub endpoints: Endpoints,
    pub http: reqwest::Client,
}

impl SignInContext {
    pub fn from_env() -> Result<Self> {
        let config = Config::from_env()?;
        let store = TokenStore::from_env(&config)?;
        let endpoints = Endpoints::new(config.google_endpoint.clone());
        let http = GoogleClient::http_client(config.request_timeout);
        Ok(Self { config, store, endpoints, http })
    }
}

/// `AUTH_METHOD`, lower-cased; empty when unset.
pub fn auth_method() -> String {
    std::env::var("AUTH_METHOD").map(|v| v.trim().to_ascii_lowercase()).unwrap_or_default()
}

/// The person's token source, as `serve` may use it.
pub struct UserCredential {
    pub tokens: Arc<UserTokens>,
    /// Someone is signed in now (otherwise the source waits for a sign-in, answering "not signed in").
    pub signed_in: bool,
    /// `AUTH_METHOD=oauth`: no other method may stand in.
    pub pinned: bool,
}

/// The signed-in person's token source when `AUTH_METHOD` is unset or `oauth`. `None` when another method is
/// pinned, or — with `AUTH_METHOD` unset — when the token store cannot be used (then the other methods serve
/// as before); with `AUTH_METHOD=oauth` that is an error. No OAuth client setting is needed: the client is kept
/// with the sign-in.
pub async fn user_credential(config: &Config) -> Result<Option<UserCredential>> {
    let pinned = match auth_method().as_str() {
        "" => false,
        "oauth" => true,
        _ => return Ok(None),
    };
    let store = match TokenStore::from_env(config) {
        Ok(store) => store,
        Err(error) if pinned => return Err(error.into()),
        Err(error) => {
            tracing::warn!("{error}");
            return Ok(None);
        }
    };
    let endpoints = Endpoints::new(config.google_endpoint.clone());
    let tokens = UserTokens::new(store, endpoints, GoogleClient::http_client(config.request_timeout));
    // Reads the active account now, which also fills in the account the server reports.
    let signed_in = match tokens.load().await {
        Ok(account) => account,
        Err(error) if pinned => return Err(error.into()),
        Err(error) => {
            tracing::debug!("no user sign-in available: {error}");
            return Ok(None);
        }
    };
    if let Some(account) = &signed_in {
        tracing::info!(%account, "acting as the signed-in Google account");
    }
    Ok(Some(UserCredential { tokens: Arc::new(tokens), signed_in: signed_in.is_some(), pinned }))
}

/// A credential for `serve`, what it reports as `server://auth-status`, and the person's token source when it
/// is the one serving (it then keeps that status up to date itself).
pub type Chosen = (Arc<dyn TokenSource>, AuthSnapshot, Option<Arc<UserTokens>>);

/// Chooses between the person's sign-in and `other_methods` (the service-account key today): the person when
/// signed in or pinned by `AUTH_METHOD=oauth`; else the other methods when they find a credential; else the
/// person's source anyway, answering "not signed in" until someone signs in, then acting as them without a
/// restart.
pub fn choose(
    user: Option<UserCredential>,
    other_methods: impl FnOnce() -> Result<(Arc<dyn TokenSource>, AuthSnapshot)>,
) -> Result<Chosen> {
    if let Some(user) = user.as_ref().filter(|user| user.signed_in || user.pinned) {
        return Ok((user.tokens.clone(), AuthSnapshot::signed_out(), Some(user.tokens.clone())));
    }
    let (tokens, auth) = other_methods()?;
    match user {
        Some(user) if auth.method == AuthMethod::None => Ok((user.tokens.clone(), auth, Some(user.tokens))),
        _ => Ok((tokens, auth, None)),
    }
}
