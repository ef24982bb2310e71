//! The person's own settings (the desktop's *Advanced* page): the response cap, asking before reads too, the
//! enabled tools, the export folder, how long a card waits, starting in the sandbox, and how long answers are cached.
//!
//! They are kept in the approvals store (the SQLite file under `GATEHOUSE_HOME`, `gatehouse.db`, also while the
//! sandbox runs) and applied when a host starts ([`apply`], from [`crate::host::Host::start`]), so the app and
//! `gatehouse serve` use the same. What decides each value, strongest first:
//! 1. the administrator's policy file, which bounds the person's choice: reads it gates stay gated, and the
//!    wait for an answer is at most its `approval_timeout_secs`;
//! 2. an environment variable that is set (`MAX_TOOL_RESPONSE_CHARS`, `ENABLED_TOOLS`, `GATEHOUSE_EXPORT_DIR`,
//!    `GATEHOUSE_SANDBOX`): whoever launched Gatehouse with it meant it;
//! 3. the person's setting;
//! 4. the default.
//!
//! [`view`] says which of these decides each value, so the settings window shows it and locks what the person
//! can't change there; [`set`] refuses the same, and checks what the person typed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::approval::policy::{DEFAULT_APPROVAL_TIMEOUT, MAX_APPROVAL_TIMEOUT_SECS, Policy};
use crate::approval::store::{DATABASE_FILE, Store, StoreError};
use crate::catalog::{Access, ToolMeta};
use crate::config::{Config, DEFAULT_MAX_RESPONSE_CHARS, GoogleBackend};
use crate::shown::grouped;

/// The smallest response cap the person may choose: below it ordinary answers (a sheet's first rows, a short
/// document) would already be refused.
pub const MIN_RESPONSE_CHARS: usize = 10_000;
/// The largest response cap the person may choose: far beyond it an answer can make an assistant stop working,
/// which is what the cap is there to prevent.
pub const MAX_RESPONSE_CHARS: usize = 100_000_000;
/// The shortest wait for an answer the person may choose: less leaves no time to read a card.
pub const MIN_APPROVAL_TIMEOUT_SECS: u64 = 10;
/// How long the response cache serves a kept answer unless the person chose otherwise.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(300);
/// The longest the person may choose: a kept answer is checked against its file at every use anyway, so
/// the limit only bounds how long the store keeps answers nobody asks for again.
pub const MAX_CACHE_TTL_SECS: u64 = 86_400;

/// One of the person's settings. Its [`name`](Key::name) is the key in the store and in the settings window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    /// `MAX_TOOL_RESPONSE_CHARS`: the largest answer a tool may give, in characters.
    ResponseCap,
    /// Ask before reads too, not only before changes.
    GateReads,
    /// `ENABLED_TOOLS`: the tools assistants see.
    EnabledTools,
    /// `GATEHOUSE_EXPORT_DIR`: where `local_path` results and downloads go.
    ExportDir,
    /// How long a card waits for an answer before the change counts as not approved.
    ApprovalTimeout,
    /// `GATEHOUSE_SANDBOX`: start with the built-in emulator's sample files instead of the Google account.
    StartInSandbox,
    /// How long the response cache may serve a kept answer (`set_cache_ttl`); 0 turns the cache off. Applies
    /// at once: the cache reads it at every call.
    CacheTtl,
    /// Take answers to cards from `gatehouse approvals` in a terminal while the desktop app hosts (off by
    /// default: see `control::answers`). Saved only from the desktop app's Advanced page: nothing on the control
    /// socket changes settings, so a program that can reach the socket can't turn it on. Applies at once.
    AnswerFromTerminal,
    /// `GATEHOUSE_GOOGLE_BACKEND`: Google's MCP servers, its REST APIs, or both ([`GoogleBackend`]).
    GoogleBackend,
}

impl Key {
    /// Every setting, in the order the settings window shows them.
    pub const ALL: [Key; 9] = [
        Key::ResponseCap,
        Key::CacheTtl,
        Key::GateReads,
        Key::ApprovalTimeout,
        Key::ExportDir,
        Key::EnabledTools,
        Key::GoogleBackend,
        Key::StartInSandbox,
        Key::AnswerFromTerminal,
    ];

    /// Whether a saved value counts only when its row is sealed with Gatehouse's key: the store's list
    /// ([`SEALED_SETTINGS`](crate::approval::store::SEALED_SETTINGS), with why).
    pub fn needs_seal(self) -> bool {
        crate::approval::store::SEALED_SETTINGS.contains(&self.name())
    }

    /// The key in the store and in the settings window's commands.
    pub const fn name(self) -> &'static str {
        match self {
            Key::ResponseCap => "response_cap",
            Key::GateReads => "gate_reads",
            Key::EnabledTools => "enabled_tools",
            Key::ExportDir => "export_dir",
            Key::ApprovalTimeout => "approval_timeout",
            Key::StartInSandbox => "start_in_sandbox",
            Key::CacheTtl => "cache_ttl",
            Key::AnswerFromTerminal => "answer_from_terminal",
            Key::GoogleBackend => "google_backend",
        }
    }

    /// The environment variable that decides it when set.
    pub const fn variable(self) -> Option<&'static str> {
        match self {
            Key::ResponseCap => Some("MAX_TOOL_RESPONSE_CHARS"),
            Key::EnabledTools => Some("ENABLED_TOOLS"),
            Key::ExportDir => Some("GATEHOUSE_EXPORT_DIR"),
            Key::StartInSandbox => Some("GATEHOUSE_SANDBOX"),
            Key::GoogleBackend => Some("GATEHOUSE_GOOGLE_BACKEND"),
            // No variable may turn on terminal answers: whoever starts a process could set it.
            Key::GateReads | Key::ApprovalTimeout | Key::CacheTtl | Key::AnswerFromTerminal => None,
        }
    }

    /// The setting in words, for messages ("The response size limit …").
    pub const fn label(self) -> &'static str {
        match self {
            Key::ResponseCap => "The size limit for answers",
            Key::GateReads => "Asking before reads",
            Key::EnabledTools => "The list of enabled tools",
            Key::ExportDir => "The export folder",
            Key::ApprovalTimeout => "The time to answer a card",
            Key::StartInSandbox => "Starting in the sandbox",
            Key::CacheTtl => "How long answers are cached",
            Key::AnswerFromTerminal => "Answering from a terminal",
            Key::GoogleBackend => "The way Gatehouse reaches Google",
        }
    }

    pub fn parse(name: &str) -> Result<Key, SettingsError> {
        Key::ALL.into_iter().find(|key| key.name() == name).ok_or_else(|| SettingsError::Unknown(name.to_owned()))
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a setting could not be read or saved. Each message says what to do, in plain words.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("There is no setting called {0:?}.")]
    Unknown(String),
    /// What the person typed can't be used; the message says why and what would do.
    #[error("{0}")]
    Invalid(String),
    #[error("{} is set by your administrator, so it can't be changed here. Ask them if it needs to be different.", .0.label())]
    ByAdministrator(Key),
    #[error(
        "{} is set by {variable} in the environment Gatehouse was started with, so it can't be changed here. Remove {variable} there to choose it here.",
        .key.label()
    )]
    ByEnvironment { key: Key, variable: &'static str },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the person saved; `None` = not chosen (something else decides it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PersonSettings {
    pub response_cap: Option<usize>,
    pub gate_reads: Option<bool>,
    /// Tool names, in catalogue order.
    pub enabled_tools: Option<Vec<String>>,
    pub export_dir: Option<PathBuf>,
    pub approval_timeout: Option<Duration>,
    pub start_in_sandbox: Option<bool>,
    pub cache_ttl: Option<Duration>,
    pub answer_from_terminal: Option<bool>,
    pub google_backend: Option<GoogleBackend>,
}

impl PersonSettings {
    /// The settings saved in `store`. A saved value that can't be read (the file was edited by hand, or a
    /// newer Gatehouse wrote it) is logged and ignored, so it never stops Gatehouse from starting.
    pub async fn load(store: &Store) -> Result<Self, StoreError> {
        let mut settings = PersonSettings::default();
        for key in Key::ALL {
            let Some((text, seal)) = store.get_sealed_setting(key.name()).await? else { continue };
            // A setting that would loosen what the card protects counts only when Gatehouse wrote it.
            if key.needs_seal()
                && let Some(problem) = seal.problem()
            {
                tracing::warn!("the saved setting {key} is ignored: {problem}");
                continue;
            }
            if let Err(error) = settings.read(key, &text) {
                tracing::warn!("the saved setting {key} ({text:?}) is ignored: {error}");
            }
        }
        Ok(settings)
    }

    /// The settings saved under `home` (`gatehouse.db`), or none when nothing was saved yet or the store can't
    /// be read (logged): starting with the defaults beats not starting.
    pub async fn load_for_home(home: &Path) -> Self {
        let path = home.join(DATABASE_FILE);
        if !path.exists() {
            return PersonSettings::default();
        }
        let loaded = match Store::open(&path).await {
            Ok(store) => {
                let loaded = PersonSettings::load(&store).await;
                store.close().await;
                loaded
            }
            Err(error) => Err(error),
        };
        loaded.unwrap_or_else(|error| {
            tracing::warn!("{error} Your own settings (Advanced page) are not applied until this is fixed.");
            PersonSettings::default()
        })
    }

    /// Reads one saved value (the form [`set`] writes).
    fn read(&mut self, key: Key, text: &str) -> Result<(), SettingsError> {
        match key {
            Key::ResponseCap => self.response_cap = Some(response_cap(&json!(text))?),
            Key::GateReads => self.gate_reads = Some(saved_switch(key, text)?),
            // Read as saved: names this Gatehouse no longer has are left out, with a warning, when applied.
            Key::EnabledTools => {
                let names = crate::config::tool_names(text);
                if names.is_empty() {
                    return Err(SettingsError::Invalid("no tool is named".to_owned()));
                }
                self.enabled_tools = Some(names);
            }
            Key::ExportDir => self.export_dir = Some(PathBuf::from(text)),
            Key::ApprovalTimeout => {
                let secs = text.trim().parse::<u64>().map_err(|_| not_seconds(text))?;
                self.approval_timeout = Some(Duration::from_secs(secs));
            }
            Key::StartInSandbox => self.start_in_sandbox = Some(saved_switch(key, text)?),
            Key::CacheTtl => self.cache_ttl = Some(cache_ttl(&json!(text))?),
            Key::AnswerFromTerminal => self.answer_from_terminal = Some(saved_switch(key, text)?),
            Key::GoogleBackend => self.google_backend = Some(google_backend(&json!(text))?),
        }
        Ok(())
    }

    /// Whether the app should start in the sandbox: `GATEHOUSE_SANDBOX` when set to 1/true or 0/false, else the
    /// person's setting. (`--sandbox` on the command line is the shell's own and always wins.)
    pub fn starts_in_sandbox(&self, lookup: impl Fn(&str) -> Option<String>) -> bool {
        sandbox_variable(&lookup).unwrap_or(self.start_in_sandbox.unwrap_or(false))
    }
}

fn saved_switch(key: Key, text: &str) -> Result<bool, SettingsError> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(SettingsError::Invalid(format!("{} must be on or off, not {text:?}.", key.label()))),
    }
}

/// `GATEHOUSE_SANDBOX` when it says yes or no; anything else is left to the shell to refuse.
fn sandbox_variable(lookup: &impl Fn(&str) -> Option<String>) -> Option<bool> {
    match lookup("GATEHOUSE_SANDBOX")?.trim() {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

/// Who decides a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Default,
    Person,
    Environment { variable: &'static str },
    Administrator,
}

impl Source {
    /// Who decides it, in words, when it is not the person or the default.
    pub fn words(&self) -> Option<String> {
        match self {
            Source::Default | Source::Person => None,
            Source::Environment { variable } => {
                Some(format!("Set by {variable} in the environment Gatehouse was started with."))
            }
            Source::Administrator => Some("Set by your administrator.".to_owned()),
        }
    }
}

/// A value and who decides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided<T> {
    pub value: T,
    pub source: Source,
}

fn decided<T>(value: T, source: Source) -> Decided<T> {
    Decided { value, source }
}

/// What a host started now would use, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub response_cap: Decided<usize>,
    pub gate_reads: Decided<bool>,
    /// `None`: every tool.
    pub enabled_tools: Decided<Option<Vec<String>>>,
    pub export_dir: Decided<PathBuf>,
    pub approval_timeout: Decided<Duration>,
    pub start_in_sandbox: Decided<bool>,
    pub cache_ttl: Decided<Duration>,
    pub answer_from_terminal: Decided<bool>,
    pub google_backend: Decided<GoogleBackend>,
}

/// Whether `variable` is set (an empty value counts as unset, as [`Config`] reads it).
fn is_set(lookup: &impl Fn(&str) -> Option<String>, variable: &str) -> bool {
    lookup(variable).is_some_and(|value| !value.trim().is_empty())
}

/// Decides every value (see the module documentation): `policy` is the administrator's file, `lookup` the
/// environment, `config` gives the home (for the default export folder).
pub fn decide(
    person: &PersonSettings,
    config: &Config,
    policy: &Policy,
    lookup: impl Fn(&str) -> Option<String>,
) -> Effective {
    let from_env = |key: Key| key.variable().filter(|variable| is_set(&lookup, variable));
    // A variable's own value, read as `Config::from_lookup` reads it (`config` holds it unless the caller built
    // the configuration some other way).
    let variable = |variable: &str| lookup(variable).map(|value| value.trim().to_owned()).unwrap_or_default();
    let response_cap = match (from_env(Key::ResponseCap), person.response_cap) {
        (Some(name), _) => {
            let cap = variable(name).parse().unwrap_or(config.max_response_chars);
            decided(cap, Source::Environment { variable: name })
        }
        (None, Some(cap)) => decided(cap, Source::Person),
        (None, None) => decided(DEFAULT_MAX_RESPONSE_CHARS, Source::Default),
    };
    let gate_reads = match (policy.admin_gate_reads(), person.gate_reads) {
        (true, _) => decided(true, Source::Administrator),
        (false, Some(gate)) => decided(gate, Source::Person),
        (false, None) => decided(false, Source::Default),
    };
    let enabled_tools = match (from_env(Key::EnabledTools), &person.enabled_tools) {
        (Some(name), _) => {
            let names = variable(name).split(',').map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()).collect();
            decided(Some(names), Source::Environment { variable: name })
        }
        (None, Some(tools)) => decided(Some(tools.clone()), Source::Person),
        (None, None) => decided(None, Source::Default),
    };
    let export_dir = match (from_env(Key::ExportDir), &person.export_dir) {
        (Some(name), _) => decided(PathBuf::from(variable(name)), Source::Environment { variable: name }),
        (None, Some(dir)) => decided(dir.clone(), Source::Person),
        (None, None) => decided(config.home.join("exports"), Source::Default),
    };
    let approval_timeout = match (policy.admin_approval_timeout(), person.approval_timeout) {
        (Some(cap), Some(chosen)) if chosen <= cap => decided(chosen, Source::Person),
        (Some(cap), _) => decided(cap, Source::Administrator),
        (None, Some(chosen)) => decided(chosen, Source::Person),
        (None, None) => decided(DEFAULT_APPROVAL_TIMEOUT, Source::Default),
    };
    let start_in_sandbox = match (sandbox_variable(&lookup), person.start_in_sandbox) {
        (Some(sandbox), _) => decided(sandbox, Source::Environment { variable: "GATEHOUSE_SANDBOX" }),
        (None, Some(sandbox)) => decided(sandbox, Source::Person),
        (None, None) => decided(false, Source::Default),
    };
    let cache_ttl = decide_cache_ttl(person.cache_ttl);
    let answer_from_terminal = match person.answer_from_terminal {
        Some(on) => decided(on, Source::Person),
        None => decided(false, Source::Default),
    };
    let google_backend = match (from_env(Key::GoogleBackend), person.google_backend) {
        (Some(name), _) => {
            let backend = GoogleBackend::parse(&variable(name)).unwrap_or(config.google_backend);
            decided(backend, Source::Environment { variable: name })
        }
        (None, Some(backend)) => decided(backend, Source::Person),
        (None, None) => decided(GoogleBackend::default(), Source::Default),
    };
    Effective {
        response_cap,
        gate_reads,
        enabled_tools,
        export_dir,
        approval_timeout,
        start_in_sandbox,
        cache_ttl,
        answer_from_terminal,
        google_backend,
    }
}

/// The cache's time to live: the person's choice, else the default (no variable or policy decides it).
fn decide_cache_ttl(person: Option<Duration>) -> Decided<Duration> {
    match person {
        Some(ttl) => decided(ttl, Source::Person),
        None => decided(DEFAULT_CACHE_TTL, Source::Default),
    }
}

/// The cache's time to live as the cache uses it, read from `store` at each call so a change applies at once.
pub async fn cache_ttl_in(store: &Store) -> Result<Decided<Duration>, StoreError> {
    let saved = store.get_setting(Key::CacheTtl.name()).await?;
    let person = saved.and_then(|text| match cache_ttl(&json!(text)) {
        Ok(ttl) => Some(ttl),
        Err(error) => {
            tracing::warn!("the saved setting {} ({text:?}) is ignored: {error}", Key::CacheTtl);
            None
        }
    });
    Ok(decide_cache_ttl(person))
}

/// Whether the person turned on *Answer from a terminal* (in the store under `home`, where the settings live
/// whatever the host serves). Read at each terminal answer; a store that can't be read says no (logged).
pub async fn answers_from_terminal(home: &Path) -> bool {
    PersonSettings::load_for_home(home).await.answer_from_terminal.unwrap_or(false)
}

/// [`answers_from_terminal`] from an open `store`. The row counts only when Gatehouse sealed it
/// ([`Key::needs_seal`]): one written into the file by another program leaves terminal answers off.
pub async fn answers_from_terminal_in(store: &Store) -> bool {
    match PersonSettings::load(store).await {
        Ok(settings) => settings.answer_from_terminal.unwrap_or(false),
        Err(error) => {
            tracing::warn!("{error} Answers from a terminal stay off until this is fixed.");
            false
        }
    }
}

/// Saves the person's cache time to live (`set_cache_ttl`), checked as the settings window checks it.
pub async fn save_cache_ttl(store: &Store, input: &Value) -> Result<Duration, SettingsError> {
    let ttl = cache_ttl(input)?;
    store.set_setting(Key::CacheTtl.name(), &ttl.as_secs().to_string()).await?;
    Ok(ttl)
}

/// Applies the person's settings to a host's `config` and the administrator's `policy` (see the module
/// documentation for which wins). A saved export folder that is gone, or saved tools that are not in
/// `catalogue` (this Gatehouse's tools) any more, are logged and left out rather than stopping the start.
pub fn apply<T: AsRef<ToolMeta>>(
    config: &mut Config,
    policy: Policy,
    person: &PersonSettings,
    lookup: impl Fn(&str) -> Option<String>,
    catalogue: &[T],
) -> Policy {
    let effective = decide(person, config, &policy, lookup);
    config.max_response_chars = effective.response_cap.value;
    if effective.google_backend.source == Source::Person {
        config.google_backend = effective.google_backend.value;
    }
    if effective.enabled_tools.source == Source::Person {
        let tools: Vec<String> = effective
            .enabled_tools
            .value
            .into_iter()
            .flatten()
            .filter(|name| {
                let exists = catalogue.iter().any(|tool| tool.as_ref().name == name.as_str());
                if !exists {
                    tracing::warn!("the enabled tool {name:?} saved in your settings is not a tool of this Gatehouse");
                }
                exists
            })
            .collect();
        config.enabled_tools = (!tools.is_empty()).then_some(tools);
    }
    if effective.export_dir.source == Source::Person {
        let dir = effective.export_dir.value;
        if dir.is_dir() {
            config.export_dir = dir;
        } else {
            tracing::warn!(
                "the export folder {} chosen in your settings does not exist any more: using {} until you choose another",
                dir.display(),
                config.export_dir.display()
            );
        }
    }
    policy.with_person(person.gate_reads.unwrap_or(false), person.approval_timeout)
}

/// One setting as the settings window shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SettingView {
    pub key: Key,
    /// What applies from the next start: a number (characters, seconds), a switch, a folder, or tool names.
    pub value: Value,
    pub default: Value,
    pub source: Source,
    /// Who decides it, in words, when the person can't ("Set by your administrator.").
    pub decided_by: Option<String>,
    /// Whether the person may change it here.
    pub editable: bool,
    /// A bound on the person's choice, in words ("Your administrator allows at most 300 seconds.").
    pub limit: Option<String>,
    /// The value differs from what the running Gatehouse uses: it applies when Gatehouse restarts.
    pub restart_needed: bool,
}

/// What the engine serving now runs with, for [`view`] to tell which values wait for a restart
/// (`ops::settings` reads it from the engine).
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub max_response_chars: usize,
    pub gate_reads: bool,
    /// The enabled tools' names, in catalogue order.
    pub enabled_tools: Vec<&'static str>,
    pub export_dir: PathBuf,
    pub approval_timeout: Duration,
    pub google_backend: GoogleBackend,
    /// It serves the built-in emulator's sample files.
    pub sandbox: bool,
}

/// Every setting as the settings window shows it, the tools among `catalogue` (this Gatehouse's tools);
/// `running` (what the engine serving now runs with) tells which values wait for a restart.
pub fn view<T: AsRef<ToolMeta>>(
    person: &PersonSettings,
    config: &Config,
    policy: &Policy,
    lookup: impl Fn(&str) -> Option<String>,
    running: Option<&Running>,
    catalogue: &[T],
) -> Vec<SettingView> {
    let effective = decide(person, config, policy, lookup);
    let all_names: Vec<String> = catalogue.iter().map(|tool| tool.as_ref().name.to_owned()).collect();
    let tools_value = |tools: &Option<Vec<String>>| {
        let names: Vec<&String> = match tools {
            Some(chosen) => all_names.iter().filter(|name| chosen.contains(name)).collect(),
            None => all_names.iter().collect(),
        };
        json!(names)
    };
    let timeout_limit = match policy.admin_approval_timeout() {
        Some(cap) => format!("Your administrator allows at most {}.", seconds_words(cap.as_secs())),
        None => format!("From {MIN_APPROVAL_TIMEOUT_SECS} seconds to {}.", seconds_words(MAX_APPROVAL_TIMEOUT_SECS)),
    };
    let cap_limit = format!("From {} to {} characters.", grouped(MIN_RESPONSE_CHARS), grouped(MAX_RESPONSE_CHARS));
    let rows = [
        (
            Key::ResponseCap,
            json!(effective.response_cap.value),
            json!(DEFAULT_MAX_RESPONSE_CHARS),
            effective.response_cap.source,
            Some(cap_limit),
        ),
        (Key::GateReads, json!(effective.gate_reads.value), json!(false), effective.gate_reads.source, None),
        (
            Key::EnabledTools,
            tools_value(&effective.enabled_tools.value),
            json!(all_names),
            effective.enabled_tools.source,
            None,
        ),
        (
            Key::ExportDir,
            json!(effective.export_dir.value.display().to_string()),
            json!(config.home.join("exports").display().to_string()),
            effective.export_dir.source,
            None,
        ),
        (
            Key::ApprovalTimeout,
            json!(effective.approval_timeout.value.as_secs()),
            json!(policy.admin_approval_timeout().unwrap_or(DEFAULT_APPROVAL_TIMEOUT).as_secs()),
            effective.approval_timeout.source,
            Some(timeout_limit),
        ),
        (
            Key::GoogleBackend,
            json!(effective.google_backend.value.name()),
            json!(GoogleBackend::default().name()),
            effective.google_backend.source,
            Some("both, mcp or rest.".to_owned()),
        ),
        (
            Key::StartInSandbox,
            json!(effective.start_in_sandbox.value),
            json!(false),
            effective.start_in_sandbox.source,
            None,
        ),
        (
            Key::CacheTtl,
            json!(effective.cache_ttl.value.as_secs()),
            json!(DEFAULT_CACHE_TTL.as_secs()),
            effective.cache_ttl.source,
            Some(format!("From 0 (no cache) to {}.", seconds_words(MAX_CACHE_TTL_SECS))),
        ),
        (
            Key::AnswerFromTerminal,
            json!(effective.answer_from_terminal.value),
            json!(false),
            effective.answer_from_terminal.source,
            None,
        ),
    ];
    rows.into_iter()
        .map(|(key, value, default, source, limit)| {
            // The wait for an answer stays the person's to shorten under an administrator's limit.
            let editable = match (&source, key) {
                (Source::Environment { .. }, _) => false,
                (Source::Administrator, Key::ApprovalTimeout) => true,
                (Source::Administrator, _) => false,
                _ => true,
            };
            let restart_needed = running.is_some_and(|running| differs_from_running(key, &value, running));
            SettingView { key, value, default, decided_by: source.words(), source, editable, limit, restart_needed }
        })
        .collect()
}

/// Whether `value` (from [`view`]) is not what the engine runs with.
fn differs_from_running(key: Key, value: &Value, engine: &Running) -> bool {
    let running = match key {
        Key::ResponseCap => json!(engine.max_response_chars),
        Key::GateReads => json!(engine.gate_reads),
        Key::EnabledTools => json!(engine.enabled_tools),
        Key::ExportDir => json!(engine.export_dir.display().to_string()),
        Key::ApprovalTimeout => json!(engine.approval_timeout.as_secs()),
        // The app also starts in the sandbox when nobody is signed in: only asking for it can wait for a restart.
        Key::StartInSandbox => return value == &json!(true) && !engine.sandbox,
        // The cache reads it at every call; terminal answers read it at each answer.
        Key::CacheTtl | Key::AnswerFromTerminal => return false,
        Key::GoogleBackend => json!(engine.google_backend.name()),
    };
    &running != value
}

/// A tool as the *Enabled tools* list shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolChoice {
    pub name: &'static str,
    /// Its plain-words label ("Update cells").
    pub title: &'static str,
    /// "Sheets", "Docs" or "Drive".
    pub service: &'static str,
    /// It changes something (so its calls ask first).
    pub changes: bool,
}

/// Every tool of `catalogue` (Gatehouse's tools), in its order, from the tools' own declarations.
pub fn tool_choices<T: AsRef<ToolMeta>>(catalogue: &[T]) -> Vec<ToolChoice> {
    catalogue
        .iter()
        .map(|tool| {
            let meta = tool.as_ref();
            ToolChoice {
                name: meta.name,
                title: meta.title,
                service: meta.service.label(),
                changes: matches!(meta.access, Access::Write(_)),
            }
        })
        .collect()
}

/// Opens the store the person's settings live in: `gatehouse.db` under `home`, whatever the host serves.
pub async fn open_store(home: &Path) -> Result<Store, SettingsError> {
    Ok(Store::open(&home.join(DATABASE_FILE)).await?)
}

/// Saves the person's choice for `key` from what the settings window sent (`input`: text or a number for the
/// cap and the wait, a switch, a folder, a list of tool names). Refused, in words, when the administrator or
/// the environment decides the setting, or the input can't be used. Ticking every tool saves "every tool",
/// so tools added by a later Gatehouse are on too; tool names are checked against `catalogue` (Gatehouse's
/// tools).
pub async fn set<T: AsRef<ToolMeta>>(
    store: &Store,
    key: Key,
    input: &Value,
    policy: &Policy,
    lookup: impl Fn(&str) -> Option<String>,
    catalogue: &[T],
) -> Result<(), SettingsError> {
    if let Some(variable) = key.variable().filter(|variable| match key {
        Key::StartInSandbox => sandbox_variable(&lookup).is_some(),
        _ => is_set(&lookup, variable),
    }) {
        return Err(SettingsError::ByEnvironment { key, variable });
    }
    let text = match key {
        Key::ResponseCap => Some(response_cap(input)?.to_string()),
        Key::GateReads => {
            let gate = switch(key, input)?;
            if policy.admin_gate_reads() && !gate {
                return Err(SettingsError::ByAdministrator(key));
            }
            Some(gate.to_string())
        }
        Key::EnabledTools => {
            let tools = tool_list(input, catalogue)?;
            (tools.len() < catalogue.len()).then(|| tools.join(","))
        }
        Key::ExportDir => Some(export_dir(input)?.display().to_string()),
        Key::ApprovalTimeout => Some(approval_timeout(input, policy.admin_approval_timeout())?.as_secs().to_string()),
        Key::StartInSandbox => Some(switch(key, input)?.to_string()),
        Key::CacheTtl => Some(cache_ttl(input)?.as_secs().to_string()),
        Key::AnswerFromTerminal => Some(switch(key, input)?.to_string()),
        Key::GoogleBackend => Some(google_backend(input)?.name().to_owned()),
    };
    match text {
        Some(text) => store.set_setting(key.name(), &text).await?,
        None => store.remove_setting(key.name()).await?,
    }
    Ok(())
}

/// Forgets the person's choice for `key`: the default (or what else decides it) applies from the next start.
pub async fn reset(store: &Store, key: Key) -> Result<(), SettingsError> {
    Ok(store.remove_setting(key.name()).await?)
}

fn switch(key: Key, input: &Value) -> Result<bool, SettingsError> {
    input.as_bool().ok_or_else(|| SettingsError::Invalid(format!("{} can only be turned on or off.", key.label())))
}

/// The whole number in `input`: a JSON number, or text with optional thousands separators ("1,000,000").
fn whole_number(input: &Value) -> Option<u64> {
    match input {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => {
            let digits: String = text.trim().chars().filter(|c| !matches!(c, ',' | '_' | ' ' | '\u{a0}')).collect();
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok()
        }
        _ => None,
    }
}

/// The text the person typed, for messages.
fn typed(input: &Value) -> String {
    match input {
        Value::String(text) => text.trim().to_owned(),
        other => other.to_string(),
    }
}

fn response_cap(input: &Value) -> Result<usize, SettingsError> {
    let chars = whole_number(input).and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
        SettingsError::Invalid(format!(
            "\u{201c}{}\u{201d} is not a number of characters. Type a whole number, such as {} (the default).",
            typed(input),
            grouped(DEFAULT_MAX_RESPONSE_CHARS)
        ))
    })?;
    if chars < MIN_RESPONSE_CHARS {
        return Err(SettingsError::Invalid(format!(
            "A limit of {} characters is too small: even short answers would be refused. Use at least {} (the default is {}).",
            grouped(chars),
            grouped(MIN_RESPONSE_CHARS),
            grouped(DEFAULT_MAX_RESPONSE_CHARS)
        )));
    }
    if chars > MAX_RESPONSE_CHARS {
        return Err(SettingsError::Invalid(format!(
            "A limit of {} characters is too large: answers that big can make an assistant stop working. Use at most {}.",
            grouped(chars),
            grouped(MAX_RESPONSE_CHARS)
        )));
    }
    Ok(chars)
}

fn not_seconds(text: &str) -> SettingsError {
    SettingsError::Invalid(format!(
        "\u{201c}{}\u{201d} is not a number of seconds. Type a whole number of seconds, such as 120 (two minutes).",
        text.trim()
    ))
}

fn google_backend(input: &Value) -> Result<GoogleBackend, SettingsError> {
    input.as_str().and_then(GoogleBackend::parse).ok_or_else(|| {
        SettingsError::Invalid(format!(
            "\u{201c}{}\u{201d} is not a way to reach Google. Choose both (Google's MCP servers where they can serve a tool, its REST APIs otherwise), mcp (Google's MCP servers only) or rest (its REST APIs only).",
            typed(input)
        ))
    })
}

fn cache_ttl(input: &Value) -> Result<Duration, SettingsError> {
    let secs = whole_number(input).ok_or_else(|| not_seconds(&typed(input)))?;
    if secs > MAX_CACHE_TTL_SECS {
        return Err(SettingsError::Invalid(format!(
            "Answers can be cached for at most {MAX_CACHE_TTL_SECS} seconds (one day). Use a smaller number, or 0 to turn the cache off."
        )));
    }
    Ok(Duration::from_secs(secs))
}

fn approval_timeout(input: &Value, admin_cap: Option<Duration>) -> Result<Duration, SettingsError> {
    let secs = whole_number(input).ok_or_else(|| not_seconds(&typed(input)))?;
    if secs < MIN_APPROVAL_TIMEOUT_SECS {
        return Err(SettingsError::Invalid(format!(
            "A card that waits only {} would refuse changes before you could read it. Use at least {MIN_APPROVAL_TIMEOUT_SECS} seconds.",
            seconds_words(secs)
        )));
    }
    match admin_cap {
        Some(cap) if secs > cap.as_secs() => Err(SettingsError::Invalid(format!(
            "Your administrator allows a card to wait at most {}. Use {} seconds or less.",
            seconds_words(cap.as_secs()),
            cap.as_secs()
        ))),
        _ if secs > MAX_APPROVAL_TIMEOUT_SECS => Err(SettingsError::Invalid(format!(
            "A card can wait at most {MAX_APPROVAL_TIMEOUT_SECS} seconds (one day): an assistant left waiting longer than that has given up. Use a smaller number."
        ))),
        _ => Ok(Duration::from_secs(secs)),
    }
}

/// The tool names in `input`, checked against `catalogue` and put in its order.
fn tool_list<T: AsRef<ToolMeta>>(input: &Value, catalogue: &[T]) -> Result<Vec<String>, SettingsError> {
    let names: Vec<&str> = input
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).map(str::trim).filter(|name| !name.is_empty()).collect())
        .ok_or_else(|| SettingsError::Invalid("The enabled tools must be a list of tool names.".to_owned()))?;
    let tools: Vec<&str> = catalogue.iter().map(|tool| tool.as_ref().name).collect();
    if let Some(unknown) = names.iter().find(|name| !tools.contains(name)) {
        return Err(SettingsError::Invalid(format!(
            "{unknown:?} is not one of Gatehouse's tools. Choose from the list."
        )));
    }
    if names.is_empty() {
        return Err(SettingsError::Invalid(
            "Leave at least one tool turned on: with none, assistants can't do anything in your files.".to_owned(),
        ));
    }
    Ok(tools.into_iter().filter(|name| names.contains(name)).map(str::to_owned).collect())
}

/// The folder in `input`: a full path to an existing folder Gatehouse can write in (checked by writing and
/// removing a small file).
fn export_dir(input: &Value) -> Result<PathBuf, SettingsError> {
    let text = input.as_str().map(str::trim).unwrap_or_default();
    if text.is_empty() {
        return Err(SettingsError::Invalid(
            "Choose a folder for exported files, or use Reset to go back to the default one.".to_owned(),
        ));
    }
    let dir = PathBuf::from(text);
    if !dir.is_absolute() {
        return Err(SettingsError::Invalid(format!(
            "\u{201c}{text}\u{201d} is not a full folder location. Type the whole path, such as {}.",
            if cfg!(windows) { r"C:\Users\ada\Documents\Gatehouse" } else { "/home/ada/Documents/Gatehouse" }
        )));
    }
    match std::fs::metadata(&dir) {
        Err(_) => {
            return Err(SettingsError::Invalid(format!(
                "The folder {} does not exist. Create it first, or choose another one.",
                dir.display()
            )));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(SettingsError::Invalid(format!("{} is a file, not a folder. Choose a folder.", dir.display())));
        }
        Ok(_) => {}
    }
    let probe = dir.join(format!(".gatehouse-write-check-{}", uuid::Uuid::new_v4()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(file) => {
            drop(file);
            if let Err(error) = std::fs::remove_file(&probe) {
                tracing::debug!("the write check {} could not be removed: {error}", probe.display());
            }
            Ok(dir)
        }
        Err(error) => Err(SettingsError::Invalid(format!(
            "Gatehouse can't save files in {} ({error}). Choose a folder you can save files in.",
            dir.display()
        ))),
    }
}

/// `300` → "300 seconds (5 minutes)".
fn seconds_words(secs: u64) -> String {
    let unit = if secs == 1 { "second" } else { "seconds" };
    match secs {
        s if s >= 3600 && s.is_multiple_of(3600) => {
            let hours = s / 3600;
            format!("{s} {unit} ({hours} hour{})", if hours == 1 { "" } else { "s" })
        }
        s if s >= 60 && s.is_multiple_of(60) => {
            let minutes = s / 60;
            format!("{s} {unit} ({minutes} minute{})", if minutes == 1 { "" } else { "s" })
        }
        s => format!("{s} {unit}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_type_them() {
        assert_eq!(whole_number(&json!("1,000,000")), Some(1_000_000));
        assert_eq!(whole_number(&json!(" 250 ")), Some(250));
        assert_eq!(whole_number(&json!(42)), Some(42));
        assert_eq!(whole_number(&json!("abc")), None);
        assert_eq!(whole_number(&json!("-5")), None);
        assert_eq!(whole_number(&json!("1.5")), None);
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(grouped(999), "999");
        assert_eq!(seconds_words(300), "300 seconds (5 minutes)");
        assert_eq!(seconds_words(86_400), "86400 seconds (24 hours)");
        assert_eq!(seconds_words(45), "45 seconds");
    }
}
