//! `gatehouse connect` / `disconnect` / `connect --list` through the real binary, with HOME set to a temporary
//! folder and nothing else in its environment (so no real config file can be reached): the file an assistant
//! reads gets our entry beside its others, after a backup; the entry it got starts a working MCP server; and
//! disconnect gives back the file as it was.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gatehouse_core::connect::{Os, find_client};
use gatehouse_e2e::{gatehouse_bin, stdio_client};
use serde_json::Value;

const CLAUDE_DESKTOP: &str = r#"{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"]
    }
  },
  "preferences": { "menuBarEnabled": false }
}
"#;

/// `gatehouse ARGS` with only HOME (and no XDG_*, APPDATA, CLAUDE_CONFIG_DIR …) in its environment.
fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(gatehouse_bin()).args(args).env_clear().env("HOME", home).output().expect("running gatehouse")
}

/// Where the binary, seeing only this HOME, finds the client's file on this OS.
fn config_path(home: &Path, client: &str) -> PathBuf {
    let home = home.to_str().unwrap().to_owned();
    let lookup = move |name: &str| (name == "HOME").then(|| home.clone());
    find_client(client).unwrap().config_path(Os::current(), &lookup).unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn backups(config: &Path) -> Vec<PathBuf> {
    let prefix = format!("{}.gatehouse-backup-", config.file_name().unwrap().to_str().unwrap());
    fs::read_dir(config.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name().unwrap().to_str().unwrap().starts_with(&prefix))
        .collect()
}

#[tokio::test]
async fn connect_list_and_disconnect_edit_the_assistants_own_file() {
    let home = tempfile::tempdir().unwrap();
    let config = config_path(home.path(), "claude-desktop");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, CLAUDE_DESKTOP).unwrap();
    // The program the assistant is told to start is this one, by its full path.
    let binary = fs::canonicalize(gatehouse_bin()).unwrap();

    let connected = run(home.path(), &["connect", "claude-desktop", "--sandbox"]);
    assert!(connected.status.success(), "{connected:?}");
    let said = stdout(&connected);
    assert!(said.contains("Added \"gatehouse\"") && said.contains("Restart Claude Desktop"), "{said}");
    let backup = backups(&config);
    assert_eq!(backup.len(), 1);
    assert!(said.contains(&backup[0].display().to_string()), "the backup is named: {said}");
    assert_eq!(fs::read_to_string(&backup[0]).unwrap(), CLAUDE_DESKTOP);

    let written: Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["globalShortcut", "mcpServers", "preferences"]);
    let servers: Vec<&String> = written["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(servers, ["filesystem", "gatehouse"]);
    let ours = &written["mcpServers"]["gatehouse"];
    assert_eq!(ours["command"], binary.to_str().unwrap());
    assert_eq!(ours["args"], serde_json::json!(["serve", "--sandbox"]));

    // What Claude Desktop will run works: the entry, started as the assistant starts it, serves the tools.
    let mut command = tokio::process::Command::new(ours["command"].as_str().unwrap());
    command.args(ours["args"].as_array().unwrap().iter().map(|arg| arg.as_str().unwrap()));
    command.env_clear().env("HOME", home.path()).kill_on_drop(true);
    let client = stdio_client(command).await.unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "search_spreadsheets"), "{} tools", tools.len());
    client.cancel().await.unwrap();

    let listed = stdout(&run(home.path(), &["connect", "--list"]));
    let line = |id: &str| listed.lines().find(|line| line.starts_with(id)).unwrap_or_else(|| panic!("{listed}"));
    assert!(line("claude-desktop").contains("installed") && !line("claude-desktop").contains("not installed"));
    assert!(line("claude-desktop").contains("connected (sandbox)"), "{listed}");
    for other in ["claude-code", "cursor", "vscode", "windsurf", "goose"] {
        assert!(line(other).contains("not installed") && line(other).contains("not connected"), "{listed}");
    }

    let again = run(home.path(), &["connect", "claude-desktop", "--sandbox"]);
    assert!(stdout(&again).contains("already connected"), "{again:?}");
    assert_eq!(backups(&config).len(), 1, "nothing changed, nothing backed up");

    let disconnected = run(home.path(), &["disconnect", "claude-desktop"]);
    assert!(disconnected.status.success(), "{disconnected:?}");
    assert!(stdout(&disconnected).contains("Removed \"gatehouse\""));
    assert_eq!(fs::read_to_string(&config).unwrap(), CLAUDE_DESKTOP, "everything else as it was, byte for byte");
    assert_eq!(backups(&config).len(), 2);

    let nothing = run(home.path(), &["disconnect", "claude-desktop"]);
    assert!(nothing.status.success() && stdout(&nothing).contains("was not connected"), "{nothing:?}");
}

#[test]
fn a_broken_config_is_refused_with_its_line_and_left_untouched() {
    let home = tempfile::tempdir().unwrap();
    let config = config_path(home.path(), "goose");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    let broken = "GOOSE_MODE: auto\nextensions:\n  developer: [1, 2\n  other: {\n";
    fs::write(&config, broken).unwrap();

    let refused = run(home.path(), &["connect", "goose"]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains(&config.display().to_string()) && said.contains("not valid YAML (line 4"), "{said}");
    assert!(said.contains("left it untouched"), "{said}");
    assert_eq!(fs::read_to_string(&config).unwrap(), broken);
    assert!(backups(&config).is_empty());
}

#[test]
fn snippets_and_unknown_assistants() {
    let home = tempfile::tempdir().unwrap();
    let pasted = run(home.path(), &["connect", "--snippet"]);
    assert!(pasted.status.success());
    let snippet: Value = serde_json::from_str(&stdout(&pasted)).unwrap();
    assert_eq!(snippet["mcpServers"]["gatehouse"]["args"], serde_json::json!(["serve"]));
    assert_eq!(fs::read_dir(home.path()).unwrap().count(), 0, "a snippet writes nothing");

    let unknown = run(home.path(), &["connect", "notepad"]);
    assert_eq!(unknown.status.code(), Some(1));
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("claude-desktop, claude-code, cursor, vscode, windsurf, goose"), "{said}");
}

#[tokio::test]
async fn connect_with_tools_writes_them_into_the_entry_and_the_assistant_is_offered_only_those() {
    let home = tempfile::tempdir().unwrap();
    let config = config_path(home.path(), "cursor");
    let connected = run(home.path(), &["connect", "cursor", "--sandbox", "--tools", "docs-read, sheets-read"]);
    assert!(connected.status.success(), "{connected:?}");
    let written: Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    let ours = &written["mcpServers"]["gatehouse"];
    assert_eq!(ours["args"], serde_json::json!(["serve", "--sandbox", "--tools", "docs-read,sheets-read"]));

    let mut command = tokio::process::Command::new(ours["command"].as_str().unwrap());
    command.args(ours["args"].as_array().unwrap().iter().map(|arg| arg.as_str().unwrap()));
    command.env_clear().env("HOME", home.path()).kill_on_drop(true);
    let client = stdio_client(command).await.unwrap();
    let listed: Vec<String> =
        client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    // The reads of those two products: Gatehouse's, and Google's own tools that only read.
    let selection = gatehouse_core::tools::sets::ToolSelection::parse("docs-read,sheets-read").unwrap();
    let expected: Vec<String> = gatehouse_e2e::sandbox_tools()
        .into_iter()
        .filter(|tool| selection.allows_tool(tool))
        .map(|tool| tool.name.to_string())
        .collect();
    assert!(expected.iter().any(|name| name.starts_with("google_")), "the emulator lists reads of Google's own");
    assert_eq!(listed, expected);
    client.cancel().await.unwrap();

    let wrong = run(home.path(), &["connect", "cursor", "--tools", "doc-read"]);
    assert!(!wrong.status.success());
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(said.contains("“doc-read” is not a tool set"), "{said}");
}

#[tokio::test]
async fn an_assistant_that_takes_only_so_many_tools_is_offered_sets_that_fit_and_told_so() {
    let home = tempfile::tempdir().unwrap();
    let config = config_path(home.path(), "vscode");
    let connected = run(home.path(), &["connect", "vscode", "--sandbox"]);
    assert!(connected.status.success(), "{connected:?}");
    let said = stdout(&connected);
    let fit = gatehouse_core::connect::limit::fit(
        find_client("vscode").unwrap(),
        None,
        gatehouse_core::tools::sets::catalogue(),
    );
    let picked = fit.selection.as_ref().expect("VS Code takes fewer tools than Gatehouse has").spec();
    assert!(said.contains(&format!("VS Code takes at most 128 tools, so Gatehouse offers it {picked}")), "{said}");
    assert!(said.contains("gatehouse connect vscode --tools SETS"), "and how to change it: {said}");

    let written: Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    let ours = &written["servers"]["gatehouse"];
    let max = "128";
    assert_eq!(ours["args"], serde_json::json!(["serve", "--sandbox", "--tools", picked, "--max-tools", max]));
    // What VS Code starts offers what was said, within its limit.
    let mut command = tokio::process::Command::new(ours["command"].as_str().unwrap());
    command.args(ours["args"].as_array().unwrap().iter().map(|arg| arg.as_str().unwrap()));
    command.env_clear().env("HOME", home.path()).kill_on_drop(true);
    let client = stdio_client(command).await.unwrap();
    // Gatehouse's own tools of the pick, as said, then Google's own of those sets while there is room.
    let listed: Vec<String> =
        client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    let selection = fit.selection.as_ref().unwrap();
    let in_sets: Vec<String> = gatehouse_e2e::sandbox_tools()
        .into_iter()
        .filter(|tool| selection.allows_tool(tool))
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(listed, in_sets[..in_sets.len().min(128)], "the sets, within VS Code's 128");
    assert!(listed[..fit.offered].iter().all(|name| !name.starts_with("google_")), "Gatehouse's own come first");
    assert!(said.contains(&format!("({} of its", fit.offered)), "{said}");
    client.cancel().await.unwrap();

    // A choice of the person's is kept, even over the limit, and warned about.
    let over = run(home.path(), &["connect", "cursor", "--tools", "sheets,drive"]);
    let said = stdout(&over);
    assert!(
        over.status.success()
            && said.contains(&format!("Cursor takes at most 40 tools, and these are {}", sheets_and_drive())),
        "{over:?}"
    );
}

/// How many tools the sets `sheets,drive` hold.
fn sheets_and_drive() -> usize {
    let selection = gatehouse_core::tools::sets::ToolSelection::parse("sheets,drive").expect("sets");
    gatehouse_core::tools::sets::catalogue().iter().filter(|meta| selection.allows(meta.name)).count()
}
