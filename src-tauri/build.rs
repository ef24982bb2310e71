//! Generates the app's command permissions (`allow-card-pending`, `allow-card-answer`, …) and reads the
//! capabilities: once the app declares its commands here, Tauri refuses each of them to any window no
//! capability grants it to (only the `card` window, see capabilities/card.json).

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&[
        "card_pending",
        "card_answer",
        "settings_overview",
        "account_status",
        "account_sign_in_start",
        "account_sign_in_finish",
        "account_sign_in_cancel",
        "account_use",
        "account_sign_out",
        "account_restart",
        "account_setup_open",
        "account_client_choose",
        "advanced_settings",
        "advanced_set",
        "advanced_reset",
        "advanced_start_at_login",
        "advanced_restart",
        "assistants_list",
        "assistants_connect",
        "assistants_disconnect",
        "assistants_tokens",
        "assistants_create_token",
        "assistants_revoke_token",
        "assistants_set_tools",
        "permissions_list",
        "permissions_revoke",
        "permissions_never_add",
        "permissions_never_remove",
        "activity_list",
        "activity_verify",
        "activity_revoke_grant",
        "welcome_status",
        "welcome_open_page",
        "welcome_try_sandbox",
        "updates_status",
        "updates_install",
    ]);
    if let Err(error) = tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)) {
        // A build script reports through cargo's output; there is no caller to return the error to.
        panic!("the desktop app's Tauri configuration could not be read: {error:#}");
    }
}
