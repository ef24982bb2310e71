//! Which OAuth client Gatehouse signs people in with.
//!
//! Google ties every refresh token to the OAuth client that obtained it, so the client must be known before
//! signing in and every time a token is refreshed. It comes from, in order:
//! 1. `CREDENTIALS_PATH`: the `client_secret_*.json` Google Cloud lets you download (`installed` or `web`);
//! 2. `GATEHOUSE_OAUTH_CLIENT_ID` (and `GATEHOUSE_OAUTH_CLIENT_SECRET`, which Desktop clients have);
//! 3. the client file the person chose on the Account page, kept as [`KEPT_FILE`] in `GATEHOUSE_HOME` (0600)
//!    by [`keep_chosen`] once [`check_chosen`] found it to be a Desktop client: the way in that needs no
//!    terminal and no environment variable;
//! 4. a client compiled into this build (`GATEHOUSE_BUILTIN_OAUTH_CLIENT_ID` / `…_SECRET` at build time).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Secret;

/// Google's token endpoint, for clients whose JSON does not name one.
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// The client file the person chose on the Account page, in `GATEHOUSE_HOME`.
pub const KEPT_FILE: &str = "oauth-client.json";

/// The largest client file accepted. Google's downloads are well under 1 KB; a file past this is not one, and
/// is not read into memory to find out.
pub const MAX_CLIENT_FILE_BYTES: u64 = 64 * 1024;

/// Where the client came from (shown by `gatehouse status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSource {
    File(PathBuf),
    Environment,
    /// [`KEPT_FILE`]: chosen on the Account page.
    Kept(PathBuf),
    BuiltIn,
}

impl std::fmt::Display for ClientSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientSource::File(path) => write!(f, "{} (CREDENTIALS_PATH)", path.display()),
            ClientSource::Environment => f.write_str("GATEHOUSE_OAUTH_CLIENT_ID"),
            ClientSource::Kept(path) => write!(f, "{} (chosen in the Gatehouse window)", path.display()),
            ClientSource::BuiltIn => f.write_str("built into this Gatehouse"),
        }
    }
}

/// An OAuth client: its id, its secret when it has one, and the token endpoint it uses.
#[derive(Clone)]
pub struct ClientConfig {
    pub client_id: String,
    pub client_secret: Option<Secret>,
    /// Google's token endpoint, or what the client JSON names (rerouted like every Google URL).
    pub token_uri: String,
    pub source: ClientSource,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("client_id", &self.client_id)
            .field("has_secret", &self.client_secret.is_some())
            .field("token_uri", &self.token_uri)
            .field("source", &self.source)
            .finish()
    }
}

/// One step of getting an OAuth client in Google Cloud, as the Account page guides a person through them: one
/// sentence, and a button that opens the console page where it is done. The last step, choosing the
/// downloaded file, is the page's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SetupStep {
    /// How the page names the step to open its console page (`account_setup_open`).
    pub key: &'static str,
    pub title: &'static str,
    pub sentence: &'static str,
    /// The button's words.
    pub button: &'static str,
    /// The Google Cloud console page it opens.
    pub url: &'static str,
}

/// The steps to an OAuth client Google's MCP servers accept, in order. Google's pages name the MCP APIs
/// ("Google Sheets MCP API", …) but not their service ids, so that step opens the API Library's search for
/// them rather than a guessed id.
pub const SETUP_STEPS: &[SetupStep] = &[
    SetupStep {
        key: "project",
        title: "Create a project",
        sentence: "Create a project for Gatehouse in Google Cloud (any name will do), or pick one you already have.",
        button: "Open Google Cloud: new project",
        url: "https://console.cloud.google.com/projectcreate",
    },
    SetupStep {
        key: "apis",
        title: "Turn on Google's APIs",
        sentence: "Turn on the Google Sheets, Docs, Drive, Drive Activity, Gmail and Calendar APIs for that project.",
        button: "Open Google Cloud: turn on the APIs",
        url: "https://console.cloud.google.com/flows/enableapi?apiid=sheets.googleapis.com,docs.googleapis.com,drive.googleapis.com,driveactivity.googleapis.com,gmail.googleapis.com,calendar-json.googleapis.com",
    },
    SetupStep {
        key: "mcp_apis",
        title: "Turn on their MCP APIs",
        sentence: "Google asks AI agents to use its MCP servers: search the API Library for “MCP API” and turn on the Google Sheets, Google Docs, Google Drive, Gmail and Google Calendar MCP APIs.",
        button: "Open Google Cloud: MCP APIs",
        url: "https://console.cloud.google.com/apis/library?q=MCP%20API",
    },
    SetupStep {
        key: "consent",
        title: "Set up the consent screen",
        sentence: "Give the consent screen an app name (Gatehouse) and your email, and add your own Google account as a test user.",
        button: "Open Google Cloud: consent screen",
        url: "https://console.cloud.google.com/apis/credentials/consent",
    },
    SetupStep {
        key: "client",
        title: "Create a Desktop client for an AI agent",
        sentence: "Create an OAuth client ID of type “Desktop app”, tick “Use this client for an AI-powered agent”, and download its JSON file.",
        button: "Open Google Cloud: new OAuth client",
        url: "https://console.cloud.google.com/apis/credentials/oauthclient",
    },
];

/// Why no usable OAuth client was found.
#[derive(Debug, thiserror::Error)]
pub enum ClientConfigError {
    #[error(
        "Gatehouse has no OAuth client to sign in to Google with. To get one:\n\
         1. Open the Google Cloud console › APIs & Services › Credentials (https://console.cloud.google.com/apis/credentials).\n\
         2. Create credentials › OAuth client ID › Application type: Desktop app › Create.\n\
         3. Download the JSON file it offers.\n\
         4. Choose that file in the Gatehouse window (Account › How to set it up › Choose the downloaded file…), or set CREDENTIALS_PATH to it, then sign in again.\n\
         (Enable the Google Drive, Sheets, Docs and Drive Activity APIs for the same project.)"
    )]
    Missing,
    #[error(
        "The OAuth client file {path} (CREDENTIALS_PATH) could not be read: {detail}. Check the path points to the client_secret_….json you downloaded from Google Cloud."
    )]
    Unreadable { path: String, detail: String },
    #[error(
        "The OAuth client file {path} (CREDENTIALS_PATH) is not usable: {detail}. Download it again from Google Cloud › APIs & Services › Credentials (the download button of a Desktop app OAuth client)."
    )]
    Invalid { path: String, detail: String },
}

/// Why a client file the person chose can't be used; each says what is wrong and what to do instead.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChosenFileError {
    #[error(
        "That file is too large to be a client file ({size} bytes; the file Google Cloud gives you is under 1 KB). Choose the client_secret_….json you downloaded for your Desktop app client."
    )]
    TooLarge { size: u64 },
    #[error(
        "That file is not a client file from Google Cloud: it is not JSON text ({detail}). Choose the client_secret_….json you downloaded for your Desktop app client."
    )]
    NotJson { detail: String },
    #[error(
        "That is the client file of a Web application, and Gatehouse needs a Desktop app client. In Google Cloud › Credentials, create an OAuth client ID of type “Desktop app”, tick “Use this client for an AI-powered agent”, download its file and choose that one."
    )]
    WebClient,
    #[error(
        "That is a service-account key, not an OAuth client file. In Google Cloud › Credentials, create an OAuth client ID of type “Desktop app”, download its file and choose that one."
    )]
    ServiceAccount,
    #[error(
        "That file is not an OAuth client file (it has no “installed” section, which the file of a Desktop app client has). In Google Cloud › Credentials, download the file of your Desktop app client and choose that one."
    )]
    NotClient,
    #[error(
        "That client file has no {field}, so it can't be used to sign in. Download it again from Google Cloud › Credentials (the download button of your Desktop app client) and choose the new file."
    )]
    Missing { field: &'static str },
    #[error(
        "That client file's token address {uri:?} is not Google's secure one (https://…). Download the file again from Google Cloud › Credentials and choose the new file."
    )]
    TokenUri { uri: String },
    #[error(
        "Gatehouse could not keep the client file in {dir} ({detail}). Check that there is space and that you can write in that folder, then choose the file again."
    )]
    Keep { dir: String, detail: String },
}

/// Google's client JSON: one of the two application types wraps the fields.
#[derive(Deserialize)]
struct ClientFile {
    installed: Option<ClientFields>,
    web: Option<ClientFields>,
    /// Present in service-account keys, which people sometimes pass here by mistake.
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct ClientFields {
    client_id: Option<String>,
    client_secret: Option<String>,
    token_uri: Option<String>,
}

impl ClientConfig {
    /// Where this client's secret was obtained, for
    /// [`Endpoints::credential_url`](crate::google::Endpoints::credential_url): a client given in the
    /// environment (`GATEHOUSE_OAUTH_CLIENT_ID`) is given next to the endpoint, for it; a downloaded file or the
    /// built-in client is Google's, so its secret is never sent to an emulator.
    pub fn obtained_from<'a>(&self, endpoints: &'a crate::google::Endpoints) -> Option<&'a str> {
        match self.source {
            ClientSource::Environment => endpoints.root().map(url::Url::as_str),
            ClientSource::File(_) | ClientSource::Kept(_) | ClientSource::BuiltIn => None,
        }
    }

    /// Finds the client from the process environment and the state folder it names (see the module doc for the
    /// order).
    pub fn from_env() -> Result<Self, ClientConfigError> {
        let home = crate::config::Config::from_env().ok().map(|config| config.home);
        Self::find(home.as_deref(), |name| std::env::var(name).ok())
    }

    /// Finds the client through `lookup` alone (no kept file), so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ClientConfigError> {
        Self::find(None, lookup)
    }

    /// Finds the client through `lookup`, then in `home`'s [`KEPT_FILE`] (see the module doc for the order).
    pub fn find(home: Option<&Path>, lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ClientConfigError> {
        let get = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        if let Some(path) = get("CREDENTIALS_PATH") {
            return Self::from_file(Path::new(&path));
        }
        if let Some(client_id) = get("GATEHOUSE_OAUTH_CLIENT_ID") {
            return Ok(Self {
                client_id,
                client_secret: get("GATEHOUSE_OAUTH_CLIENT_SECRET").map(Secret::new),
                token_uri: DEFAULT_TOKEN_URI.to_owned(),
                source: ClientSource::Environment,
            });
        }
        if let Some(kept) = home.and_then(kept) {
            return kept;
        }
        Self::built_in().ok_or(ClientConfigError::Missing)
    }

    /// The client compiled into this build, if any.
    pub fn built_in() -> Option<Self> {
        let client_id = option_env!("GATEHOUSE_BUILTIN_OAUTH_CLIENT_ID").filter(|id| !id.is_empty())?;
        Some(Self {
            client_id: client_id.to_owned(),
            client_secret: option_env!("GATEHOUSE_BUILTIN_OAUTH_CLIENT_SECRET")
                .filter(|s| !s.is_empty())
                .map(Secret::new),
            token_uri: DEFAULT_TOKEN_URI.to_owned(),
            source: ClientSource::BuiltIn,
        })
    }

    /// Reads a `client_secret_*.json` file.
    pub fn from_file(path: &Path) -> Result<Self, ClientConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClientConfigError::Unreadable { path: path.display().to_string(), detail: e.to_string() })?;
        Self::from_json(&text, path)
    }

    /// Parses the text of a client JSON file; `path` names it in messages.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, ClientConfigError> {
        Self::parse(text, path, ClientSource::File(path.to_path_buf()))
    }

    fn parse(text: &str, path: &Path, source: ClientSource) -> Result<Self, ClientConfigError> {
        let invalid = |detail: String| ClientConfigError::Invalid { path: path.display().to_string(), detail };
        let file: ClientFile =
            serde_json::from_str(text).map_err(|e| invalid(format!("it is not valid JSON ({e})")))?;
        let fields = match (file.installed, file.web) {
            (Some(fields), _) | (None, Some(fields)) => fields,
            (None, None) if file.kind.as_deref() == Some("service_account") => {
                return Err(invalid(
                    "it is a service-account key, not an OAuth client (use SERVICE_ACCOUNT_PATH for keys)".into(),
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "it has neither an \"installed\" nor a \"web\" section, so it is not an OAuth client file".into(),
                ));
            }
        };
        let client_id = fields
            .client_id
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| invalid("its \"client_id\" is missing or empty".into()))?;
        Ok(Self {
            client_id: client_id.trim().to_owned(),
            client_secret: fields.client_secret.filter(|s| !s.is_empty()).map(Secret::new),
            token_uri: fields.token_uri.filter(|u| !u.trim().is_empty()).unwrap_or_else(|| DEFAULT_TOKEN_URI.into()),
            source,
        })
    }
}

/// The client in `home`'s [`KEPT_FILE`], if there is one. Not followed when it is a symbolic link or not a
/// plain file (something other than Gatehouse put it there), nor read past [`MAX_CLIENT_FILE_BYTES`].
fn kept(home: &Path) -> Option<Result<ClientConfig, ClientConfigError>> {
    let path = home.join(KEPT_FILE);
    let shown = path.display().to_string();
    let metadata = match std::fs::symlink_metadata(&path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => return Some(Err(ClientConfigError::Unreadable { path: shown, detail: error.to_string() })),
    };
    let refuse = |detail: &str| {
        Some(Err(ClientConfigError::Invalid {
            path: shown.clone(),
            detail: format!(
                "{detail}; Gatehouse keeps only the file it wrote itself there. Choose your client file again in the Gatehouse window (Account › How to set it up)"
            ),
        }))
    };
    if metadata.file_type().is_symlink() {
        return refuse("it is a symbolic link");
    }
    if !metadata.is_file() {
        return refuse("it is not a plain file");
    }
    if metadata.len() > MAX_CLIENT_FILE_BYTES {
        return refuse(&format!("it is {} bytes, far more than a client file", metadata.len()));
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => return Some(Err(ClientConfigError::Unreadable { path: shown, detail: error.to_string() })),
    };
    Some(ClientConfig::parse(&text, &path, ClientSource::Kept(path.clone())))
}

/// A client file the person chose, checked by [`check_chosen`]: a Desktop ("installed") client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChosenClient {
    pub client_id: String,
    client_secret: String,
    token_uri: String,
}

/// The fields a Desktop client's file must have, read from what the person chose.
#[derive(Deserialize)]
struct ChosenFile {
    installed: Option<serde_json::Value>,
    web: Option<serde_json::Value>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Checks the bytes of a file the person chose as their OAuth client: at most [`MAX_CLIENT_FILE_BYTES`], JSON,
/// a Desktop app client (`installed`, not `web`) with its id and secret, and a token address on https.
pub fn check_chosen(bytes: &[u8]) -> Result<ChosenClient, ChosenFileError> {
    let size = bytes.len() as u64;
    if size > MAX_CLIENT_FILE_BYTES {
        return Err(ChosenFileError::TooLarge { size });
    }
    let file: ChosenFile =
        serde_json::from_slice(bytes).map_err(|error| ChosenFileError::NotJson { detail: error.to_string() })?;
    let installed = match (file.installed, file.web, file.kind.as_deref()) {
        (Some(installed), _, _) => installed,
        (None, Some(_), _) => return Err(ChosenFileError::WebClient),
        (None, None, Some("service_account")) => return Err(ChosenFileError::ServiceAccount),
        (None, None, _) => return Err(ChosenFileError::NotClient),
    };
    let field = |name: &'static str| {
        installed.get(name).and_then(serde_json::Value::as_str).map(str::trim).filter(|value| !value.is_empty())
    };
    let client_id = field("client_id").ok_or(ChosenFileError::Missing { field: "client ID (client_id)" })?;
    let client_secret =
        field("client_secret").ok_or(ChosenFileError::Missing { field: "client secret (client_secret)" })?;
    let token_uri = field("token_uri").unwrap_or(DEFAULT_TOKEN_URI);
    if !token_uri.starts_with("https://") {
        return Err(ChosenFileError::TokenUri { uri: token_uri.to_owned() });
    }
    Ok(ChosenClient {
        client_id: client_id.to_owned(),
        client_secret: client_secret.to_owned(),
        token_uri: token_uri.to_owned(),
    })
}

/// Checks the file the person chose ([`check_chosen`]) and keeps it as `home`'s [`KEPT_FILE`], readable by
/// this user only (0600), for every later sign-in. Only the fields Gatehouse uses are written, never the rest
/// of what was chosen. Written beside it and renamed over it, so a sign-in never reads half a file, and a
/// symbolic link planted at that name is replaced, not followed.
pub fn keep_chosen(home: &Path, bytes: &[u8]) -> Result<ClientConfig, ChosenFileError> {
    let chosen = check_chosen(bytes)?;
    let keep_error =
        |error: std::io::Error| ChosenFileError::Keep { dir: home.display().to_string(), detail: error.to_string() };
    crate::private_files::private_dir(home).map_err(keep_error)?;
    let text = serde_json::json!({ "installed": {
        "client_id": chosen.client_id,
        "client_secret": chosen.client_secret,
        "token_uri": chosen.token_uri,
    } })
    .to_string();
    let path = home.join(KEPT_FILE);
    let partial = home.join(format!("{KEPT_FILE}.{}.partial", std::process::id()));
    let written = (|| {
        // A leftover of an interrupted attempt (or anything planted there) goes first: create_new never follows it.
        match std::fs::remove_file(&partial) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
        let mut options = crate::private_files::file_options();
        options.create_new(true);
        let mut file = options.open(&partial)?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&partial, &path)
    })();
    if let Err(error) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(keep_error(error));
    }
    tracing::info!(path = %path.display(), "kept the OAuth client file chosen in the Gatehouse window");
    Ok(ClientConfig {
        client_id: chosen.client_id,
        client_secret: Some(Secret::new(chosen.client_secret)),
        token_uri: chosen.token_uri,
        source: ClientSource::Kept(path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn installed_and_web_forms_are_read() {
        let installed = r#"{"installed":{"client_id":"abc.apps.googleusercontent.com","client_secret":"s","token_uri":"https://oauth2.googleapis.com/token","redirect_uris":["http://localhost"]}}"#;
        let config = ClientConfig::from_json(installed, Path::new("c.json")).unwrap();
        assert_eq!(config.client_id, "abc.apps.googleusercontent.com");
        assert_eq!(config.client_secret.as_ref().map(Secret::expose), Some("s"));
        let web = r#"{"web":{"client_id":"w"}}"#;
        let config = ClientConfig::from_json(web, Path::new("c.json")).unwrap();
        assert_eq!(config.client_id, "w");
        assert!(config.client_secret.is_none());
        assert_eq!(config.token_uri, DEFAULT_TOKEN_URI);
    }

    #[test]
    fn bad_files_name_the_file_and_the_fault() {
        for (text, fault) in [
            ("{nope", "not valid JSON"),
            (r#"{"other":{}}"#, "neither"),
            (r#"{"type":"service_account"}"#, "service-account key"),
            (r#"{"installed":{"client_secret":"x"}}"#, "client_id"),
        ] {
            let message = ClientConfig::from_json(text, Path::new("/tmp/client.json")).unwrap_err().to_string();
            assert!(message.contains("/tmp/client.json"), "{message}");
            assert!(message.contains(fault), "{fault}: {message}");
        }
    }

    #[test]
    fn environment_comes_after_the_file_and_before_the_built_in_client() {
        let config = ClientConfig::from_lookup(lookup(&[
            ("GATEHOUSE_OAUTH_CLIENT_ID", "env-id"),
            ("GATEHOUSE_OAUTH_CLIENT_SECRET", "env-secret"),
        ]))
        .unwrap();
        assert_eq!(config.client_id, "env-id");
        assert_eq!(config.source, ClientSource::Environment);
        let error = ClientConfig::from_lookup(lookup(&[("CREDENTIALS_PATH", "/nonexistent/client.json")])).unwrap_err();
        assert!(error.to_string().contains("/nonexistent/client.json"), "{error}");
    }

    #[test]
    fn without_a_client_the_error_says_how_to_get_one() {
        if ClientConfig::built_in().is_some() {
            return;
        }
        let message = ClientConfig::from_lookup(lookup(&[])).unwrap_err().to_string();
        for step in ["Credentials", "OAuth client ID", "Desktop app", "CREDENTIALS_PATH"] {
            assert!(message.contains(step), "{step}: {message}");
        }
    }

    #[test]
    fn debug_hides_the_secret() {
        let config = ClientConfig::from_lookup(lookup(&[
            ("GATEHOUSE_OAUTH_CLIENT_ID", "id"),
            ("GATEHOUSE_OAUTH_CLIENT_SECRET", "hush"),
        ]))
        .unwrap();
        assert!(!format!("{config:?}").contains("hush"));
    }

    const DESKTOP: &str = r#"{"installed":{"client_id":"123-abc.apps.googleusercontent.com","project_id":"p","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"GOCSPX-s","redirect_uris":["http://localhost"]}}"#;

    #[test]
    fn a_chosen_desktop_client_is_accepted() {
        let chosen = check_chosen(DESKTOP.as_bytes()).unwrap();
        assert_eq!(chosen.client_id, "123-abc.apps.googleusercontent.com");
    }

    #[test]
    fn hostile_or_wrong_chosen_files_say_what_is_wrong_and_what_to_do() {
        let huge = format!(r#"{{"installed":{{"client_id":"x","client_secret":"y","pad":"{}"}}}}"#, "a".repeat(70_000));
        for (bytes, expected, words) in [
            (br#"{"web":{"client_id":"w","client_secret":"s"}}"#.to_vec(), ChosenFileError::WebClient, "Desktop app"),
            (
                br#"{"type":"service_account","private_key":"k"}"#.to_vec(),
                ChosenFileError::ServiceAccount,
                "service-account key",
            ),
            (br#"{"other":{}}"#.to_vec(), ChosenFileError::NotClient, "installed"),
            (
                br#"{"installed":{"client_secret":"s"}}"#.to_vec(),
                ChosenFileError::Missing { field: "client ID (client_id)" },
                "Download it again",
            ),
            (
                br#"{"installed":{"client_id":"i","client_secret":"  "}}"#.to_vec(),
                ChosenFileError::Missing { field: "client secret (client_secret)" },
                "client secret",
            ),
            (
                br#"{"installed":{"client_id":"i","client_secret":"s","token_uri":"http://evil.example/token"}}"#
                    .to_vec(),
                ChosenFileError::TokenUri { uri: "http://evil.example/token".into() },
                "https",
            ),
            (huge.clone().into_bytes(), ChosenFileError::TooLarge { size: huge.len() as u64 }, "too large"),
        ] {
            let error = check_chosen(&bytes).unwrap_err();
            assert_eq!(error, expected);
            assert!(error.to_string().contains(words), "{words}: {error}");
        }
        let error = check_chosen(b"\x89PNG not json").unwrap_err();
        assert!(matches!(error, ChosenFileError::NotJson { .. }), "{error:?}");
        assert!(error.to_string().contains("not JSON"), "{error}");
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_kept_client_is_private_holds_only_its_fields_and_is_found_after_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let with_extra = DESKTOP.replace(r#""project_id":"p""#, r#""project_id":"p","note":"<script>""#);
        let kept = keep_chosen(&home, with_extra.as_bytes()).unwrap();
        assert_eq!(kept.source, ClientSource::Kept(home.join(KEPT_FILE)));
        #[cfg(unix)]
        assert_eq!(mode(&home.join(KEPT_FILE)), 0o600);
        let text = std::fs::read_to_string(home.join(KEPT_FILE)).unwrap();
        assert!(!text.contains("script") && !text.contains("project_id"), "{text}");
        let names: Vec<_> = std::fs::read_dir(&home).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [KEPT_FILE], "no partial file left behind");

        let found = ClientConfig::find(Some(&home), lookup(&[])).unwrap();
        assert_eq!(found.client_id, "123-abc.apps.googleusercontent.com");
        assert_eq!(found.client_secret.as_ref().map(Secret::expose), Some("GOCSPX-s"));
        assert_eq!(found.source, ClientSource::Kept(home.join(KEPT_FILE)));
        let env = ClientConfig::find(Some(&home), lookup(&[("GATEHOUSE_OAUTH_CLIENT_ID", "env-id")])).unwrap();
        assert_eq!(env.source, ClientSource::Environment);

        // A refused file leaves the kept one as it was.
        keep_chosen(&home, br#"{"web":{"client_id":"w","client_secret":"s"}}"#).unwrap_err();
        assert_eq!(std::fs::read_to_string(home.join(KEPT_FILE)).unwrap(), text);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_at_the_kept_file_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let elsewhere = dir.path().join("elsewhere.json");
        std::fs::write(&elsewhere, DESKTOP.replace("123-abc", "planted")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(KEPT_FILE)).unwrap();

        // Read: refused, in words that say what to do.
        let error = ClientConfig::find(Some(&home), lookup(&[])).unwrap_err().to_string();
        assert!(error.contains("symbolic link") && error.contains("Choose your client file again"), "{error}");

        // Written: the link is replaced by a file of its own; what it pointed at is untouched.
        keep_chosen(&home, DESKTOP.as_bytes()).unwrap();
        assert!(!std::fs::symlink_metadata(home.join(KEPT_FILE)).unwrap().file_type().is_symlink());
        assert!(std::fs::read_to_string(&elsewhere).unwrap().contains("planted"));
        assert_eq!(
            ClientConfig::find(Some(&home), lookup(&[])).unwrap().client_id,
            "123-abc.apps.googleusercontent.com"
        );
    }

    #[test]
    fn a_huge_kept_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join(KEPT_FILE)).unwrap();
        file.set_len(MAX_CLIENT_FILE_BYTES + 1).unwrap();
        let error = ClientConfig::find(Some(dir.path()), lookup(&[])).unwrap_err().to_string();
        assert!(error.contains("far more than a client file"), "{error}");
    }

    #[test]
    fn every_setup_step_opens_a_google_cloud_console_page() {
        for step in SETUP_STEPS {
            assert!(step.url.starts_with("https://console.cloud.google.com/"), "{step:?}");
        }
        let client = SETUP_STEPS.iter().find(|step| step.key == "client").unwrap();
        assert!(client.sentence.contains("Use this client for an AI-powered agent"));
        assert!(SETUP_STEPS.iter().any(|step| step.sentence.contains("MCP API")));
    }
}
