//! "Connect an assistant" against real config files in a temporary HOME, for every client Gatehouse knows:
//! a missing file is created; a file with other servers and settings keeps them, in order, byte for byte; a
//! backup equal to the original is made first; a second connect changes nothing; disconnect removes only ours
//! and gives back the original bytes; a file that isn't valid JSON or YAML is refused and left untouched; and
//! every OS's path is computed from the environment given, never the real one.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_core::connect::{
    CLIENTS, Client, ConnectError, ConnectOutcome, Connection, DisconnectOutcome, ENTRY_NAME, Format, Os, ServerEntry,
    connect, disconnect, find_client, http_snippet, set_up_in, snippet, status, url_with_token,
};
use serde_json::Value;

const BINARY: &str = "/opt/gatehouse/bin/gatehouse";

/// A temporary HOME and the only environment variables the code under test sees.
struct Home {
    dir: tempfile::TempDir,
    vars: HashMap<String, String>,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap().to_owned();
        let vars = HashMap::from([("HOME".to_owned(), home.clone()), ("USERPROFILE".to_owned(), home)]);
        Self { dir, vars }
    }

    fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |name| self.vars.get(name).cloned()
    }

    fn path(&self, client: &Client) -> PathBuf {
        let path = client.config_path(Os::current(), &self.lookup()).unwrap();
        assert!(path.starts_with(self.dir.path()), "{} is outside the test's HOME", path.display());
        path
    }

    /// Writes the client's config file, as an installed client has (Claude Code also has its `~/.claude`).
    fn write(&self, client: &Client, text: &str) -> PathBuf {
        let path = self.path(client);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::create_dir_all(client.installed_path(Os::current(), &self.lookup()).unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    fn connect(
        &self,
        client: &Client,
        entry: &ServerEntry,
    ) -> Result<gatehouse_core::connect::Connected, ConnectError> {
        connect(client, entry, &self.lookup())
    }

    fn disconnect(&self, client: &Client) -> Result<gatehouse_core::connect::Disconnected, ConnectError> {
        disconnect(client, ENTRY_NAME, &self.lookup())
    }

    fn status(&self, client: &Client) -> gatehouse_core::connect::Status {
        status(client, ENTRY_NAME, Path::new(BINARY), &self.lookup()).unwrap()
    }
}

fn entry(sandbox: bool) -> ServerEntry {
    ServerEntry::gatehouse(Path::new(BINARY), sandbox).unwrap()
}

fn backups(path: &Path) -> Vec<PathBuf> {
    let prefix = format!("{}.gatehouse-backup-", path.file_name().unwrap().to_str().unwrap());
    let mut found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|candidate| candidate.file_name().unwrap().to_str().unwrap().starts_with(&prefix))
        .collect();
    found.sort();
    found
}

/// No temporary file of ours is left behind.
fn assert_no_temporaries(path: &Path) {
    for entry in fs::read_dir(path.parent().unwrap()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(!name.ends_with(".tmp"), "left behind: {name}");
    }
}

/// A real-looking config of each client with other servers and other settings.
fn existing(client: &Client) -> &'static str {
    match client.id {
        "claude-desktop" => {
            r#"{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example" }
    }
  },
  "preferences": { "menuBarEnabled": false, "zoom": 1.25 }
}
"#
        }
        "claude-code" => {
            r#"{
  "numStartups": 42,
  "installMethod": "native",
  "autoUpdates": true,
  "projects": {
    "/home/ada/work": {
      "allowedTools": [],
      "mcpServers": {
        "gatehouse": { "type": "stdio", "command": "/old/gatehouse", "args": ["serve"] }
      }
    }
  },
  "mcpServers": {
    "context7": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@upstash/context7-mcp"],
      "env": {}
    }
  },
  "userID": "0123abcd"
}"#
        }
        "cursor" => {
            r#"{
    "mcpServers": {
        "playwright": {
            "command": "npx",
            "args": ["@playwright/mcp@latest"]
        },
        "remote": {
            "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer x"}
        }
    },
    "x-kept": ["a", 1, null]
}
"#
        }
        "vscode" => {
            "// User-level MCP servers\n{\n\t\"servers\": {\n\t\t// Memory server\n\t\t\"memory\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"],\n\t\t},\n\t\t\"github\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"https://api.githubcopilot.com/mcp/\"\n\t\t}, /* trailing */\n\t},\n\t\"inputs\": [\n\t\t{ \"type\": \"promptString\", \"id\": \"api-key\", \"description\": \"API key\", \"password\": true }\n\t]\n}\n"
        }
        "windsurf" => {
            r#"{
  "mcpServers": {
    "ollama": {"command": "py", "args": ["-m", "mcp_ollama_python"], "disabled": false, "env": {}},
    "git": {"command": "py", "args": ["-m", "mcp_server_git"], "disabled": true, "env": {}}
  },
  "theme": "dark"
}
"#
        }
        "goose" => {
            r#"# goose configuration
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4-5
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  filesystem:
    type: stdio
    name: filesystem
    enabled: true
    cmd: npx
    args:
    - -y
    - '@modelcontextprotocol/server-filesystem'
    - /tmp
    envs: {}
    timeout: 300
  # remote tools are off for now
GOOSE_MODE: smart_approve
"#
        }
        other => panic!("no fixture for {other}"),
    }
}

/// A file with a syntax error, and the line it is on.
fn broken(client: &Client) -> (&'static str, usize) {
    match client.format {
        Format::Json | Format::Jsonc => {
            ("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {\"command\": \"y\"}\n  }\n}\n", 4)
        }
        Format::Yaml => ("GOOSE_MODE: auto\nextensions:\n  a: [1, 2\n  b: {\n", 4),
    }
}

/// The parsed document (JSON with comments is not parsed here; its tests compare text).
fn document(client: &Client, text: &str) -> Option<Value> {
    match client.format {
        Format::Json => Some(serde_json::from_str(text).unwrap()),
        Format::Jsonc => None,
        Format::Yaml => Some(yaml_serde::from_str(text).unwrap()),
    }
}

#[test]
fn connect_creates_a_missing_file_and_folder() {
    for client in &CLIENTS {
        let home = Home::new();
        let path = home.path(client);
        assert!(!path.parent().unwrap().exists() || client.id == "claude-code", "{}", client.id);
        assert!(!home.status(client).installed || client.id == "claude-code");

        let connected = home.connect(client, &entry(false)).unwrap();
        assert_eq!(connected.outcome, ConnectOutcome::Added, "{}", client.id);
        assert_eq!(connected.path, path);
        assert_eq!(connected.backup, None, "{}: no file, no backup", client.id);
        assert!(!connected.installed, "{}: an empty HOME has no assistant installed", client.id);

        let text = fs::read_to_string(&path).unwrap();
        let status = home.status(client);
        assert_eq!(
            status.connection,
            Connection::Connected { command: Some(BINARY.into()), args: vec!["serve".into()], this_binary: true },
            "{}: {text}",
            client.id
        );
        if let Some(document) = document(client, &text) {
            let ours = &document[client.container][ENTRY_NAME];
            let command = if client.format == Format::Yaml { &ours["cmd"] } else { &ours["command"] };
            assert_eq!(command, BINARY, "{}", client.id);
        }
        match client.id {
            "vscode" | "claude-code" => assert!(text.contains(r#""type": "stdio""#), "{}: {text}", client.id),
            "goose" => {
                let goose: Value = yaml_serde::from_str(&text).unwrap();
                let ours = &goose["extensions"]["gatehouse"];
                assert_eq!(ours["enabled"], true);
                assert_eq!(ours["type"], "stdio");
                assert_eq!(ours["name"], "gatehouse");
                assert_eq!(ours["args"], serde_json::json!(["serve"]));
                assert_eq!(ours["timeout"], 300);
                assert!(ours["envs"].as_object().unwrap().is_empty());
            }
            _ => assert!(!text.contains("\"type\""), "{}: {text}", client.id),
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600, "{}", client.id);
        }
        assert_no_temporaries(&path);
    }
}

#[test]
fn connect_keeps_other_servers_and_settings_in_order_and_backs_up_first() {
    for client in &CLIENTS {
        let home = Home::new();
        let original = existing(client);
        let path = home.write(client, original);

        let connected = home.connect(client, &entry(false)).unwrap();
        assert_eq!(connected.outcome, ConnectOutcome::Added, "{}", client.id);
        assert!(connected.installed, "{}: the config folder exists", client.id);
        let backup = connected.backup.expect("a backup");
        assert_eq!(backups(&path), vec![backup.clone()]);
        assert_eq!(fs::read_to_string(&backup).unwrap(), original, "{}: the backup is the original", client.id);
        let name = backup.file_name().unwrap().to_str().unwrap().to_owned();
        let stamp = name.rsplit("gatehouse-backup-").next().unwrap();
        assert!(stamp.len() == 16 && stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T', "{name}");

        let text = fs::read_to_string(&path).unwrap();
        // Every other byte is where it was: the original is the new text minus the lines we added.
        assert!(text.len() > original.len());
        match document(client, &text) {
            Some(mut after) => {
                let before = document(client, original).unwrap();
                let servers = after.get_mut(client.container).unwrap().as_object_mut().unwrap();
                assert_eq!(servers.keys().next_back().unwrap(), ENTRY_NAME, "{}: ours goes last", client.id);
                assert!(servers.shift_remove(ENTRY_NAME).is_some());
                // Same keys, same values, same order everywhere else.
                assert_eq!(
                    serde_json::to_string(&after).unwrap(),
                    serde_json::to_string(&before).unwrap(),
                    "{}",
                    client.id
                );
            }
            None => {
                for kept in ["// User-level MCP servers", "// Memory server", "/* trailing */", "\"inputs\""] {
                    assert!(text.contains(kept), "{}: {kept} was lost:\n{text}", client.id);
                }
                let at = |needle: &str| text.find(needle).unwrap();
                assert!(at("\"memory\"") < at("\"github\"") && at("\"github\"") < at("\"gatehouse\""));
                assert!(at("\"gatehouse\"") < at("\"inputs\""));
                // Laid out like its neighbours: tab-indented, with the file's trailing comma.
                assert!(text.contains("\t\t\"gatehouse\": {\n\t\t\t\"type\": \"stdio\",\n"), "{text}");
            }
        }
        assert_eq!(home.status(client).connection, connected_here(), "{}", client.id);
        assert_no_temporaries(&path);
    }
}

fn connected_here() -> Connection {
    Connection::Connected { command: Some(BINARY.into()), args: vec!["serve".into()], this_binary: true }
}

#[test]
fn a_second_connect_changes_nothing_and_makes_no_backup() {
    for client in &CLIENTS {
        let home = Home::new();
        let path = home.write(client, existing(client));
        home.connect(client, &entry(false)).unwrap();
        let connected_text = fs::read(&path).unwrap();
        let modified = fs::metadata(&path).unwrap().modified().unwrap();

        let again = home.connect(client, &entry(false)).unwrap();
        assert_eq!(again.outcome, ConnectOutcome::AlreadyConnected, "{}", client.id);
        assert_eq!(again.backup, None);
        assert_eq!(backups(&path).len(), 1, "{}: only the first connect's backup", client.id);
        assert_eq!(fs::read(&path).unwrap(), connected_text);
        assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), modified, "{}: not rewritten", client.id);
    }
}

#[test]
fn disconnect_removes_only_ours_and_gives_back_the_original_bytes() {
    for client in &CLIENTS {
        let home = Home::new();
        let original = existing(client);
        let path = home.write(client, original);
        home.connect(client, &entry(false)).unwrap();
        let connected_text = fs::read_to_string(&path).unwrap();

        let disconnected = home.disconnect(client).unwrap();
        assert_eq!(disconnected.outcome, DisconnectOutcome::Removed, "{}", client.id);
        assert_eq!(fs::read_to_string(&path).unwrap(), original, "{}: the rest is byte for byte as it was", client.id);
        let backup = disconnected.backup.expect("a backup before disconnecting");
        assert_eq!(fs::read_to_string(backup).unwrap(), connected_text);
        assert_eq!(home.status(client).connection, Connection::NotConnected);

        let again = home.disconnect(client).unwrap();
        assert_eq!(again.outcome, DisconnectOutcome::NothingToRemove, "{}", client.id);
        assert_eq!(again.backup, None);
        assert_eq!(backups(&path).len(), 2, "{}: nothing removed, no backup", client.id);
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
        assert_no_temporaries(&path);
    }
}

#[test]
fn disconnect_without_a_file_has_nothing_to_remove_and_creates_nothing() {
    for client in &CLIENTS {
        let home = Home::new();
        let disconnected = home.disconnect(client).unwrap();
        assert_eq!(disconnected.outcome, DisconnectOutcome::NothingToRemove);
        assert!(!home.path(client).exists(), "{}", client.id);
    }
}

/// The app makes its card window ahead when an assistant's own file already starts Gatehouse, however the entry
/// got there: here it is pasted by hand (the snippet the app shows), not written by `connect`.
#[test]
fn an_entry_set_up_by_hand_in_any_clients_file_is_found() {
    for client in &CLIENTS {
        let home = Home::new();
        assert!(set_up_in(ENTRY_NAME, &home.lookup()).is_none(), "{}: found in an empty HOME", client.id);
        // Other servers only, and a broken file elsewhere: still not set up.
        home.write(client, existing(client));
        let other = CLIENTS.iter().find(|other| other.id != client.id).unwrap();
        home.write(other, broken(other).0);
        assert!(set_up_in(ENTRY_NAME, &home.lookup()).is_none(), "{}: found among other servers", client.id);

        // The file as a person leaves it after pasting the snippet the app shows for this client.
        let path = home.path(client);
        fs::write(&path, snippet(Some(client), &entry(false))).unwrap();
        assert_eq!(set_up_in(ENTRY_NAME, &home.lookup()).map(|found| found.id), Some(client.id), "{}", path.display());
    }
}

#[test]
fn claude_codes_project_entries_of_the_same_name_are_not_ours() {
    let client = find_client("claude-code").unwrap();
    let home = Home::new();
    let path = home.write(client, existing(client));
    assert_eq!(home.status(client).connection, Connection::NotConnected, "a project's entry is not the user's");
    home.connect(client, &entry(false)).unwrap();
    let after: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(after["projects"]["/home/ada/work"]["mcpServers"]["gatehouse"]["command"], "/old/gatehouse");
    assert_eq!(after["mcpServers"]["gatehouse"]["command"], BINARY);
}

#[test]
fn an_invalid_file_is_refused_with_its_line_and_left_untouched() {
    for client in &CLIENTS {
        let home = Home::new();
        let (text, line) = broken(client);
        let path = home.write(client, text);

        let error = home.connect(client, &entry(false)).unwrap_err();
        let ConnectError::Invalid { line: Some(found), .. } = &error else { panic!("{}: {error:?}", client.id) };
        assert_eq!(*found, line, "{}: {error}", client.id);
        let message = error.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains(&format!("line {line}")) && message.contains("left it untouched"), "{message}");
        assert!(message.contains("Fix the file"), "{message}");

        assert!(matches!(home.disconnect(client), Err(ConnectError::Invalid { .. })), "{}", client.id);
        assert!(matches!(home.status(client).connection, Connection::Unreadable(ConnectError::Invalid { .. })));
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "{}: untouched", client.id);
        assert!(backups(&path).is_empty(), "{}: no backup of a file that was not changed", client.id);
        assert_no_temporaries(&path);
    }
}

#[test]
fn a_comment_in_a_strict_json_file_is_refused_not_destroyed() {
    let client = find_client("claude-desktop").unwrap();
    let home = Home::new();
    let text = "{\n  // my servers\n  \"mcpServers\": {}\n}\n";
    let path = home.write(client, text);
    let error = home.connect(client, &entry(false)).unwrap_err();
    assert!(error.to_string().contains("comment"), "{error}");
    assert!(matches!(error, ConnectError::Invalid { line: Some(2), .. }), "{error:?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_container_that_is_not_a_set_of_servers_is_refused() {
    for client in &CLIENTS {
        let home = Home::new();
        let text = match client.format {
            Format::Yaml => "extensions:\n- developer\n".to_owned(),
            _ => format!("{{\"{}\": [\"not\", \"servers\"]}}\n", client.container),
        };
        let path = home.write(client, &text);
        let error = home.connect(client, &entry(false)).unwrap_err();
        assert!(matches!(error, ConnectError::Unexpected { .. }), "{}: {error:?}", client.id);
        assert!(error.to_string().contains(client.container), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);

        let array = if client.format == Format::Yaml { "- a\n- b\n" } else { "[1, 2]\n" };
        home.write(client, array);
        assert!(matches!(home.connect(client, &entry(false)), Err(ConnectError::Unexpected { .. })));
        assert_eq!(fs::read_to_string(&path).unwrap(), array);
    }
}

#[test]
fn an_empty_file_reads_as_an_empty_config() {
    for client in &CLIENTS {
        for text in ["", "\n  \n"] {
            let home = Home::new();
            let path = home.write(client, text);
            let connected = home.connect(client, &entry(false)).unwrap();
            assert_eq!(connected.outcome, ConnectOutcome::Added);
            assert_eq!(fs::read_to_string(connected.backup.unwrap()).unwrap(), text);
            assert_eq!(home.status(client).connection, connected_here(), "{}", client.id);
            home.disconnect(client).unwrap();
            assert_eq!(home.status(client).connection, Connection::NotConnected);
            assert!(path.exists());
        }
    }
}

#[test]
fn the_sandbox_entry_replaces_ours_in_place() {
    for client in &CLIENTS {
        let home = Home::new();
        let path = home.write(client, existing(client));
        home.connect(client, &entry(false)).unwrap();
        let connected = home.connect(client, &entry(true)).unwrap();
        assert_eq!(connected.outcome, ConnectOutcome::Updated, "{}", client.id);
        assert_eq!(backups(&path).len(), 2, "{}: each change is backed up", client.id);
        let Connection::Connected { args, this_binary, .. } = home.status(client).connection else { panic!() };
        assert_eq!(args, ["serve", "--sandbox"]);
        assert!(this_binary);
        // Replaced where it was: the original comes back on disconnect.
        home.disconnect(client).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), existing(client), "{}", client.id);
    }
}

#[test]
fn an_entry_pointing_at_another_binary_is_reported_and_then_updated() {
    for client in &CLIENTS {
        let home = Home::new();
        let elsewhere = ServerEntry::gatehouse(Path::new("/usr/local/bin/gatehouse"), false).unwrap();
        home.connect(client, &elsewhere).unwrap();
        let Connection::Connected { command, this_binary, .. } = home.status(client).connection else { panic!() };
        assert_eq!(command.as_deref(), Some("/usr/local/bin/gatehouse"));
        assert!(!this_binary, "{}", client.id);
        assert_eq!(home.connect(client, &entry(false)).unwrap().outcome, ConnectOutcome::Updated);
        assert_eq!(home.status(client).connection, connected_here());
    }
}

#[test]
fn what_the_client_adds_to_our_entry_does_not_make_it_different() {
    // Claude Code rewrites entries with "env": {}, Goose with its own defaults: still connected.
    let home = Home::new();
    let claude = find_client("claude-code").unwrap();
    let text = format!(
        "{{\n  \"mcpServers\": {{\n    \"gatehouse\": {{\n      \"type\": \"stdio\",\n      \"command\": \"{BINARY}\",\n      \"args\": [\"serve\"],\n      \"env\": {{}}\n    }}\n  }}\n}}\n"
    );
    let path = home.write(claude, &text);
    assert_eq!(home.connect(claude, &entry(false)).unwrap().outcome, ConnectOutcome::AlreadyConnected);
    assert_eq!(fs::read_to_string(&path).unwrap(), text);

    let goose = find_client("goose").unwrap();
    let text = format!(
        "extensions:\n  gatehouse:\n    available_tools: []\n    bundled: null\n    cmd: {BINARY}\n    args:\n    - serve\n    description: Google Sheets, Docs and Drive, with you approving every change\n    enabled: true\n    env_keys: []\n    envs: {{}}\n    name: gatehouse\n    timeout: 300\n    type: stdio\n"
    );
    let path = home.write(goose, &text);
    assert_eq!(home.connect(goose, &entry(false)).unwrap().outcome, ConnectOutcome::AlreadyConnected);
    assert_eq!(fs::read_to_string(&path).unwrap(), text);

    // Turned off in Goose: connecting turns it on again.
    fs::write(&path, text.replace("enabled: true", "enabled: false")).unwrap();
    assert_eq!(home.connect(goose, &entry(false)).unwrap().outcome, ConnectOutcome::Updated);
    let after: Value = yaml_serde::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(after["extensions"]["gatehouse"]["enabled"], true);
}

#[test]
fn compact_and_crlf_json_keep_their_layout() {
    let client = find_client("cursor").unwrap();
    for original in [
        "{\"mcpServers\":{\"a\":{\"command\":\"x\"}},\"z\":1}",
        "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"x\"\r\n    }\r\n  }\r\n}\r\n",
        "{\"mcpServers\": {}, \"z\": 1}\n",
        "{\n  \"z\": 1\n}\n",
    ] {
        let home = Home::new();
        let path = home.write(client, original);
        home.connect(client, &entry(false)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        if original.contains("\r\n") {
            assert!(!text.replace("\r\n", "").contains('\n'), "only CRLF line breaks: {text:?}");
        }
        let after: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(after["mcpServers"]["gatehouse"]["command"], BINARY);
        home.disconnect(client).unwrap();
        let back = fs::read_to_string(&path).unwrap();
        if original.starts_with("{\n  \"z\"") {
            // The servers object we had to add stays, empty: only our entry is ours to remove.
            let parsed: Value = serde_json::from_str(&back).unwrap();
            assert_eq!(parsed, serde_json::json!({"z": 1, "mcpServers": {}}));
        } else {
            assert_eq!(back, original);
        }
    }
}

#[test]
fn goose_sections_in_every_state_take_our_extension() {
    let client = find_client("goose").unwrap();
    for original in [
        "GOOSE_MODE: auto\n",
        "GOOSE_MODE: auto",
        "extensions:\nGOOSE_MODE: auto\n",
        "extensions: {}\nGOOSE_MODE: auto\n",
        "# only a comment\n",
        "extensions:\n    developer:\n        enabled: true\n        type: builtin\n        name: developer\n",
    ] {
        let home = Home::new();
        let path = home.write(client, original);
        home.connect(client, &entry(false)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let after: Value = yaml_serde::from_str(&text).unwrap();
        assert_eq!(after["extensions"]["gatehouse"]["cmd"], BINARY, "{original:?} became {text}");
        if original.contains("GOOSE_MODE") {
            assert_eq!(after["GOOSE_MODE"], "auto");
        }
        if original.contains("developer") {
            assert_eq!(after["extensions"]["developer"]["type"], "builtin");
            assert!(text.contains("\n    gatehouse:\n        enabled: true\n"), "laid out like its neighbours: {text}");
        }
        if original.starts_with('#') {
            assert!(text.starts_with("# only a comment\n"), "{text}");
        }
        home.disconnect(client).unwrap();
        let back: Value = yaml_serde::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert!(back.get("extensions").is_none_or(|extensions| extensions.get("gatehouse").is_none()));
        assert!(back.get("extensions").is_none_or(|extensions| extensions.is_object()), "never null: {back}");
    }
}

#[cfg(unix)]
#[test]
fn the_files_permissions_are_kept_for_it_and_its_backup() {
    use std::os::unix::fs::PermissionsExt;
    for client in &CLIENTS {
        let home = Home::new();
        let path = home.write(client, existing(client));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let connected = home.connect(client, &entry(false)).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640, "{}", client.id);
        let backup = connected.backup.unwrap();
        assert_eq!(fs::metadata(backup).unwrap().permissions().mode() & 0o777, 0o640, "{}", client.id);
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_stays_a_link_and_its_target_changes() {
    let client = find_client("cursor").unwrap();
    let home = Home::new();
    let dotfiles = home.dir.path().join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let target = dotfiles.join("cursor-mcp.json");
    fs::write(&target, existing(client)).unwrap();
    let path = home.path(client);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();

    home.connect(client, &entry(false)).unwrap();
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
    assert!(fs::read_to_string(&target).unwrap().contains(BINARY));
    home.disconnect(client).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), existing(client));
}

#[test]
fn installed_means_the_clients_folder_exists() {
    for client in &CLIENTS {
        let home = Home::new();
        assert!(!home.status(client).installed, "{}", client.id);
        let folder = client.installed_path(Os::current(), &home.lookup()).unwrap();
        fs::create_dir_all(&folder).unwrap();
        let status = home.status(client);
        assert!(status.installed, "{}", client.id);
        assert_eq!(status.connection, Connection::NotConnected);
        assert_eq!(status.path, home.path(client));
    }
    let claude = find_client("claude-code").unwrap();
    let home = Home::new();
    assert_eq!(claude.installed_path(Os::Linux, &home.lookup()).unwrap(), home.dir.path().join(".claude"));
}

#[test]
fn every_os_path_comes_from_the_environment_given() {
    let linux = HashMap::from([("HOME", "/home/ada")]);
    let linux_xdg = HashMap::from([("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "/data/config")]);
    let mac = HashMap::from([("HOME", "/Users/ada")]);
    let windows = HashMap::from([("USERPROFILE", r"C:\Users\ada"), ("APPDATA", r"C:\Users\ada\AppData\Roaming")]);
    let windows_no_appdata = HashMap::from([("USERPROFILE", r"C:\Users\ada")]);
    let path = |id: &str, os: Os, vars: &HashMap<&str, &str>| {
        let lookup = |name: &str| vars.get(name).map(|value| value.to_string());
        find_client(id).unwrap().config_path(os, &lookup).unwrap().to_str().unwrap().to_owned()
    };
    let expected = [
        ("claude-desktop", Os::Linux, &linux, "/home/ada/.config/Claude/claude_desktop_config.json"),
        ("claude-desktop", Os::Linux, &linux_xdg, "/data/config/Claude/claude_desktop_config.json"),
        ("claude-desktop", Os::MacOs, &mac, "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json"),
        ("claude-desktop", Os::Windows, &windows, r"C:\Users\ada\AppData\Roaming\Claude\claude_desktop_config.json"),
        ("claude-code", Os::Linux, &linux, "/home/ada/.claude.json"),
        ("claude-code", Os::MacOs, &mac, "/Users/ada/.claude.json"),
        ("claude-code", Os::Windows, &windows, r"C:\Users\ada\.claude.json"),
        ("cursor", Os::Linux, &linux_xdg, "/home/ada/.cursor/mcp.json"),
        ("cursor", Os::MacOs, &mac, "/Users/ada/.cursor/mcp.json"),
        ("cursor", Os::Windows, &windows, r"C:\Users\ada\.cursor\mcp.json"),
        ("vscode", Os::Linux, &linux, "/home/ada/.config/Code/User/mcp.json"),
        ("vscode", Os::Linux, &linux_xdg, "/data/config/Code/User/mcp.json"),
        ("vscode", Os::MacOs, &mac, "/Users/ada/Library/Application Support/Code/User/mcp.json"),
        ("vscode", Os::Windows, &windows, r"C:\Users\ada\AppData\Roaming\Code\User\mcp.json"),
        ("vscode", Os::Windows, &windows_no_appdata, r"C:\Users\ada\AppData\Roaming\Code\User\mcp.json"),
        ("windsurf", Os::Linux, &linux, "/home/ada/.codeium/windsurf/mcp_config.json"),
        ("windsurf", Os::MacOs, &mac, "/Users/ada/.codeium/windsurf/mcp_config.json"),
        ("windsurf", Os::Windows, &windows, r"C:\Users\ada\.codeium\windsurf\mcp_config.json"),
        ("goose", Os::Linux, &linux, "/home/ada/.config/goose/config.yaml"),
        ("goose", Os::Linux, &linux_xdg, "/data/config/goose/config.yaml"),
        ("goose", Os::MacOs, &mac, "/Users/ada/.config/goose/config.yaml"),
        ("goose", Os::Windows, &windows, r"C:\Users\ada\AppData\Roaming\Block\goose\config\config.yaml"),
    ];
    for (id, os, vars, want) in expected {
        assert_eq!(path(id, os, vars), want, "{id} on {os:?}");
    }

    // The clients' own variables that move their files.
    let moved =
        HashMap::from([("HOME", "/home/ada"), ("CLAUDE_CONFIG_DIR", "/work/claude"), ("GOOSE_PATH_ROOT", "/g")]);
    assert_eq!(path("claude-code", Os::Linux, &moved), "/work/claude/.claude.json");
    assert_eq!(path("goose", Os::Linux, &moved), "/g/config/config.yaml");
    // A relative XDG_CONFIG_HOME is to be ignored (XDG Base Directory spec).
    let relative = HashMap::from([("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "config")]);
    assert_eq!(path("vscode", Os::Linux, &relative), "/home/ada/.config/Code/User/mcp.json");

    let nobody = |_: &str| None;
    let error = find_client("cursor").unwrap().config_path(Os::Linux, &nobody).unwrap_err();
    assert_eq!(error, ConnectError::NoHome { variable: "HOME" });
    assert!(error.to_string().contains("HOME is not set"));
    let error = find_client("cursor").unwrap().config_path(Os::Windows, &nobody).unwrap_err();
    assert_eq!(error, ConnectError::NoHome { variable: "USERPROFILE" });
}

#[test]
fn clients_are_found_by_id_and_an_unknown_one_is_explained() {
    assert_eq!(
        CLIENTS.iter().map(|client| client.id).collect::<Vec<_>>(),
        ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "goose"]
    );
    assert_eq!(find_client("VSCode").unwrap().name, "VS Code");
    let error = find_client("notepad").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("\"notepad\"") && message.contains("claude-desktop, claude-code"), "{message}");
    for client in &CLIENTS {
        assert!(client.source.starts_with("https://"), "{}", client.id);
    }
}

#[test]
fn snippets_are_what_a_person_pastes() {
    let generic: Value = serde_json::from_str(&snippet(None, &entry(false))).unwrap();
    assert_eq!(generic, serde_json::json!({"mcpServers": {"gatehouse": {"command": BINARY, "args": ["serve"]}}}));

    let vscode: Value = serde_json::from_str(&snippet(Some(find_client("vscode").unwrap()), &entry(true))).unwrap();
    let args = ["serve", "--sandbox"];
    assert_eq!(
        vscode,
        serde_json::json!({"servers": {"gatehouse": {"type": "stdio", "command": BINARY, "args": args}}})
    );

    let goose_text = snippet(Some(find_client("goose").unwrap()), &entry(false));
    let goose: Value = yaml_serde::from_str(&goose_text).unwrap();
    assert_eq!(goose["extensions"]["gatehouse"]["cmd"], BINARY);
    assert_eq!(goose["extensions"]["gatehouse"]["type"], "stdio");

    let mut with_env = entry(false);
    with_env.env.insert("GATEHOUSE_HOME".into(), "/tmp/gh home".into());
    let cursor: Value = serde_json::from_str(&snippet(Some(find_client("cursor").unwrap()), &with_env)).unwrap();
    assert_eq!(cursor["mcpServers"]["gatehouse"]["env"]["GATEHOUSE_HOME"], "/tmp/gh home");

    let http: Value = serde_json::from_str(&http_snippet("http://127.0.0.1:8765/mcp", "tok-123")).unwrap();
    assert_eq!(
        http,
        serde_json::json!({"mcpServers": {"gatehouse": {
            "type": "http", "url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer tok-123"}
        }}})
    );
    assert_eq!(url_with_token("http://127.0.0.1:8765/mcp", "tok"), "http://127.0.0.1:8765/mcp?access_token=tok");
    assert_eq!(url_with_token("http://h/mcp?x=1", "tok"), "http://h/mcp?x=1&access_token=tok");
}

#[test]
fn env_and_awkward_paths_survive_every_format() {
    for client in &CLIENTS {
        let home = Home::new();
        let mut awkward = ServerEntry::gatehouse(Path::new(r#"/opt/My "Apps"/yes: no #1/gatehouse"#), true).unwrap();
        awkward.env.insert("GATEHOUSE_HOME".into(), "/tmp/a: b".into());
        home.write(client, existing(client));
        home.connect(client, &awkward).unwrap();
        let found = status(client, ENTRY_NAME, Path::new(&awkward.command), &home.lookup()).unwrap();
        let Connection::Connected { command, args, this_binary } = found.connection else { panic!("{}", client.id) };
        assert_eq!(command.as_deref(), Some(awkward.command.as_str()), "{}", client.id);
        assert_eq!(args, ["serve", "--sandbox"]);
        assert!(this_binary);
        assert_eq!(home.connect(client, &awkward).unwrap().outcome, ConnectOutcome::AlreadyConnected, "{}", client.id);
        home.disconnect(client).unwrap();
        assert_eq!(fs::read_to_string(home.path(client)).unwrap(), existing(client), "{}", client.id);
    }
}

#[test]
fn a_comment_closing_the_last_line_stays_on_it() {
    let client = find_client("vscode").unwrap();
    for original in [
        "{\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"x\"} // the only one\n  }\n}\n",
        "{\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"x\"}, // the only one\n  },\n}\n",
    ] {
        let home = Home::new();
        let path = home.write(client, original);
        home.connect(client, &entry(false)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"x\"}, // the only one\n    \"gatehouse\": {"), "{text}");
        assert_eq!(home.status(client).connection, connected_here());
        home.disconnect(client).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
    }
}

/// Any JSON value a config might hold (no floats: their text form is not ours to keep).
fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z \"\\\\/é\u{1F600}\t]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Whatever the other settings and servers, and however the file is laid out: connect keeps them all in
    /// order, and disconnect gives back the very bytes.
    #[test]
    fn connect_then_disconnect_gives_back_any_file(
        settings in proptest::collection::vec(("[a-z]{1,8}", any_json()), 0..5),
        servers in proptest::collection::vec(("[a-z-]{1,10}", any_json()), 0..4),
        place in 0..6usize,
        layout in 0..4usize,
    ) {
        let servers: serde_json::Map<String, Value> =
            servers.into_iter().filter(|(name, _)| name != ENTRY_NAME).collect();
        let mut root: Vec<(String, Value)> = settings;
        root.insert(place.min(root.len()), ("mcpServers".to_owned(), Value::Object(servers)));
        let document = Value::Object(root.into_iter().collect());
        let text = match layout {
            0 => serde_json::to_string(&document).unwrap(),
            1 => serde_json::to_string_pretty(&document).unwrap() + "\n",
            unit => {
                let mut out = Vec::new();
                let indent: &[u8] = if unit == 2 { b"    " } else { b"\t" };
                let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
                serde::Serialize::serialize(&document, &mut serde_json::Serializer::with_formatter(&mut out, formatter)).unwrap();
                String::from_utf8(out).unwrap()
            }
        };
        let client = find_client("cursor").unwrap();
        let home = Home::new();
        let path = home.write(client, &text);

        home.connect(client, &entry(false)).unwrap();
        let mut after: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let ours = after["mcpServers"].as_object_mut().unwrap().shift_remove(ENTRY_NAME).unwrap();
        proptest::prop_assert_eq!(&ours["command"], BINARY);
        proptest::prop_assert_eq!(serde_json::to_string(&after).unwrap(), serde_json::to_string(&document).unwrap());

        home.disconnect(client).unwrap();
        proptest::prop_assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }
}
