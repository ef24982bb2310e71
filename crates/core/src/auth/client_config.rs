//! Which OAuth client Gatehouse signs people in with.
//!
//! Google ties every refresh token to the OAuth client that obtained it, so the client must be known before
//! signing in and every time a token is refreshed. It comes from, in order:
//! 1. `CREDENTIALS_PATH`: the `client_secret_*.json` Google Cloud lets you download (`installed` or `web`);
//! 2. `GATEHOUSE_OAUTH_CLIENT_ID` (and `GATEHOUSE_OAUTH_CLIENT_SECRET`, which Desktop clients have);
//! 3. a client compiled into this build (`GATEHOUSE_BUILTIN_OAUTH_CLIENT_ID` / `…_SECRET` at build time).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Secret;

/// Google's token endpoint, for clients whose JSON does not name one.
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// Where the client came from (shown by `gatehouse status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSource {
    File(PathBuf),
    Environment,
    BuiltIn,
}

impl std::fmt::Display for ClientSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientSource::File(path) => write!(f, "{} (CREDENTIALS_PATH)", path.display()),
            ClientSource::Environment => f.write_str("GATEHOUSE_OAUTH_CLIENT_ID"),
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

/// Why no usable OAuth client was found.
#[derive(Debug, thiserror::Error)]
pub enum ClientConfigError {
    #[error(
        "Gatehouse has no OAuth client to sign in to Google with. To get one:\n\
         1. Open the Google Cloud console › APIs & Services › Credentials (https://console.cloud.google.com/apis/credentials).\n\
         2. Create credentials › OAuth client ID › Application type: Desktop app › Create.\n\
         3. Download the JSON file it offers.\n\
         4. Set CREDENTIALS_PATH to that file (or set GATEHOUSE_OAUTH_CLIENT_ID and GATEHOUSE_OAUTH_CLIENT_SECRET), then sign in again.\n\
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
            ClientSource::File(_) | ClientSource::BuiltIn => None,
        }
    }

    /// Finds the client from the process environment (see the module doc for the order).
    pub fn from_env() -> Result<Self, ClientConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Finds the client through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ClientConfigError> {
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
            source: ClientSource::File(path.to_path_buf()),
        })
    }
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
}
