//! The *Permissions* page: the standing approvals (grants) with their scope, limit, expiry and uses, each
//! revocable, and the person's *never allow* rules (list, add, remove).
//!
//! The words come from the core (`approval::words`, the same the `gatehouse grants` and `gatehouse never`
//! commands print); the changes are the core's operations (`gatehouse_core::ops`, the same `gatehouse grants
//! revoke` runs), which change the engine's in-memory grant index and rule snapshot with the database and
//! tell every other running server, so each obeys a revoke or a new rule from its next call on.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use futures::future::join_all;
use gatehouse_core::approval::store::NeverAllow;
use gatehouse_core::ops::never::{MAX_NEVER_DAYS, NeverAddError, NeverRequest};
use gatehouse_core::ops::{self, NeverRemoved, Revoked};
use gatehouse_core::words::{
    GrantState, RuleState, expiry_words, limit_words, owner_words, rule_scope_words, scope_words, short_id, time,
    uses_words,
};
use gatehouse_core::{Engine, Grant};
use serde::Serialize;
use tauri::State;

use super::Core;
use crate::{Error, Result};

/// What the pages say when the core runs without its approvals database (it could not be opened).
pub const NO_STORE: &str = "Gatehouse could not open its approvals database, so right now it keeps no standing approvals, no never-allow rules and no activity log, and every change is asked about on a card. Quit Gatehouse from the tray and open it again; if this message stays, restart the computer.";

/// The durations the page offers for a never-allow rule, in days (all within `gatehouse never`'s 1 to 3650).
pub const NEVER_DAYS: [u32; 5] = [1, 7, 30, 90, 365];

/// A grant as a row of the page.
#[derive(Debug, Clone, Serialize)]
pub struct GrantRow {
    pub id: String,
    /// The first 8 characters, as shown and as `gatehouse grants revoke` accepts.
    pub short_id: String,
    pub tool: String,
    /// The tool in plain words ("Update cells").
    pub tool_title: String,
    /// "only the assistant “claude”" or "any assistant".
    pub scope: String,
    /// "only the spreadsheet …" or "any arguments".
    pub limit: String,
    pub owner: String,
    pub created: DateTime<Utc>,
    pub expires: Option<DateTime<Utc>>,
    /// The expiry in words (UTC), or why there is none.
    pub expiry: String,
    pub use_count: u64,
    pub last_used: Option<DateTime<Utc>>,
    /// "0 (never used)", "3, last 2026-11-30 05:11:53 UTC".
    pub uses: String,
    /// "active", "expired", "revoked 2026-…", "never applies (no expiry)".
    pub state: String,
    /// It can still cover a call, so *Revoke* means something.
    pub active: bool,
}

impl GrantRow {
    pub fn new(engine: &Engine, grant: &Grant, now: DateTime<Utc>) -> Self {
        let state = GrantState::of(grant, now);
        GrantRow {
            id: grant.id.clone(),
            short_id: short_id(&grant.id).to_owned(),
            tool: grant.tool.clone(),
            tool_title: tool_title(engine, &grant.tool),
            scope: scope_words(grant.agent.as_ref()),
            limit: limit_words(grant.constraint.as_ref()),
            owner: owner_words(&grant.owner),
            created: grant.created,
            expires: grant.expires,
            expiry: expiry_words(grant),
            use_count: grant.use_count,
            last_used: grant.last_used,
            uses: uses_words(grant),
            state: state.to_string(),
            active: state.is_active(),
        }
    }
}

/// A never-allow rule as a row of the page.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    pub id: String,
    pub short_id: String,
    pub tool: String,
    pub tool_title: String,
    pub scope: String,
    pub limit: String,
    /// The Google account it belongs to.
    pub account: String,
    pub created: DateTime<Utc>,
    pub expires: DateTime<Utc>,
    /// The end in words (UTC).
    pub until: String,
    /// "active", "expired", "removed 2026-…".
    pub state: String,
    /// It refuses calls now, so *Remove* means something.
    pub active: bool,
}

impl RuleRow {
    pub fn new(engine: &Engine, rule: &NeverAllow, now: DateTime<Utc>) -> Self {
        let state = RuleState::of(rule, now);
        RuleRow {
            id: rule.id.clone(),
            short_id: short_id(&rule.id).to_owned(),
            tool: rule.tool.clone(),
            tool_title: tool_title(engine, &rule.tool),
            scope: rule_scope_words(rule.agent.as_deref()),
            limit: limit_words(rule.constraint.as_ref()),
            account: rule.owner_account.clone(),
            created: rule.created,
            expires: rule.expires,
            until: time(rule.expires),
            state: state.to_string(),
            active: state.is_active(),
        }
    }
}

/// A tool a never-allow rule can name: one the engine asks about.
#[derive(Debug, Clone, Serialize)]
pub struct ToolChoice {
    pub name: String,
    pub title: String,
}

/// Everything the page shows.
#[derive(Debug, Clone, Serialize)]
pub struct Permissions {
    /// `None` when the store is open; else what to tell the person ([`NO_STORE`]).
    pub unavailable: Option<String>,
    /// Newest first, revoked and expired ones too (marked by `state`).
    pub grants: Vec<GrantRow>,
    /// Newest first, removed and expired ones too.
    pub rules: Vec<RuleRow>,
    /// The tools the *never allow* form offers.
    pub tools: Vec<ToolChoice>,
    /// Assistants the form suggests by name: the registered ones and those named by grants or rules.
    pub assistants: Vec<String>,
    /// The durations the form offers, in days.
    pub days: Vec<u32>,
}

/// What a revoke or a removal did, with a sentence for the page to announce.
#[derive(Debug, Clone, Serialize)]
pub struct Changed<T> {
    /// `false`: it had already ended (by another window, `gatehouse`, or its expiry), so nothing changed.
    pub changed: bool,
    pub message: String,
    pub row: T,
}

fn tool_title(engine: &Engine, tool: &str) -> String {
    engine.tool(tool).map_or_else(|| tool.to_owned(), |def| def.meta.title.to_owned())
}

/// The grants and rules, and what the *never allow* form offers.
pub async fn list(core: &Core) -> Result<Permissions> {
    let engine = &core.engine;
    let approvals = engine.approvals();
    let tools = engine
        .tools()
        .iter()
        .filter(|tool| approvals.is_gated(tool))
        .map(|tool| ToolChoice { name: tool.meta.name.to_owned(), title: tool.meta.title.to_owned() })
        .collect();
    let days = NEVER_DAYS.to_vec();
    let Some(ops) = core.open_ops() else {
        return Ok(Permissions {
            unavailable: Some(NO_STORE.to_owned()),
            grants: Vec::new(),
            rules: Vec::new(),
            tools,
            assistants: Vec::new(),
            days,
        });
    };
    let now = Utc::now();
    let grants = ops.grants().await?;
    let rules = ops.never_allows().await?;
    let registered = ops.assistants().await?;
    let assistants: BTreeSet<String> = registered
        .into_iter()
        .filter(|assistant| assistant.revoked.is_none())
        .map(|assistant| assistant.name)
        .chain(grants.iter().filter_map(|grant| grant.agent.as_ref().map(|agent| agent.name.clone())))
        .chain(rules.iter().filter_map(|rule| rule.agent.clone()))
        .collect();
    let mut grant_rows: Vec<GrantRow> = grants.iter().map(|grant| GrantRow::new(engine, grant, now)).collect();
    let mut rule_rows: Vec<RuleRow> = rules.iter().map(|rule| RuleRow::new(engine, rule, now)).collect();
    // The limits by the name of what they limit to, looked up together (each lookup is capped by the core).
    let grant_limits = join_all(grants.iter().map(|grant| approvals.limit_words(grant.constraint.as_ref())));
    let rule_limits = join_all(rules.iter().map(|rule| approvals.limit_words(rule.constraint.as_ref())));
    let (grant_limits, rule_limits) = futures::join!(grant_limits, rule_limits);
    grant_rows.iter_mut().zip(grant_limits).for_each(|(row, limit)| row.limit = limit);
    rule_rows.iter_mut().zip(rule_limits).for_each(|(row, limit)| row.limit = limit);
    Ok(Permissions {
        unavailable: None,
        grants: grant_rows,
        rules: rule_rows,
        tools,
        assistants: assistants.into_iter().collect(),
        days,
    })
}

/// Revokes grant `id` (its full id, as the page has it). From the moment this returns, the engine's calls
/// are no longer covered by it (the store takes it out of the index the decisions read).
pub async fn revoke(core: &Core, id: &str) -> Result<Changed<GrantRow>> {
    let id = id.trim();
    if id.is_empty() {
        return Err("Say which standing approval to revoke: no id was given.".into());
    }
    let Revoked { changed, grant } = core.ops()?.revoke_grant(id).await?;
    let now = Utc::now();
    let Some(grant) = grant else {
        return Err(Error::Said(format!(
            "There is no standing approval {id}. It may have been removed meanwhile: look at the list again."
        )));
    };
    let row = GrantRow::new(&core.engine, &grant, now);
    let what = format!("{} for {}, {}", row.tool_title, row.scope, row.limit);
    let message = match (changed, grant.revoked) {
        (true, _) => format!("Revoked: {what}. Those calls will ask again."),
        (false, Some(at)) => format!("This standing approval ({what}) was already revoked at {}.", time(at)),
        (false, None) => return Err(format!("The standing approval {id} could not be revoked. Try again.").into()),
    };
    Ok(Changed { changed, message, row })
}

/// Makes a never-allow rule for the signed-in account: `tool`'s calls (from `agent` only, when given) are
/// refused without asking for `days` days.
pub async fn add_never(core: &Core, tool: &str, agent: Option<&str>, days: u32) -> Result<RuleRow> {
    let agent = agent.map(str::trim).filter(|agent| !agent.is_empty()).map(str::to_owned);
    let request = NeverRequest { tool: tool.trim().to_owned(), agent, days, constraint: None };
    let added = match core.open_ops() {
        Some(ops) => ops.add_never(&core.engine, request).await,
        // Refused, after the request's own checks, for want of a database.
        None => ops::never::add(&core.engine, request).await,
    };
    let rule = added.map_err(|error| match error {
        // The core's own words for these speak of the terminal; the page says what to do here.
        NeverAddError::UnknownTool(tool) => {
            format!("There is no tool “{tool}” in Gatehouse. Choose one from the list.").into()
        }
        NeverAddError::Days(days) => {
            format!("A never-allow rule lasts from 1 to {MAX_NEVER_DAYS} days, not {days}. Choose a duration from the list.").into()
        }
        NeverAddError::NotSignedIn => "Nobody is signed in to Google, so there is no account to keep the never-allow rule for. Sign in on the Account page first, then add it.".into(),
        NeverAddError::NoStore => Error::NoStore,
        NeverAddError::Store(error) => error.into(),
        other => other.to_string().into(),
    })?;
    Ok(RuleRow::new(&core.engine, &rule, Utc::now()))
}

/// Ends never-allow rule `id` now: its calls are asked about again.
pub async fn remove_never(core: &Core, id: &str) -> Result<Changed<RuleRow>> {
    let id = id.trim();
    if id.is_empty() {
        return Err("Say which never-allow rule to remove: no id was given.".into());
    }
    let NeverRemoved { changed, rule } = core.ops()?.remove_never(id).await?;
    let now = Utc::now();
    let Some(rule) = rule else {
        return Err(Error::Said(format!(
            "There is no never-allow rule {id}. It may have been removed meanwhile: look at the list again."
        )));
    };
    let row = RuleRow::new(&core.engine, &rule, now);
    let what = format!("{} from {}", row.tool_title, row.scope);
    let message = match (changed, rule.removed) {
        (true, _) => format!("Removed the never-allow rule for {what}. Its calls are asked about again."),
        (false, Some(at)) => format!("The never-allow rule for {what} was already removed at {}.", time(at)),
        (false, None) => return Err(format!("The never-allow rule {id} could not be removed. Try again.").into()),
    };
    Ok(Changed { changed, message, row })
}

/// The page's grants and rules.
#[tauri::command]
pub async fn permissions_list(core: State<'_, Core>) -> Result<Permissions> {
    list(&core).await
}

/// Revokes a standing approval by its id.
#[tauri::command]
pub async fn permissions_revoke(core: State<'_, Core>, id: String) -> Result<Changed<GrantRow>> {
    revoke(&core, &id).await
}

/// Adds a never-allow rule: a tool, optionally one assistant, for a number of days.
#[tauri::command]
pub async fn permissions_never_add(
    core: State<'_, Core>,
    tool: String,
    agent: Option<String>,
    days: u32,
) -> Result<RuleRow> {
    add_never(&core, &tool, agent.as_deref(), days).await
}

/// Removes a never-allow rule by its id.
#[tauri::command]
pub async fn permissions_never_remove(core: State<'_, Core>, id: String) -> Result<Changed<RuleRow>> {
    remove_never(&core, &id).await
}
