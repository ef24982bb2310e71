//! `gatehouse grants`: the standing approvals (grants) kept in the approvals database, and revoking one.
//! A revoke reaches every running server at once; with none running, the database directly.

use anyhow::{Result, bail};
use chrono::Utc;
use clap::Subcommand;
use gatehouse_core::shown::shown;
use gatehouse_core::words::{GrantState, expiry_words, grant_limit_words, owner_words, uses_words};
pub(crate) use gatehouse_core::words::{scope_words, time};

use crate::store_access::Access;
use crate::user_auth::plain_errors;

#[derive(clap::Args)]
pub struct GrantsArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// The sandbox's grants (`gatehouse serve --sandbox`) instead of your account's.
    #[arg(long, global = true)]
    sandbox: bool,
}

#[derive(Subcommand)]
enum Action {
    /// End a grant now: the calls it covered ask again.
    Revoke {
        /// The grant's id as `gatehouse grants` shows it (its first 8 characters are enough).
        id: String,
    },
}

pub async fn run(args: GrantsArgs) -> Result<()> {
    plain_errors(grants(args).await)
}

async fn grants(args: GrantsArgs) -> Result<()> {
    let mut access = Access::open(args.sandbox).await?;
    let result = match args.action {
        None => list(&mut access).await,
        Some(Action::Revoke { id }) => revoke(&mut access, &id).await,
    };
    access.close().await;
    result
}

async fn list(access: &mut Access) -> Result<()> {
    let grants = access.grants().await?;
    // Said first, and whatever else is listed: a planted row is why the person should look.
    for line in access.seal_report().await? {
        eprintln!("Warning: {}", shown(&line));
    }
    if grants.is_empty() {
        println!("No standing approvals. *Always allow* on an approval card makes one.");
        return Ok(());
    }
    let now = Utc::now();
    let active = grants.iter().filter(|grant| GrantState::of(grant, now).is_active()).count();
    println!("Standing approvals: {} ({active} active).", grants.len());
    for grant in &grants {
        println!();
        println!("Grant {}", shown(&grant.id));
        println!("  Tool:       {}", shown(&grant.tool));
        println!("  Scope:      {}", scope_words(grant.agent.as_ref()));
        println!("  Limit:      {}", grant_limit_words(grant));
        println!("  Owner:      {}", owner_words(&grant.owner));
        println!("  Created:    {}", time(grant.created));
        println!("  Expires:    {}", expiry_words(grant));
        println!("  Uses:       {}", uses_words(grant));
        println!("  State:      {}", GrantState::of(grant, now));
    }
    println!();
    println!("End one with `gatehouse grants revoke ID`.");
    Ok(())
}

async fn revoke(access: &mut Access, id: &str) -> Result<()> {
    let id = full_id(access, id).await?;
    let result = access.revoke(&id).await?;
    let Some(grant) = result.grant else {
        bail!("There is no grant {id}. Run `gatehouse grants` to see them.");
    };
    let scope = scope_words(grant.agent.as_ref());
    let what = format!("{} for {scope}, {}", shown(&grant.tool), grant_limit_words(&grant));
    match (result.changed, grant.revoked) {
        (true, _) => println!("Revoked grant {id} ({what}). The calls it covered will ask again."),
        (false, Some(at)) => println!("Grant {id} ({what}) was already revoked at {}.", time(at)),
        (false, None) => bail!("Grant {id} could not be revoked. Run the command again."),
    }
    Ok(())
}

/// The grant id `given` names: itself, or the one grant whose id starts with it (8 characters at least).
async fn full_id(access: &mut Access, given: &str) -> Result<String> {
    let grants = access.grants().await?;
    resolve_id(given, grants.iter().map(|grant| grant.id.as_str()), &GRANT_IDS)
}

/// How a command's messages speak of the records it picks by id.
pub(crate) struct IdWords {
    /// What to say when no id was given.
    pub ask: &'static str,
    /// One record in the "too short" message, several in the "ambiguous" one.
    pub one: &'static str,
    pub many: &'static str,
    /// One record in the "no such" message.
    pub named: &'static str,
    /// The command that lists them.
    pub list: &'static str,
}

const GRANT_IDS: IdWords = IdWords {
    ask: "Say which grant to revoke: `gatehouse grants revoke ID` with an id `gatehouse grants` shows.",
    one: "grant",
    many: "grants",
    named: "grant",
    list: "gatehouse grants",
};

/// The id `given` names among `ids`: itself, or the one id that starts with it (8 characters at least, so a
/// short prefix can't pick a record by accident).
pub(crate) fn resolve_id<'a>(
    given: &str,
    ids: impl Iterator<Item = &'a str> + Clone,
    words: &IdWords,
) -> Result<String> {
    let given = given.trim();
    if given.is_empty() {
        bail!("{}", words.ask);
    }
    if ids.clone().any(|id| id == given) {
        return Ok(given.to_owned());
    }
    let matching: Vec<&str> = ids.filter(|id| id.starts_with(given)).collect();
    match matching.as_slice() {
        [only] if given.len() >= 8 => Ok((*only).to_owned()),
        [_] => bail!("{given:?} is too short to name a {} safely: give at least its first 8 characters.", words.one),
        [] => bail!("There is no {} {given}. Run `{}` to see them.", words.named, words.list),
        several => {
            bail!("{given:?} starts the ids of several {} ({}): give more of it.", words.many, several.join(", "))
        }
    }
}
