//! The *Assistants* page: connect the assistants Gatehouse knows how to configure, and give any other one what
//! to paste plus an HTTP token of its own.
//!
//! Editing a client's config file (merging, the backup, the atomic replace) is `gatehouse_core::connect`'s
//! work, and the tokens are the approvals store's; this module only finds the `gatehouse` program the entry
//! starts, and says what happened in words for someone who never opens a terminal.

use std::path::{Path, PathBuf};

use gatehouse_core::ToolSelection;
use gatehouse_core::approval::store::Assistant;
use gatehouse_core::connect::limit;
use gatehouse_core::connect::{
    CLIENTS, ConnectOutcome, Connection, DisconnectOutcome, ENTRY_NAME, ServerEntry, connect, disconnect, find_client,
    http_snippet, snippet, status, url_with_token,
};
use gatehouse_core::ops::{AssistantRevoked, Ops};
use gatehouse_core::tools::sets::{NamedSet, catalogue};
use serde::Serialize;
use tauri::{AppHandle, Runtime, State};

use super::Core;
use crate::Result;

/// The command-line program an assistant starts (`gatehouse serve`), which relays to this app.
const PROGRAM: &str = "gatehouse";

/// Reads an environment variable.
type Lookup = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Where the assistants' config files are found (through the environment, so tests point `HOME` at a temporary
/// folder) and where the `gatehouse` program is looked for: in the app's managed state.
pub struct Connector {
    lookup: Lookup,
    /// The folders the `gatehouse` program may be in, first match wins: the desktop program's own folder.
    program_dirs: Vec<PathBuf>,
}

impl Connector {
    /// The process's own environment, and the folder of the running desktop program (and, when that is a
    /// link, of the program it points to): installers and `cargo build` put both programs side by side.
    pub fn from_process() -> Self {
        let mut program_dirs = Vec::new();
        match std::env::current_exe() {
            Ok(exe) => {
                let resolved = std::fs::canonicalize(&exe).ok();
                for program in std::iter::once(exe).chain(resolved) {
                    if let Some(dir) = program.parent().map(Path::to_path_buf)
                        && !program_dirs.contains(&dir)
                    {
                        program_dirs.push(dir);
                    }
                }
            }
            Err(error) => {
                tracing::warn!("the desktop program's own path is unknown, so `gatehouse` can't be found: {error}")
            }
        }
        Self { lookup: Box::new(|name| std::env::var(name).ok()), program_dirs }
    }

    /// `lookup` instead of the environment, and `gatehouse` looked for in `program_dir` (tests).
    pub fn new(
        lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
        program_dir: impl Into<PathBuf>,
    ) -> Self {
        Self { lookup: Box::new(lookup), program_dirs: vec![program_dir.into()] }
    }

    /// The `gatehouse` program the assistants' entries start, or why there is none, in words.
    pub fn program(&self) -> Result<PathBuf, String> {
        let name = format!("{PROGRAM}{}", std::env::consts::EXE_SUFFIX);
        if let Some(found) = self.program_dirs.iter().map(|dir| dir.join(&name)).find(|path| path.is_file()) {
            return Ok(found);
        }
        let looked = match self.program_dirs.as_slice() {
            [] => "the folder of this app, which is unknown".to_owned(),
            dirs => dirs.iter().map(|dir| dir.display().to_string()).collect::<Vec<_>>().join(" and "),
        };
        Err(format!(
            "Gatehouse can't find its “{name}” program, which assistants start to reach this app (it looked in \
             {looked}). Reinstall Gatehouse to put it back; when running Gatehouse from its source code, build it \
             with `cargo build -p gatehouse-cli`."
        ))
    }

    fn lookup(&self) -> &(dyn Fn(&str) -> Option<String> + Send + Sync) {
        &*self.lookup
    }
}

/// Where an assistant stands with Gatehouse, for the page to pick its buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    NotConnected,
    /// Our entry starts this app's `gatehouse`, for the same sandbox-or-account as this app.
    Connected,
    /// Our entry is there but reaches something else: another `gatehouse` program, or the sandbox while this
    /// app uses the Google account (or the other way round). *Connect* points it here.
    Elsewhere,
    /// The config file can't be read; the summary says why and what to do.
    Unreadable,
}

/// One assistant Gatehouse can configure, as the page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ClientView {
    pub id: &'static str,
    pub name: &'static str,
    /// Its config file.
    pub path: String,
    /// Its config folder exists; *Connect* works either way.
    pub installed: bool,
    pub state: Standing,
    /// Where it stands, in a sentence.
    pub summary: String,
    /// The tools its entry offers it (`gatehouse serve --tools …`); `None`: every tool.
    pub tools: Option<String>,
    /// Those are more than it takes (VS Code, Cursor, Windsurf): what to tell the person.
    pub over_limit: Option<String>,
}

/// The page: each assistant Gatehouse configures, and what any other assistant needs.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    pub clients: Vec<ClientView>,
    /// The `gatehouse` program the entries start, when it was found.
    pub program: Option<String>,
    /// Why it was not found: *Connect* can't work until it is.
    pub program_problem: Option<String>,
    /// This app runs the sandbox: connections and tokens reach the sample files.
    pub sandbox: bool,
    /// ...only because nobody is signed in: assistants connected now reach the Google account once someone is.
    pub sandbox_until_sign_in: bool,
    /// What to paste into any other assistant that starts a program (the common `mcpServers` form).
    pub snippet: Option<String>,
    /// Where MCP over HTTP is served, e.g. `http://127.0.0.1:8765/mcp`.
    pub http_url: Option<String>,
    /// The tool sets *Connect* may offer an assistant (derived from the tools' declarations), `all` first.
    pub sets: Vec<NamedSet>,
}

/// What *Connect* or *Disconnect* did.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    pub name: &'static str,
    /// The assistant's config file.
    pub path: String,
    /// The copy of the file as it was, when it changed.
    pub backup: Option<String>,
    /// What happened and what to do next, in words.
    pub message: String,
}

/// The assistants that reach Gatehouse over HTTP with a token of their own.
#[derive(Debug, Clone, Serialize)]
pub struct Tokens {
    /// Newest first, revoked ones too.
    pub tokens: Vec<Assistant>,
    /// Why there are none to show or make: no approvals database is open.
    pub problem: Option<String>,
    pub http_url: Option<String>,
    /// The tool sets a token may be given (derived from the tools' declarations), `all` first.
    pub sets: Vec<NamedSet>,
}

/// A new token, shown this once.
#[derive(Debug, Clone, Serialize)]
pub struct NewToken {
    pub assistant: Assistant,
    pub token: String,
    pub http_url: Option<String>,
    /// The JSON most HTTP clients take (URL and bearer header), when MCP over HTTP is served.
    pub snippet: Option<String>,
    /// The URL with the token in it, for clients that take only a URL.
    pub url_with_token: Option<String>,
    /// Said when MCP over HTTP is not served right now.
    pub note: Option<String>,
}

/// What changing a token's tools did.
#[derive(Debug, Clone, Serialize)]
pub struct ToolsChanged {
    pub assistant: Assistant,
    /// How many tools it is offered now (within `ENABLED_TOOLS`).
    pub offered: usize,
    pub message: String,
}

/// What *Revoke* did.
#[derive(Debug, Clone, Serialize)]
pub struct Revoked {
    pub assistant: Option<Assistant>,
    pub message: String,
}

fn sandbox(core: &Core) -> bool {
    matches!(core.mode, crate::startup::Mode::Sandbox { .. })
}

/// The person chose the sandbox (Advanced page, `--sandbox`): entries ask for it. A sandbox the app runs only
/// because nobody is signed in does not count: entries stay plain, reach this app now (it takes their relay)
/// and the Google account once the person signs in.
fn chosen_sandbox(core: &Core) -> bool {
    matches!(core.mode, crate::startup::Mode::Sandbox { because_signed_out: false })
}

fn http_url(core: &Core) -> Option<String> {
    core.overview().http_url
}

/// The entry this app writes: its `gatehouse` program, serving the sandbox only when the person chose it (see
/// [`chosen_sandbox`]).
fn entry(core: &Core, connector: &Connector) -> Result<ServerEntry, String> {
    let program = connector.program()?;
    ServerEntry::gatehouse(&program, chosen_sandbox(core)).map_err(|error| error.to_string())
}

impl Core {
    /// Each assistant Gatehouse configures, whether it is connected, and what other assistants need.
    pub fn assistants(&self, connector: &Connector) -> Overview {
        let program = connector.program();
        let sandbox = sandbox(self);
        let binary = program.as_deref().unwrap_or(Path::new("")).to_path_buf();
        let clients = CLIENTS.iter().map(|client| self.client_view(client, &binary, connector)).collect();
        let stdio_snippet = program
            .as_deref()
            .ok()
            .and_then(|program| ServerEntry::gatehouse(program, chosen_sandbox(self)).ok())
            .map(|entry| snippet(None, &entry));
        Overview {
            clients,
            program: program.as_ref().ok().map(|path| path.display().to_string()),
            program_problem: program.err(),
            sandbox,
            sandbox_until_sign_in: sandbox && !chosen_sandbox(self),
            snippet: stdio_snippet,
            http_url: http_url(self),
            sets: gatehouse_core::tools::sets::sets(),
        }
    }

    fn client_view(
        &self,
        client: &'static gatehouse_core::connect::Client,
        binary: &Path,
        connector: &Connector,
    ) -> ClientView {
        let name = client.name;
        let found = match status(client, ENTRY_NAME, binary, connector.lookup()) {
            Ok(found) => found,
            Err(error) => {
                return ClientView {
                    id: client.id,
                    name,
                    path: String::new(),
                    installed: false,
                    state: Standing::Unreadable,
                    summary: error.to_string(),
                    tools: None,
                    over_limit: None,
                };
            }
        };
        let here = if chosen_sandbox(self) { "this app's sandbox" } else { "this app" };
        let (state, summary) = match &found.connection {
            Connection::NotConnected => (Standing::NotConnected, "Not connected.".to_owned()),
            connection @ Connection::Connected { this_binary: true, .. } => {
                match (connection.runs_sandbox(), chosen_sandbox(self)) {
                    (true, true) => (Standing::Connected, "Connected to the sandbox.".to_owned()),
                    (false, false) if sandbox(self) => (
                        Standing::Connected,
                        "Connected. Until you sign in with Google it works on the sandbox's sample files."
                            .to_owned(),
                    ),
                    (false, false) => (Standing::Connected, "Connected.".to_owned()),
                    (true, false) => (
                        Standing::Elsewhere,
                        "Connected to the sandbox's sample files, not your Google account. Connect again to use your account."
                            .to_owned(),
                    ),
                    (false, true) => (
                        Standing::Elsewhere,
                        "Connected to your Google account, but this app runs the sandbox, so it can't reach this app. Connect again to use the sandbox."
                            .to_owned(),
                    ),
                }
            }
            Connection::Connected { command, .. } => (
                Standing::Elsewhere,
                format!(
                    "Connected to another Gatehouse program ({}), not {here}. Connect again to use {here}.",
                    command.as_deref().unwrap_or("no program named")
                ),
            ),
            Connection::Unreadable(error) => (Standing::Unreadable, error.to_string()),
        };
        ClientView {
            id: client.id,
            name,
            path: found.path.display().to_string(),
            installed: found.installed,
            state,
            summary,
            tools: found.connection.tools().map(str::to_owned),
            over_limit: match &found.connection {
                Connection::Connected { .. } => limit::over_limit(client, found.connection.tools(), catalogue()),
                _ => None,
            },
        }
    }

    /// Writes Gatehouse into the assistant's own config file (see `gatehouse_core::connect::connect`),
    /// offering it only the tools of `tools` when given (a comma list of sets and tool names; empty or `all`:
    /// every tool).
    pub fn connect_assistant(&self, connector: &Connector, id: &str, tools: Option<&str>) -> Result<Changed, String> {
        let client = find_client(id).map_err(|error| error.to_string())?;
        let entry = entry(self, connector)?;
        let asked = match tools.map(str::trim).filter(|tools| !tools.is_empty()) {
            Some(tools) => Some(ToolSelection::parse(tools).map_err(|error| error.to_string())?),
            None => None,
        };
        // An assistant that takes only so many tools gets sets that fit, unless the person chose some.
        let fit = limit::fit(client, asked.as_ref(), catalogue());
        let entry = match &fit.selection {
            Some(selection) => entry.offering(selection),
            None => entry,
        };
        let done = connect(client, &entry, connector.lookup()).map_err(|error| error.to_string())?;
        let name = client.name;
        let path = done.path.display().to_string();
        let backup = done.backup.as_ref().map(|backup| backup.display().to_string());
        let mut message = match done.outcome {
            ConnectOutcome::AlreadyConnected => format!("{name} was already connected ({path}): nothing changed."),
            ConnectOutcome::Added | ConnectOutcome::Updated => {
                let mut said = format!("Gatehouse is now in {name}'s settings file, {path}.");
                if let Some(backup) = &backup {
                    said.push_str(&format!(" The file as it was is saved as {backup}."));
                }
                said.push_str(&format!(" Restart {name} (or reload its MCP servers) to start using Gatehouse."));
                said
            }
        };
        if let Some(words) = &fit.words {
            message.push_str(&format!(" {words} You can choose other tools for it below."));
        }
        if !done.installed {
            message.push_str(&format!(
                " {name} does not look installed on this computer; the setting is ready for when it is."
            ));
        }
        Ok(Changed { name, path, backup, message })
    }

    /// Takes only our entry out of the assistant's config file, after a backup.
    pub fn disconnect_assistant(&self, connector: &Connector, id: &str) -> Result<Changed, String> {
        let client = find_client(id).map_err(|error| error.to_string())?;
        let done = disconnect(client, ENTRY_NAME, connector.lookup()).map_err(|error| error.to_string())?;
        let name = client.name;
        let path = done.path.display().to_string();
        let backup = done.backup.as_ref().map(|backup| backup.display().to_string());
        let message = match done.outcome {
            DisconnectOutcome::NothingToRemove => {
                format!("{name} was not connected ({path} has no Gatehouse entry): nothing changed.")
            }
            DisconnectOutcome::Removed => {
                let mut said = format!("Gatehouse was taken out of {path}; everything else in it is as it was.");
                if let Some(backup) = &backup {
                    said.push_str(&format!(" The file as it was is saved as {backup}."));
                }
                said.push_str(&format!(" Restart {name} to let it notice."));
                said
            }
        };
        Ok(Changed { name, path, backup, message })
    }

    /// The operations on the approvals store the tokens live in, or why there is none.
    fn token_ops(&self) -> Result<Ops, String> {
        self.open_ops().ok_or_else(|| {
            format!(
                "Gatehouse could not open its database when it started, so it can't make, list or revoke tokens \
                 right now. Check that the folder {} exists and that you may write to it, then restart Gatehouse.",
                self.config.home.display()
            )
        })
    }

    /// Every assistant token, newest first, or why none can be shown.
    pub async fn assistant_tokens(&self) -> Result<Tokens, String> {
        let http_url = http_url(self);
        let ops = match self.token_ops() {
            Ok(ops) => ops,
            Err(problem) => {
                return Ok(Tokens { tokens: Vec::new(), problem: Some(problem), http_url, sets: Vec::new() });
            }
        };
        let tokens = ops.assistants().await.map_err(|error| error.to_string())?;
        Ok(Tokens { tokens, problem: None, http_url, sets: gatehouse_core::tools::sets::sets() })
    }

    /// Offers the assistant with token `id` only the tools of `tools` (a comma list of sets and tool names;
    /// empty or `None`: every tool), from its next request on.
    pub async fn set_assistant_tools(&self, id: &str, tools: Option<&str>) -> Result<ToolsChanged, String> {
        let ops = self.token_ops()?;
        let selection = match tools.map(str::trim).filter(|tools| !tools.is_empty()) {
            Some(tools) => ToolSelection::parse_kept(tools).map_err(|error| error.to_string())?,
            None => None,
        };
        let done = ops.set_assistant_tools(id, selection.as_ref()).await.map_err(|error| error.to_string())?;
        let changed = done.changed;
        let Some(assistant) = done.assistant else {
            return Err("That token is not in Gatehouse's list any more. Reload the page.".to_owned());
        };
        if !changed {
            return Err(format!("The token of “{}” is revoked, so its tools can't be changed.", assistant.name));
        }
        let enabled = self.engine.tools();
        let offered = enabled.iter().filter(|tool| selection.as_ref().is_none_or(|s| s.allows(tool.meta.name))).count();
        let what = match &selection {
            Some(selection) => format!("the tool set “{}”", selection.spec()),
            None => "every tool".to_owned(),
        };
        let message = format!(
            "“{}” is now offered {what} ({offered} tools) from its next request on. Some assistants only notice new tools when they reconnect.",
            assistant.name
        );
        Ok(ToolsChanged { assistant, offered, message })
    }

    /// Makes a token for an assistant named `name` that a person chats through (its changes are asked about).
    pub async fn create_assistant_token(&self, name: &str) -> Result<NewToken, String> {
        let ops = self.token_ops()?;
        let added = ops.add_assistant(name, true).await.map_err(|error| error.to_string())?;
        let http_url = http_url(self);
        let token = added.token;
        let snippet = http_url.as_deref().map(|url| http_snippet(url, &token));
        let url_with_token = http_url.as_deref().map(|url| url_with_token(url, &token));
        let note = http_url.is_none().then(|| {
            "Gatehouse is not serving assistants over HTTP right now (its address was taken when it started). \
             The token works once it does: quit whatever uses that address and restart Gatehouse."
                .to_owned()
        });
        Ok(NewToken { assistant: added.assistant, token, http_url, snippet, url_with_token, note })
    }

    /// Ends the token of assistant `id` now: its next request is refused.
    pub async fn revoke_assistant_token(&self, id: &str) -> Result<Revoked, String> {
        let ops = self.token_ops()?;
        let AssistantRevoked { changed, assistant } =
            ops.revoke_assistant(id).await.map_err(|error| error.to_string())?;
        let message = match (&assistant, changed) {
            (None, _) => return Err("That token is not in Gatehouse's list any more. Reload the page.".to_owned()),
            (Some(assistant), true) => {
                format!("The token of “{}” is revoked: its next request is refused.", assistant.name)
            }
            (Some(assistant), false) => format!("The token of “{}” was already revoked.", assistant.name),
        };
        Ok(Revoked { assistant, message })
    }
}

/// Each assistant Gatehouse can configure and whether it is connected; the snippet and URL for others.
#[tauri::command]
pub async fn assistants_list<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    connector: State<'_, Connector>,
) -> Result<Overview> {
    // The person is looking at how to connect one, perhaps to copy the snippet into an assistant by hand:
    // its cards are likely soon.
    crate::card::prepare(&app);
    Ok(core.assistants(&connector))
}

/// *Connect*: writes Gatehouse into `client`'s own config file (`claude-desktop`, `cursor`, …), offering it
/// only `tools` when given (a comma list of tool sets and tool names).
#[tauri::command]
pub async fn assistants_connect<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    connector: State<'_, Connector>,
    client: String,
    tools: Option<String>,
) -> Result<Changed> {
    let changed = core.connect_assistant(&connector, &client, tools.as_deref())?;
    // Its cards are likely soon: get the card window ready before the first.
    crate::card::prepare(&app);
    Ok(changed)
}

/// *Disconnect*: takes only Gatehouse's entry out of `client`'s config file.
#[tauri::command]
pub async fn assistants_disconnect(
    core: State<'_, Core>,
    connector: State<'_, Connector>,
    client: String,
) -> Result<Changed> {
    Ok(core.disconnect_assistant(&connector, &client)?)
}

/// The assistants' HTTP tokens, newest first.
#[tauri::command]
pub async fn assistants_tokens(core: State<'_, Core>) -> Result<Tokens> {
    Ok(core.assistant_tokens().await?)
}

/// Makes a token for the assistant `name`; the token is in the answer and nowhere else.
#[tauri::command]
pub async fn assistants_create_token<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    name: String,
) -> Result<NewToken> {
    let token = core.create_assistant_token(&name).await?;
    crate::card::prepare(&app);
    Ok(token)
}

/// Ends the token of the assistant with this `id`.
#[tauri::command]
pub async fn assistants_revoke_token(core: State<'_, Core>, id: String) -> Result<Revoked> {
    Ok(core.revoke_assistant_token(&id).await?)
}

/// Changes which tools the assistant with this `id` is offered: `tools` is a comma list of tool sets and tool
/// names (empty or absent: every tool).
#[tauri::command]
pub async fn assistants_set_tools(core: State<'_, Core>, id: String, tools: Option<String>) -> Result<ToolsChanged> {
    Ok(core.set_assistant_tools(&id, tools.as_deref()).await?)
}
