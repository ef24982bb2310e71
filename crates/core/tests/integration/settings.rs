//! The person's own settings (the app's Advanced page): kept in the real SQLite store under a temp home,
//! checked in plain words, decided with the administrator's policy > the environment > the person > the
//! default, and applied when a host starts.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::Store;
use gatehouse_core::auth::{SignInContext, StoredAccount, TokenStore, UseAccountError};
use gatehouse_core::config::{Config, DEFAULT_MAX_RESPONSE_CHARS};
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::settings::{self, Key, PersonSettings, SettingView, SettingsError, Source, decide, tool_choices};
use gatehouse_core::tools::all_tools;
use gatehouse_core::tools::sets::catalogue;
use gatehouse_core::{Engine, EngineOptions, ops};
use serde_json::{Value, json};

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    move |name| map.get(name).cloned()
}

fn no_env() -> impl Fn(&str) -> Option<String> {
    env(&[])
}

fn policy(text: &str) -> Policy {
    let tools: Vec<&str> = all_tools().iter().map(|tool| tool.meta.name).collect();
    Policy::parse(text, Path::new("/etc/gatehouse/policy.toml"), &tools).expect("the test policy parses")
}

async fn store(home: &Path) -> Store {
    settings::open_store(home).await.expect("the store opens")
}

async fn set(store: &Store, key: Key, value: Value, policy: &Policy) -> Result<(), SettingsError> {
    settings::set(store, key, &value, policy, no_env(), catalogue()).await
}

async fn refused(store: &Store, key: Key, value: Value, policy: &Policy) -> String {
    let error = set(store, key, value.clone(), policy).await.expect_err("the value must be refused");
    assert!(matches!(error, SettingsError::Invalid(_) | SettingsError::ByAdministrator(_)), "{error:?}");
    // Nothing was saved.
    assert_eq!(PersonSettings::load(store).await.expect("load"), PersonSettings::default(), "{value}");
    error.to_string()
}

fn setting(views: &[SettingView], key: Key) -> &SettingView {
    views.iter().find(|view| view.key == key).expect("every setting is shown")
}

#[tokio::test]
async fn what_the_person_saves_is_kept_in_the_store_and_read_back() {
    let home = tempfile::tempdir().expect("temp home");
    let exports = tempfile::tempdir().expect("export folder");
    let store = store(home.path()).await;
    let admin = Policy::default();
    set(&store, Key::ResponseCap, json!("250,000"), &admin).await.expect("a cap");
    set(&store, Key::GateReads, json!(true), &admin).await.expect("reads gated");
    set(&store, Key::ApprovalTimeout, json!("45"), &admin).await.expect("a timeout");
    set(&store, Key::ExportDir, json!(exports.path().display().to_string()), &admin).await.expect("a folder");
    set(&store, Key::EnabledTools, json!(["update_cells", "list_sheets"]), &admin).await.expect("two tools");
    set(&store, Key::StartInSandbox, json!(true), &admin).await.expect("the sandbox");

    let saved = PersonSettings::load(&store).await.expect("load");
    assert_eq!(saved.response_cap, Some(250_000));
    assert_eq!(saved.gate_reads, Some(true));
    assert_eq!(saved.approval_timeout, Some(Duration::from_secs(45)));
    assert_eq!(saved.export_dir.as_deref(), Some(exports.path()));
    // Kept in catalogue order, whatever order they were ticked in.
    let catalogue: Vec<&str> = all_tools().iter().map(|tool| tool.meta.name).collect();
    let position = |name: &str| catalogue.iter().position(|known| *known == name).expect("a tool");
    let mut expected = ["update_cells", "list_sheets"];
    expected.sort_by_key(|name| position(name));
    assert_eq!(saved.enabled_tools, Some(expected.iter().map(|name| (*name).to_owned()).collect()));
    assert_eq!(saved.start_in_sandbox, Some(true));
    assert!(saved.starts_in_sandbox(no_env()));

    // Another process (the host at its next start) reads the same file.
    store.close().await;
    assert_eq!(PersonSettings::load_for_home(home.path()).await, saved);

    // Reset forgets one; ticking every tool means "every tool" (so tools added later are on too).
    let store = self::store(home.path()).await;
    settings::reset(&store, Key::ResponseCap).await.expect("reset");
    set(&store, Key::EnabledTools, json!(catalogue), &admin).await.expect("every tool");
    let saved = PersonSettings::load(&store).await.expect("load");
    assert_eq!((saved.response_cap, saved.enabled_tools), (None, None));
    assert_eq!(saved.gate_reads, Some(true), "the others are kept");
}

#[tokio::test]
async fn a_fresh_home_has_no_settings_and_reading_them_creates_no_database() {
    let home = tempfile::tempdir().expect("temp home");
    assert_eq!(PersonSettings::load_for_home(home.path()).await, PersonSettings::default());
    assert!(!home.path().join("gatehouse.db").exists());
}

#[tokio::test]
async fn what_can_not_be_used_is_refused_in_plain_words() {
    let home = tempfile::tempdir().expect("temp home");
    let store = store(home.path()).await;
    let admin = Policy::default();

    let message = refused(&store, Key::ApprovalTimeout, json!("abc"), &admin).await;
    assert!(message.contains("\u{201c}abc\u{201d} is not a number of seconds") && message.contains("120"), "{message}");
    let message = refused(&store, Key::ApprovalTimeout, json!("0"), &admin).await;
    assert!(message.contains("only 0 seconds") && message.contains("at least 10 seconds"), "{message}");
    let message = refused(&store, Key::ApprovalTimeout, json!(90_000), &admin).await;
    assert!(message.contains("at most 86400 seconds"), "{message}");

    let message = refused(&store, Key::ResponseCap, json!("lots"), &admin).await;
    assert!(message.contains("\u{201c}lots\u{201d} is not a number of characters"), "{message}");
    let message = refused(&store, Key::ResponseCap, json!("500"), &admin).await;
    assert!(message.contains("500 characters is too small") && message.contains("at least 10,000"), "{message}");
    let message = refused(&store, Key::ResponseCap, json!("500000000"), &admin).await;
    assert!(message.contains("too large") && message.contains("100,000,000"), "{message}");

    let missing = home.path().join("no such folder");
    let message = refused(&store, Key::ExportDir, json!(missing.display().to_string()), &admin).await;
    assert!(message.contains("does not exist") && message.contains("Create it first"), "{message}");
    let file = home.path().join("a file.txt");
    std::fs::write(&file, "x").expect("a file");
    let message = refused(&store, Key::ExportDir, json!(file.display().to_string()), &admin).await;
    assert!(message.contains("is a file, not a folder"), "{message}");
    let message = refused(&store, Key::ExportDir, json!("Documents/exports"), &admin).await;
    assert!(message.contains("not a full folder location"), "{message}");
    let message = refused(&store, Key::ExportDir, json!("  "), &admin).await;
    assert!(message.contains("Choose a folder"), "{message}");
    // Even root can't create files in /proc.
    #[cfg(target_os = "linux")]
    {
        let message = refused(&store, Key::ExportDir, json!("/proc"), &admin).await;
        assert!(message.contains("can't save files in /proc"), "{message}");
    }
    // The write check leaves nothing behind in a folder that is accepted.
    let exports = tempfile::tempdir().expect("export folder");
    set(&store, Key::ExportDir, json!(exports.path().display().to_string()), &admin).await.expect("a good folder");
    assert_eq!(std::fs::read_dir(exports.path()).expect("list").count(), 0);
    settings::reset(&store, Key::ExportDir).await.expect("reset");

    let message = refused(&store, Key::EnabledTools, json!([]), &admin).await;
    assert!(message.contains("at least one tool"), "{message}");
    let message = refused(&store, Key::EnabledTools, json!(["update_cells", "format_hard_drive"]), &admin).await;
    assert!(message.contains("\"format_hard_drive\" is not one of Gatehouse's tools"), "{message}");
    let message = refused(&store, Key::GateReads, json!("yes"), &admin).await;
    assert!(message.contains("can only be turned on or off"), "{message}");
    assert!(Key::parse("colour").unwrap_err().to_string().contains("no setting called \"colour\""));
}

#[tokio::test]
async fn the_administrators_policy_bounds_the_persons_choice() {
    let home = tempfile::tempdir().expect("temp home");
    let store = store(home.path()).await;
    let admin = policy("gate_reads = true\napproval_timeout_secs = 300\n");

    // Reads gated by the administrator stay gated.
    let error = set(&store, Key::GateReads, json!(false), &admin).await.unwrap_err();
    assert!(matches!(error, SettingsError::ByAdministrator(Key::GateReads)), "{error:?}");
    assert!(error.to_string().contains("set by your administrator"), "{error}");
    set(&store, Key::GateReads, json!(true), &admin).await.expect("agreeing is fine");

    // The wait may be shortened, not lengthened beyond the administrator's.
    let message = refused_keeping(&store, Key::ApprovalTimeout, json!("600"), &admin).await;
    assert!(message.contains("Your administrator allows a card to wait at most 300 seconds (5 minutes)"), "{message}");
    set(&store, Key::ApprovalTimeout, json!("60"), &admin).await.expect("shorter is fine");

    let person = PersonSettings::load(&store).await.expect("load");
    let config = Config::with_home(home.path());
    let decided = decide(&person, &config, &admin, no_env());
    assert!(decided.gate_reads.value);
    assert_eq!(decided.gate_reads.source, Source::Administrator);
    assert_eq!(
        (decided.approval_timeout.value, decided.approval_timeout.source),
        (Duration::from_secs(60), Source::Person)
    );

    // A saved wait longer than a (new) limit gives way to it.
    let longer = PersonSettings { approval_timeout: Some(Duration::from_secs(900)), ..PersonSettings::default() };
    let decided = decide(&longer, &config, &admin, no_env());
    assert_eq!(
        (decided.approval_timeout.value, decided.approval_timeout.source),
        (Duration::from_secs(300), Source::Administrator)
    );
    let applied = longer.clone();
    let mut config = Config::with_home(home.path());
    let policy = settings::apply(&mut config, admin.clone(), &applied, no_env(), catalogue());
    assert_eq!(policy.approval_timeout(), Duration::from_secs(300));
    assert!(policy.gate_reads());

    // What the page shows: who decides, and what can still be edited.
    let views = settings::view(&person, &config, &admin, no_env(), None, catalogue());
    let gate = setting(&views, Key::GateReads);
    assert!(!gate.editable);
    assert_eq!(gate.decided_by.as_deref(), Some("Set by your administrator."));
    let timeout = setting(&views, Key::ApprovalTimeout);
    assert!(timeout.editable, "the person may still shorten it");
    assert_eq!(timeout.value, json!(60));
    assert_eq!(timeout.default, json!(300));
    assert_eq!(timeout.limit.as_deref(), Some("Your administrator allows at most 300 seconds (5 minutes)."));
}

/// Like [`refused`], for a store that already holds other settings.
async fn refused_keeping(store: &Store, key: Key, value: Value, policy: &Policy) -> String {
    let before = PersonSettings::load(store).await.expect("load");
    let error = set(store, key, value, policy).await.expect_err("the value must be refused");
    assert_eq!(PersonSettings::load(store).await.expect("load"), before, "nothing changed");
    error.to_string()
}

#[tokio::test]
async fn an_environment_variable_that_is_set_wins_over_the_persons_setting() {
    let home = tempfile::tempdir().expect("temp home");
    let exports = tempfile::tempdir().expect("export folder");
    let person = PersonSettings {
        response_cap: Some(50_000),
        enabled_tools: Some(vec!["list_sheets".into()]),
        export_dir: Some(exports.path().to_path_buf()),
        start_in_sandbox: Some(true),
        ..PersonSettings::default()
    };
    let vars = [
        ("GATEHOUSE_HOME", home.path().to_str().expect("utf-8 path")),
        ("MAX_TOOL_RESPONSE_CHARS", "2000000"),
        ("ENABLED_TOOLS", "update_cells,get_sheet_data"),
        ("GATEHOUSE_SANDBOX", "0"),
    ];
    let config = Config::from_lookup(env(&vars)).expect("config");
    let decided = decide(&person, &config, &Policy::default(), env(&vars));
    assert_eq!(decided.response_cap.value, 2_000_000);
    assert_eq!(decided.response_cap.source, Source::Environment { variable: "MAX_TOOL_RESPONSE_CHARS" });
    assert_eq!(decided.enabled_tools.value, Some(vec!["update_cells".to_owned(), "get_sheet_data".to_owned()]));
    assert!(!decided.start_in_sandbox.value, "GATEHOUSE_SANDBOX=0 is meant");
    assert!(!person.starts_in_sandbox(env(&vars)));
    // Not set in the environment: the person's.
    assert_eq!((decided.export_dir.value.as_path(), &decided.export_dir.source), (exports.path(), &Source::Person));

    let views = settings::view(&person, &config, &Policy::default(), env(&vars), None, catalogue());
    let cap = setting(&views, Key::ResponseCap);
    assert!(!cap.editable);
    assert_eq!(
        cap.decided_by.as_deref(),
        Some("Set by MAX_TOOL_RESPONSE_CHARS in the environment Gatehouse was started with.")
    );
    assert!(setting(&views, Key::ExportDir).editable);

    // Saving it is refused, saying where it is set.
    let store = store(home.path()).await;
    let error = settings::set(&store, Key::ResponseCap, &json!("300000"), &Policy::default(), env(&vars), catalogue())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("Remove MAX_TOOL_RESPONSE_CHARS there"), "{error}");

    // An empty variable counts as not set, as the configuration reads it.
    let empty = [("MAX_TOOL_RESPONSE_CHARS", " ")];
    assert_eq!(decide(&person, &config, &Policy::default(), env(&empty)).response_cap.source, Source::Person);
}

#[tokio::test]
async fn nothing_chosen_means_the_documented_defaults() {
    let home = tempfile::tempdir().expect("temp home");
    let config = Config::with_home(home.path());
    let decided = decide(&PersonSettings::default(), &config, &Policy::default(), no_env());
    assert_eq!(decided.response_cap.value, DEFAULT_MAX_RESPONSE_CHARS);
    assert_eq!(decided.approval_timeout.value, Duration::from_secs(120));
    assert!(!decided.gate_reads.value && !decided.start_in_sandbox.value);
    assert_eq!(decided.enabled_tools.value, None);
    assert_eq!(decided.export_dir.value, home.path().join("exports"));
    for source in [decided.response_cap.source, decided.gate_reads.source, decided.approval_timeout.source] {
        assert_eq!(source, Source::Default);
    }
    let views = settings::view(&PersonSettings::default(), &config, &Policy::default(), no_env(), None, catalogue());
    assert_eq!(views.len(), Key::ALL.len());
    assert!(views.iter().all(|view| view.editable && view.decided_by.is_none() && !view.restart_needed));
    // Every tool is listed for the checkboxes, from the tools' own declarations, all on by default.
    let choices = tool_choices(catalogue());
    assert_eq!(choices.len(), all_tools().len());
    assert_eq!(setting(&views, Key::EnabledTools).value.as_array().map(Vec::len), Some(choices.len()));
    let update = choices.iter().find(|tool| tool.name == "update_cells").expect("update_cells");
    assert!(update.changes && update.service == "Sheets" && !update.title.is_empty());
}

#[tokio::test]
async fn applying_at_start_changes_the_configuration_and_the_policy_but_never_stops_the_start() {
    let home = tempfile::tempdir().expect("temp home");
    let mut config = Config::with_home(home.path());
    let gone = home.path().join("was deleted");
    let person = PersonSettings {
        response_cap: Some(40_000),
        gate_reads: Some(true),
        approval_timeout: Some(Duration::from_secs(30)),
        enabled_tools: Some(vec!["list_sheets".into(), "a_tool_from_an_older_version".into()]),
        export_dir: Some(gone),
        ..PersonSettings::default()
    };
    let policy = settings::apply(&mut config, Policy::default(), &person, no_env(), catalogue());
    assert_eq!(config.max_response_chars, 40_000);
    assert_eq!(config.enabled_tools, Some(vec!["list_sheets".to_owned()]), "unknown names are left out");
    assert_eq!(config.export_dir, home.path().join("exports"), "a folder that is gone is not used");
    assert!(policy.gate_reads() && !policy.admin_gate_reads());
    assert_eq!(policy.approval_timeout(), Duration::from_secs(30));
    assert_eq!(policy.admin_approval_timeout(), None);
}

/// An older Gatehouse saved a choice of tools, one of which this one no longer has: the rest of the choice
/// still holds. (Reading the saved list used to check it against the tools, and a list with one gone name
/// was dropped whole, which turned every tool back on.)
#[tokio::test]
async fn a_saved_tool_choice_naming_a_removed_tool_still_limits_the_tools() {
    let home = tempfile::tempdir().expect("temp home");
    let store = store(home.path()).await;
    store.set_setting(Key::EnabledTools.name(), "list_sheets, a_tool_from_an_older_version").await.expect("saved");
    let person = PersonSettings::load(&store).await.expect("load");
    assert_eq!(
        person.enabled_tools,
        Some(vec!["list_sheets".to_owned(), "a_tool_from_an_older_version".to_owned()]),
        "read as saved"
    );
    let mut config = Config::with_home(home.path());
    settings::apply(&mut config, Policy::default(), &person, no_env(), catalogue());
    assert_eq!(config.enabled_tools, Some(vec!["list_sheets".to_owned()]));
    // A saved list that names nothing is ignored (every tool, the default), as any unreadable value.
    store.set_setting(Key::EnabledTools.name(), " , ").await.expect("saved");
    assert_eq!(PersonSettings::load(&store).await.expect("load").enabled_tools, None);
}

#[tokio::test]
async fn the_view_says_which_values_wait_for_a_restart() {
    let home = tempfile::tempdir().expect("temp home");
    let store = store(home.path()).await;
    set(&store, Key::ResponseCap, json!(123_456), &Policy::default()).await.expect("a cap");
    set(&store, Key::GateReads, json!(true), &Policy::default()).await.expect("reads gated");
    set(&store, Key::EnabledTools, json!(["list_sheets", "update_cells"]), &Policy::default()).await.expect("tools");
    let person = PersonSettings::load(&store).await.expect("load");

    // An engine started with them, as Host::start builds it (tests/settings_advanced.rs in the app starts a
    // real host).
    let mut config = Config::with_home(home.path());
    let policy = settings::apply(&mut config, Policy::default(), &person, no_env(), catalogue());
    let engine = Engine::new(EngineOptions {
        config: config.clone(),
        tokens: Arc::new(StaticToken::new("token", Some("ada@example.com".into()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: None, policy },
    })
    .expect("engine");
    let mut served: Vec<&str> = engine.tools().iter().map(|tool| tool.meta.name).collect();
    served.sort_unstable();
    assert_eq!(served, ["list_sheets", "update_cells"]);
    assert!(engine.approvals().policy().gate_reads());
    assert_eq!(engine.context().config.max_response_chars, 123_456);

    // Nothing changed since the start: nothing waits. A change waits until the next start.
    let views_of = |person: &PersonSettings| {
        let running = ops::settings::running(&engine);
        settings::view(person, &config, engine.approvals().policy(), no_env(), Some(&running), catalogue())
    };
    let views = views_of(&person);
    assert!(views.iter().all(|view| !view.restart_needed), "{views:?}");
    set(&store, Key::ResponseCap, json!(200_000), engine.approvals().policy()).await.expect("a new cap");
    set(&store, Key::StartInSandbox, json!(true), engine.approvals().policy()).await.expect("the sandbox");
    let person = PersonSettings::load(&store).await.expect("load");
    let views = views_of(&person);
    assert!(setting(&views, Key::ResponseCap).restart_needed);
    assert!(setting(&views, Key::StartInSandbox).restart_needed);
    assert!(!setting(&views, Key::GateReads).restart_needed);
}

#[tokio::test]
async fn switching_to_another_signed_in_account_is_the_cores() {
    let home = tempfile::tempdir().expect("temp home");
    let config = Config::with_home(home.path());
    let tokens = TokenStore::file(home.path().join("google-tokens.json"));
    for email in ["ada@example.com", "grace@example.com"] {
        tokens
            .save(StoredAccount {
                email: email.into(),
                refresh_token: gatehouse_core::auth::Secret::new(format!("refresh-{email}")),
                client_id: "client".into(),
                client_secret: None,
                token_uri: "https://oauth2.googleapis.com/token".into(),
                scopes: Vec::new(),
                endpoint: None,
            })
            .await
            .expect("save");
    }
    let context = SignInContext::new(config, tokens.clone());
    assert_eq!(tokens.accounts().await.expect("list").active.as_deref(), Some("grace@example.com"));
    assert_eq!(context.use_account(" ADA@example.com ").await.expect("switch"), "ada@example.com");
    assert_eq!(tokens.accounts().await.expect("list").active.as_deref(), Some("ada@example.com"));
    let error = context.use_account("linus@example.com").await.unwrap_err();
    assert!(matches!(error, UseAccountError::NotSignedIn { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("linus@example.com is not signed in")
            && message.contains("ada@example.com, grace@example.com")
            && message.contains("Sign in with Google"),
        "{message}"
    );
    assert_eq!(tokens.accounts().await.expect("list").active.as_deref(), Some("ada@example.com"), "unchanged");
}
