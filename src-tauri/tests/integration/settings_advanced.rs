//! The *Advanced* page's commands on Tauri's mock runtime, with the app's real capabilities, a real core (the
//! sandbox host over a temp `GATEHOUSE_HOME`, or an engine under an administrator's policy) and the real
//! settings database: each value shown with who decides it, input checked in words, a saved value waiting for
//! the restart and then used by the next start, the administrator's and the environment's values locked,
//! *Start at login* writing the XDG autostart entry, and every command refused outside the settings window.

use crate::mock;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::autostart::{Autostart, Entry, FILE_NAME};
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::host::{Host, HostOptions};
use gatehouse_core::settings::PersonSettings;
use gatehouse_core::tools::all_tools;
use gatehouse_core::{Engine, EngineOptions};
use gatehouse_desktop::settings::Core;
use gatehouse_desktop::settings::advanced::Environment;
use gatehouse_desktop::startup::Mode;
use gatehouse_desktop::{context, with_commands};
use mock::{error_text, invoke, window};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager};

const PROGRAM: &str = "/opt/Gatehouse/gatehouse-desktop";

/// The advanced commands and a body each accepts.
/// A command's request body.
type Body = fn() -> Value;

const COMMANDS: [(&str, Body); 5] = [
    ("advanced_settings", || json!({})),
    ("advanced_set", || json!({ "key": "gate_reads", "value": true })),
    ("advanced_reset", || json!({ "key": "gate_reads" })),
    ("advanced_start_at_login", || json!({ "enabled": true })),
    ("advanced_restart", || json!({})),
];

/// The app on the mock runtime around `engine`, reading `env` as its environment, with its autostart folder
/// under `home`.
fn app(home: &Path, engine: Arc<Engine>, config: Config, env: &[(&str, &str)]) -> App<MockRuntime> {
    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Core { engine, config, mode: Mode::Sandbox { because_signed_out: false }, http: None });
    let map: HashMap<String, String> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    app.manage(Environment(Arc::new(move |name| map.get(name).cloned())));
    app.manage(Autostart::at(Entry::Xdg { dir: home.join("config").join("autostart") }, PROGRAM));
    app
}

fn setting<'a>(view: &'a Value, key: &str) -> &'a Value {
    view["settings"].as_array().expect("settings").iter().find(|s| s["key"] == key).expect("the setting is shown")
}

async fn sandbox_host(home: &Path) -> Host {
    Host::start(HostOptions { config: Config::with_home(home), sandbox: true }).await.expect("the sandbox host")
}

#[tokio::test(flavor = "multi_thread")]
async fn saved_values_wait_for_the_restart_and_the_next_start_uses_them() {
    let home = tempfile::tempdir().expect("temp home");
    let exports = tempfile::tempdir().expect("export folder");
    let host = sandbox_host(home.path()).await;
    let app = app(home.path(), host.engine().clone(), host.config().clone(), &[]);
    let settings = window(&app, "settings");

    let view = invoke(&settings, "advanced_settings", json!({})).expect("the settings window may read it");
    assert_eq!(view["restart_needed"], false);
    assert_eq!(view["tools"].as_array().map(Vec::len), Some(all_tools().len()));
    assert_eq!(view["start_at_login"], json!({ "supported": cfg!(target_os = "linux"), "enabled": false }));
    let cap = setting(&view, "response_cap");
    assert_eq!((cap["value"].as_u64(), cap["source"]["kind"].as_str()), (Some(1_000_000), Some("default")));
    assert!(view["settings"].as_array().expect("settings").iter().all(|s| s["editable"] == true), "{view}");

    let set = |key: &str, value: Value| invoke(&settings, "advanced_set", json!({ "key": key, "value": value }));
    let view = set("response_cap", json!("250,000")).expect("saved");
    let cap = setting(&view, "response_cap");
    assert_eq!((cap["value"].as_u64(), cap["source"]["kind"].as_str()), (Some(250_000), Some("person")));
    assert_eq!(cap["restart_needed"], true);
    assert_eq!(view["restart_needed"], true);
    set("gate_reads", json!(true)).expect("saved");
    set("approval_timeout", json!("45")).expect("saved");
    set("export_dir", json!(exports.path().display().to_string())).expect("saved");
    let view = set("enabled_tools", json!(["list_sheets", "update_cells"])).expect("saved");
    assert_eq!(setting(&view, "enabled_tools")["restart_needed"], true);

    // The running core is unchanged until it restarts.
    assert_eq!(host.engine().context().config.max_response_chars, 1_000_000);
    assert!(!host.engine().approvals().policy().gate_reads());

    // A restart: the app's shutdown stops the core, the next start reads the saved settings.
    drop(app);
    host.shutdown().await;
    let host = sandbox_host(home.path()).await;
    let engine = host.engine();
    assert_eq!(engine.context().config.max_response_chars, 250_000);
    assert_eq!(engine.context().config.export_dir, exports.path());
    assert!(engine.approvals().policy().gate_reads());
    assert_eq!(engine.approvals().policy().approval_timeout(), Duration::from_secs(45));
    let mut served: Vec<&str> = engine.tools().iter().map(|tool| tool.meta.name).collect();
    served.sort_unstable();
    assert_eq!(served, ["list_sheets", "update_cells"]);
    let app = self::app(home.path(), engine.clone(), host.config().clone(), &[]);
    let view = invoke(&window(&app, "settings"), "advanced_settings", json!({})).expect("read");
    assert_eq!(view["restart_needed"], false, "{view}");

    // Back to the default.
    let view = invoke(&window(&app, "settings"), "advanced_reset", json!({ "key": "response_cap" })).expect("reset");
    let cap = setting(&view, "response_cap");
    assert_eq!((cap["value"].as_u64(), cap["source"]["kind"].as_str()), (Some(1_000_000), Some("default")));
    assert_eq!(cap["restart_needed"], true, "the running core still has 250,000");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn input_that_can_not_be_used_is_refused_in_words_and_nothing_is_saved() {
    let home = tempfile::tempdir().expect("temp home");
    let host = sandbox_host(home.path()).await;
    let app = app(home.path(), host.engine().clone(), host.config().clone(), &[]);
    let settings = window(&app, "settings");
    let set =
        |key: &str, value: Value| error_text(invoke(&settings, "advanced_set", json!({ "key": key, "value": value })));

    let text = set("approval_timeout", json!("abc"));
    assert!(text.contains("\u{201c}abc\u{201d} is not a number of seconds"), "{text}");
    let text = set("approval_timeout", json!("0"));
    assert!(text.contains("at least 10 seconds"), "{text}");
    let text = set("response_cap", json!("100"));
    assert!(text.contains("too small") && text.contains("10,000"), "{text}");
    let missing = home.path().join("not there");
    let text = set("export_dir", json!(missing.display().to_string()));
    assert!(text.contains("does not exist"), "{text}");
    let text = set("enabled_tools", json!([]));
    assert!(text.contains("at least one tool"), "{text}");
    let text = set("font_size", json!(3));
    assert!(text.contains("no setting called \"font_size\""), "{text}");

    assert_eq!(PersonSettings::load_for_home(home.path()).await, PersonSettings::default());
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_administrator_and_the_environment_decide_what_they_set() {
    let home = tempfile::tempdir().expect("temp home");
    let tools: Vec<&str> = all_tools().iter().map(|tool| tool.meta.name).collect();
    let policy = Policy::parse(
        "gate_reads = true\napproval_timeout_secs = 300\n",
        Path::new("/etc/gatehouse/policy.toml"),
        &tools,
    )
    .expect("policy");
    let config = Config::with_home(home.path());
    let engine = Engine::new(EngineOptions {
        config: config.clone(),
        tokens: Arc::new(StaticToken::new("token", Some("ada@example.com".into()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: None, policy },
    })
    .expect("engine");
    let app = app(home.path(), engine, config, &[("ENABLED_TOOLS", "list_sheets,get_sheet_data")]);
    let settings = window(&app, "settings");

    let view = invoke(&settings, "advanced_settings", json!({})).expect("read");
    let gate = setting(&view, "gate_reads");
    assert_eq!((gate["value"].as_bool(), gate["editable"].as_bool()), (Some(true), Some(false)));
    assert_eq!(gate["decided_by"], "Set by your administrator.");
    let timeout = setting(&view, "approval_timeout");
    assert_eq!(timeout["value"], 300);
    assert_eq!(timeout["editable"], true, "the person may still shorten the wait");
    assert_eq!(timeout["limit"], "Your administrator allows at most 300 seconds (5 minutes).");
    let tools = setting(&view, "enabled_tools");
    assert_eq!(tools["editable"], false);
    assert_eq!(tools["decided_by"], "Set by ENABLED_TOOLS in the environment Gatehouse was started with.");
    assert_eq!(tools["value"].as_array().map(Vec::len), Some(2));

    let set = |key: &str, value: Value| invoke(&settings, "advanced_set", json!({ "key": key, "value": value }));
    let text = error_text(set("gate_reads", json!(false)));
    assert!(text.contains("set by your administrator"), "{text}");
    let text = error_text(set("enabled_tools", json!(["update_cells"])));
    assert!(text.contains("Remove ENABLED_TOOLS there"), "{text}");
    let text = error_text(set("approval_timeout", json!(600)));
    assert!(text.contains("at most 300 seconds"), "{text}");
    let view = set("approval_timeout", json!(60)).expect("a shorter wait is the person's to choose");
    let timeout = setting(&view, "approval_timeout");
    assert_eq!((timeout["value"].as_u64(), timeout["source"]["kind"].as_str()), (Some(60), Some("person")));
}

#[tokio::test(flavor = "multi_thread")]
async fn start_at_login_writes_and_removes_the_autostart_entry_and_the_sandbox_choice_is_kept_for_the_start() {
    let home = tempfile::tempdir().expect("temp home");
    let host = sandbox_host(home.path()).await;
    let app = app(home.path(), host.engine().clone(), host.config().clone(), &[]);
    let settings = window(&app, "settings");
    let entry = home.path().join("config").join("autostart").join(FILE_NAME);

    let view = invoke(&settings, "advanced_start_at_login", json!({ "enabled": true })).expect("on");
    assert_eq!(view["start_at_login"]["enabled"], true);
    let text = std::fs::read_to_string(&entry).expect("the autostart entry");
    assert!(text.contains(&format!("\nExec={PROGRAM}\n")) && text.contains("Type=Application"), "{text}");
    let view = invoke(&settings, "advanced_start_at_login", json!({ "enabled": false })).expect("off");
    assert_eq!(view["start_at_login"]["enabled"], false);
    assert!(!entry.exists());

    // "Start in the sandbox" is what the app's start reads (startup::start), unless GATEHOUSE_SANDBOX says.
    invoke(&settings, "advanced_set", json!({ "key": "start_in_sandbox", "value": true })).expect("saved");
    let saved = PersonSettings::load_for_home(home.path()).await;
    assert!(saved.starts_in_sandbox(|_| None));
    assert!(!saved.starts_in_sandbox(|name| (name == "GATEHOUSE_SANDBOX").then(|| "0".to_owned())));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_advanced_commands_answer_only_the_settings_window() {
    let home = tempfile::tempdir().expect("temp home");
    let host = sandbox_host(home.path()).await;
    let app = app(home.path(), host.engine().clone(), host.config().clone(), &[]);
    for label in ["card", "main"] {
        let window = window(&app, label);
        for (command, body) in COMMANDS {
            let text = error_text(invoke(&window, command, body()));
            assert!(text.contains(command) && text.contains("not allowed"), "{label} {command}: {text}");
        }
    }
    assert_eq!(PersonSettings::load_for_home(home.path()).await, PersonSettings::default(), "nothing was saved");
    assert!(!home.path().join("config").join("autostart").join(FILE_NAME).exists());
    let text = error_text(invoke(&window(&app, "settings"), "card_pending", json!({})));
    assert!(text.contains("card_pending") && text.contains("not allowed"), "{text}");
    host.shutdown().await;
}
