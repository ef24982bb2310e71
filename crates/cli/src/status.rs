//! `gatehouse status`: who Gatehouse acts as and how it found that credential, the signed-in accounts, where
//! the sign-in is kept, what this sign-in cannot do (the `server://auth-status` limitations, in words) and
//! what to watch.

use anyhow::Result;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::auth::ClientConfig;
use gatehouse_core::auth::resolve::resolve;
use gatehouse_core::auth::state::AuthState;
use gatehouse_core::auth::status::auth_status;
use gatehouse_core::tools::enabled_tools;
use serde_json::Value;

use crate::user_auth::{SignInContext, plain_errors};

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
    let tools = enabled_tools(context.config.enabled_tools.as_deref())?;
    match resolve(&context.config, |name| std::env::var(name).ok()).await {
        Ok(resolution) => {
            let state = AuthState::new(resolution.snapshot.clone());
            resolution.report_to(&state);
            let auth = state.current();
            println!(
                "Acting as: {} (method {}, found in {})",
                auth.account.as_deref().unwrap_or("nobody"),
                auth.method,
                resolution.source
            );
            let status =
                auth_status(auth.method, auth.class, auth.account.as_deref(), auth.granted_scopes.as_deref(), &tools);
            print_limitations(&status, tools.len());
        }
        Err(error) => {
            println!("Acting as: nobody — the sign-in settings are not usable");
            warnings.push(error.to_string());
        }
    }
    print_policy(&mut warnings);
    warnings.extend(approval_rows(&context.config.home).await);
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

/// What the approvals database holds that Gatehouse does not honour or can't check (rows written by other
/// programs, no keychain to check them with), in words; nothing when there is no database yet.
async fn approval_rows(home: &std::path::Path) -> Vec<String> {
    if !home.join(gatehouse_core::approval::store::DATABASE_FILE).exists() {
        return Vec::new();
    }
    let report = match crate::store_access::Access::open(false).await {
        Ok(mut access) => {
            let report = access.seal_report().await;
            access.close().await;
            report
        }
        Err(error) => Err(error),
    };
    match report {
        Ok(report) => report.iter().map(|line| gatehouse_core::shown::shown(line).into_owned()).collect(),
        Err(error) => vec![format!("The approvals database could not be checked: {error}")],
    }
}

/// Which approval policy files are in force (the administrator's, `GATEHOUSE_POLICY_FILE`'s) and what each
/// contributed; a file that can't be used is a warning (`serve` would not start with it).
fn print_policy(warnings: &mut Vec<String>) {
    let tools: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    match Policy::load(|name| std::env::var(name).ok(), &tools) {
        Ok(loaded) if loaded.files.is_empty() => println!("Approval policy: the default (no policy file)"),
        Ok(loaded) => {
            println!("Approval policy files in force:");
            for file in &loaded.files {
                println!("  {}", file.describe());
            }
        }
        Err(error) => {
            println!("Approval policy: unusable, `gatehouse serve` would not start");
            warnings.push(error.to_string());
        }
    }
}

/// The `limitations` of `server://auth-status` as short paragraphs.
fn print_limitations(status: &Value, enabled: usize) {
    let limitations = status["limitations"].as_array().map(Vec::as_slice).unwrap_or_default();
    if limitations.is_empty() {
        println!("Limitations: none — every enabled tool can work with this sign-in.");
        return;
    }
    println!("Limitations:");
    for limitation in limitations {
        let tools: Vec<&str> = limitation["tools"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let which = if tools.len() == enabled { format!("all {enabled} enabled tools") } else { tools.join(", ") };
        println!("  - {} Affects: {which}.", limitation["reason"].as_str().unwrap_or_default());
        for alternative in limitation["alternatives"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            println!("      What you can do: {alternative}");
        }
    }
}
