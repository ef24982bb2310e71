//! The welcome window's commands on Tauri's mock runtime: only the `welcome` window may call them, they say
//! what the core found at start, and they open only the pages they name.

use gatehouse_core::welcome::{Reason, Start};
use gatehouse_desktop::welcome::Welcome;
use serde_json::json;
use tauri::Manager;

use crate::settings_pages::{NORMAL, assert_refused_by_acl, error_text, invoke, page};

const COMMANDS: [&str; 3] = ["welcome_status", "welcome_open_page", "welcome_try_sandbox"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_welcome_window_may_call_its_commands() {
    let page = page(NORMAL).await;
    for label in ["settings", "card", "main"] {
        for command in COMMANDS {
            assert_refused_by_acl(&page, label, command, json!({ "page": "account" }));
        }
    }
    // And the welcome window can't reach the settings pages' commands or answer a card.
    for command in ["account_status", "advanced_set", "assistants_connect", "card_answer"] {
        assert_refused_by_acl(&page, "welcome", command, json!({}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_welcome_window_says_what_was_found_and_opens_only_the_account_and_assistants_pages() {
    let page = page(NORMAL).await;
    let start = Start { first_launch: true, signed_in: true, assistant_connected: false, tray_host: false };
    page.app.manage(Welcome { start, reason: Some(Reason::FirstLaunch) });
    let welcome = page.window("welcome");

    let view = invoke(&welcome, "welcome_status", json!({})).expect("the welcome window may read it");
    assert_eq!(view["reason"], "first_launch");
    assert_eq!(view["tray_host"], false);
    assert_eq!(view["signed_in_as"], crate::settings_pages::ACCOUNT);
    assert_eq!(view["sandbox"], false);
    assert_eq!(view["assistant_connected"], false);

    let refused = error_text(invoke(&welcome, "welcome_open_page", json!({ "page": "advanced" })));
    assert!(refused.contains("only account and assistants"), "{refused}");
    assert!(page.app.get_webview_window(gatehouse_desktop::settings::LABEL).is_none());
    invoke(&welcome, "welcome_open_page", json!({ "page": "assistants" })).expect("the Assistants page opens");
    assert!(page.app.get_webview_window(gatehouse_desktop::settings::LABEL).is_some(), "the settings window is open");
}
