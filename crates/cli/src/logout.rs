//! `gatehouse logout`: revokes a Google sign-in at Google and deletes it from the keychain.

use anyhow::Result;

use crate::user_auth::{SignInContext, plain_errors};

#[derive(clap::Args)]
pub struct LogoutArgs {
    /// The account to sign out (default: the active one).
    #[arg(value_name = "EMAIL")]
    account: Option<String>,
    /// Sign out every signed-in account.
    #[arg(long, conflicts_with = "account")]
    all: bool,
}

pub async fn run(args: LogoutArgs) -> Result<()> {
    plain_errors(logout_accounts(args).await)
}

async fn logout_accounts(args: LogoutArgs) -> Result<()> {
    let context = SignInContext::from_env()?;
    let accounts = if args.all {
        let list = context.store.accounts().await?;
        if list.accounts.is_empty() {
            eprintln!("No Google account is signed in to Gatehouse.");
            return Ok(());
        }
        list.accounts.into_iter().map(Some).collect()
    } else {
        vec![args.account]
    };
    for account in accounts {
        let out = context.sign_out(account.as_deref()).await?;
        match out.revoke_problem {
            None => eprintln!(
                "Signed out {}: Google revoked Gatehouse's access and the sign-in was deleted from {}.",
                out.email,
                context.store.describe()
            ),
            Some(problem) => eprintln!(
                "Signed out {}: the sign-in was deleted from {}, but {problem}. To be sure, remove Gatehouse at https://myaccount.google.com/permissions.",
                out.email,
                context.store.describe()
            ),
        }
        if let Some(active) = out.now_active.filter(|_| !args.all) {
            eprintln!("{active} is now the active account.");
        }
    }
    Ok(())
}
