//! `gatehouse approvals`: the approval cards waiting in the running servers of this OS user, and answering
//! them from a terminal (allow once, deny, always allow), over each server's control socket.
//!
//! Card numbers are per server process. With one server running they are shown and taken as they are
//! (`3`); with several, as `PID.N` (`41234.3`), and a bare number is refused as ambiguous.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow, bail};
use chrono::Utc;
use clap::{Subcommand, ValueEnum};
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{CardOffer, InvalidChoice, Limit, RawAnswer, RawChoice, Scope, parse_choice};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::FailureKind;
use gatehouse_core::control::{Client, ControlError};
use serde_json::Value;

use crate::user_auth::plain_errors;

#[derive(clap::Args)]
pub struct ApprovalsArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Subcommand)]
enum Action {
    /// Allow the waiting call once.
    Allow {
        /// The approval's number as `gatehouse approvals` shows it (`3`, or `PID.3` when several servers run).
        id: String,
    },
    /// Refuse the waiting call.
    Deny {
        /// The approval's number as `gatehouse approvals` shows it.
        id: String,
    },
    /// Allow the waiting call, and calls like it from now on for a number of days (only what its card offers).
    Always {
        /// The approval's number as `gatehouse approvals` shows it.
        id: String,
        /// Which assistants it covers: `agent` (only the one asking) or `tool` (any assistant).
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
        /// For how many days (the card offers some of 1, 7 and 30).
        #[arg(long, value_name = "N")]
        days: Option<String>,
        /// Only calls within the target the card names (e.g. this spreadsheet), not any arguments.
        #[arg(long)]
        constrained: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ScopeArg {
    Agent,
    Tool,
}

impl ScopeArg {
    fn scope(self) -> Scope {
        match self {
            ScopeArg::Agent => Scope::Agent,
            ScopeArg::Tool => Scope::Tool,
        }
    }
}

pub async fn run(args: ApprovalsArgs) -> Result<()> {
    plain_errors(approvals(args).await)
}

async fn approvals(args: ApprovalsArgs) -> Result<()> {
    let config = Config::from_env()?;
    let mut servers = Client::connect_all(&config.home).await?;
    let Some(action) = args.action else { return list(&mut servers).await };
    if servers.is_empty() {
        bail!(
            "No Gatehouse server is running for this user, so no approval is waiting. Cards exist only while `gatehouse serve` runs (your assistant starts it)."
        );
    }
    let (id, answer) = match action {
        Action::Allow { id } => (id, Chosen::AllowOnce),
        Action::Deny { id } => (id, Chosen::Deny),
        Action::Always { id, scope, days, constrained } => (id, Chosen::Always { scope, days, constrained }),
    };
    let several = servers.len() > 1;
    let (server, number) = find_server(&mut servers, &id).await?;
    let shown = label(server.pid(), number, several);
    let card = server.pending().await?.into_iter().find(|card| card.id == number).ok_or_else(|| not_waiting(&shown))?;
    let raw = match answer {
        Chosen::AllowOnce => RawAnswer::AllowOnce,
        Chosen::Deny => RawAnswer::Deny,
        Chosen::Always { scope, days, constrained } => {
            RawAnswer::Always(choice(&card, &shown, scope, days, constrained)?)
        }
    };
    match server.answer(number, raw.clone()).await {
        Ok(()) => {}
        Err(ControlError::Server { kind: FailureKind::NotPending, .. }) => return Err(not_waiting(&shown)),
        Err(error) => return Err(error.into()),
    }
    let who = agent_words(&card);
    match raw {
        RawAnswer::AllowOnce => println!("Allowed once: {} ({}) from {who} runs now.", card.title, card.tool),
        RawAnswer::Deny => println!("Denied: {} ({}) from {who} will not run.", card.title, card.tool),
        RawAnswer::Always(choice) => {
            let assistants = match choice.scope.as_str() {
                "AGENT" => format!("from {who}"),
                _ => "from any assistant".to_owned(),
            };
            let within = match (choice.limit.as_str(), &card.offer.constraint) {
                ("CONSTRAINED", Some(offered)) => offered.label.clone(),
                _ => "any arguments".to_owned(),
            };
            println!(
                "Always allowed: {} ({}) runs now, and for {} days its calls {assistants} with {within} run without asking. `gatehouse grants` lists it; `gatehouse grants revoke ID` ends it.",
                card.title, card.tool, choice.days
            );
        }
    }
    Ok(())
}

enum Chosen {
    AllowOnce,
    Deny,
    Always { scope: Option<ScopeArg>, days: Option<String>, constrained: bool },
}

/// The *Always allow* choice, checked against what the card offers before anything is sent.
fn choice(
    card: &PendingCard,
    shown: &str,
    scope: Option<ScopeArg>,
    days: Option<String>,
    constrained: bool,
) -> Result<RawChoice> {
    let limit = if constrained { Limit::Constrained } else { Limit::Any };
    let refuse = |problem: String| {
        anyhow!("Nothing was sent: {problem}. Approval {shown} offers {}.", offer_words(&card.offer, shown))
    };
    if !card.offer.grantable {
        return Err(refuse(InvalidChoice::NotGrantable.to_string()));
    }
    match (scope, days) {
        (Some(scope), Some(days)) => {
            let raw = RawChoice { scope: scope.scope().as_str().to_owned(), days, limit: limit.as_str().to_owned() };
            parse_choice(&card.offer, &raw).map_err(|invalid| refuse(invalid.to_string()))?;
            Ok(raw)
        }
        (scope, days) => {
            let mut problems = Vec::new();
            if scope.is_none() {
                problems.push("say which assistants it covers with --scope".to_owned());
            }
            match days {
                None => problems.push("say for how many days with --days".to_owned()),
                Some(days) if !card.offer.durations.iter().any(|offered| offered.to_string() == days) => {
                    problems
                        .push(InvalidChoice::Days { given: days, offered: card.offer.durations.clone() }.to_string());
                }
                Some(_) => {}
            }
            Err(refuse(problems.join("; ")))
        }
    }
}

fn not_waiting(shown: &str) -> anyhow::Error {
    anyhow!(
        "Approval {shown} is not waiting any more: it was already answered, it timed out, or the assistant stopped waiting. Run `gatehouse approvals` to see what is waiting."
    )
}

/// The server and card number an id names: `N` when one server runs, `PID.N` always.
async fn find_server<'a>(servers: &'a mut [Client], id: &str) -> Result<(&'a mut Client, u64)> {
    let bad = || {
        anyhow!(
            "{id:?} is not an approval number: use the number `gatehouse approvals` shows, such as 3 (or 41234.3 when several servers run)."
        )
    };
    let (pid, number) = match id.split_once('.') {
        Some((pid, number)) => (Some(pid.parse::<u32>().map_err(|_| bad())?), number),
        None => (None, id),
    };
    let number: u64 = number.parse().map_err(|_| bad())?;
    match pid {
        Some(pid) => {
            let running: Vec<String> = servers.iter().map(|server| server.pid().to_string()).collect();
            let server = servers.iter_mut().find(|server| server.pid() == pid).ok_or_else(|| {
                anyhow!(
                    "No Gatehouse server with process id {pid} is running (running: {}). Run `gatehouse approvals` to see what is waiting.",
                    running.join(", ")
                )
            })?;
            Ok((server, number))
        }
        None if servers.len() == 1 => Ok((&mut servers[0], number)),
        None => {
            let mut holding = Vec::new();
            for server in servers.iter_mut() {
                if server.pending().await?.iter().any(|card| card.id == number) {
                    holding.push(format!("{}.{number}", server.pid()));
                }
            }
            let which = match holding.as_slice() {
                [] => "none of them has it waiting".to_owned(),
                holding => format!("it could be {}", holding.join(" or ")),
            };
            bail!(
                "Several Gatehouse servers are running, so say which one's approval {number} you mean as PID.{number} ({which}). Run `gatehouse approvals` to see them."
            )
        }
    }
}

async fn list(servers: &mut [Client]) -> Result<()> {
    if servers.is_empty() {
        println!(
            "No Gatehouse server is running for this user, so no approval is waiting. Cards exist only while `gatehouse serve` runs (your assistant starts it)."
        );
        return Ok(());
    }
    let several = servers.len() > 1;
    let mut waiting: BTreeMap<u32, Vec<PendingCard>> = BTreeMap::new();
    for server in servers.iter_mut() {
        match server.pending().await {
            Ok(cards) => {
                waiting.insert(server.pid(), cards);
            }
            // It may have just stopped; the others are still worth showing.
            Err(error) => tracing::warn!("{error}"),
        }
    }
    let count: usize = waiting.values().map(Vec::len).sum();
    let running = match servers.len() {
        1 => "1 Gatehouse server is running".to_owned(),
        n => format!("{n} Gatehouse servers are running"),
    };
    if count == 0 {
        println!("Nothing is waiting for your approval ({running}).");
        return Ok(());
    }
    println!("Waiting for your approval: {count} ({running}).");
    for (pid, cards) in &waiting {
        for card in cards {
            println!();
            print_card(card, &label(*pid, card.id, several));
        }
    }
    Ok(())
}

fn print_card(card: &PendingCard, shown: &str) {
    println!("Approval {shown}: {} wants to run {} ({})", agent_words(card), card.title, card.tool);
    println!("  Target:        {}", card.target.as_deref().unwrap_or("not named"));
    println!("  Arguments:     {}", preview(&card.arguments, 160));
    println!("  Time left:     {}", time_left(card));
    match card.offer.grantable {
        true => println!("  Always allow:  offered: {}", always_words(&card.offer)),
        false => println!("  Always allow:  not offered: {}", why_not_offered(card)),
    }
    let always = match card.offer.grantable {
        true => format!(
            " | always {shown} --scope … --days …{}",
            if card.offer.constraint.is_some() { " [--constrained]" } else { "" }
        ),
        false => String::new(),
    };
    println!("  Answer:        gatehouse approvals allow {shown} | deny {shown}{always}");
}

fn label(pid: u32, number: u64, several: bool) -> String {
    if several { format!("{pid}.{number}") } else { number.to_string() }
}

fn agent_words(card: &PendingCard) -> String {
    match &card.agent {
        Some(agent) => format!("“{agent}”"),
        None => "an assistant that gave no name".to_owned(),
    }
}

/// What *Always allow* offers, as the flags that choose it.
fn always_words(offer: &CardOffer) -> String {
    let scopes: Vec<String> = offer
        .scopes()
        .into_iter()
        .map(|scope| match (scope, &offer.agent) {
            (Scope::Agent, Some(agent)) => format!("agent (only “{agent}”)"),
            (Scope::Agent, None) => "agent".to_owned(),
            (Scope::Tool, _) => "tool (any assistant)".to_owned(),
        })
        .collect();
    let days: Vec<String> = offer.durations.iter().map(u32::to_string).collect();
    let limit = match &offer.constraint {
        Some(offered) => format!("--constrained ({}) or leave it out (any arguments)", offered.label),
        None => "any arguments only (no --constrained: there is no single target to limit it to)".to_owned(),
    };
    format!("--scope {}; --days {}; {limit}", or_words(&scopes), or_words(&days))
}

/// Everything the card offers, for a refused choice.
fn offer_words(offer: &CardOffer, shown: &str) -> String {
    match offer.grantable {
        true => always_words(offer),
        false => format!(
            "only Allow once and Deny: answer with `gatehouse approvals allow {shown}` or `gatehouse approvals deny {shown}`"
        ),
    }
}

/// Why the card offers no *Always allow*: the core's reason, carried on the card.
fn why_not_offered(card: &PendingCard) -> String {
    card.why_not_grantable.clone().unwrap_or_else(|| "this call must be answered each time.".to_owned())
}

fn time_left(card: &PendingCard) -> String {
    let left = (card.deadline - Utc::now()).num_seconds();
    match left {
        ..=0 => "none: it is about to time out".to_owned(),
        1..60 => format!("{left} s"),
        _ => format!("{} min {} s", left / 60, left % 60),
    }
}

/// The arguments on one line, cut to about `max` characters.
fn preview(arguments: &Value, max: usize) -> String {
    let text = arguments.to_string();
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn or_words(items: &[String]) -> String {
    match items {
        [] => "nothing".to_owned(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use gatehouse_core::approval::card::offer;
    use gatehouse_core::approval::model::Constraint;
    use serde_json::json;

    use super::*;

    fn card(grantable: bool) -> PendingCard {
        let constraint = Constraint { kind: "spreadsheet".into(), value: "1AbC".into() };
        PendingCard {
            id: 3,
            agent: Some("claude".into()),
            tool: "update_cells".into(),
            title: "Update cells".into(),
            target: Some("only this spreadsheet (1AbC)".into()),
            arguments: json!({ "spreadsheet_id": "1AbC" }),
            offer: offer(grantable, Some("claude"), 90, vec![(constraint, "only this spreadsheet (1AbC)".into())]),
            retry: false,
            why_not_grantable: None,
            created: Utc::now(),
            deadline: Utc::now() + chrono::TimeDelta::seconds(90),
        }
    }

    #[test]
    fn a_choice_the_card_did_not_offer_is_refused_with_what_it_offers() {
        let card = card(true);
        let error = choice(&card, "3", None, Some("90".into()), false).unwrap_err().to_string();
        assert!(error.starts_with("Nothing was sent:"), "{error}");
        assert!(error.contains("\"90\" days was not offered: the card offered 1, 7 or 30 days"), "{error}");
        assert!(error.contains("--scope agent (only “claude”) or tool (any assistant)"), "{error}");
        let error = choice(&card, "3", Some(ScopeArg::Tool), Some("07".into()), true).unwrap_err().to_string();
        assert!(error.contains("\"07\" days was not offered"), "{error}");
        let raw = choice(&card, "3", Some(ScopeArg::Agent), Some("30".into()), true).unwrap();
        assert_eq!(raw, RawChoice { scope: "AGENT".into(), days: "30".into(), limit: "CONSTRAINED".into() });

        let error = choice(&self::card(false), "3", Some(ScopeArg::Tool), Some("7".into()), false).unwrap_err();
        assert!(error.to_string().contains("only Allow once and Deny"), "{error}");
    }

    #[test]
    fn arguments_are_previewed_on_one_short_line() {
        let long = json!({ "data": "x".repeat(500) });
        let shown = preview(&long, 40);
        assert_eq!(shown.chars().count(), 41);
        assert!(shown.ends_with('…'));
        assert_eq!(preview(&json!({ "a": 1 }), 40), r#"{"a":1}"#);
        assert_eq!(or_words(&["1".into(), "7".into(), "30".into()]), "1, 7 or 30");
    }
}
