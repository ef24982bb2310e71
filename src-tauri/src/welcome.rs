//! The welcome window: what Gatehouse does, and its three first steps (*Sign in with Google*, *Try the
//! sandbox*, *Connect an assistant*). When it opens is the core's rule ([`gatehouse_core::welcome`]); this
//! module gathers the facts the rule needs, opens the window, and answers the window's commands, which only
//! the `welcome` window may call (capabilities/welcome.json).

use gatehouse_core::ops;
use gatehouse_core::settings::Key;
use gatehouse_core::welcome::{self, Reason, Start};
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, State, WebviewUrl, WebviewWindowBuilder};

use crate::Result;
use crate::settings::Core;
use crate::startup::Mode;

/// The welcome window's label: the only window the welcome commands answer.
pub const LABEL: &str = "welcome";

/// The window's inside, in CSS pixels: unlike the card's and the settings window's, so the tests tell them apart.
pub const WIDTH: f64 = 600.0;
pub const HEIGHT: f64 = 620.0;

/// What the app found at this start, kept for the window to say (the tray host, why it opened).
pub struct Welcome {
    pub start: Start,
    pub reason: Option<Reason>,
}

/// Decides at start whether the welcome window opens, opens it if so (noting in `GATEHOUSE_HOME` that it was
/// shown), and keeps what was found for the window's own questions.
pub fn open_at_start<R: Runtime>(app: &AppHandle<R>, start: Start, home: &std::path::Path) {
    let reason = welcome::welcome_reason(&start);
    tracing::info!(?start, ?reason, "deciding whether to open the welcome window");
    app.manage(Welcome { start, reason });
    if reason.is_some() {
        open(app);
        welcome::mark_shown(home);
    }
}

/// Opens the welcome window, or brings it to the front.
pub fn open<R: Runtime>(app: &AppHandle<R>) {
    let window = match app.get_webview_window(LABEL) {
        Some(window) => window,
        None => {
            let built = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("welcome.html".into()))
                .title("Gatehouse — welcome")
                .inner_size(WIDTH, HEIGHT)
                .min_inner_size(360.0, 360.0)
                .zoom_hotkeys_enabled(true)
                .build();
            match built {
                Ok(window) => window,
                Err(error) => {
                    tracing::error!("the welcome window could not be opened: {error}");
                    return;
                }
            }
        }
    };
    if let Err(error) = window.show().and_then(|()| window.set_focus()) {
        tracing::debug!("the welcome window could not be brought to the front: {error}");
    }
}

/// Whether this desktop shows tray icons. On Linux the tray (libappindicator) is a StatusNotifier item, shown
/// only where a StatusNotifier host has registered with the `org.kde.StatusNotifierWatcher` on the session
/// bus (KDE, most desktops with a panel; not stock GNOME without its AppIndicator extension). An XEmbed-only
/// tray isn't seen: the app then shows its window at each start, which is the side to err on. Asked over
/// GDBus (the gio that GTK brings) with a time limit, so a bus that doesn't answer can't hold the start.
/// Elsewhere the system always has a tray.
pub fn tray_host_present() -> bool {
    #[cfg(target_os = "linux")]
    {
        match status_notifier_host() {
            Ok(present) => present,
            Err(error) => {
                tracing::info!("no tray host found on the session bus ({error}); the app shows its window at start");
                false
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

#[cfg(target_os = "linux")]
fn status_notifier_host() -> Result<bool, gtk::glib::Error> {
    use gtk::gio::{self, DBusCallFlags};
    use gtk::glib::{ToVariant, VariantTy};

    const WATCHER: &str = "org.kde.StatusNotifierWatcher";
    /// Milliseconds per question to the bus.
    const TIMEOUT: i32 = 1000;
    let bus = gio::bus_get_sync(gio::BusType::Session, gio::Cancellable::NONE)?;
    let owned = bus.call_sync(
        Some("org.freedesktop.DBus"),
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "NameHasOwner",
        Some(&(WATCHER,).to_variant()),
        Some(VariantTy::new("(b)").expect("a D-Bus type")),
        DBusCallFlags::NONE,
        TIMEOUT,
        gio::Cancellable::NONE,
    )?;
    if owned.child_value(0).get::<bool>() != Some(true) {
        return Ok(false);
    }
    let registered = bus.call_sync(
        Some(WATCHER),
        "/StatusNotifierWatcher",
        "org.freedesktop.DBus.Properties",
        "Get",
        Some(&(WATCHER, "IsStatusNotifierHostRegistered").to_variant()),
        Some(VariantTy::new("(v)").expect("a D-Bus type")),
        DBusCallFlags::NONE,
        TIMEOUT,
        gio::Cancellable::NONE,
    )?;
    Ok(registered.child_value(0).as_variant().and_then(|value| value.get::<bool>()) == Some(true))
}

/// Whether an assistant is set up to start Gatehouse or has used it (the core's two signs of one), given what
/// the app already read (`used_before`). Reads assistants' config files only when that is not enough.
pub fn assistant_connected(used_before: bool) -> bool {
    used_before
        || gatehouse_core::connect::set_up_in(gatehouse_core::connect::ENTRY_NAME, &|name| std::env::var(name).ok())
            .is_some()
}

/// What the welcome window shows.
#[derive(Debug, Clone, Serialize)]
pub struct WelcomeView {
    /// Why it opened (`first_launch`, `nothing_set_up`, `no_tray`); `None` when the person opened it.
    pub reason: Option<Reason>,
    /// The desktop shows tray icons; when not, the window says how to open Gatehouse again.
    pub tray_host: bool,
    /// The account Gatehouse acts as, when it acts as one.
    pub signed_in_as: Option<String>,
    /// The built-in sample files are in use.
    pub sandbox: bool,
    /// An assistant was set up or has used Gatehouse when the app started.
    pub assistant_connected: bool,
}

/// The welcome window's contents.
#[tauri::command]
pub fn welcome_status(core: State<'_, Core>, welcome: State<'_, Welcome>) -> WelcomeView {
    let signed_in_as = match &core.mode {
        Mode::Account { account, .. } => Some(account.clone().unwrap_or_else(|| core.mode.label())),
        Mode::Sandbox { .. } => None,
    };
    WelcomeView {
        reason: welcome.reason,
        tray_host: welcome.start.tray_host,
        signed_in_as,
        sandbox: matches!(core.mode, Mode::Sandbox { .. }),
        assistant_connected: welcome.start.assistant_connected,
    }
}

/// *Sign in with Google* and *Connect an assistant*: the Gatehouse window on its Account or Assistants page,
/// where signing in and connecting happen.
#[tauri::command]
pub fn welcome_open_page<R: Runtime>(app: AppHandle<R>, page: String) -> Result<()> {
    match page.as_str() {
        "account" | "assistants" => {
            crate::settings::open(&app, &page);
            Ok(())
        }
        other => Err(format!("The welcome window can't open the page {other:?}; only account and assistants.").into()),
    }
}

/// What *Try the sandbox* did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxTried {
    /// Gatehouse already runs on the sample files: connect an assistant to try them.
    AlreadyIn,
    /// The sandbox is chosen (as *Start in the sandbox* on the Advanced page) and Gatehouse restarts into it.
    Restarting,
}

/// *Try the sandbox*: Gatehouse on the built-in emulator's sample files. Already there when nobody is signed
/// in; otherwise the person's *Start in the sandbox* setting is switched on and the app restarts into it
/// (turned off again on the Advanced page).
#[tauri::command]
pub async fn welcome_try_sandbox<R: Runtime>(app: AppHandle<R>, core: State<'_, Core>) -> Result<SandboxTried> {
    if matches!(core.mode, Mode::Sandbox { .. }) {
        return Ok(SandboxTried::AlreadyIn);
    }
    let sandbox = Key::StartInSandbox.name();
    ops::settings::set(&core.engine, &core.config, sandbox, &serde_json::Value::Bool(true), |name| {
        std::env::var(name).ok()
    })
    .await?;
    tracing::info!("the sandbox was chosen in the welcome window; restarting into it");
    let app = app.clone();
    // After the answer has reached the window, which goes away with the app.
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(800)).await;
        crate::settings::account::restart(&app);
    });
    Ok(SandboxTried::Restarting)
}
