//! The *Activity* page: the audit log, newest first, a page at a time, filtered by tool, assistant, decision,
//! how it was decided and any text; who or what decided each call in words; *Revoke the grant* behind a call a
//! standing approval allowed; and one line saying whether the log's chain is intact.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use futures::future::join_all;
use gatehouse_core::approval::model::DecisionSource;
use gatehouse_core::approval::redact::target_constraint;
use gatehouse_core::approval::store::{AuditMatch, AuditQuery, AuditRecord, SourceKind};
use gatehouse_core::ops::Verification;
use gatehouse_core::words::{
    GrantState, agent_words, answer_channel_words, limit_words, one_line, outcome_words, parse_verdict, scope_words,
    short_id, source_words, time, verdict_words,
};
use gatehouse_core::{Engine, Grant};
use serde::{Deserialize, Serialize};
use tauri::State;

use super::Core;
use super::permissions::{self, Changed, GrantRow, NO_STORE};
use crate::{Error, Result};

/// Records per page: enough to scroll through, few enough to draw at once. *Show older* fetches the next.
pub const PAGE: u32 = 200;

/// How much of a call's arguments a row shows (the whole record is in `gatehouse audit export`).
const ARGUMENTS_SHOWN: usize = 300;

/// The page's filters, as the form sends them: empty or absent = no filter.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Filter {
    /// A tool's name, e.g. `update_cells`.
    pub tool: Option<String>,
    /// An assistant's name as it gave it.
    pub agent: Option<String>,
    /// `allowed` or `denied`.
    pub verdict: Option<String>,
    /// How it was decided: `person`, `grant`, `policy`, `deny`, `timeout`, `not-gated`, `unattended`, `paused`,
    /// `invalid-arguments`, `withdrawn`.
    pub source: Option<String>,
    /// Any text in the record (assistant, tool, target, arguments, error).
    pub text: Option<String>,
}

/// The standing approval that allowed a call, as its row shows it.
#[derive(Debug, Clone, Serialize)]
pub struct GrantBehind {
    pub id: String,
    pub short_id: String,
    /// "only the assistant “claude”, only the spreadsheet …".
    pub words: String,
    pub state: String,
    /// It still covers calls: the row offers *Revoke the grant*.
    pub active: bool,
}

/// One audit record as a row.
#[derive(Debug, Clone, Serialize)]
pub struct ActivityRow {
    pub seq: i64,
    pub time: DateTime<Utc>,
    /// The time in words (UTC), for a reader without the local form.
    pub time_words: String,
    /// The assistant as every shell names it (escaped; “name” (says it is) for a self-reported one, see
    /// `words::agent_words`); `None` when it gave none.
    pub agent: Option<String>,
    pub tool: String,
    pub tool_title: String,
    /// The target as the log records it (`spreadsheet 1cQ…`).
    pub target: Option<String>,
    /// The target as a person reads it: by name when it was found (`spreadsheet “Budget 2026”`), else as
    /// recorded.
    pub target_words: Option<String>,
    /// The arguments (secrets already redacted) on one line, cut.
    pub arguments: String,
    /// `allowed` or `denied`.
    pub verdict: &'static str,
    /// The source as the log records it (`grant:<id>`, `person`, …).
    pub source: String,
    pub source_kind: SourceKind,
    /// Who or what decided, in words.
    pub decided_by: String,
    /// `ok`, `refused` or `error: …` (cut).
    pub outcome: String,
    pub duration_ms: u64,
    /// Where the person answered the card ("on the approval card", "from a terminal: process 4242, …"), when
    /// one was answered: a terminal answer stands out, since an assistant's shell could be one.
    pub answered_via: Option<String>,
    /// The grant behind a call a standing approval allowed; `None` otherwise, or when it is gone from the store.
    pub grant: Option<GrantBehind>,
}

/// A choice of the "Decided by" filter.
#[derive(Debug, Clone, Serialize)]
pub struct SourceChoice {
    pub value: &'static str,
    pub label: &'static str,
}

/// One page of the log.
#[derive(Debug, Clone, Serialize)]
pub struct ActivityPage {
    /// `None` when the store is open; else what to tell the person.
    pub unavailable: Option<String>,
    /// Newest first.
    pub rows: Vec<ActivityRow>,
    /// Pass as `before` to get the next (older) page; `None` when this page reaches the oldest record.
    pub older: Option<i64>,
    /// The tools the filter offers (every tool of the engine), by name and title.
    pub tools: Vec<permissions::ToolChoice>,
    /// The "Decided by" choices.
    pub sources: Vec<SourceChoice>,
}

/// Whether the log's chain is intact, in one line.
#[derive(Debug, Clone, Serialize)]
pub struct Integrity {
    pub intact: bool,
    pub message: String,
}

/// The "Decided by" filter's words for each kind of source.
fn source_label(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Person => "You, on the approval card",
        SourceKind::Grant => "A standing approval",
        SourceKind::Policy => "The administrator's policy",
        SourceKind::Deny => "A never-allow rule",
        SourceKind::Timeout => "Nobody answered in time",
        SourceKind::NotGated => "No approval needed (reads)",
        SourceKind::Unattended => "Unattended assistant refused",
        SourceKind::Paused => "Assistants paused",
        SourceKind::InvalidArguments => "Arguments not accepted",
        SourceKind::Withdrawn => "Withdrawn by the assistant",
        SourceKind::Shutdown => "Gatehouse was closed",
        SourceKind::AgentName => "Assistant name refused",
        SourceKind::GoogleForm => "Google's approval form",
    }
}

/// A filter's text, trimmed; `None` when empty.
fn given(value: &Option<String>) -> Option<String> {
    value.as_deref().map(str::trim).filter(|value| !value.is_empty()).map(str::to_owned)
}

/// The filter as the store's query, or what was wrong with it in words.
fn query(filter: &Filter, before: Option<i64>) -> Result<(AuditQuery, AuditMatch), String> {
    if let Some(before) = before.filter(|before| *before < 1) {
        return Err(format!("There are no records before number {before}: the log starts at record 1."));
    }
    let verdict = given(&filter.verdict).map(|verdict| parse_verdict(&verdict)).transpose();
    let verdict = verdict.map_err(|error| format!("The decision filter is wrong: {error}."))?;
    let source = given(&filter.source).map(|source| source.parse::<SourceKind>()).transpose();
    let source = source.map_err(|error| format!("The “decided by” filter is wrong: {error}."))?;
    // One more than a page, to know whether there is an older page.
    let query =
        AuditQuery { limit: PAGE + 1, before_seq: before, tool: given(&filter.tool), agent: given(&filter.agent) };
    Ok((query, AuditMatch { verdict, source, text: given(&filter.text) }))
}

/// The names of the targets `records` mention, by recorded target: each one looked up once, all at once (the
/// core's lookup, as the cards and Permissions use it, caps each at a few seconds); unnamed ones are left out.
async fn target_names(engine: &Engine, records: &[AuditRecord]) -> HashMap<String, String> {
    let targets: HashSet<&str> = records.iter().filter_map(|record| record.entry.target.as_deref()).collect();
    let approvals = engine.approvals();
    let lookups = targets
        .into_iter()
        .filter_map(|text| target_constraint(text).map(|target| (text, target)))
        .map(|(text, target)| async move { approvals.target_name(&target).await.map(|name| (text.to_owned(), name)) });
    join_all(lookups).await.into_iter().flatten().collect()
}

/// A recorded target in words: its kind and name when the name was found.
fn target_words(target: &str, names: &HashMap<String, String>) -> String {
    match (names.get(target), target_constraint(target)) {
        (Some(name), Some(constraint)) => format!("{} “{name}”", constraint.kind),
        _ => target.to_owned(),
    }
}

fn row(
    engine: &Engine,
    record: &AuditRecord,
    grants: &HashMap<&str, &Grant>,
    never: &HashSet<String>,
    names: &HashMap<String, String>,
) -> ActivityRow {
    let entry = &record.entry;
    let now = Utc::now();
    let grant = match &entry.source {
        DecisionSource::Grant(id) => grants.get(id.as_str()).map(|grant| {
            let state = GrantState::of(grant, now);
            GrantBehind {
                id: grant.id.clone(),
                short_id: short_id(&grant.id).to_owned(),
                words: format!("{}, {}", scope_words(grant.agent.as_ref()), limit_words(grant.constraint.as_ref())),
                state: state.to_string(),
                active: state.is_active(),
            }
        }),
        _ => None,
    };
    let arguments = serde_json::to_string(&entry.arguments).unwrap_or_default();
    ActivityRow {
        seq: record.seq,
        time: entry.time,
        time_words: time(entry.time),
        agent: entry.agent.as_ref().map(agent_words),
        tool: entry.tool.clone(),
        tool_title: engine.tool(&entry.tool).map_or_else(|| entry.tool.clone(), |def| def.meta.title.to_owned()),
        target: entry.target.clone(),
        target_words: entry.target.as_deref().map(|target| target_words(target, names)),
        arguments: one_line(&arguments, ARGUMENTS_SHOWN),
        verdict: verdict_words(entry.verdict),
        source: entry.source.to_string(),
        source_kind: SourceKind::of(&entry.source),
        decided_by: source_words(&entry.source, |id| never.contains(id)),
        outcome: one_line(&outcome_words(&entry.outcome), ARGUMENTS_SHOWN),
        duration_ms: entry.duration_ms,
        answered_via: entry.answered_via.as_ref().map(answer_channel_words),
        grant,
    }
}

/// One page of the log matching `filter`, newest first, older than record `before` when given.
pub async fn list(core: &Core, filter: &Filter, before: Option<i64>) -> Result<ActivityPage> {
    let engine = &core.engine;
    let (query, matching) = query(filter, before)?;
    let tools = engine
        .tools()
        .iter()
        .map(|tool| permissions::ToolChoice { name: tool.meta.name.to_owned(), title: tool.meta.title.to_owned() })
        .collect();
    let sources = SourceKind::ALL
        .into_iter()
        .map(|kind| SourceChoice { value: kind.as_str(), label: source_label(kind) })
        .collect();
    let Some(ops) = core.open_ops() else {
        return Ok(ActivityPage {
            unavailable: Some(NO_STORE.to_owned()),
            rows: Vec::new(),
            older: None,
            tools,
            sources,
        });
    };
    let mut records = ops.search_audit(&query, &matching).await?;
    let more = records.len() > PAGE as usize;
    records.truncate(PAGE as usize);
    let grants = ops.grants().await?;
    let grants: HashMap<&str, &Grant> = grants.iter().map(|grant| (grant.id.as_str(), grant)).collect();
    let never: HashSet<String> = ops.never_allows().await?.into_iter().map(|rule| rule.id).collect();
    let names = target_names(engine, &records).await;
    let rows: Vec<ActivityRow> = records.iter().map(|record| row(engine, record, &grants, &never, &names)).collect();
    let older = if more { rows.last().map(|row| row.seq) } else { None };
    Ok(ActivityPage { unavailable: None, rows, older, tools, sources })
}

/// Checks the whole chain (as `gatehouse audit verify` does) and says the result in one line.
pub async fn verify(core: &Core) -> Result<Integrity> {
    let Verification { intact, message: verification, .. } = core.ops()?.verify().await?;
    let message = match intact {
        true => format!("{verification} Nobody changed or removed a record."),
        false => format!(
            "{verification} Keep the database as it is for whoever investigates; new records still chain on from the end."
        ),
    };
    Ok(Integrity { intact, message })
}

/// Revokes the standing approval that allowed record `seq`.
pub async fn revoke_grant(core: &Core, seq: i64) -> Result<Changed<GrantRow>> {
    let query = AuditQuery { limit: 1, before_seq: seq.checked_add(1), tool: None, agent: None };
    let record = core.ops()?.audit(&query).await?.into_iter().find(|record| record.seq == seq);
    let Some(record) = record else {
        return Err(Error::Said(format!("There is no activity record number {seq}. Look at the list again.")));
    };
    let DecisionSource::Grant(id) = &record.entry.source else {
        return Err(Error::Said(format!(
            "Record {seq} was not allowed by a standing approval, so there is no grant behind it to revoke."
        )));
    };
    permissions::revoke(core, id).await
}

/// A page of the log.
#[tauri::command]
pub async fn activity_list(core: State<'_, Core>, filter: Option<Filter>, before: Option<i64>) -> Result<ActivityPage> {
    list(&core, &filter.unwrap_or_default(), before).await
}

/// Whether the log is intact.
#[tauri::command]
pub async fn activity_verify(core: State<'_, Core>) -> Result<Integrity> {
    verify(&core).await
}

/// Revokes the standing approval behind record `seq`.
#[tauri::command]
pub async fn activity_revoke_grant(core: State<'_, Core>, seq: i64) -> Result<Changed<GrantRow>> {
    revoke_grant(&core, seq).await
}
