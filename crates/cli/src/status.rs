//! `gatehouse status`: who is signed in, which account acts, where the sign-in is kept, and what to watch.

use anyhow::Result;
use gatehouse_core::auth::ClientConfig;

use crate::user_auth::{SignInContext, auth_method, plain_errors};

pub async fn run() -> Result<()> {
    plain_errors(status().await)
}

async fn status() -> Result<()> {
    let context = SignInContext::from_env()?;
    let mut warnings = context.store.warnings();
    let mut failed = None;
    println!("Token store: {}", context.store.describe());
    match context.store.accounts().await {
        Ok(list) if list.accounts.is_empty() => println!("Google accounts: none signed in (run `gatehouse login`)"),
        Ok(list) => {
            println!("Google accounts:");
            for account in &list.accounts {
                let active = list.active.as_deref() == Some(account.as_str());
                println!("  {} {account}{}", if active { "*" } else { " " }, if active { " (active)" } else { "" });
            }
        }
        Err(error) => {
            println!("Google accounts: unknown, the token store cannot be read");
            failed = Some(error);
        }
    }
    match ClientConfig::from_env() {
        Ok(client) => println!("OAuth client: {} from {}", client.client_id, client.source),
        Err(error) => {
            println!("OAuth client: none");
            warnings.push(error.to_string());
        }
    }
    let method = auth_method();
    println!("AUTH_METHOD: {}", if method.is_empty() { "unset (a signed-in account is used first)" } else { &method });
    if let Some(path) = std::env::var_os("SERVICE_ACCOUNT_PATH").filter(|p| !p.is_empty()) {
        println!("Service account key: {} (used when no account is signed in)", std::path::Path::new(&path).display());
    }
    if let Some(endpoint) = &context.config.google_endpoint {
        warnings.push(format!("GATEHOUSE_GOOGLE_ENDPOINT sends every Google request to {endpoint}, not to Google."));
    }
    for warning in &warnings {
        println!("Warning: {warning}");
    }
    match failed {
        Some(error) => Err(error.into()),
        None => Ok(()),
    }
}
