//! `gatehouse login`: signs a Google account in through the browser and keeps it in the OS keychain.

use std::time::Duration;

use anyhow::Result;
use gatehouse_core::auth::{ClientConfig, PendingLogin, login::DEFAULT_TIMEOUT, open_browser, products};
use gatehouse_core::tools::enabled_tools;
use tokio_util::sync::CancellationToken;

use crate::user_auth::{SignInContext, plain_errors};

#[derive(clap::Args)]
pub struct LoginArgs {
    /// Print the sign-in URL instead of opening the browser (for another machine's browser, or scripts).
    #[arg(long)]
    no_browser: bool,
    /// Seconds to wait for the sign-in to be finished in the browser.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
    /// Suggest this Google account on the sign-in page (to add a second account).
    #[arg(long, value_name = "EMAIL")]
    account: Option<String>,
    /// Ask Google only for these products' permissions (sheets, docs, drive, calendar, gmail; comma-separated).
    /// Without it, for every product the enabled tools use.
    #[arg(long, value_name = "PRODUCTS", value_delimiter = ',')]
    products: Option<Vec<String>>,
}

pub async fn run(args: LoginArgs) -> Result<()> {
    plain_errors(login(args).await)
}

async fn login(args: LoginArgs) -> Result<()> {
    let context = SignInContext::from_env()?;
    let client = ClientConfig::from_env()?;
    let mut tools = enabled_tools(context.config.enabled_tools.as_deref())?;
    if let Some(keys) = &args.products {
        tools = products::chosen(&tools, keys)?;
    }
    let mut options = context.login_options(client, &tools);
    options.timeout = Duration::from_secs(args.timeout.max(1));
    options.login_hint = args.account;
    let pending = PendingLogin::start(options, &context.store).await?;
    let url = pending.authorize_url().to_owned();
    if args.no_browser {
        eprintln!("Open this URL in a browser on this computer to sign in to Google:");
        println!("{url}");
    } else {
        eprintln!("Opening Google's sign-in page in your browser. If it does not open, visit:\n  {url}");
        if let Err(error) = open_browser(&url) {
            eprintln!("(The browser could not be started: {error}. Open the URL above yourself.)");
        }
    }
    eprintln!("Waiting for the sign-in to be finished in the browser (press Ctrl-C to cancel)…");
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    let signed_in = pending.finish(cancel).await?;
    eprintln!(
        "Signed in to Google as {}. It is the active account; the sign-in is kept in {}.",
        signed_in.email,
        context.store.describe()
    );
    if !signed_in.missing_scopes.is_empty() {
        eprintln!(
            "Warning: these permissions were not granted, so the tools that need them will fail: {}. Run `gatehouse login` again and leave them ticked.",
            signed_in.missing_scopes.join(", ")
        );
    }
    for warning in context.store.warnings() {
        eprintln!("Warning: {warning}");
    }
    Ok(())
}
