//! The person's own settings (the Advanced page, `settings` in the core): reading them as the running engine
//! sees them, changing one, and forgetting one. The rules (what may be typed, who decides a setting) are
//! `crate::settings`'; this is where they meet the engine that serves now.

use serde_json::Value;

use crate::Engine;
use crate::config::Config;
use crate::settings::{self, Key, PersonSettings, Running, SettingView, SettingsError};

/// What `engine` runs with, for telling which saved values wait for a restart.
pub fn running(engine: &Engine) -> Running {
    let config = &engine.context().config;
    let policy = engine.approvals().policy();
    Running {
        max_response_chars: config.max_response_chars,
        gate_reads: policy.gate_reads(),
        enabled_tools: engine.tools().iter().map(|tool| tool.meta.name).collect(),
        export_dir: config.export_dir.clone(),
        approval_timeout: policy.approval_timeout(),
        google_backend: config.google_backend,
        sandbox: engine.is_sandbox(),
    }
}

/// Every setting under `config.home` as the settings window shows it, with which values wait for `engine` to
/// restart. `lookup` reads the environment (which decides a setting it names).
pub async fn view(
    engine: &Engine,
    config: &Config,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<SettingView>, SettingsError> {
    let store = settings::open_store(&config.home).await?;
    let person = PersonSettings::load(&store).await;
    store.close().await;
    let person = person?;
    let catalogue = crate::tools::sets::catalogue();
    Ok(settings::view(&person, config, engine.approvals().policy(), lookup, Some(&running(engine)), catalogue))
}

/// Saves the person's choice for the setting named `key` (see [`settings::set`] for what `value` may be).
/// Returns the setting.
pub async fn set(
    engine: &Engine,
    config: &Config,
    key: &str,
    value: &Value,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Key, SettingsError> {
    let key = Key::parse(key)?;
    let store = settings::open_store(&config.home).await?;
    let catalogue = crate::tools::sets::catalogue();
    let saved = settings::set(&store, key, value, engine.approvals().policy(), lookup, catalogue).await;
    store.close().await;
    saved?;
    tracing::info!(setting = %key, "a setting was changed");
    Ok(key)
}

/// Every tool of this Gatehouse, as the *Enabled tools* list shows it.
pub fn tool_choices() -> Vec<settings::ToolChoice> {
    settings::tool_choices(crate::tools::sets::catalogue())
}

/// Forgets the person's choice for the setting named `key`, so its default applies again.
pub async fn reset(config: &Config, key: &str) -> Result<Key, SettingsError> {
    let key = Key::parse(key)?;
    let store = settings::open_store(&config.home).await?;
    let reset = settings::reset(&store, key).await;
    store.close().await;
    reset?;
    Ok(key)
}
