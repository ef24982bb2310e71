//! `gatehouse-desktop`: Gatehouse in the tray, with its approval cards.

// No console window on Windows release builds: the app lives in the tray.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use gatehouse_desktop::startup::Options;

fn main() -> ExitCode {
    // Logs go to stderr, like the CLI's; GATEHOUSE_LOG filters them.
    let filter = tracing_subscriber::EnvFilter::try_from_env("GATEHOUSE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).init();

    let options = match Options::parse(std::env::args().skip(1), |name| std::env::var(name).ok()) {
        Ok(options) => options,
        Err(error) => {
            tracing::error!("{error}");
            return ExitCode::from(2);
        }
    };
    if cfg!(target_os = "linux") && !has_display() {
        tracing::error!(
            "There is no graphical display here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop app cannot start. Run `gatehouse serve --http 127.0.0.1:8765` instead, or start it from a desktop session."
        );
        return ExitCode::from(1);
    }
    match gatehouse_desktop::run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("Gatehouse could not start: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()))
}
