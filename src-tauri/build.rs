//! Generates the app's command permissions (`allow-card-pending`, `allow-card-answer`, …) and reads the
//! capabilities: once the app declares its commands here, Tauri refuses each of them to any window no
//! capability grants it to (only the `card` window, see capabilities/card.json).

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&["card_pending", "card_answer", "settings_overview"]);
    if let Err(error) = tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)) {
        // A build script reports through cargo's output; there is no caller to return the error to.
        panic!("the desktop app's Tauri configuration could not be read: {error:#}");
    }
}
