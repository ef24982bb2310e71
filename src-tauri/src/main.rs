//! `gatehouse-desktop`: Gatehouse in the tray, with its approval cards.

// No console window on Windows release builds: the app lives in the tray.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use gatehouse_desktop::headless;
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
    // No display (a server, an SSH session): the same core, without tray and windows.
    let run = match headless::has_display(|name| std::env::var(name).ok()) {
        true => gatehouse_desktop::run,
        false => headless::run,
    };
    match run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("Gatehouse could not start: {error:#}");
            ExitCode::from(1)
        }
    }
}
