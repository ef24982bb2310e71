//! The assistants Gatehouse can configure: one declaration each, so adding a client is adding a row.
//!
//! Paths are computed from a lookup of environment variables (never the process environment directly) and an
//! explicit [`Os`], so tests compute every OS's path on any OS and write only under a temporary `HOME`.

use std::path::PathBuf;

use super::error::ConnectError;
use super::limit::ToolLimit;

/// The operating system whose conventions a path follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The OS this program runs on (other Unix systems follow the Linux conventions).
    pub fn current() -> Self {
        if cfg!(target_os = "windows") {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::MacOs
        } else {
            Os::Linux
        }
    }

    fn separator(self) -> char {
        if self == Os::Windows { '\\' } else { '/' }
    }
}

/// How the client's config file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON: the client reads it with a plain JSON parser, so a comment would break it.
    Json,
    /// JSON with comments and trailing commas (VS Code's `mcp.json`); comments are kept.
    Jsonc,
    /// Goose's `config.yaml`.
    Yaml,
}

/// The shape of one server entry inside the client's container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `{"command", "args", "env"}`.
    Plain,
    /// `{"type": "stdio", "command", "args", "env"}`: clients that require (VS Code) or write (Claude Code) a type.
    TypedStdio,
    /// Goose's extension: `{enabled, type: stdio, name, description, cmd, args, envs, env_keys, timeout}`.
    GooseExtension,
}

/// The folder a path starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// `HOME` (`USERPROFILE` on Windows).
    Home,
    /// `XDG_CONFIG_HOME`, else `~/.config` (Linux and macOS; Electron on Linux and Goose honour it).
    XdgConfig,
    /// `~/Library/Application Support` (macOS).
    AppSupport,
    /// `APPDATA`, else `%USERPROFILE%\AppData\Roaming` (Windows).
    AppData,
}

/// A path below a base folder.
#[derive(Debug, Clone, Copy)]
struct Location {
    base: Base,
    parts: &'static [&'static str],
}

const fn at(base: Base, parts: &'static [&'static str]) -> Location {
    Location { base, parts }
}

/// One assistant Gatehouse can connect.
#[derive(Debug)]
pub struct Client {
    /// The id used on the command line and by the desktop app (`claude-desktop`, `vscode`, …).
    pub id: &'static str,
    /// The name shown to a person.
    pub name: &'static str,
    pub format: Format,
    /// The top-level key holding the servers (`mcpServers`, `servers`, `extensions`).
    pub container: &'static str,
    pub shape: Shape,
    linux: Location,
    macos: Location,
    windows: Location,
    /// An environment variable the client honours to move its config folder, and the file's place inside it.
    folder_variable: Option<(&'static str, &'static [&'static str])>,
    /// A folder whose presence means the client is installed, where the config file's own folder says nothing
    /// (Claude Code keeps its file in the home folder itself).
    installed_marker: Option<Location>,
    /// Where the format and location were checked.
    pub source: &'static str,
    /// How many tools it takes, when it takes only so many (`connect::limit`).
    pub tool_limit: Option<ToolLimit>,
}

/// Every assistant Gatehouse configures, in the order they are listed to a person.
pub static CLIENTS: [Client; 6] = [
    // {"mcpServers": {name: {command, args, env}}}; macOS ~/Library/Application Support/Claude, Windows
    // %APPDATA%\Claude, Linux (community builds, Electron's appData) ~/.config/Claude.
    // https://modelcontextprotocol.io/quickstart/user and https://github.com/aaddrick/claude-desktop-debian
    // (docs/configuration.md).
    Client {
        id: "claude-desktop",
        name: "Claude Desktop",
        format: Format::Json,
        container: "mcpServers",
        shape: Shape::Plain,
        linux: at(Base::XdgConfig, &["Claude", "claude_desktop_config.json"]),
        macos: at(Base::AppSupport, &["Claude", "claude_desktop_config.json"]),
        windows: at(Base::AppData, &["Claude", "claude_desktop_config.json"]),
        folder_variable: None,
        installed_marker: None,
        source: "https://modelcontextprotocol.io/quickstart/user",
        tool_limit: None,
    },
    // User scope: top-level "mcpServers" of ~/.claude.json, entries {"type": "stdio", command, args, env}
    // (what `claude mcp add --scope user` writes); CLAUDE_CONFIG_DIR moves it to $CLAUDE_CONFIG_DIR/.claude.json.
    // https://code.claude.com/docs/en/mcp, https://github.com/anthropics/claude-code/issues/4193 and #48448.
    Client {
        id: "claude-code",
        name: "Claude Code",
        format: Format::Json,
        container: "mcpServers",
        shape: Shape::TypedStdio,
        linux: at(Base::Home, &[".claude.json"]),
        macos: at(Base::Home, &[".claude.json"]),
        windows: at(Base::Home, &[".claude.json"]),
        folder_variable: Some(("CLAUDE_CONFIG_DIR", &[".claude.json"])),
        installed_marker: Some(at(Base::Home, &[".claude"])),
        source: "https://code.claude.com/docs/en/mcp",
        tool_limit: None,
    },
    // Global ~/.cursor/mcp.json (%USERPROFILE%\.cursor\mcp.json), {"mcpServers": {name: {command, args, env}}}.
    // https://cursor.com/docs/mcp
    Client {
        id: "cursor",
        name: "Cursor",
        format: Format::Json,
        container: "mcpServers",
        shape: Shape::Plain,
        linux: at(Base::Home, &[".cursor", "mcp.json"]),
        macos: at(Base::Home, &[".cursor", "mcp.json"]),
        windows: at(Base::Home, &[".cursor", "mcp.json"]),
        folder_variable: None,
        installed_marker: None,
        source: "https://cursor.com/docs/mcp",
        tool_limit: Some(ToolLimit {
            max: 40,
            source: "https://github.com/modelcontextprotocol/.github/discussions/360 (Cursor: \"cannot take more than 40 tools\")",
        }),
    },
    // The user profile's mcp.json (Code/User, beside settings.json): top-level "servers", entries
    // {"type": "stdio", command, args, env}, JSON with comments.
    // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
    Client {
        id: "vscode",
        name: "VS Code",
        format: Format::Jsonc,
        container: "servers",
        shape: Shape::TypedStdio,
        linux: at(Base::XdgConfig, &["Code", "User", "mcp.json"]),
        macos: at(Base::AppSupport, &["Code", "User", "mcp.json"]),
        windows: at(Base::AppData, &["Code", "User", "mcp.json"]),
        folder_variable: None,
        installed_marker: None,
        source: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
        tool_limit: Some(ToolLimit {
            max: 128,
            source: "https://github.com/microsoft/vscode-copilot-release/issues/9375 (\"You may not include more than 128 tools in your request\")",
        }),
    },
    // ~/.codeium/windsurf/mcp_config.json (%USERPROFILE%\.codeium\windsurf\mcp_config.json),
    // {"mcpServers": {name: {command, args, env}}}. https://docs.windsurf.com/windsurf/cascade/mcp
    Client {
        id: "windsurf",
        name: "Windsurf",
        format: Format::Json,
        container: "mcpServers",
        shape: Shape::Plain,
        linux: at(Base::Home, &[".codeium", "windsurf", "mcp_config.json"]),
        macos: at(Base::Home, &[".codeium", "windsurf", "mcp_config.json"]),
        windows: at(Base::Home, &[".codeium", "windsurf", "mcp_config.json"]),
        folder_variable: None,
        installed_marker: None,
        source: "https://docs.windsurf.com/windsurf/cascade/mcp",
        tool_limit: Some(ToolLimit {
            max: 100,
            source: "https://docs.windsurf.com/windsurf/cascade/mcp (Cascade: a limit of 100 tools in total)",
        }),
    },
    // ~/.config/goose/config.yaml on Linux and macOS (etcetera's XDG strategy, so XDG_CONFIG_HOME applies),
    // %APPDATA%\Block\goose\config\config.yaml on Windows, $GOOSE_PATH_ROOT/config when set; under `extensions:`
    // {enabled, type: stdio, name, description, cmd, args, envs, env_keys, timeout} (ExtensionEntry with a
    // flattened ExtensionConfig::Stdio). https://block.github.io/goose/docs/guides/config-files and
    // https://github.com/aaif-goose/goose (crates/goose/src/agents/extension.rs, config/extensions.rs).
    Client {
        id: "goose",
        name: "Goose",
        format: Format::Yaml,
        container: "extensions",
        shape: Shape::GooseExtension,
        linux: at(Base::XdgConfig, &["goose", "config.yaml"]),
        macos: at(Base::XdgConfig, &["goose", "config.yaml"]),
        windows: at(Base::AppData, &["Block", "goose", "config", "config.yaml"]),
        folder_variable: Some(("GOOSE_PATH_ROOT", &["config", "config.yaml"])),
        installed_marker: None,
        source: "https://block.github.io/goose/docs/guides/config-files",
        tool_limit: None,
    },
];

/// The client with this id (any case), if Gatehouse knows it.
pub fn client(id: &str) -> Option<&'static Client> {
    CLIENTS.iter().find(|client| client.id.eq_ignore_ascii_case(id.trim()))
}

/// The ids Gatehouse knows, for messages ("one of: …").
pub fn client_ids() -> String {
    CLIENTS.iter().map(|client| client.id).collect::<Vec<_>>().join(", ")
}

impl Client {
    /// The user-level config file of this client on `os`.
    pub fn config_path(&self, os: Os, lookup: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, ConnectError> {
        if let Some((variable, parts)) = self.folder_variable
            && let Some(folder) = non_empty(lookup, variable)
        {
            return Ok(join(os, &folder, parts));
        }
        let location = match os {
            Os::Linux => self.linux,
            Os::MacOs => self.macos,
            Os::Windows => self.windows,
        };
        resolve(location, os, lookup)
    }

    /// The folder whose presence says the client is installed: its config file's folder, or a marker folder.
    pub fn installed_path(&self, os: Os, lookup: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, ConnectError> {
        let moved = self.folder_variable.is_some_and(|(variable, _)| non_empty(lookup, variable).is_some());
        match self.installed_marker {
            Some(marker) if !moved => resolve(marker, os, lookup),
            _ => {
                let path = self.config_path(os, lookup)?;
                Ok(path.parent().map(PathBuf::from).unwrap_or(path))
            }
        }
    }
}

fn non_empty(lookup: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    lookup(name).filter(|value| !value.trim().is_empty())
}

fn resolve(location: Location, os: Os, lookup: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, ConnectError> {
    let base = base_folder(location.base, os, lookup)?;
    Ok(join(os, &base, location.parts))
}

fn base_folder(base: Base, os: Os, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ConnectError> {
    let home = || -> Result<String, ConnectError> {
        let variable = if os == Os::Windows { "USERPROFILE" } else { "HOME" };
        non_empty(lookup, variable)
            .or_else(|| if os == Os::Windows { non_empty(lookup, "HOME") } else { None })
            .ok_or(ConnectError::NoHome { variable })
    };
    match (base, os) {
        (Base::Home, _) => home(),
        (Base::AppData, _) | (Base::XdgConfig | Base::AppSupport, Os::Windows) => match non_empty(lookup, "APPDATA") {
            Some(folder) => Ok(folder),
            None => Ok(join_text(os, &home()?, &["AppData", "Roaming"])),
        },
        // XDG says a relative value is to be ignored.
        (Base::XdgConfig, _) => match non_empty(lookup, "XDG_CONFIG_HOME").filter(|folder| folder.starts_with('/')) {
            Some(folder) => Ok(folder),
            None => Ok(join_text(os, &home()?, &[".config"])),
        },
        (Base::AppSupport, _) => Ok(join_text(os, &home()?, &["Library", "Application Support"])),
    }
}

/// Joins with the target OS's separator, so a Windows path computed on Linux (in a test) reads as on Windows.
fn join(os: Os, base: &str, parts: &[&str]) -> PathBuf {
    PathBuf::from(join_text(os, base, parts))
}

fn join_text(os: Os, base: &str, parts: &[&str]) -> String {
    let separator = os.separator();
    let trimmed = base.trim_end_matches(['/', '\\']);
    let mut path = if trimmed.is_empty() { base.to_owned() } else { trimmed.to_owned() };
    for part in parts {
        if !path.ends_with(separator) {
            path.push(separator);
        }
        path.push_str(part);
    }
    path
}
