//! What signing in, switching accounts and signing out share, for every shell: `gatehouse login`, `use` and
//! `logout`, and the desktop app's *Account* page.

use super::login::LoginOptions;
use super::{ClientConfig, LogoutError, SignedOut, StoreError, TokenStore, logout};
use crate::catalog::ToolMeta;
use crate::config::{Config, ConfigError};
use crate::google::{Endpoints, GoogleClient};

/// The token store and how to reach Google's sign-in hosts.
#[derive(Debug, Clone)]
pub struct SignInContext {
    pub config: Config,
    pub store: TokenStore,
    pub endpoints: Endpoints,
    pub http: reqwest::Client,
}

/// Why the sign-in settings can't be used; each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum SignInSetupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why another account could not be made the active one.
#[derive(Debug, thiserror::Error)]
pub enum UseAccountError {
    #[error(
        "{email} is not signed in to Gatehouse (signed in: {signed_in}). Sign in with that account first: Sign in with Google in Gatehouse, or `gatehouse login --account {email}`."
    )]
    NotSignedIn { email: String, signed_in: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SignInContext {
    /// The store and Google hosts the environment asks for (`GATEHOUSE_HOME`, `GATEHOUSE_TOKEN_STORE`,
    /// `GATEHOUSE_GOOGLE_ENDPOINT`).
    pub fn from_env() -> Result<Self, SignInSetupError> {
        let config = Config::from_env()?;
        let store = TokenStore::from_env(&config)?;
        Ok(Self::new(config, store))
    }

    /// Signing in to `store`, reaching Google where `config` says (its endpoint, its request timeout).
    pub fn new(config: Config, store: TokenStore) -> Self {
        let endpoints = Endpoints::new(config.google_endpoint.clone());
        let http = GoogleClient::http_client(config.request_timeout);
        Self { config, store, endpoints, http }
    }

    /// A browser sign-in with `client` for `tools` (the enabled ones: it asks for the scopes they need).
    pub fn login_options<T: AsRef<ToolMeta>>(&self, client: ClientConfig, tools: &[T]) -> LoginOptions {
        LoginOptions::new(client, self.endpoints.clone(), self.http.clone(), tools)
    }

    /// Makes the signed-in account `email` (any letter case) the active one, and returns it as stored. Hosts
    /// started from now on act as it; a running one at its next token refresh, or at once when restarted.
    pub async fn use_account(&self, email: &str) -> Result<String, UseAccountError> {
        let list = self.store.accounts().await?;
        let Some(found) = list.accounts.iter().find(|known| known.eq_ignore_ascii_case(email.trim())) else {
            let signed_in = if list.accounts.is_empty() { "none".to_owned() } else { list.accounts.join(", ") };
            return Err(UseAccountError::NotSignedIn { email: email.trim().to_owned(), signed_in });
        };
        self.store.set_active(found).await?;
        Ok(found.clone())
    }

    /// Signs `email` (or the active account) out: revoked at Google, deleted from the store (see [`logout`]).
    pub async fn sign_out(&self, email: Option<&str>) -> Result<SignedOut, LogoutError> {
        logout(&self.store, email, &self.endpoints, &self.http).await
    }
}
