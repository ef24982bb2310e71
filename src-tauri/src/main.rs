//! `gatehouse-desktop`: Gatehouse in the tray, with its approval cards.

// No console window on Windows release builds: the app lives in the tray.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use gatehouse_desktop::headless;
use gatehouse_desktop::startup::Options;

fn main() -> ExitCode {
    draw_without_gpu_compositing();
    // Logs go to stderr, like the CLI's; GATEHOUSE_LOG filters them, never showing the person's data.
    gatehouse_core::logging::init_stderr();

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

/// On Linux, WebKitGTK draws the app's pages without its GPU compositor, unless the person set
/// `WEBKIT_DISABLE_COMPOSITING_MODE` themselves (to anything: WebKit only asks whether it is set). Our pages
/// are small and still, so the compositor gains them nothing, and setting it up for a window never shown before
/// was most of the time to the first card's first frame: without it that frame came 119–191 ms after the
/// call here instead of 195–290 ms (docs/benchmarks.md). It is an environment variable because WebKitGTK reads it
/// for the whole process; a web view's own setting (its hardware acceleration policy), changed after the view
/// was made, left the card's page reporting itself hidden. Programs the app starts inherit it.
fn draw_without_gpu_compositing() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        // SAFETY: the first thing `main` does, so no other thread runs yet to read the environment meanwhile.
        unsafe { std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1") };
    }
}
