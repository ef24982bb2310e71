//! `gatehouse never`: the person's own *never allow* rules. A tool named here is refused at once, without a
//! card, for the days given. A rule belongs to the Google account the running server is signed in as, so
//! adding one needs a server; listing and removing work on the database directly when none runs.

use anyhow::{Result, bail};
use chrono::Utc;
use clap::Subcommand;
use gatehouse_core::ops::never::{MAX_NEVER_DAYS, NeverAddError, check_days_and_agent};
use gatehouse_core::shown::shown;
use gatehouse_core::words::{RuleState, limit_words, rule_scope_words, time};

use crate::grants::{IdWords, resolve_id};
use crate::store_access::Access;
use crate::user_auth::plain_errors;

#[derive(clap::Args)]
pub struct NeverArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// The sandbox's rules (`gatehouse serve --sandbox`) instead of your account's.
    #[arg(long, global = true)]
    sandbox: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Refuse a tool's calls at once, without asking, for a number of days.
    Add {
        /// The tool's name as `gatehouse tools` lists it, e.g. update_cells.
        tool: String,
        /// For how many days (1 to 3650): afterwards its calls are asked about again.
        #[arg(long, value_name = "N")]
        days: u32,
        /// Only this assistant's calls (its name as approval cards show it); any assistant when left out.
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
    },
    /// End a never-allow rule now: the tool's calls are asked about again.
    Remove {
        /// The rule's id as `gatehouse never` shows it (its first 8 characters are enough).
        id: String,
    },
}

pub async fn run(args: NeverArgs) -> Result<()> {
    plain_errors(never(args).await)
}

async fn never(args: NeverArgs) -> Result<()> {
    // Checked before anything is opened: the answer does not depend on a server.
    if let Some(Action::Add { days, agent, .. }) = &args.action {
        match check_days_and_agent(*days, agent.as_deref()) {
            Err(NeverAddError::Days(days)) => {
                bail!(
                    "A never-allow rule lasts from 1 to {MAX_NEVER_DAYS} days, not {days}: give --days in that range."
                )
            }
            Err(NeverAddError::EmptyAgent) => {
                bail!("The assistant's name is empty: give --agent its name, or leave --agent out for any assistant.")
            }
            Err(other) => bail!("{other}"),
            Ok(_) => {}
        }
    }
    let mut access = Access::open(args.sandbox).await?;
    let result = match args.action {
        None => list(&mut access).await,
        Some(Action::Add { tool, days, agent }) => add(&mut access, &tool, days, agent.as_deref()).await,
        Some(Action::Remove { id }) => remove(&mut access, &id).await,
    };
    access.close().await;
    result
}

async fn list(access: &mut Access) -> Result<()> {
    let rules = access.never_allows().await?;
    if rules.is_empty() {
        println!("No never-allow rules. `gatehouse never add TOOL --days N` refuses a tool's calls without asking.");
        return Ok(());
    }
    let now = Utc::now();
    let active = rules.iter().filter(|rule| RuleState::of(rule, now).is_active()).count();
    println!("Never-allow rules: {} ({active} active).", rules.len());
    for rule in &rules {
        println!();
        println!("Rule {}", shown(&rule.id));
        println!("  Tool:       {}", shown(&rule.tool));
        println!("  Scope:      {}", rule_scope_words(rule.agent.as_deref()));
        println!("  Limit:      {}", limit_words(rule.constraint.as_ref()));
        println!("  Account:    {}", shown(&rule.owner_account));
        println!("  Until:      {}", time(rule.expires));
        println!("  State:      {}", RuleState::of(rule, now));
    }
    println!();
    println!("End one early with `gatehouse never remove ID`.");
    Ok(())
}

async fn add(access: &mut Access, tool: &str, days: u32, agent: Option<&str>) -> Result<()> {
    let (rule, others) = access.add_never(tool.trim(), agent.map(str::trim), days).await?;
    println!(
        "Never allowed: {} from {} is refused without asking until {} (a rule of {}).",
        shown(&rule.tool),
        rule_scope_words(rule.agent.as_deref()),
        time(rule.expires),
        shown(&rule.owner_account)
    );
    if others > 0 {
        println!("The other running Gatehouse servers apply it within a few seconds.");
    }
    println!("Rule {}: end it early with `gatehouse never remove {}`.", rule.id, rule.id);
    Ok(())
}

async fn remove(access: &mut Access, id: &str) -> Result<()> {
    let id = full_id(access, id).await?;
    let result = access.remove_never(&id).await?;
    let Some(rule) = result.rule else {
        bail!("There is no never-allow rule {id}. Run `gatehouse never` to see them.");
    };
    let what = format!("{} from {}", shown(&rule.tool), rule_scope_words(rule.agent.as_deref()));
    match (result.changed, rule.removed) {
        (true, _) => println!("Removed never-allow rule {id} ({what}). Its calls are asked about again."),
        (false, Some(at)) => println!("Never-allow rule {id} ({what}) was already removed at {}.", time(at)),
        (false, None) => bail!("Never-allow rule {id} could not be removed. Run the command again."),
    }
    Ok(())
}

/// The rule id `given` names: itself, or the one rule whose id starts with it (8 characters at least).
async fn full_id(access: &mut Access, given: &str) -> Result<String> {
    let rules = access.never_allows().await?;
    resolve_id(given, rules.iter().map(|rule| rule.id.as_str()), &RULE_IDS)
}

const RULE_IDS: IdWords = IdWords {
    ask: "Say which rule to remove: `gatehouse never remove ID` with an id `gatehouse never` shows.",
    one: "rule",
    many: "rules",
    named: "never-allow rule",
    list: "gatehouse never",
};
