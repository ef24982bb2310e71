//! The Gatehouse desktop app: a tray that hosts this OS user's one Gatehouse core, and the approval card that
//! asks the person about a change.
//!
//! The shell decides nothing: what it shows comes from the core ([`gatehouse_core::host::Host`], the approvals
//! broker) and what the person answers goes back to it unchanged, through commands only the card window may
//! call (capabilities/card.json).
//!
//! - [`startup`]: which core to start (an account, or the sandbox) and its HTTP server;
//! - [`headless`]: the same core without windows, where there is no display;
//! - [`commands`]: what the card window may ask and answer;
//! - [`card`]: the card window: when it appears, where, and what it is told;
//! - [`notify`]: the OS notification announcing a card not in view;
//! - [`settings`]: the settings window, a module per page;
//! - [`tray`]: the tray menu;
//! - [`welcome`]: the welcome window, opened at start when the core's rule says so.
//! - [`updates`]: the app's own updates (looked for at start and daily, installed on the person's click).

pub mod card;
pub mod commands;
pub mod error;
pub mod headless;
pub mod notify;
pub mod settings;
pub mod startup;
pub mod tray;
pub mod updates;
pub mod welcome;

use gatehouse_core::connect;
use tauri::{Manager, Runtime};

pub use commands::Cards;
pub use error::{Error, Result};

/// The app's commands, registered on `builder`. Shared by the app and its tests, so both exercise the same
/// handler and capabilities.
pub fn with_commands<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![
        commands::card_pending,
        commands::card_answer,
        settings::settings_overview,
        settings::account::account_status,
        settings::account::account_sign_in_start,
        settings::account::account_sign_in_finish,
        settings::account::account_sign_in_cancel,
        settings::account::account_use,
        settings::account::account_sign_out,
        settings::account::account_restart,
        settings::account::account_setup_open,
        settings::account::account_client_choose,
        settings::advanced::advanced_settings,
        settings::advanced::advanced_set,
        settings::advanced::advanced_reset,
        settings::advanced::advanced_start_at_login,
        settings::advanced::advanced_restart,
        settings::permissions::permissions_list,
        settings::permissions::permissions_revoke,
        settings::permissions::permissions_never_add,
        settings::permissions::permissions_never_remove,
        settings::activity::activity_list,
        settings::activity::activity_verify,
        settings::activity::activity_revoke_grant,
        settings::assistants::assistants_list,
        settings::assistants::assistants_connect,
        settings::assistants::assistants_disconnect,
        settings::assistants::assistants_tokens,
        settings::assistants::assistants_create_token,
        settings::assistants::assistants_revoke_token,
        settings::assistants::assistants_set_tools,
        welcome::welcome_status,
        welcome::welcome_open_page,
        welcome::welcome_try_sandbox,
        updates::updates_status,
        updates::updates_install,
    ])
}

/// The app's configuration, assets and capabilities as built (tauri.conf.json, ui/, capabilities/).
pub fn context<R: Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}

/// Runs the desktop app until the person quits it.
pub fn run(options: startup::Options) -> anyhow::Result<()> {
    let builder = tauri::Builder::default().plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
        // A second launch shows what is waiting, or the Gatehouse window, instead of starting another core.
        tracing::info!("Gatehouse is already running; showing it");
        if !card::show_if_pending(app) {
            settings::open(app, "account");
        }
    }));
    let app = with_commands(builder.plugin(updates::plugin()))
        .setup(move |app| {
            let started = tauri::async_runtime::block_on(startup::start(&options))?;
            // With windows, cards are answered on the card, not from a terminal, unless the person allows it
            // (Advanced); headless (no display: `headless::run`), the terminal is the only way to answer. The
            // settings are read from GATEHOUSE_HOME's store at each answer (the sandbox's store holds none).
            if let Some(control) = started.host.control() {
                control.answer_on_cards(None);
            }
            let approvals = started.host.engine().approvals().clone();
            // The card window is made once cards are likely, not at launch on a fresh install (see `card`).
            let engine = started.host.engine();
            let used_before = tauri::async_runtime::block_on(engine.used_by_assistants());
            let home = started.host.config().home.clone();
            let start = gatehouse_core::welcome::Start {
                first_launch: gatehouse_core::welcome::first_launch(&home),
                signed_in: matches!(started.mode, startup::Mode::Account { .. }),
                assistant_connected: welcome::assistant_connected(used_before),
                tray_host: welcome::tray_host_present(),
            };
            let ahead = card::Ahead {
                connections: engine.assistant_connections(),
                used_before,
                set_up_in: Some(Box::new(|| {
                    let set_up = connect::set_up_in(connect::ENTRY_NAME, &|name| std::env::var(name).ok());
                    set_up.map(|client| client.name)
                })),
            };
            app.manage(Cards::new(approvals.clone()));
            tray::create(app.handle(), &started.mode)?;
            app.manage(settings::assistants::Connector::from_process());
            app.manage(settings::Core {
                engine: started.host.engine().clone(),
                config: started.host.config().clone(),
                mode: started.mode.clone(),
                http: started.http,
            });
            app.manage(startup::Hosted::new(started.host));
            welcome::open_at_start(app.handle(), start, &home);
            card::watch_and_prepare(app.handle().clone(), approvals, Some(ahead));
            app.manage(updates::Updates::new(updates::Source::from_config(app.handle())));
            updates::watch(app.handle().clone());
            startup::quit_on_signal(app.handle().clone());
            Ok(())
        })
        .build(context())?;
    app.run(|app, event| match event {
        // The app lives in the tray: closing the card must not end it. Only Quit (which exits with a code) does.
        tauri::RunEvent::ExitRequested { code: None, api, .. } => api.prevent_exit(),
        tauri::RunEvent::Exit => startup::shut_down_now(app),
        _ => {}
    });
    Ok(())
}
