//! What the sign-in commands (`login`, `logout`, `status`, `use`) share.

use anyhow::Result;
use gatehouse_core::auth::TokenStore;
use gatehouse_core::config::Config;
use gatehouse_core::google::{Endpoints, GoogleClient};

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
