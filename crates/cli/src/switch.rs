//! `gatehouse use EMAIL`: makes another signed-in Google account the active one.

use anyhow::Result;

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
    let email = context.use_account(&args.account).await?;
    eprintln!(
        "{email} is now the active account. Servers started from now on act as {email}; a running one switches at its next token refresh (within the hour), or at once when restarted."
    );
    Ok(())
}
