//! Signing a person in to Google: the OAuth client, the loopback + PKCE browser flow, the keychain that keeps
//! the refresh token, and the token source that acts as the signed-in person.
//!
//! The pieces, in the order a sign-in uses them:
//! - [`client_config`]: which OAuth client Gatehouse signs in with (`CREDENTIALS_PATH`, environment, built in);
//! - [`login`]: the browser flow (loopback redirect on a random port, PKCE S256, `state`), which ends with the
//!   refresh token stored;
//! - [`keychain`]: where refresh tokens live (the OS keychain; a 0600 file only when the person opts in);
//! - [`user_tokens`]: the [`TokenSource`](crate::google::TokenSource) that refreshes access tokens (kept in
//!   memory only) and turns `invalid_grant` into a signed-out state that recovers after a new sign-in;
//! - [`logout`]: revokes at Google and forgets the account;
//! - [`context`]: what signing in, switching accounts and signing out share, for every shell;
//! - [`products`]: which Google products a sign-in asks for, as the person chose.
//!
//! - [`resolve`]: which method serves (`AUTH_METHOD`, else oauth → service account → ADC);
//! - [`status`]: `server://auth-status`, what the resolved identity cannot do and what to do instead.

pub mod adc;
pub mod client_config;
pub mod context;
pub mod identity;
pub mod keychain;
pub mod login;
mod oauth;
pub mod products;
pub mod resolve;
pub mod state;
pub mod status;
pub mod user_tokens;

pub use client_config::{ChosenFileError, ClientConfig, ClientConfigError, ClientSource};
pub use context::{SignInContext, SignInSetupError, UseAccountError};
pub use keychain::{AccountList, StoreError, StoreKind, StoredAccount, TokenStore};
pub use login::{LoginError, LoginOptions, PendingLogin, SignedIn, open_browser};
pub use oauth::{AUTHORIZE_URL, REVOKE_URL, USERINFO_URL};
pub use user_tokens::UserTokens;

use crate::google::Endpoints;

/// A secret string (refresh token, client secret) that never shows in `Debug` output or logs.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Why signing out did not fully happen.
#[derive(Debug, thiserror::Error)]
pub enum LogoutError {
    #[error("{0} is not signed in to Gatehouse, so there was nothing to sign out.")]
    NotSignedIn(String),
    #[error("No Google account is signed in to Gatehouse, so there was nothing to sign out.")]
    NoAccount,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What [`logout`] did.
#[derive(Debug, Clone)]
pub struct SignedOut {
    pub email: String,
    /// Whether Google confirmed the revocation. The entry is deleted either way; when Google could not be
    /// reached (or already considered the token dead) this carries why, for the person to read.
    pub revoke_problem: Option<String>,
    /// The account that is active now, if another one is still signed in.
    pub now_active: Option<String>,
}

/// Signs `email` (or the active account) out: revokes its refresh token at Google — which also ends every
/// access token issued from it — then deletes it from the store. A failed revocation is reported but does not
/// keep the token: the person asked for it to be gone from this machine.
pub async fn logout(
    store: &TokenStore,
    email: Option<&str>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<SignedOut, LogoutError> {
    let list = store.accounts().await?;
    let email = match email {
        Some(email) => email.to_owned(),
        None => list.active.clone().ok_or(LogoutError::NoAccount)?,
    };
    let Some(account) = store.get(&email).await? else {
        return Err(LogoutError::NotSignedIn(email));
    };
    // Revoked only where the sign-in was made: a Google sign-in is never sent to an emulator to be "revoked".
    let what = format!("The Google sign-in of {email}");
    let revoke_problem = match endpoints.credential_url(REVOKE_URL, account.endpoint.as_deref(), &what) {
        Ok(url) => oauth::revoke(http, &url, &account.refresh_token).await.err(),
        Err(refused) => Some(format!("it was not revoked: {refused}")),
    };
    store.remove(&email).await?;
    let now_active = store.accounts().await?.active;
    Ok(SignedOut { email, revoke_problem, now_active })
}
