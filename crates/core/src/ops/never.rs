//! A person's *never allow* rules: listing them, making one for a running engine (the checks every way of
//! adding one shares — `gatehouse never add` through the control socket, the settings window — so neither
//! can make a rule the other would refuse), and removing one.

use serde::{Deserialize, Serialize};

use super::Ops;
use crate::Engine;
use crate::approval::model::Constraint;
use crate::approval::store::{NeverAllow, StoreError};

/// The removal's result: whether this request removed it (`false`: no such rule, or removed before), and the
/// rule as it now stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeverRemoved {
    pub changed: bool,
    pub rule: Option<NeverAllow>,
}

impl Ops {
    /// Every *never allow* rule, removed ones too, newest first.
    pub async fn never_allows(&self) -> Result<Vec<NeverAllow>, StoreError> {
        self.store.list_never_allow().await
    }

    /// Checks `request` against `engine` (see [`add`]), saves the rule and tells the other servers: from the
    /// moment this returns, the calls it names are refused by every server using the database.
    pub async fn add_never(&self, engine: &Engine, request: NeverRequest) -> Result<NeverAllow, NeverAddError> {
        let rule = add(engine, request).await?;
        tracing::info!(rule = %rule.id, tool = %rule.tool, "never-allow rule added");
        self.changed().await;
        Ok(rule)
    }

    /// Ends *never allow* rule `id` now, in this process's memory and, once this returns, in every other
    /// server's using the database: its calls are asked about again.
    pub async fn remove_never(&self, id: &str) -> Result<NeverRemoved, StoreError> {
        let changed = self.store.remove_never_allow(id, chrono::Utc::now()).await?;
        if changed {
            tracing::info!(rule = %id, "never-allow rule removed");
        }
        let rule = self.store.get_never_allow(id).await?;
        self.changed().await;
        Ok(NeverRemoved { changed, rule })
    }
}

/// The longest a *never allow* rule lasts, in days (it always ends).
pub const MAX_NEVER_DAYS: u32 = 3650;

/// Why a never-allow rule was not made. The messages say what to change.
#[derive(Debug, thiserror::Error)]
pub enum NeverAddError {
    #[error(
        "This Gatehouse server has no tool {0:?}. Use a tool name as `gatehouse tools` lists it, such as update_cells."
    )]
    UnknownTool(String),
    #[error(
        "{0} only reads, and this server runs reads without asking, so a never-allow rule for it would change nothing."
    )]
    NotGated(String),
    #[error("A never-allow rule lasts from 1 to {MAX_NEVER_DAYS} days, not {0}.")]
    Days(u32),
    #[error("The assistant's name is empty: give its name, or leave it out for any assistant.")]
    EmptyAgent,
    #[error("{tool} can't be limited by {kind} {value:?}: give a kind of limit the tool knows, with a value, or none.")]
    Constraint { tool: String, kind: String, value: String },
    #[error(
        "Nobody is signed in to Google in this Gatehouse server, so there is no account to keep the never-allow rule for. Sign in (`gatehouse login`), restart your assistant, and try again."
    )]
    NotSignedIn,
    #[error(
        "This Gatehouse server has no approvals database (it could not open one; its log says why), so it keeps no grants or audit log. Fix that and restart it."
    )]
    NoStore,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the person asks to refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeverRequest {
    /// A tool the engine offers and asks about.
    pub tool: String,
    /// Only this assistant's calls; `None` = any assistant. Trimmed; empty is refused.
    pub agent: Option<String>,
    /// 1 to [`MAX_NEVER_DAYS`].
    pub days: u32,
    /// Only calls within this limit (a kind the tool's evaluators know); `None` = any arguments.
    pub constraint: Option<Constraint>,
}

/// The checks of a request that need no server (so a terminal command can make them before it connects): the
/// duration, and an assistant's name that is given but empty. Returns the name trimmed.
pub fn check_days_and_agent(days: u32, agent: Option<&str>) -> Result<Option<String>, NeverAddError> {
    if !(1..=MAX_NEVER_DAYS).contains(&days) {
        return Err(NeverAddError::Days(days));
    }
    match agent.map(str::trim) {
        Some("") => Err(NeverAddError::EmptyAgent),
        agent => Ok(agent.map(str::to_owned)),
    }
}

/// Checks `request` against `engine` (its tools, its gate, its signed-in account), saves the rule for the
/// signed-in account and returns it. Once this returns, the engine's calls are refused by it.
pub async fn add(engine: &Engine, request: NeverRequest) -> Result<NeverAllow, NeverAddError> {
    let NeverRequest { tool, agent, days, constraint } = request;
    let Some(def) = engine.tool(&tool) else { return Err(NeverAddError::UnknownTool(tool)) };
    if !engine.approvals().is_gated(def) {
        return Err(NeverAddError::NotGated(tool));
    }
    let agent = check_days_and_agent(days, agent.as_deref())?;
    if let Some(constraint) = &constraint {
        let known =
            def.evaluators().iter().any(|evaluator| evaluator.constrains() && evaluator.kind() == constraint.kind);
        if !known || constraint.value.trim().is_empty() {
            return Err(NeverAddError::Constraint {
                tool,
                kind: constraint.kind.clone(),
                value: constraint.value.clone(),
            });
        }
    }
    let Some(owner_account) = engine.auth().current().account else { return Err(NeverAddError::NotSignedIn) };
    let Some(store) = engine.approvals().store() else { return Err(NeverAddError::NoStore) };
    let now = chrono::Utc::now();
    let rule = NeverAllow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_account,
        tool,
        agent,
        constraint,
        created: now,
        expires: now + chrono::TimeDelta::days(i64::from(days)),
        removed: None,
    };
    store.add_never_allow(&rule).await?;
    Ok(rule)
}
