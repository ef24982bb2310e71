//! `gatehouse use EMAIL`: makes another signed-in Google account the active one.

use anyhow::{Result, bail};

use crate::user_auth::{SignInContext, plain_errors};

#[derive(clap::Args)]
pub struct UseArgs {
    /// The signed-in account to act as from now on.
    #[arg(value_name = "EMAIL")]
    account: String,
}

pub async fn run(args: UseArgs) -> Result<()> {
    plain_errors(switch(args).await)
}

async fn switch(args: UseArgs) -> Result<()> {
    let context = SignInContext::from_env()?;
    let list = context.store.accounts().await?;
    let Some(email) = list.accounts.iter().find(|email| email.eq_ignore_ascii_case(&args.account)) else {
        let signed_in = if list.accounts.is_empty() { "none".to_owned() } else { list.accounts.join(", ") };
        bail!(
            "{} is not signed in to Gatehouse (signed in: {signed_in}). Run `gatehouse login --account {}` to add it.",
            args.account,
            args.account
        );
    };
    context.store.set_active(email).await?;
    eprintln!(
        "{email} is now the active account. Servers started from now on act as {email}; a running one switches at its next token refresh (within the hour), or at once when restarted."
    );
    Ok(())
}
