//! The settings window: *Account*, *Assistants*, *Permissions*, *Activity* and *Advanced*, one module per page.
//!
//! Every page shows what the core holds and changes it through the core's API; the pages' commands answer
//! only the `settings` window (capabilities/settings.json), never the card window and never the MCP side.

use std::net::SocketAddr;
use std::sync::Arc;

use gatehouse_core::{Config, Engine, Ops, RunningServers};
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, Runtime, State, WebviewUrl, WebviewWindowBuilder};

use crate::startup::Mode;

pub mod account;
pub mod activity;
pub mod advanced;
pub mod assistants;
pub mod permissions;

/// The settings window's label: the only window the settings commands answer.
pub const LABEL: &str = "settings";

/// Sent to the settings window with the page to show when it is opened on one (`"account"`, …).
pub const PAGE_EVENT: &str = "settings-page";

/// The pages, in the order the window lists them.
pub const PAGES: [&str; 5] = ["account", "assistants", "permissions", "activity", "advanced"];

/// What the settings pages read and change: the running core and how the app started it.
pub struct Core {
    pub engine: Arc<Engine>,
    pub config: Config,
    pub mode: Mode,
    /// The bound MCP-over-HTTP address, when the port was free.
    pub http: Option<SocketAddr>,
}

/// The window's header: whose files the assistants work in, the sandbox badge, and where MCP is served.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// The tray's first line, e.g. "Signed in as ada@example.com".
    pub mode: String,
    /// The built-in emulator's sample files are in use: the window shows a badge saying so.
    pub sandbox: bool,
    /// The sandbox is in use only because nobody is signed in (not the person's choice).
    pub sandbox_because_signed_out: bool,
    /// `http://127.0.0.1:8765/mcp`, when MCP over HTTP is served.
    pub http_url: Option<String>,
    pub version: &'static str,
}

impl Core {
    /// The management operations on the running engine's approvals database, telling every other running
    /// server that uses it of each change; `None` when the engine runs without one.
    pub fn open_ops(&self) -> Option<Ops> {
        let store = self.engine.approvals().store()?;
        Some(Ops::new(store.clone(), Arc::new(RunningServers::new(&self.config.home, store.path()))))
    }

    /// [`Core::open_ops`], or [`Error::NoStore`](crate::Error::NoStore).
    pub fn ops(&self) -> crate::Result<Ops> {
        self.open_ops().ok_or(crate::Error::NoStore)
    }

    pub fn overview(&self) -> Overview {
        Overview {
            mode: self.mode.label(),
            sandbox: matches!(self.mode, Mode::Sandbox { .. }),
            sandbox_because_signed_out: self.mode == (Mode::Sandbox { because_signed_out: true }),
            http_url: self.http.map(|addr| format!("http://{addr}/mcp")),
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// The header of the settings window.
#[tauri::command]
pub fn settings_overview(core: State<'_, Core>) -> Overview {
    core.overview()
}

/// Opens the settings window on `page` (one of [`PAGES`]), or brings it to the front.
pub fn open<R: Runtime>(app: &AppHandle<R>, page: &str) {
    let window = match app.get_webview_window(LABEL) {
        Some(window) => window,
        None => {
            let url = WebviewUrl::App(format!("settings.html#{page}").into());
            let built = WebviewWindowBuilder::new(app, LABEL, url)
                .title("Gatehouse")
                .inner_size(900.0, 640.0)
                .min_inner_size(520.0, 400.0)
                // Ctrl+= / Ctrl+- / Ctrl+0 zoom the page, as in a browser.
                .zoom_hotkeys_enabled(true)
                // A client file dropped on the Account page reaches the page (HTML drag and drop), which sends
                // its text to the core; Tauri's own handler would take the drop and give only its path.
                .disable_drag_drop_handler()
                .build();
            match built {
                Ok(window) => window,
                Err(error) => {
                    tracing::error!("the Gatehouse window could not be opened: {error}");
                    return;
                }
            }
        }
    };
    if let Err(error) = app.emit_to(LABEL, PAGE_EVENT, page) {
        tracing::debug!("the settings window could not be turned to {page}: {error}");
    }
    if let Err(error) = window.show().and_then(|()| window.set_focus()) {
        tracing::debug!("the settings window could not be brought to the front: {error}");
    }
}
