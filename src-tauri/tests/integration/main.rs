//! The desktop app's command tests on Tauri's mock runtime, as one test program: each file here is a module,
//! as it would be its own program under `tests/`. One program links the app once instead of once per file
//! (each link is ~220 MB of debug build).
//!
//! Run one file's tests with its module name: `cargo test -p gatehouse-desktop --test integration quit::`.
//! `tests/notify.rs` stays a program of its own: it points the process's D-Bus session address at its own
//! notification server, which the keychain's tests here must not see.

mod mock;
mod settings_pages;

mod card_commands;
mod card_page;
mod card_prepare;
mod quit;
mod settings_account;
mod settings_activity;
mod settings_advanced;
mod settings_assistants;
mod settings_permissions;
mod updates;
mod welcome;
