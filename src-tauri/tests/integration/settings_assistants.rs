//! The *Assistants* page's commands on Tauri's mock runtime, with the app's real capabilities: *Connect* and
//! *Disconnect* edit real config files under a temporary `HOME` (never the real one: the page reads the
//! environment through the `Connector` the test manages), and tokens live in a real SQLite store on disk.
//! Every command answers the settings window only.

use crate::mock;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{Store, TokenMatch};
use gatehouse_core::auth::identity::AuthMethod;
use gatehouse_core::config::Config;
use gatehouse_core::connect::{find_client, limit};
use gatehouse_core::engine::{ApprovalSetup, Engine, EngineOptions};
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::SignedOut;
use gatehouse_core::tools::sets::{ToolSelection, catalogue};
use gatehouse_desktop::settings::assistants::Connector;
use gatehouse_desktop::settings::{self, Core};
use gatehouse_desktop::startup::Mode;
use gatehouse_desktop::{Cards, card, context, with_commands};
use mock::{invoke, window};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager, WebviewWindow};
use tempfile::TempDir;

const ACCOUNT: &str = "ada@example.com";
const HTTP: &str = "127.0.0.1:8765";

/// The page's commands, each with arguments that would do something if it were allowed.
const COMMANDS: [(&str, &str); 7] = [
    ("assistants_list", "{}"),
    ("assistants_connect", r#"{"client": "cursor"}"#),
    ("assistants_disconnect", r#"{"client": "cursor"}"#),
    ("assistants_tokens", "{}"),
    ("assistants_create_token", r#"{"name": "from the wrong window"}"#),
    ("assistants_revoke_token", r#"{"id": "00000000-0000-4000-8000-000000000000"}"#),
    ("assistants_set_tools", r#"{"id": "00000000-0000-4000-8000-000000000000", "tools": "sheets-read"}"#),
];

struct Options {
    store: bool,
    sandbox: bool,
    /// The app runs the sandbox only because nobody is signed in (with `sandbox`), not by the person's choice.
    signed_out: bool,
    /// Put a `gatehouse` program where the page looks for it.
    program: bool,
}

const NORMAL: Options = Options { store: true, sandbox: false, signed_out: false, program: true };

/// The app on the mock runtime with a settings and a card window, a temporary `HOME` for the assistants'
/// files, a folder the `gatehouse` program is looked for in, and the data folder of the core.
struct Setup {
    app: App<MockRuntime>,
    settings: WebviewWindow<MockRuntime>,
    card: WebviewWindow<MockRuntime>,
    home: TempDir,
    programs: TempDir,
    _data: TempDir,
    store: Option<Store>,
}

impl Setup {
    async fn new(options: Options) -> Self {
        let home = tempfile::tempdir().expect("temp HOME");
        let programs = tempfile::tempdir().expect("temp program folder");
        let data = tempfile::tempdir().expect("temp GATEHOUSE_HOME");
        if options.program {
            std::fs::write(programs.path().join(program_name()), "#!/bin/sh\n").expect("a gatehouse program");
        }
        let store = match options.store {
            true => Some(
                Store::open_with(
                    &data.path().join("gatehouse.db"),
                    gatehouse_core::approval::store::StoreOptions::with_key([0x5a; 32]),
                )
                .await
                .expect("store"),
            ),
            false => None,
        };
        let config = Config::with_home(data.path());
        let engine = Engine::new(EngineOptions {
            config: config.clone(),
            tokens: Arc::new(SignedOut),
            sandbox: options.sandbox,
            retry: RetryPolicy::default(),
            approvals: ApprovalSetup { store: store.clone(), policy: Policy::default() },
        })
        .expect("engine");
        let mode = match options.sandbox {
            true => Mode::Sandbox { because_signed_out: options.signed_out },
            false => Mode::Account { account: Some(ACCOUNT.into()), method: AuthMethod::OAuth },
        };
        let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
        app.manage(Cards::new(engine.approvals().clone()));
        app.manage(Core { engine, config, mode, http: Some(HTTP.parse().expect("address")) });
        // The environment the page sees: HOME and nothing else, so nothing outside the temp folder is touched.
        let env: HashMap<String, String> = HashMap::from([("HOME".to_owned(), home.path().display().to_string())]);
        app.manage(Connector::new(move |name| env.get(name).cloned(), programs.path()));
        let settings = window(&app, settings::LABEL);
        let card = window(&app, card::LABEL);
        Self { app, settings, card, home, programs, _data: data, store }
    }

    fn program(&self) -> String {
        self.programs.path().join(program_name()).display().to_string()
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.home.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::write(&path, text).expect("file");
        path
    }

    fn list(&self) -> Value {
        invoke(&self.settings, "assistants_list", json!({})).expect("the settings window may list")
    }

    /// The listed client `id`.
    fn client(&self, id: &str) -> Value {
        let listed = self.list();
        let clients = listed["clients"].as_array().expect("clients");
        clients.iter().find(|client| client["id"] == id).cloned().expect("listed")
    }
}

fn program_name() -> String {
    format!("gatehouse{}", std::env::consts::EXE_SUFFIX)
}

/// The sets *Connect* offers an assistant that takes only so many tools (`connect::limit`).
fn pick(id: &str) -> String {
    let fit = limit::fit(find_client(id).expect("a known assistant"), None, catalogue());
    fit.selection.expect("a pick").spec().to_owned()
}

/// The entry's `args` for an assistant that takes only so many tools: `before`, then the sets *Connect*
/// picks and the bound of the list.
fn picked_args(before: &[&str], id: &str) -> Value {
    let max = find_client(id).expect("a known assistant").tool_limit.expect("a limit").max;
    let mut args: Vec<String> = before.iter().map(|arg| (*arg).to_owned()).collect();
    args.extend(["--tools".to_owned(), pick(id), "--max-tools".to_owned(), max.to_string()]);
    json!(args)
}

fn text(value: &Value) -> String {
    value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

/// The backup `change` reports: beside the file, holding `original` exactly.
fn assert_backup(change: &Value, file: &Path, original: &str) {
    let backup = PathBuf::from(text(&change["backup"]));
    assert_eq!(backup.parent(), file.parent(), "{change}");
    assert!(backup.file_name().expect("name").to_string_lossy().contains(".gatehouse-backup-"), "{change}");
    assert_eq!(std::fs::read_to_string(&backup).expect("the backup"), original);
    assert!(text(&change["message"]).contains(&backup.display().to_string()), "the page says where: {change}");
}

#[tokio::test(flavor = "multi_thread")]
async fn connect_merges_into_cursors_file_with_a_backup_and_disconnect_takes_out_only_ours() {
    let setup = Setup::new(NORMAL).await;
    let original = r#"{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }
  },
  "theme": "dark"
}
"#;
    let file = setup.write(".cursor/mcp.json", original);

    let listed = setup.list();
    assert_eq!(listed["program"], setup.program());
    assert_eq!(listed["program_problem"], Value::Null);
    assert_eq!(listed["http_url"], format!("http://{HTTP}/mcp"));
    let names: Vec<&str> =
        listed["clients"].as_array().expect("clients").iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["Claude Desktop", "Claude Code", "Cursor", "VS Code", "Windsurf", "Goose"]);
    for client in listed["clients"].as_array().expect("clients") {
        let path = PathBuf::from(text(&client["path"]));
        assert!(path.starts_with(setup.home.path()), "only the temporary HOME is used: {client}");
    }
    let cursor = setup.client("cursor");
    assert_eq!((cursor["state"].as_str(), cursor["installed"].as_bool()), (Some("not_connected"), Some(true)));
    assert_eq!(cursor["path"], file.display().to_string());

    let connected = invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor" })).expect("connect");
    assert_eq!(connected["path"], file.display().to_string());
    assert_backup(&connected, &file, original);
    let message = text(&connected["message"]);
    assert!(message.contains(&file.display().to_string()) && message.contains("Restart Cursor"), "{message}");
    let written = read_json(&file);
    assert_eq!(written["theme"], "dark", "other settings are kept");
    assert_eq!(written["mcpServers"]["github"]["command"], "npx", "other servers are kept");
    // Cursor takes at most 40 tools, so it is offered sets that fit, and the person is told which.
    assert_eq!(
        written["mcpServers"]["gatehouse"],
        json!({ "command": setup.program(), "args": picked_args(&["serve"], "cursor") })
    );
    assert!(
        message.contains(&format!("Cursor takes at most 40 tools, so Gatehouse offers it {}", pick("cursor"))),
        "{message}"
    );
    let cursor = setup.client("cursor");
    assert_eq!((cursor["state"].as_str(), text(&cursor["summary"])), (Some("connected"), "Connected.".to_owned()));
    assert_eq!(cursor["over_limit"], Value::Null, "the pick fits");

    // Connecting again changes nothing and makes no second backup.
    let again = invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor" })).expect("connect");
    assert_eq!(again["backup"], Value::Null);
    assert!(text(&again["message"]).contains("already connected"), "{again}");

    let connected_text = std::fs::read_to_string(&file).expect("read");
    let removed = invoke(&setup.settings, "assistants_disconnect", json!({ "client": "cursor" })).expect("disconnect");
    assert_backup(&removed, &file, &connected_text);
    let left = read_json(&file);
    assert_eq!(left["theme"], "dark");
    assert_eq!(left["mcpServers"].as_object().expect("servers").keys().collect::<Vec<_>>(), ["github"]);
    assert_eq!(setup.client("cursor")["state"], "not_connected");

    let nothing = invoke(&setup.settings, "assistants_disconnect", json!({ "client": "cursor" })).expect("disconnect");
    assert_eq!(nothing["backup"], Value::Null);
    assert!(text(&nothing["message"]).contains("was not connected"), "{nothing}");
}

#[tokio::test(flavor = "multi_thread")]
async fn vs_code_keeps_its_comments_and_goose_its_other_extensions() {
    let setup = Setup::new(NORMAL).await;
    let vscode = r#"{
  // My servers, by hand.
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }
  },
  "inputs": []
}
"#;
    let goose = "GOOSE_PROVIDER: anthropic\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n    name: developer\n";
    let vscode_file = setup.write(".config/Code/User/mcp.json", vscode);
    let goose_file = setup.write(".config/goose/config.yaml", goose);

    for (id, file, original) in [("vscode", &vscode_file, vscode), ("goose", &goose_file, goose)] {
        let connected = invoke(&setup.settings, "assistants_connect", json!({ "client": id })).expect("connect");
        assert_eq!(connected["path"], file.display().to_string());
        assert_backup(&connected, file, original);
        assert_eq!(setup.client(id)["state"], "connected", "{id}");
    }
    let written = std::fs::read_to_string(&vscode_file).expect("read");
    assert!(written.contains("// My servers, by hand.") && written.contains("api.githubcopilot.com"), "{written}");
    assert!(written.contains(&setup.program()) && written.contains("\"stdio\""), "{written}");
    let written = std::fs::read_to_string(&goose_file).expect("read");
    assert!(written.contains("GOOSE_PROVIDER: anthropic") && written.contains("developer:"), "{written}");
    assert!(written.contains("gatehouse:") && written.contains(&setup.program()), "{written}");

    for (id, file, original) in [("vscode", &vscode_file, vscode), ("goose", &goose_file, goose)] {
        invoke(&setup.settings, "assistants_disconnect", json!({ "client": id })).expect("disconnect");
        let left = std::fs::read_to_string(file).expect("read");
        assert!(!left.contains("gatehouse") && !left.contains(&setup.program()), "{id}: {left}");
        for line in original.lines().filter(|line| !line.trim().is_empty()) {
            assert!(left.contains(line.trim()), "{id} kept {line:?}: {left}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_file_is_created_without_a_backup_and_a_missing_assistant_is_said() {
    let setup = Setup::new(NORMAL).await;
    let file = setup.path(".config/Claude/claude_desktop_config.json");
    let claude = setup.client("claude-desktop");
    assert_eq!((claude["installed"].as_bool(), claude["state"].as_str()), (Some(false), Some("not_connected")));

    let connected =
        invoke(&setup.settings, "assistants_connect", json!({ "client": "claude-desktop" })).expect("connect");
    assert_eq!(connected["backup"], Value::Null, "there was nothing to back up");
    let message = text(&connected["message"]);
    assert!(message.contains("does not look installed") && message.contains("ready for when it is"), "{message}");
    assert_eq!(
        read_json(&file),
        json!({ "mcpServers": { "gatehouse": { "command": setup.program(), "args": ["serve"] } } })
    );

    let unknown = invoke(&setup.settings, "assistants_connect", json!({ "client": "notepad" })).unwrap_err();
    assert!(text(&unknown).contains("not an assistant Gatehouse can connect"), "{unknown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_connects_to_the_sandbox_and_another_program_or_mode_is_told_apart() {
    let sandbox = Setup::new(Options { sandbox: true, ..NORMAL }).await;
    let file = sandbox.path(".codeium/windsurf/mcp_config.json");
    invoke(&sandbox.settings, "assistants_connect", json!({ "client": "windsurf" })).expect("connect");
    let args = picked_args(&["serve", "--sandbox"], "windsurf");
    assert_eq!(read_json(&file)["mcpServers"]["gatehouse"]["args"], args);
    assert_eq!(sandbox.client("windsurf")["summary"], "Connected to the sandbox.");
    let listed = sandbox.list();
    assert_eq!(listed["sandbox"], true);
    assert_eq!(listed["sandbox_until_sign_in"], false, "the person chose it");
    let snippet: Value = serde_json::from_str(&text(&listed["snippet"])).expect("the snippet is JSON");
    assert_eq!(snippet["mcpServers"]["gatehouse"]["args"], json!(["serve", "--sandbox"]));

    // The same entry, seen by an app that uses the Google account: it reaches the sandbox, not this app.
    let account = Setup::new(NORMAL).await;
    let entry =
        json!({ "mcpServers": { "gatehouse": { "command": account.program(), "args": ["serve", "--sandbox"] } } });
    account.write(".codeium/windsurf/mcp_config.json", &entry.to_string());
    let windsurf = account.client("windsurf");
    assert_eq!(windsurf["state"], "elsewhere");
    assert!(text(&windsurf["summary"]).contains("not your Google account"), "{windsurf}");

    account.write(
        ".cursor/mcp.json",
        r#"{"mcpServers": {"gatehouse": {"command": "/opt/old/gatehouse", "args": ["serve"]}}}"#,
    );
    let cursor = account.client("cursor");
    assert_eq!(cursor["state"], "elsewhere");
    assert!(text(&cursor["summary"]).contains("another Gatehouse program (/opt/old/gatehouse)"), "{cursor}");
    let updated = invoke(&account.settings, "assistants_connect", json!({ "client": "cursor" })).expect("connect");
    assert!(updated["backup"].is_string(), "{updated}");
    assert_eq!(account.client("cursor")["state"], "connected");
}

/// In the sandbox only because nobody is signed in, *Connect* writes a plain `gatehouse serve` (which the app
/// takes as a relay now, and which reaches the Google account once the person signs in), and an entry that asks
/// for the sandbox is told apart as one that will stay on the sample files.
#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_while_nobody_is_signed_in_connects_for_the_account() {
    let fallback = Setup::new(Options { sandbox: true, signed_out: true, ..NORMAL }).await;
    let file = fallback.path(".codeium/windsurf/mcp_config.json");
    invoke(&fallback.settings, "assistants_connect", json!({ "client": "windsurf" })).expect("connect");
    assert_eq!(read_json(&file)["mcpServers"]["gatehouse"]["args"], picked_args(&["serve"], "windsurf"));
    let windsurf = fallback.client("windsurf");
    assert_eq!(windsurf["state"], "connected", "{windsurf}");
    assert!(text(&windsurf["summary"]).contains("Until you sign in"), "{windsurf}");
    let listed = fallback.list();
    assert_eq!(listed["sandbox"], true, "the page still says the sample files are in use");
    assert_eq!(listed["sandbox_until_sign_in"], true, "and that the connection reaches the account after sign-in");
    let snippet: Value = serde_json::from_str(&text(&listed["snippet"])).expect("the snippet is JSON");
    assert_eq!(snippet["mcpServers"]["gatehouse"]["args"], json!(["serve"]));

    // An entry that asks for the sandbox would stay on the sample files after sign-in: Connect points it here.
    let entry =
        json!({ "mcpServers": { "gatehouse": { "command": fallback.program(), "args": ["serve", "--sandbox"] } } });
    let cursor = fallback.write(".cursor/mcp.json", &entry.to_string());
    assert_eq!(fallback.client("cursor")["state"], "elsewhere");
    invoke(&fallback.settings, "assistants_connect", json!({ "client": "cursor" })).expect("connect");
    assert_eq!(read_json(&cursor)["mcpServers"]["gatehouse"]["args"], picked_args(&["serve"], "cursor"));
    assert_eq!(fallback.client("cursor")["state"], "connected");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_file_is_left_untouched_and_said_why() {
    let setup = Setup::new(NORMAL).await;
    let broken = "{ \"mcpServers\": { \"github\": ";
    let file = setup.write(".claude.json", broken);
    let claude = setup.client("claude-code");
    assert_eq!(claude["state"], "unreadable");
    assert!(text(&claude["summary"]).contains("is not valid JSON"), "{claude}");

    let refused = invoke(&setup.settings, "assistants_connect", json!({ "client": "claude-code" })).unwrap_err();
    assert!(text(&refused).contains("left it untouched"), "{refused}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), broken);
    let entries = std::fs::read_dir(setup.home.path()).expect("home").count();
    assert_eq!(entries, 1, "no backup or temporary file was left");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_gatehouse_program_connect_says_so_and_writes_nothing() {
    let setup = Setup::new(Options { program: false, ..NORMAL }).await;
    let listed = setup.list();
    assert_eq!(listed["program"], Value::Null);
    assert_eq!(listed["snippet"], Value::Null);
    let problem = text(&listed["program_problem"]);
    assert!(
        problem.contains("can't find") && problem.contains(&setup.programs.path().display().to_string()),
        "{problem}"
    );

    let refused = invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor" })).unwrap_err();
    assert_eq!(text(&refused), problem);
    assert!(!setup.path(".cursor").exists(), "nothing was written");

    // Disconnecting needs no program: an entry left by an old install can still be taken out.
    let file = setup.write(
        ".cursor/mcp.json",
        r#"{"mcpServers": {"gatehouse": {"command": "/gone/gatehouse"}, "x": {"command": "y"}}}"#,
    );
    invoke(&setup.settings, "assistants_disconnect", json!({ "client": "cursor" })).expect("disconnect");
    assert_eq!(read_json(&file), json!({ "mcpServers": { "x": { "command": "y" } } }));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_is_made_shown_once_listed_and_revoked() {
    let setup = Setup::new(NORMAL).await;
    let store = setup.store.clone().expect("store");
    let empty = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    assert_eq!((empty["tokens"].clone(), empty["problem"].clone()), (json!([]), Value::Null));

    let made = invoke(&setup.settings, "assistants_create_token", json!({ "name": "  my-notebook " })).expect("made");
    let token = text(&made["token"]);
    let id = text(&made["assistant"]["id"]);
    assert_eq!(made["assistant"]["name"], "my-notebook");
    let url = format!("http://{HTTP}/mcp");
    assert_eq!(made["http_url"], url);
    assert_eq!(made["url_with_token"], format!("{url}?access_token={token}"));
    let snippet: Value = serde_json::from_str(&text(&made["snippet"])).expect("the snippet is JSON");
    assert_eq!(snippet["mcpServers"]["gatehouse"]["url"], url);
    assert_eq!(snippet["mcpServers"]["gatehouse"]["headers"]["Authorization"], format!("Bearer {token}"));
    assert!(matches!(store.assistant_for_token(&token), TokenMatch::Active(found) if found.id == id));

    let listed = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    let tokens = listed["tokens"].as_array().expect("tokens");
    assert_eq!(tokens.len(), 1);
    assert_eq!((tokens[0]["id"].clone(), tokens[0]["name"].clone()), (json!(id), json!("my-notebook")));
    assert!(tokens[0]["created"].is_string() && tokens[0]["last_used"].is_null() && tokens[0]["revoked"].is_null());
    assert!(!listed.to_string().contains(&token), "the token is never shown again");

    let taken = invoke(&setup.settings, "assistants_create_token", json!({ "name": "MY-NOTEBOOK" })).unwrap_err();
    assert!(text(&taken).contains("already registered"), "{taken}");
    let blank = invoke(&setup.settings, "assistants_create_token", json!({ "name": "  " })).unwrap_err();
    assert!(text(&blank).contains("it is empty"), "{blank}");

    let revoked = invoke(&setup.settings, "assistants_revoke_token", json!({ "id": id })).expect("revoked");
    assert!(text(&revoked["message"]).contains("“my-notebook” is revoked"), "{revoked}");
    assert!(revoked["assistant"]["revoked"].is_string());
    assert!(matches!(store.assistant_for_token(&token), TokenMatch::Revoked(_)), "its next request is refused");
    let listed = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    assert!(listed["tokens"][0]["revoked"].is_string(), "{listed}");

    let again = invoke(&setup.settings, "assistants_revoke_token", json!({ "id": id })).expect("answered");
    assert!(text(&again["message"]).contains("was already revoked"), "{again}");
    let gone = invoke(&setup.settings, "assistants_revoke_token", json!({ "id": "no-such-id" })).unwrap_err();
    assert!(text(&gone).contains("not in Gatehouse's list"), "{gone}");

    // The name is free again once its token is revoked.
    invoke(&setup.settings, "assistants_create_token", json!({ "name": "my-notebook" })).expect("made again");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tokens_tool_set_is_listed_with_the_sets_to_choose_from_and_changed() {
    let setup = Setup::new(NORMAL).await;
    let store = setup.store.clone().expect("store");
    let made = invoke(&setup.settings, "assistants_create_token", json!({ "name": "reader" })).expect("made");
    let (id, token) = (text(&made["assistant"]["id"]), text(&made["token"]));
    let listed = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    assert!(listed["tokens"][0]["tools"].is_null(), "a new token is offered every tool: {listed}");
    let sets: Vec<String> = listed["sets"].as_array().expect("sets").iter().map(|set| text(&set["name"])).collect();
    assert_eq!(sets, gatehouse_core::tools::sets::sets().into_iter().map(|set| set.name).collect::<Vec<_>>());
    assert!(sets.iter().any(|set| set == "sheets-read") && sets[0] == "all", "{sets:?}");

    let changed = invoke(&setup.settings, "assistants_set_tools", json!({ "id": id, "tools": "sheets-read" }))
        .expect("the settings window may change a token's tools");
    assert_eq!(changed["assistant"]["tools"], "sheets-read");
    let reads = gatehouse_core::tools::sets::sets().into_iter().find(|set| set.name == "sheets-read").expect("set");
    assert_eq!(changed["offered"], json!(reads.tools.len()));
    assert!(text(&changed["message"]).contains("“reader” is now offered the tool set “sheets-read”"), "{changed}");
    // The HTTP guard sees it at the next request.
    let TokenMatch::Active(found) = store.assistant_for_token(&token) else { panic!("the token is active") };
    assert_eq!(found.tools.as_deref(), Some("sheets-read"));
    let listed = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    assert_eq!(listed["tokens"][0]["tools"], "sheets-read");

    let wrong =
        invoke(&setup.settings, "assistants_set_tools", json!({ "id": id, "tools": "sheet-read" })).unwrap_err();
    assert!(text(&wrong).contains("“sheet-read” is not a tool set") && text(&wrong).contains("drive-read"), "{wrong}");
    let every =
        invoke(&setup.settings, "assistants_set_tools", json!({ "id": id, "tools": null })).expect("every tool");
    assert!(every["assistant"]["tools"].is_null() && text(&every["message"]).contains("every tool"), "{every}");

    invoke(&setup.settings, "assistants_revoke_token", json!({ "id": id })).expect("revoked");
    let revoked = invoke(&setup.settings, "assistants_set_tools", json!({ "id": id, "tools": "docs" })).unwrap_err();
    assert!(text(&revoked).contains("is revoked"), "{revoked}");
    let gone =
        invoke(&setup.settings, "assistants_set_tools", json!({ "id": "no-such-id", "tools": "docs" })).unwrap_err();
    assert!(text(&gone).contains("not in Gatehouse's list"), "{gone}");
}

#[tokio::test(flavor = "multi_thread")]
async fn connect_may_offer_only_a_tool_set_and_the_card_says_which() {
    let setup = Setup::new(NORMAL).await;
    let listed = setup.list();
    let sets: Vec<String> = listed["sets"].as_array().expect("sets").iter().map(|set| text(&set["name"])).collect();
    assert!(sets[0] == "all" && sets.iter().any(|set| set == "docs-read"), "{sets:?}");

    let wrong = invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor", "tools": "doc-read" }))
        .expect_err("an unknown set is refused");
    assert!(text(&wrong).contains("“doc-read” is not a tool set"), "{wrong}");
    assert!(!setup.path(".cursor/mcp.json").exists(), "nothing written for a refused set");

    invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor", "tools": "docs-read" }))
        .expect("connect");
    let written = read_json(&setup.path(".cursor/mcp.json"));
    assert_eq!(written["mcpServers"]["gatehouse"]["args"], json!(["serve", "--tools", "docs-read"]));
    let cursor = setup.client("cursor");
    assert_eq!((cursor["state"].as_str(), cursor["tools"].as_str()), (Some("connected"), Some("docs-read")));

    // A choice over the assistant's limit is the person's: it is kept, and the page warns where it is made.
    let over = invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor", "tools": "sheets,drive" }))
        .expect("connect");
    let message = text(&over["message"]);
    assert!(
        message.contains(&format!("Cursor takes at most 40 tools, and these are {}", sheets_and_drive())),
        "{message}"
    );
    let cursor = setup.client("cursor");
    assert_eq!(cursor["tools"], "sheets,drive");
    assert!(text(&cursor["over_limit"]).starts_with("Cursor takes at most 40 tools"), "{cursor}");

    // `all` (or nothing) writes no `--tools`: the assistant is offered every tool, new ones included.
    invoke(&setup.settings, "assistants_connect", json!({ "client": "goose", "tools": "all" })).expect("connect");
    assert!(setup.client("goose")["tools"].is_null(), "{}", setup.client("goose"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_database_tokens_are_explained_not_failed() {
    let setup = Setup::new(Options { store: false, ..NORMAL }).await;
    let listed = invoke(&setup.settings, "assistants_tokens", json!({})).expect("tokens");
    assert_eq!(listed["tokens"], json!([]));
    let problem = text(&listed["problem"]);
    assert!(problem.contains("could not open its database") && problem.contains("restart Gatehouse"), "{problem}");
    let refused = invoke(&setup.settings, "assistants_create_token", json!({ "name": "x" })).unwrap_err();
    assert_eq!(text(&refused), problem);
    // Connecting does not need the database.
    invoke(&setup.settings, "assistants_connect", json!({ "client": "cursor" })).expect("connect");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_command_is_refused_outside_the_settings_window_and_the_cards_stay_the_cards() {
    let setup = Setup::new(NORMAL).await;
    let other = window(&setup.app, "main");
    for (command, args) in COMMANDS {
        let args: Value = serde_json::from_str(args).expect("JSON");
        for (label, window) in [("card", &setup.card), ("main", &other)] {
            let refused = invoke(window, command, args.clone()).expect_err("refused outside the settings window");
            let said = text(&refused);
            assert!(said.contains(command) && said.contains("not allowed"), "{command} from {label}: {said}");
        }
    }
    assert!(!setup.path(".cursor").exists(), "a refused connect wrote nothing");
    let store = setup.store.clone().expect("store");
    assert_eq!(store.list_assistants().await.expect("list"), Vec::new(), "a refused create made no token");

    for command in ["card_pending", "card_answer"] {
        let refused = invoke(&setup.settings, command, json!({ "id": 1, "answer": "AllowOnce" })).unwrap_err();
        assert!(text(&refused).contains("not allowed"), "{command}: {refused}");
    }
}

/// How many tools the sets `sheets,drive` hold.
fn sheets_and_drive() -> usize {
    let selection = ToolSelection::parse("sheets,drive").expect("sets");
    catalogue().iter().filter(|meta| selection.allows(meta.name)).count()
}
