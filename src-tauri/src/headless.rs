//! The app where there is no display (a server, an SSH session, a container): it says so and hosts the core
//! without windows, as `gatehouse serve --headless --http 127.0.0.1:8765` does, so assistants still reach it
//! over HTTP and through the `gatehouse serve` they start, and cards are answered with `gatehouse approvals`.
//!
//! The core starts through [`startup::start`], like the desktop's: the same choice of account or sandbox, the
//! same relays and HTTP address.

use gatehouse_core::host::stop_signal;

use crate::startup::{self, Mode, Options};

/// Whether a graphical display is reachable: an X11 or Wayland display is named (Linux and the BSDs; elsewhere
/// the desktop is always there).
pub fn has_display(lookup: impl Fn(&str) -> Option<String>) -> bool {
    if !cfg!(all(unix, not(target_os = "macos"))) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|name| lookup(name).is_some_and(|value| !value.trim().is_empty()))
}

/// Hosts the core until Ctrl-C or SIGTERM, then stops it: pending calls are denied and the control socket
/// removed.
pub fn run(options: Options) -> anyhow::Result<()> {
    tracing::warn!(
        "There is no graphical display here (neither DISPLAY nor WAYLAND_DISPLAY is set), so Gatehouse starts without its tray and windows."
    );
    tauri::async_runtime::block_on(async move {
        let started = startup::start(&options).await?;
        let files = match &started.mode {
            Mode::Sandbox { .. } => "the sandbox's sample files (nothing real is touched)".to_owned(),
            Mode::Account { account: Some(account), .. } => format!("the Google account {account}"),
            Mode::Account { account: None, method } => format!("the Google sign-in found ({})", method.as_str()),
        };
        tracing::info!(
            "Gatehouse is this user's host, working in {files}. The `gatehouse serve` your assistants start uses it."
        );
        if let Some(local) = started.http {
            tracing::info!(
                "MCP over HTTP: http://{local}/mcp (bearer token: `gatehouse serve --print-token`, or one per assistant: `gatehouse assistants add NAME`)."
            );
        }
        tracing::info!(
            "Changes wait for your approval: answer them in another terminal with `gatehouse approvals`. Stop Gatehouse with Ctrl-C."
        );
        stop_signal().await;
        tracing::info!("stopping: asked to by a signal");
        started.host.shutdown().await;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn a_display_is_an_x11_or_wayland_one_that_is_named() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| (*value).to_owned())
        };
        assert!(!has_display(env(&[])));
        assert!(!has_display(env(&[("DISPLAY", ""), ("WAYLAND_DISPLAY", " ")])));
        assert!(has_display(env(&[("DISPLAY", ":0")])));
        assert!(has_display(env(&[("WAYLAND_DISPLAY", "wayland-0")])));
    }
}
