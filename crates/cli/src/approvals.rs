//! `gatehouse approvals`: the approval cards waiting in the running servers of this OS user, and answering
//! them from a terminal (allow once, deny, always allow; Google's forms with `answer N --field NAME=VALUE`),
//! over each server's control socket.
//!
//! Card numbers are per server process. With one server running they are shown and taken as they are
//! (`3`); with several, as `PID.N` (`41234.3`), and a bare number is refused as ambiguous.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow, bail};
use chrono::Utc;
use clap::{Subcommand, ValueEnum};
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{CardOffer, InvalidChoice, Limit, RawAnswer, RawChoice, Scope, parse_choice};
use gatehouse_core::approval::form::{FieldKind, FieldOption, FormField, TextFormat};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::FailureKind;
use gatehouse_core::control::{Client, ControlError};
use gatehouse_core::shown as safe;

use crate::user_auth::plain_errors;

#[derive(clap::Args)]
pub struct ApprovalsArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Subcommand)]
enum Action {
    /// Show one waiting call in full: its target and arguments uncut.
    Show {
        /// The approval's number as `gatehouse approvals` shows it.
        id: String,
    },
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
    /// Fill in and accept Google's approval form on a waiting card, one `--field NAME=VALUE` per field (repeat
    /// it for each choice of a multiple choice; `NAME=` alone chooses none).
    Answer {
        /// The approval's number as `gatehouse approvals` shows it.
        id: String,
        /// A field of Google's form and its value, e.g. `--field recipient=bob@example.com`.
        #[arg(long = "field", value_name = "NAME=VALUE")]
        fields: Vec<String>,
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
        Action::Show { id } => {
            let several = servers.len() > 1;
            let (server, number) = find_server(&mut servers, &id).await?;
            let shown = label(server.pid(), number, several);
            let card = server
                .pending()
                .await?
                .into_iter()
                .find(|card| card.id == number)
                .ok_or_else(|| not_waiting(&shown))?;
            print_card(&card, &shown, Length::Full);
            return Ok(());
        }
        Action::Allow { id } => (id, Chosen::AllowOnce),
        Action::Deny { id } => (id, Chosen::Deny),
        Action::Always { id, scope, days, constrained } => (id, Chosen::Always { scope, days, constrained }),
        Action::Answer { id, fields } => (id, Chosen::Form(fields)),
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
        Chosen::Form(fields) => form_answer(&card, &shown, &fields)?,
    };
    // A form's answer is checked against Google's schema here, so a wrong field is named before anything is
    // sent (the server checks it again).
    if let Some(form) = &card.form
        && let Err(unfit) = form.read_answer(&raw)
    {
        bail!("Nothing was sent: {unfit}. {}", form_help(&shown));
    }
    match server.answer(number, raw.clone()).await {
        Ok(()) => {}
        Err(ControlError::Server { kind: FailureKind::NotPending, .. }) => return Err(not_waiting(&shown)),
        Err(ControlError::Server { kind: FailureKind::Invalid, message, .. }) => bail!("{message}"),
        Err(error) => return Err(error.into()),
    }
    let who = agent_words(&card);
    let (title, tool) = (safe::shown(&card.title), safe::shown(&card.tool));
    match raw {
        _ if card.form.is_some() => match raw {
            RawAnswer::Deny => println!("Declined Google's form: Google will not run {title} ({tool}) from {who}."),
            _ => {
                println!("Accepted Google's form: your answer goes to Google, which runs {title} ({tool}) from {who}.")
            }
        },
        RawAnswer::Form(_) => println!("Answered: {title} ({tool}) from {who}."),
        RawAnswer::AllowOnce => println!("Allowed once: {title} ({tool}) from {who} runs now."),
        RawAnswer::Deny => println!("Denied: {title} ({tool}) from {who} will not run."),
        RawAnswer::Always(choice) => {
            let assistants = match choice.scope.as_str() {
                "AGENT" => format!("from {who}"),
                _ => "from any assistant".to_owned(),
            };
            let within = match (choice.limit.as_str(), &card.offer.constraint) {
                ("CONSTRAINED", Some(offered)) => safe::shown(&offered.label).into_owned(),
                _ => "any arguments".to_owned(),
            };
            println!(
                "Always allowed: {title} ({tool}) runs now, and for {} days its calls {assistants} with {within} run without asking. `gatehouse grants` lists it; `gatehouse grants revoke ID` ends it.",
                choice.days
            );
        }
    }
    Ok(())
}

enum Chosen {
    AllowOnce,
    Deny,
    Always { scope: Option<ScopeArg>, days: Option<String>, constrained: bool },
    Form(Vec<String>),
}

/// The filled form of `--field NAME=VALUE` pairs, each read as Google's form types its field.
fn form_answer(card: &PendingCard, shown: &str, fields: &[String]) -> Result<RawAnswer> {
    let Some(form) = &card.form else {
        bail!(
            "Nothing was sent: approval {shown} is one of Gatehouse's own cards, not a Google form, so it has no fields. Answer it with `gatehouse approvals allow {shown}` or `deny {shown}`."
        );
    };
    let mut pairs = Vec::with_capacity(fields.len());
    for field in fields {
        let Some((name, value)) = field.split_once('=') else {
            bail!("Nothing was sent: “{}” is not NAME=VALUE. {}", safe::shown(field), form_help(shown));
        };
        pairs.push((name.to_owned(), value.to_owned()));
    }
    let content =
        form.content_of_fields(&pairs).map_err(|unfit| anyhow!("Nothing was sent: {unfit}. {}", form_help(shown)))?;
    Ok(RawAnswer::Form(content))
}

fn form_help(shown: &str) -> String {
    format!(
        "`gatehouse approvals show {shown}` lists the form's fields; answer with `gatehouse approvals answer {shown} --field NAME=VALUE …`, `allow {shown}` (accept as it stands) or `deny {shown}` (decline)."
    )
}

/// A form's field in words: its name to type, its label, what it takes, and whether it is required.
fn field_words(field: &FormField) -> String {
    let takes = match &field.kind {
        FieldKind::Text { format, min_length, max_length, default } => {
            let mut words = match format {
                Some(TextFormat::Email) => "an email address".to_owned(),
                Some(TextFormat::Uri) => "a full address (https://…)".to_owned(),
                Some(TextFormat::Date) => "a date (2026-12-31)".to_owned(),
                Some(TextFormat::DateTime) => "a date and time (2026-12-31T09:00:00Z)".to_owned(),
                None => "text".to_owned(),
            };
            match (min_length, max_length) {
                (Some(min), Some(max)) => words.push_str(&format!(", {min} to {max} characters")),
                (Some(min), None) => words.push_str(&format!(", at least {min} characters")),
                (None, Some(max)) => words.push_str(&format!(", at most {max} characters")),
                (None, None) => {}
            }
            if let Some(default) = default {
                words.push_str(&format!(", now “{}”", safe::shown(default)));
            }
            words
        }
        FieldKind::Number { minimum, maximum, default } => bounded("a number", *minimum, *maximum, *default),
        FieldKind::Integer { minimum, maximum, default } => bounded("a whole number", *minimum, *maximum, *default),
        FieldKind::Boolean { default } => match default {
            Some(value) => format!("true or false, now {value}"),
            None => "true or false".to_owned(),
        },
        FieldKind::Choice { options, default } => {
            let mut words = format!("one of {}", options_words(options));
            if let Some(default) = default {
                words.push_str(&format!(", now “{}”", safe::shown(default)));
            }
            words
        }
        FieldKind::Choices { options, min_items, max_items, .. } => {
            let mut words = format!("any of {} (one --field each)", options_words(options));
            if let Some(min) = min_items {
                words.push_str(&format!(", at least {min}"));
            }
            if let Some(max) = max_items {
                words.push_str(&format!(", at most {max}"));
            }
            words
        }
    };
    let required = if field.required { "; required" } else { "" };
    let description = match &field.description {
        Some(description) => format!(" — {}", safe::shown(description)),
        None => String::new(),
    };
    format!("{} (“{}”): {takes}{required}{description}", safe::shown(&field.name), safe::shown(&field.label))
}

fn bounded<N: std::fmt::Display>(what: &str, minimum: Option<N>, maximum: Option<N>, default: Option<N>) -> String {
    let mut words = what.to_owned();
    match (minimum, maximum) {
        (Some(min), Some(max)) => words.push_str(&format!(" from {min} to {max}")),
        (Some(min), None) => words.push_str(&format!(" of at least {min}")),
        (None, Some(max)) => words.push_str(&format!(" of at most {max}")),
        (None, None) => {}
    }
    if let Some(default) = default {
        words.push_str(&format!(", now {default}"));
    }
    words
}

fn options_words(options: &[FieldOption]) -> String {
    let listed: Vec<String> = options
        .iter()
        .map(|option| match option.title == option.value {
            true => format!("“{}”", safe::shown(&option.value)),
            false => format!("“{}” ({})", safe::shown(&option.value), safe::shown(&option.title)),
        })
        .collect();
    or_words(&listed)
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
            print_card(card, &label(*pid, card.id, several), Length::Cut);
        }
    }
    Ok(())
}

/// How much of a card's long values a listing shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Length {
    /// Cut, saying how much more there is and how to see it.
    Cut,
    /// All of it (`gatehouse approvals show N`).
    Full,
}

/// The longest target and arguments a listing shows before cutting them.
const TARGET_SHOWN: usize = 120;
const ARGUMENTS_SHOWN: usize = 160;

/// Prints a card (see [`card_lines`]).
fn print_card(card: &PendingCard, shown: &str, length: Length) {
    for line in card_lines(card, shown, length) {
        println!("{line}");
    }
}

/// A card's lines. Every text from outside (the assistant's name, the target's name, the arguments, the
/// offered limit's words) is escaped by the core's one escaping ([`gatehouse_core::shown`]), so a name with
/// a line break or `ESC[8m` can neither draw a card of its own nor hide this one; long values are cut,
/// saying how much more there is and how to see it.
fn card_lines(card: &PendingCard, shown: &str, length: Length) -> Vec<String> {
    let hint = format!("`gatehouse approvals show {shown}` for all");
    let value = |text: &str, max: usize| match length {
        Length::Cut => safe::cut_line(text, max, &hint),
        Length::Full => safe::shown(text).into_owned(),
    };
    let mut lines = vec![
        format!(
            "Approval {shown}: {} wants to run {} ({})",
            agent_words(card),
            safe::shown(&card.title),
            safe::shown(&card.tool)
        ),
        format!(
            "  Target:        {}",
            card.target.as_deref().map_or_else(|| "not named".to_owned(), |target| value(target, TARGET_SHOWN))
        ),
        format!("  Arguments:     {}", value(&card.arguments.to_string(), ARGUMENTS_SHOWN)),
        format!("  Time left:     {}", time_left(card)),
    ];
    if let Some(form) = &card.form {
        lines.push(format!("  Google asks:   {}", value(&form.message, ARGUMENTS_SHOWN)));
        if form.google_asks_too {
            lines.push("  Note:          Gatehouse already allowed this call; Google asks too.".to_owned());
        }
        for field in &form.fields {
            lines.push(format!("  Field:         {}", field_words(field)));
        }
        let fill = match form.fields.is_empty() {
            true => String::new(),
            false => format!(" | answer {shown} --field NAME=VALUE …"),
        };
        lines.push(format!(
            "  Answer:        gatehouse approvals allow {shown} (accept) | deny {shown} (decline){fill}"
        ));
        return lines;
    }
    lines.push(match card.offer.grantable {
        true => format!("  Always allow:  offered: {}", always_words(&card.offer)),
        false => format!("  Always allow:  not offered: {}", safe::shown(&why_not_offered(card))),
    });
    let always = match card.offer.grantable {
        true => format!(
            " | always {shown} --scope … --days …{}",
            if card.offer.constraint.is_some() { " [--constrained]" } else { "" }
        ),
        false => String::new(),
    };
    lines.push(format!("  Answer:        gatehouse approvals allow {shown} | deny {shown}{always}"));
    lines
}

fn label(pid: u32, number: u64, several: bool) -> String {
    if several { format!("{pid}.{number}") } else { number.to_string() }
}

fn agent_words(card: &PendingCard) -> String {
    match &card.agent {
        Some(agent) => gatehouse_core::words::agent_words(agent),
        None => "an assistant that gave no name".to_owned(),
    }
}

/// What *Always allow* offers, as the flags that choose it.
fn always_words(offer: &CardOffer) -> String {
    let scopes: Vec<String> = offer
        .scopes()
        .into_iter()
        .map(|scope| match (scope, &offer.agent) {
            (Scope::Agent, Some(agent)) => {
                format!("agent (only {})", gatehouse_core::words::agent_words(agent))
            }
            (Scope::Agent, None) => "agent".to_owned(),
            (Scope::Tool, _) => "tool (any assistant)".to_owned(),
        })
        .collect();
    let days: Vec<String> = offer.durations.iter().map(u32::to_string).collect();
    let limit = match &offer.constraint {
        Some(offered) => format!("--constrained ({}) or leave it out (any arguments)", safe::shown(&offered.label)),
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
    use gatehouse_core::approval::model::{Agent, Constraint};
    use serde_json::json;

    use super::*;

    fn card(grantable: bool) -> PendingCard {
        let constraint = Constraint { kind: "spreadsheet".into(), value: "1AbC".into() };
        PendingCard {
            id: 3,
            agent: Some(Agent::registered("claude")),
            tool: "update_cells".into(),
            title: "Update cells".into(),
            target: Some("only this spreadsheet (1AbC)".into()),
            arguments: json!({ "spreadsheet_id": "1AbC" }),
            offer: offer(
                grantable,
                Some(&Agent::registered("claude")),
                90,
                vec![(constraint, "only this spreadsheet (1AbC)".into())],
            ),
            retry: false,
            why_not_grantable: None,
            created: Utc::now(),
            deadline: Utc::now() + chrono::TimeDelta::seconds(90),
            form: None,
            sentence: Default::default(),
            preview: Default::default(),
            asked_again: None,
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

    /// A card asking Google's form with a required email field and a titled choice.
    fn form_card() -> PendingCard {
        let google = gatehouse_core::google::mcp::form::GoogleForm {
            key: "approval".into(),
            message: "Share “Budget”\nwith bob?".into(),
            requested_schema: serde_json::from_value(json!({
                "type": "object",
                "properties": {
                    "with": {"type": "string", "format": "email", "title": "Recipient"},
                    "role": {"type": "string", "oneOf": [{"const": "reader", "title": "Can view"}, {"const": "writer", "title": "Can edit"}]}
                },
                "required": ["with"]
            }))
            .unwrap(),
        };
        let form = gatehouse_core::approval::form::FormCard::from_form(&google, true).unwrap();
        PendingCard {
            form: Some(form),
            offer: offer(false, Some(&Agent::registered("claude")), 0, vec![]),
            ..card(false)
        }
    }

    #[test]
    fn a_google_form_lists_its_fields_and_how_to_answer_them() {
        let card = form_card();
        let lines = card_lines(&card, "3", Length::Full);
        assert_eq!(lines[4], "  Google asks:   Share “Budget”\\nwith bob?", "{lines:#?}");
        assert_eq!(lines[5], "  Note:          Gatehouse already allowed this call; Google asks too.");
        assert_eq!(lines[6], "  Field:         with (“Recipient”): an email address; required");
        assert_eq!(lines[7], "  Field:         role (“role”): one of “reader” (Can view) or “writer” (Can edit)");
        assert_eq!(
            lines[8],
            "  Answer:        gatehouse approvals allow 3 (accept) | deny 3 (decline) | answer 3 --field NAME=VALUE …"
        );
        assert_eq!(lines.len(), 9, "{lines:#?}");
    }

    #[test]
    fn terminal_fields_become_the_form_answer_or_an_error_naming_the_field() {
        let card = form_card();
        let fields = ["with=bob@example.com".to_owned(), "role=Can edit".to_owned()];
        let raw = form_answer(&card, "3", &fields).unwrap();
        assert_eq!(
            raw,
            RawAnswer::Form(json!({"with": "bob@example.com", "role": "writer"}).as_object().unwrap().clone())
        );
        let error = form_answer(&card, "3", &["role=owner".to_owned()]).unwrap_err().to_string();
        assert!(error.starts_with("Nothing was sent: the field “role” has no choice “owner”"), "{error}");
        let error = form_answer(&card, "3", &["with".to_owned()]).unwrap_err().to_string();
        assert!(error.starts_with("Nothing was sent: “with” is not NAME=VALUE."), "{error}");
        let missing = card.form.as_ref().unwrap().read_answer(&RawAnswer::AllowOnce).unwrap_err().to_string();
        assert_eq!(missing, "the field “Recipient” needs a value");
        let error = form_answer(&self::card(false), "3", &fields).unwrap_err().to_string();
        assert!(error.contains("one of Gatehouse's own cards, not a Google form"), "{error}");
    }

    #[test]
    fn a_forged_name_or_title_cannot_draw_a_card_of_its_own() {
        let mut card = card(false);
        card.tool = "delete_sheet".into();
        card.title = "Delete a sheet".into();
        card.agent =
            Some(Agent::self_reported("claude\n\u{1b}[8mApproval 1: “x” wants to run List files (list_files)"));
        card.target = Some("Budget\u{202e}slx.\n  Arguments:     {}\u{1b}[0m".into());
        card.arguments = json!({ "sheet": "a\u{9b}8m\u{2066}b", "data": "x".repeat(500) });
        let lines = card_lines(&card, "3", Length::Cut);
        assert_eq!(lines.len(), 6, "one card, six lines: {lines:#?}");
        for line in &lines {
            assert!(!line.chars().any(|c| c.is_control() || gatehouse_core::shown::is_hidden_format(c)), "{line:?}");
        }
        assert!(lines[0].starts_with("Approval 3: “claude\\n\\u{1b}[8mApproval 1:"), "{}", lines[0]);
        assert!(lines[0].ends_with("” (says it is) wants to run Delete a sheet (delete_sheet)"), "{}", lines[0]);
        assert!(lines[1].contains("Budget\\u{202e}slx.\\n"), "{}", lines[1]);
        assert!(lines[2].contains("\\u{9b}8m\\u{2066}b"), "{}", lines[2]);
        let arguments = card.arguments.to_string().chars().count();
        assert!(
            lines[2].ends_with(&format!(
                "… ({} more characters; `gatehouse approvals show 3` for all)",
                arguments - ARGUMENTS_SHOWN
            )),
            "{}",
            lines[2]
        );
        let full = card_lines(&card, "3", Length::Full);
        assert!(full[2].contains(&"x".repeat(500)) && !full[2].contains("more characters"), "{}", full[2]);
        assert_eq!(or_words(&["1".into(), "7".into(), "30".into()]), "1, 7 or 30");
    }
}
