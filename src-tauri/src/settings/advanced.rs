//! The *Advanced* page: the person's own settings (response cap, asking before reads, enabled tools, export
//! folder, time to answer a card, starting in the sandbox) and *Start at login*.
//!
//! The settings are the core's ([`gatehouse_core::settings`]): it keeps them, checks what the person typed,
//! and says which ones the administrator's policy or the environment decides. They apply when Gatehouse
//! starts, so the page says which values wait for a restart and offers *Restart now*. *Start at login* is OS
//! integration ([`gatehouse_core::autostart`]) and applies at once.

use std::sync::Arc;

use gatehouse_core::autostart::Autostart;
use gatehouse_core::ops;
use gatehouse_core::settings::{SettingView, ToolChoice};
use serde::Serialize;
use serde_json::Value;
use tauri::{AppHandle, Manager, Runtime, State};

use super::Core;
use crate::Result;

/// Reads one environment variable.
pub type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// How the page reads the environment (the process's; tests give their own). Managed on first use.
#[derive(Clone)]
pub struct Environment(pub Lookup);

impl Environment {
    pub fn from_process() -> Self {
        Self(Arc::new(|name| std::env::var(name).ok()))
    }
}

fn environment<R: Runtime>(app: &AppHandle<R>) -> Environment {
    if app.try_state::<Environment>().is_none() {
        app.manage(Environment::from_process());
    }
    app.state::<Environment>().inner().clone()
}

fn autostart<R: Runtime>(app: &AppHandle<R>) -> State<'_, Autostart> {
    if app.try_state::<Autostart>().is_none() {
        app.manage(Autostart::from_env());
    }
    app.state::<Autostart>()
}

/// *Start at login* as the page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct StartAtLogin {
    /// This OS can do it from here; when not, the page says so.
    pub supported: bool,
    pub enabled: bool,
}

/// What the Advanced page shows.
#[derive(Debug, Clone, Serialize)]
pub struct AdvancedView {
    pub settings: Vec<SettingView>,
    /// Every tool, for the *Enabled tools* checkboxes.
    pub tools: Vec<ToolChoice>,
    pub start_at_login: StartAtLogin,
    /// Some value differs from what the running Gatehouse uses.
    pub restart_needed: bool,
    /// Approval cards waiting for an answer: a restart refuses them.
    pub waiting_cards: usize,
}

async fn view<R: Runtime>(app: &AppHandle<R>, core: &Core) -> Result<AdvancedView> {
    let env = environment(app);
    let settings = ops::settings::view(&core.engine, &core.config, |name| (env.0)(name)).await?;
    let autostart = autostart(app);
    Ok(AdvancedView {
        restart_needed: settings.iter().any(|setting| setting.restart_needed),
        settings,
        tools: ops::settings::tool_choices(),
        start_at_login: StartAtLogin { supported: autostart.supported(), enabled: autostart.is_enabled() },
        waiting_cards: core.engine.approvals().broker().pending().len(),
    })
}

/// The Advanced page.
#[tauri::command]
pub async fn advanced_settings<R: Runtime>(app: AppHandle<R>, core: State<'_, Core>) -> Result<AdvancedView> {
    view(&app, &core).await
}

/// Saves the person's choice for `key` (`value`: text or a number for the cap and the wait, true/false for a
/// switch, a folder's path, a list of tool names). Refused in words when it can't be used or isn't theirs to
/// change. Returns the page as it is now.
#[tauri::command]
pub async fn advanced_set<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    key: String,
    value: Value,
) -> Result<AdvancedView> {
    let env = environment(&app);
    ops::settings::set(&core.engine, &core.config, &key, &value, |name| (env.0)(name)).await?;
    view(&app, &core).await
}

/// Forgets the person's choice for `key`, so the default applies again. Returns the page as it is now.
#[tauri::command]
pub async fn advanced_reset<R: Runtime>(app: AppHandle<R>, core: State<'_, Core>, key: String) -> Result<AdvancedView> {
    ops::settings::reset(&core.config, &key).await?;
    view(&app, &core).await
}

/// Turns *Start at login* on or off; it applies at once. Returns the page as it is now.
#[tauri::command]
pub async fn advanced_start_at_login<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    enabled: bool,
) -> Result<AdvancedView> {
    autostart(&app).set(enabled).map_err(|error| error.to_string())?;
    view(&app, &core).await
}

/// *Restart now*: Gatehouse starts again with the saved settings (what is waiting is refused first).
#[tauri::command]
pub fn advanced_restart<R: Runtime>(app: AppHandle<R>) {
    super::account::restart(&app);
}
