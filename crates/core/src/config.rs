//! Configuration from the environment.
//!
//! Variable names follow mcp-gee-sweet where it has one (`MAX_TOOL_RESPONSE_CHARS`, `ENABLED_TOOLS`,
//! `DRIVE_FOLDER_ID`), so its users switch by changing one command; our own are `GATEHOUSE_*`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use url::Url;

/// Default cap on a tool result, in characters of its serialized form.
pub const DEFAULT_MAX_RESPONSE_CHARS: usize = 1_000_000;

/// Which of Google's surfaces serves the tools (`GATEHOUSE_GOOGLE_BACKEND`, or the person's setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GoogleBackend {
    /// Google's Workspace MCP servers only: the tools that can't run there are not offered.
    Mcp,
    /// The REST APIs only (Gatehouse before Google's MCP servers).
    Rest,
    /// Each tool through Google's MCP server where its declaration says it can and that server answers, the
    /// REST API otherwise.
    #[default]
    Both,
}

impl GoogleBackend {
    pub const ALL: [GoogleBackend; 3] = [GoogleBackend::Both, GoogleBackend::Mcp, GoogleBackend::Rest];

    /// The value as the variable and the setting spell it.
    pub const fn name(self) -> &'static str {
        match self {
            GoogleBackend::Mcp => "mcp",
            GoogleBackend::Rest => "rest",
            GoogleBackend::Both => "both",
        }
    }

    /// `mcp`, `rest` or `both` (any case, spaces around ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL.into_iter().find(|backend| backend.name().eq_ignore_ascii_case(text))
    }
}

/// A setting that could not be used, with the variable's name and what to write instead.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} is set to {value:?}, which is not {expected}. {remedy}")]
    Invalid { name: &'static str, value: String, expected: &'static str, remedy: &'static str },
    #[error(
        "GATEHOUSE_GOOGLE_ENDPOINT is set to {value:?}, which is not allowed: {reason}. It may only name an emulator on this computer, such as http://127.0.0.1:8080 or http://localhost:8080; unset it to talk to Google."
    )]
    EndpointNotLocal { value: String, reason: crate::google::endpoint::RootRefused },
    #[error("Gatehouse could not find a home folder for its data: set GATEHOUSE_HOME to a folder it may write to.")]
    NoHome,
}

/// Everything the core reads from the environment, resolved once at start.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where all state lives (token file, exports, later the database).
    pub home: PathBuf,
    /// Replaces the scheme and host of every Google API and OAuth host (tests, sandbox, benchmarks); only ever
    /// a loopback root ([`check_root`](crate::google::endpoint::check_root)).
    pub google_endpoint: Option<Url>,
    /// `MAX_TOOL_RESPONSE_CHARS`: the response-size safety net.
    pub max_response_chars: usize,
    /// Where `local_path` results and downloads go; always an allowed local root.
    pub export_dir: PathBuf,
    /// Extra folders the person allowed tools to read and write (`GATEHOUSE_LOCAL_ROOTS`).
    pub local_roots: Vec<PathBuf>,
    /// `ENABLED_TOOLS`: when set, only these tools are listed and callable.
    pub enabled_tools: Option<Vec<String>>,
    /// `DRIVE_FOLDER_ID`: the default folder for listings and new files.
    pub drive_folder_id: Option<String>,
    /// Upper bound on one HTTP request to Google.
    pub request_timeout: Duration,
    /// `GATEHOUSE_GOOGLE_BACKEND`: Google's MCP servers, its REST APIs, or both.
    pub google_backend: GoogleBackend,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let home = match get("GATEHOUSE_HOME") {
            Some(home) => PathBuf::from(home),
            None => default_home(get("XDG_DATA_HOME"), get("HOME")).ok_or(ConfigError::NoHome)?,
        };
        let google_endpoint = get("GATEHOUSE_GOOGLE_ENDPOINT")
            .map(|value| {
                Url::parse(&value).ok().filter(|url| url.has_host()).ok_or(ConfigError::Invalid {
                    name: "GATEHOUSE_GOOGLE_ENDPOINT",
                    value,
                    expected: "a URL with a scheme and host",
                    remedy: "Use a root such as http://127.0.0.1:8080, or unset it to talk to Google.",
                })
            })
            .transpose()?;
        if let Some(root) = &google_endpoint {
            crate::google::endpoint::check_root(root)
                .map_err(|reason| ConfigError::EndpointNotLocal { value: root.to_string(), reason })?;
        }
        let max_response_chars = match get("MAX_TOOL_RESPONSE_CHARS") {
            Some(value) => value.trim().parse::<usize>().ok().filter(|n| *n > 0).ok_or(ConfigError::Invalid {
                name: "MAX_TOOL_RESPONSE_CHARS",
                value,
                expected: "a whole number of characters above zero",
                remedy: "Use e.g. 1000000 (the default), or unset it.",
            })?,
            None => DEFAULT_MAX_RESPONSE_CHARS,
        };
        let export_dir = get("GATEHOUSE_EXPORT_DIR").map(PathBuf::from).unwrap_or_else(|| home.join("exports"));
        let local_roots = get("GATEHOUSE_LOCAL_ROOTS")
            .map(|value| std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()).collect())
            .unwrap_or_default();
        let enabled_tools = get("ENABLED_TOOLS").map(|value| tool_names(&value));
        let request_timeout = match get("GATEHOUSE_REQUEST_TIMEOUT_SECS") {
            Some(value) => Duration::from_secs(value.trim().parse::<u64>().ok().filter(|n| *n > 0).ok_or(
                ConfigError::Invalid {
                    name: "GATEHOUSE_REQUEST_TIMEOUT_SECS",
                    value,
                    expected: "a whole number of seconds above zero",
                    remedy: "Use e.g. 60 (the default), or unset it.",
                },
            )?),
            None => Duration::from_secs(60),
        };
        let google_backend = match get("GATEHOUSE_GOOGLE_BACKEND") {
            Some(value) => GoogleBackend::parse(&value).ok_or(ConfigError::Invalid {
                name: "GATEHOUSE_GOOGLE_BACKEND",
                value,
                expected: "mcp, rest or both",
                remedy: "Use both (the default: Google's MCP servers where they can serve a tool, REST otherwise), mcp or rest, or unset it.",
            })?,
            None => GoogleBackend::default(),
        };
        Ok(Self {
            home,
            google_endpoint,
            max_response_chars,
            export_dir,
            local_roots,
            enabled_tools,
            drive_folder_id: get("DRIVE_FOLDER_ID"),
            request_timeout,
            google_backend,
        })
    }

    /// A configuration rooted at `home` with every other setting at its default (tests, sandbox).
    pub fn with_home(home: &Path) -> Self {
        let home = home.to_path_buf();
        Self {
            export_dir: home.join("exports"),
            home,
            google_endpoint: None,
            max_response_chars: DEFAULT_MAX_RESPONSE_CHARS,
            local_roots: Vec::new(),
            enabled_tools: None,
            drive_folder_id: None,
            request_timeout: Duration::from_secs(60),
            google_backend: GoogleBackend::default(),
        }
    }
}

/// The tool names of a comma-separated list (`ENABLED_TOOLS`, the person's saved choice), trimmed, empty items
/// left out; whether they name tools is for the caller to check.
pub fn tool_names(list: &str) -> Vec<String> {
    list.split(',').map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned).collect()
}

fn default_home(xdg_data_home: Option<String>, home: Option<String>) -> Option<PathBuf> {
    xdg_data_home
        .map(PathBuf::from)
        .or_else(|| home.map(|home| Path::new(&home).join(".local").join("share")))
        .map(|base| base.join("gatehouse"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_live_under_home() {
        let config = config(&[("HOME", "/home/ada")]).unwrap();
        assert_eq!(config.home, PathBuf::from("/home/ada/.local/share/gatehouse"));
        assert_eq!(config.export_dir, config.home.join("exports"));
        assert_eq!(config.max_response_chars, DEFAULT_MAX_RESPONSE_CHARS);
        assert!(config.google_endpoint.is_none());
    }

    #[test]
    fn a_bad_cap_names_the_variable_and_the_remedy() {
        let error = config(&[("GATEHOUSE_HOME", "/tmp/g"), ("MAX_TOOL_RESPONSE_CHARS", "lots")]).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("MAX_TOOL_RESPONSE_CHARS"), "{message}");
        assert!(message.contains("\"lots\""), "{message}");
        assert!(message.contains("1000000"), "{message}");
    }

    #[test]
    fn a_bad_endpoint_is_refused() {
        let error = config(&[("GATEHOUSE_HOME", "/tmp/g"), ("GATEHOUSE_GOOGLE_ENDPOINT", "not a url")]).unwrap_err();
        assert!(error.to_string().contains("GATEHOUSE_GOOGLE_ENDPOINT"));
    }

    #[test]
    fn an_endpoint_off_this_computer_is_refused_naming_what_is_allowed() {
        for bad in ["http://attacker.example:8080", "http://192.168.1.5", "https://oauth2.example.com"] {
            let error = config(&[("GATEHOUSE_HOME", "/tmp/g"), ("GATEHOUSE_GOOGLE_ENDPOINT", bad)]).unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, ConfigError::EndpointNotLocal { .. }), "{bad}: {error:?}");
            assert!(message.contains("GATEHOUSE_GOOGLE_ENDPOINT"), "{message}");
            assert!(message.contains("127.0.0.1") && message.contains("localhost"), "{message}");
        }
        for good in ["http://127.0.0.1:8080", "http://localhost:9", "http://[::1]:7"] {
            let config = config(&[("GATEHOUSE_HOME", "/tmp/g"), ("GATEHOUSE_GOOGLE_ENDPOINT", good)]).unwrap();
            assert!(config.google_endpoint.is_some(), "{good}");
        }
    }

    #[test]
    fn enabled_tools_is_a_comma_list() {
        let config =
            config(&[("GATEHOUSE_HOME", "/tmp/g"), ("ENABLED_TOOLS", "list_sheets, get_sheet_data,")]).unwrap();
        assert_eq!(config.enabled_tools.unwrap(), vec!["list_sheets", "get_sheet_data"]);
    }
}
