//! Application Default Credentials, found as Google's own libraries find them:
//!
//! 1. `GOOGLE_APPLICATION_CREDENTIALS`: a JSON file, either a service-account key or an `authorized_user`
//!    file (a person's refresh token with its OAuth client, as `gcloud auth application-default login`
//!    writes it);
//! 2. gcloud's well-known file: `$CLOUDSDK_CONFIG/application_default_credentials.json`, else
//!    `~/.config/gcloud/…` (`%APPDATA%\gcloud\…` on Windows);
//! 3. the GCE metadata server (Compute Engine, Cloud Run, GKE): `GCE_METADATA_HOST`, default
//!    `metadata.google.internal`, detected with a short timeout (`NO_GCE_CHECK=true` skips it).
//!
//! [`resolve`] returns the first credential found, as a [`TokenSource`] with cached tokens and single-flight
//! refresh, classified by what it is (an `authorized_user` file is a person; a key or the metadata server is
//! a service account). [`from_credentials_config`] reads mcp-gee-sweet's `CREDENTIALS_CONFIG` (the base64 of
//! a service-account key), which belongs to the service-account method rather than to ADC.
//!
//! Settings are read through a lookup function (as [`Config::from_lookup`](crate::config::Config::from_lookup)
//! does), so tests never touch the process environment.

mod tokens;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use super::Secret;
use super::identity::{AuthMethod, IdentityClass};
use crate::google::Endpoints;
use crate::google::auth::{AuthError, SCOPES, ServiceAccount, ServiceAccountKey, TokenSource};
use tokens::{ACCOUNT_PATH, AuthorizedUser, FLAVOR, MetadataTokens, TOKEN_URL, TOKENINFO_URL};

/// The file `gcloud auth application-default login` writes in gcloud's configuration folder.
pub const WELL_KNOWN_FILE: &str = "application_default_credentials.json";
/// Where the metadata server answers on Google Cloud machines.
pub const DEFAULT_METADATA_HOST: &str = "metadata.google.internal";
/// How long detection waits for a metadata server: off Google Cloud nothing answers, and startup must not
/// hang on it.
pub const METADATA_PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// Where the credential was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// The file `GOOGLE_APPLICATION_CREDENTIALS` names.
    EnvironmentFile(PathBuf),
    /// gcloud's well-known file.
    WellKnownFile(PathBuf),
    /// The metadata server at this host (`HOST[:PORT]`).
    MetadataServer(String),
    /// `CREDENTIALS_CONFIG`.
    CredentialsConfig,
}

impl std::fmt::Display for CredentialSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CredentialSource::EnvironmentFile(path) => {
                write!(f, "GOOGLE_APPLICATION_CREDENTIALS ({})", path.display())
            }
            CredentialSource::WellKnownFile(path) => write!(f, "gcloud's credentials file ({})", path.display()),
            CredentialSource::MetadataServer(host) => write!(f, "the Google Cloud metadata server ({host})"),
            CredentialSource::CredentialsConfig => f.write_str("CREDENTIALS_CONFIG"),
        }
    }
}

/// Why ADC (or `CREDENTIALS_CONFIG`) could not be used. Each message names the file or variable, says
/// what is wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum AdcError {
    #[error("{origin} names {path}, but it could not be read ({detail}). {remedy}")]
    Unreadable { origin: &'static str, path: String, detail: String, remedy: &'static str },
    #[error("The credential file {path} ({origin}) is not usable: {problem}. {remedy}")]
    Invalid { origin: &'static str, path: String, problem: String, remedy: String },
    #[error(
        "CREDENTIALS_CONFIG is not usable: {0}. Set it to the base64 of a service-account JSON key (e.g. the output of `base64 -w0 key.json`), or unset it."
    )]
    CredentialsConfig(String),
    #[error(
        "GCE_METADATA_HOST is set to {host}, but no metadata server answered there ({detail}). Unset GCE_METADATA_HOST, or point it at a running metadata server."
    )]
    MetadataUnreachable { host: String, detail: String },
    #[error(
        "The metadata server at {host} has no service account for this machine ({detail}). Attach a service account to it, or use another credential (e.g. `gcloud auth application-default login`)."
    )]
    NoMetadataAccount { host: String, detail: String },
    #[error("The credential file {path} ({origin}) is not used: {refused}")]
    Rerouted { origin: &'static str, path: String, refused: Box<crate::google::endpoint::CredentialRefused> },
    #[error(
        "GCE_METADATA_HOST is set to {host}, which is not this computer, while GATEHOUSE_GOOGLE_ENDPOINT sends every Google request to {endpoint}: the metadata server's tokens are Google's and are not sent there. Unset GATEHOUSE_GOOGLE_ENDPOINT, or point GCE_METADATA_HOST at an emulator on this computer."
    )]
    MetadataElsewhere { host: String, endpoint: String },
}

const ENV_ORIGIN: &str = "GOOGLE_APPLICATION_CREDENTIALS";
const WELL_KNOWN_ORIGIN: &str = "gcloud's application-default credentials";
const REWRITE: &str = "Point GOOGLE_APPLICATION_CREDENTIALS at a service-account key, or run `gcloud auth application-default login` to write a new file.";

/// The concrete token source behind a credential (each knows different things about itself).
enum Tokens {
    Key(Arc<ServiceAccount>),
    User(Arc<AuthorizedUser>),
    Metadata(Arc<MetadataTokens>),
}

/// A credential ADC (or `CREDENTIALS_CONFIG`) resolved to.
pub struct ResolvedCredential {
    /// [`AuthMethod::Adc`], or [`AuthMethod::ServiceAccount`] for `CREDENTIALS_CONFIG`.
    pub method: AuthMethod,
    /// What the credential is, whatever found it.
    pub class: IdentityClass,
    pub source: CredentialSource,
    tokens: Tokens,
}

impl std::fmt::Debug for ResolvedCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedCredential")
            .field("method", &self.method)
            .field("class", &self.class)
            .field("source", &self.source)
            .field("account", &self.account())
            .finish()
    }
}

impl ResolvedCredential {
    /// The token source for the Google client.
    pub fn token_source(&self) -> Arc<dyn TokenSource> {
        match &self.tokens {
            Tokens::Key(source) => source.clone(),
            Tokens::User(source) => source.clone(),
            Tokens::Metadata(source) => source.clone(),
        }
    }

    /// The account's email when known: a key's and the metadata server's at once; a person's after the first
    /// token (when the file's scopes include the email).
    pub fn account(&self) -> Option<String> {
        match &self.tokens {
            Tokens::Key(source) => source.account(),
            Tokens::User(source) => source.account(),
            Tokens::Metadata(source) => source.account(),
        }
    }

    /// The scopes the tokens carry, when known (for a person's file or the metadata server: after the first
    /// token). A key's tokens carry every scope Gatehouse asks for.
    pub fn granted_scopes(&self) -> Option<Vec<String>> {
        match &self.tokens {
            Tokens::Key(_) => Some(SCOPES.iter().map(|s| (*s).to_owned()).collect()),
            Tokens::User(source) => source.learned().scopes,
            Tokens::Metadata(source) => source.granted_scopes(),
        }
    }

    /// Fetches a token now: a revoked refresh token or a refusing metadata server shows at once, and the
    /// account and granted scopes become known.
    pub async fn check(&self) -> Result<(), AuthError> {
        self.token_source().token().await.map(drop)
    }
}

/// Finds Application Default Credentials as Google's libraries do (see the module documentation);
/// `Ok(None)` when there are none. `lookup` reads environment variables; requests go through `endpoints`
/// (so the emulator can stand in for Google) and `http`.
pub async fn resolve(
    lookup: impl Fn(&str) -> Option<String>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<Option<ResolvedCredential>, AdcError> {
    let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
    if let Some(path) = get("GOOGLE_APPLICATION_CREDENTIALS") {
        let path = PathBuf::from(path);
        let text = std::fs::read_to_string(&path).map_err(|e| AdcError::Unreadable {
            origin: ENV_ORIGIN,
            path: path.display().to_string(),
            detail: e.to_string(),
            remedy: "Point it at an existing JSON credential file (a service-account key, or the file `gcloud auth application-default login` writes), or unset it.",
        })?;
        let source = CredentialSource::EnvironmentFile(path.clone());
        return from_file(&text, &path, ENV_ORIGIN, source, endpoints, http).map(Some);
    }
    if let Some(path) = well_known_file(&get) {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let source = CredentialSource::WellKnownFile(path.clone());
                match from_file(&text, &path, WELL_KNOWN_ORIGIN, source, endpoints, http) {
                    // gcloud's own sign-in, found without being asked for, while an emulator serves: skipped.
                    Err(error @ AdcError::Rerouted { .. }) => tracing::warn!("{error}"),
                    other => return other.map(Some),
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(AdcError::Unreadable {
                    origin: WELL_KNOWN_ORIGIN,
                    path: path.display().to_string(),
                    detail: error.to_string(),
                    remedy: "Check the file's permissions, or run `gcloud auth application-default login` to write it again.",
                });
            }
        }
    }
    metadata_server(&get, endpoints, http).await
}

/// Reads `CREDENTIALS_CONFIG` (mcp-gee-sweet's variable: the base64 of a service-account JSON key);
/// `Ok(None)` when it is unset. The method is [`AuthMethod::ServiceAccount`].
pub fn from_credentials_config(
    lookup: impl Fn(&str) -> Option<String>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<Option<ResolvedCredential>, AdcError> {
    let Some(encoded) = lookup("CREDENTIALS_CONFIG").filter(|v| !v.trim().is_empty()) else { return Ok(None) };
    let compact: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let bytes = engines
        .iter()
        .find_map(|engine| engine.decode(&compact).ok())
        .ok_or_else(|| AdcError::CredentialsConfig("it is not base64".into()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| AdcError::CredentialsConfig("it decodes to binary, not JSON".into()))?;
    let kind = serde_json::from_str::<Value>(&text)
        .map_err(|e| AdcError::CredentialsConfig(format!("it decodes to text that is not JSON ({e})")))?
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if kind.as_deref() != Some("service_account") {
        let kind = kind.map_or_else(|| "no \"type\"".to_owned(), |kind| format!("type {kind:?}"));
        return Err(AdcError::CredentialsConfig(format!("it decodes to JSON with {kind}, not a service_account key")));
    }
    let key = ServiceAccountKey::from_json(&text).map_err(|e| AdcError::CredentialsConfig(key_problem(e)))?;
    Ok(Some(ResolvedCredential {
        method: AuthMethod::ServiceAccount,
        class: IdentityClass::ServiceAccount,
        source: CredentialSource::CredentialsConfig,
        tokens: Tokens::Key(ServiceAccount::new(key, endpoints, http.clone())),
    }))
}

/// gcloud's well-known file: under `CLOUDSDK_CONFIG` when set, else gcloud's default configuration folder.
fn well_known_file(get: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let folder = match get("CLOUDSDK_CONFIG") {
        Some(config) => PathBuf::from(config),
        None if cfg!(windows) => PathBuf::from(get("APPDATA")?).join("gcloud"),
        None => PathBuf::from(get("HOME")?).join(".config").join("gcloud"),
    };
    Some(folder.join(WELL_KNOWN_FILE))
}

/// The `AuthError` of a bad key, as the sentence fragment an `AdcError` carries.
fn key_problem(error: AuthError) -> String {
    match error {
        AuthError::KeyInvalid(detail) | AuthError::KeyUnreadable { detail, .. } => detail,
        other => other.to_string(),
    }
}

#[derive(Deserialize)]
struct UserFile {
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    token_uri: Option<String>,
    #[serde(default)]
    account: Option<String>,
}

/// A credential from a JSON file's text, by its `type`.
fn from_file(
    text: &str,
    path: &Path,
    origin: &'static str,
    source: CredentialSource,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<ResolvedCredential, AdcError> {
    let invalid = |problem: String, remedy: &str| AdcError::Invalid {
        origin,
        path: path.display().to_string(),
        problem,
        remedy: remedy.to_owned(),
    };
    let json: Value = serde_json::from_str(text).map_err(|e| invalid(format!("it is not JSON ({e})"), REWRITE))?;
    let kind = json.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "service_account" => {
            let key = ServiceAccountKey::from_json(text).map_err(|e| {
                invalid(key_problem(e), "Download a new JSON key from Google Cloud (IAM › Service accounts › Keys).")
            })?;
            Ok(ResolvedCredential {
                method: AuthMethod::Adc,
                class: IdentityClass::ServiceAccount,
                source,
                tokens: Tokens::Key(ServiceAccount::new(key, endpoints, http.clone())),
            })
        }
        "authorized_user" => {
            let file: UserFile = serde_json::from_value(json)
                .map_err(|e| invalid(format!("its fields are malformed ({e})"), REWRITE))?;
            let field = |value: Option<String>, name: &str| {
                value.filter(|v| !v.trim().is_empty()).ok_or_else(|| {
                    invalid(
                        format!("it is an authorized_user file without {name}"),
                        "Run `gcloud auth application-default login` to write it again.",
                    )
                })
            };
            let client_id = field(file.client_id, "client_id")?;
            let client_secret = Secret::new(field(file.client_secret, "client_secret")?);
            let refresh_token = Secret::new(field(file.refresh_token, "refresh_token")?);
            // gcloud's files are sign-ins made with Google: their refresh token goes to Google only.
            let what = format!("The refresh token in {}", path.display());
            let token_url = endpoints
                .credential_url(file.token_uri.as_deref().unwrap_or(TOKEN_URL), None, &what)
                .map_err(|refused| AdcError::Rerouted {
                    origin,
                    path: path.display().to_string(),
                    refused: Box::new(refused),
                })?;
            let user = AuthorizedUser::new(
                client_id,
                client_secret,
                refresh_token,
                token_url,
                endpoints.reroute(TOKENINFO_URL),
                path.display().to_string(),
                file.account.filter(|a| a.contains('@')),
                http.clone(),
            );
            Ok(ResolvedCredential {
                method: AuthMethod::Adc,
                class: IdentityClass::User,
                source,
                tokens: Tokens::User(Arc::new(user)),
            })
        }
        "" => Err(invalid(
            "it has no \"type\", so it is neither a service-account key nor an authorized_user file".into(),
            REWRITE,
        )),
        other => Err(invalid(
            format!(
                "its type is {other:?}; Gatehouse reads service_account keys and authorized_user files (workload identity federation and impersonation are not supported)"
            ),
            REWRITE,
        )),
    }
}

/// The metadata server, when one answers: `GCE_METADATA_HOST` (an error if it does not answer), else
/// `metadata.google.internal` (silently absent off Google Cloud).
async fn metadata_server(
    get: &impl Fn(&str) -> Option<String>,
    endpoints: &Endpoints,
    http: &reqwest::Client,
) -> Result<Option<ResolvedCredential>, AdcError> {
    let explicit = get("GCE_METADATA_HOST");
    let skip = get("NO_GCE_CHECK").is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"));
    if explicit.is_none() && skip {
        return Ok(None);
    }
    let host = explicit.clone().unwrap_or_else(|| DEFAULT_METADATA_HOST.to_owned());
    let base = format!("http://{}", host.trim().trim_end_matches('/'));
    // Its tokens are Google's: with an emulator serving, only a metadata server on this computer (another
    // emulator) is asked, so a real token is never sent along with the rerouted requests.
    if let Some(root) = endpoints.root() {
        let local = url::Url::parse(&base)
            .ok()
            .and_then(|url| url.host().map(|h| crate::google::endpoint::is_loopback_host(&h)));
        if local != Some(true) {
            return match explicit {
                Some(_) => Err(AdcError::MetadataElsewhere { host, endpoint: root.to_string() }),
                None => Ok(None),
            };
        }
    }
    let probe = http.get(format!("{base}/")).header(FLAVOR.0, FLAVOR.1).timeout(METADATA_PROBE_TIMEOUT).send().await;
    let flavored = |response: &reqwest::Response| {
        response.headers().get("metadata-flavor").and_then(|v| v.to_str().ok()) == Some("Google")
    };
    match probe {
        Ok(response) if flavored(&response) => {}
        Ok(response) if explicit.is_some() => {
            let detail = format!("HTTP {} without the Metadata-Flavor: Google header", response.status().as_u16());
            return Err(AdcError::MetadataUnreachable { host, detail });
        }
        Err(error) if explicit.is_some() => {
            return Err(AdcError::MetadataUnreachable { host, detail: error.to_string() });
        }
        _ => return Ok(None),
    }
    let no_account = |detail: String| AdcError::NoMetadataAccount { host: host.clone(), detail };
    let response = http
        .get(format!("{base}{ACCOUNT_PATH}email"))
        .header(FLAVOR.0, FLAVOR.1)
        .timeout(METADATA_PROBE_TIMEOUT)
        .send()
        .await
        .map_err(|e| no_account(e.to_string()))?;
    if !response.status().is_success() {
        return Err(no_account(format!("HTTP {} for its email", response.status().as_u16())));
    }
    let email = response.text().await.map_err(|e| no_account(e.to_string()))?.trim().to_owned();
    if email.is_empty() {
        return Err(no_account("it gave an empty email".into()));
    }
    let tokens = MetadataTokens::new(base, email, endpoints.reroute(TOKENINFO_URL), http.clone());
    Ok(Some(ResolvedCredential {
        method: AuthMethod::Adc,
        class: IdentityClass::ServiceAccount,
        source: CredentialSource::MetadataServer(host),
        tokens: Tokens::Metadata(Arc::new(tokens)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_well_known_file_follows_cloudsdk_config_then_home() {
        let get = lookup(&[("CLOUDSDK_CONFIG", "/opt/gcloud"), ("HOME", "/home/ada")]);
        assert_eq!(well_known_file(&get), Some(PathBuf::from("/opt/gcloud").join(WELL_KNOWN_FILE)));
        if !cfg!(windows) {
            let get = lookup(&[("HOME", "/home/ada")]);
            assert_eq!(well_known_file(&get), Some(PathBuf::from("/home/ada/.config/gcloud").join(WELL_KNOWN_FILE)));
            assert_eq!(well_known_file(&lookup(&[])), None);
        }
    }

    #[test]
    fn files_of_other_types_say_what_is_supported() {
        let error = from_file(
            r#"{"type":"external_account","audience":"x"}"#,
            Path::new("/tmp/wif.json"),
            ENV_ORIGIN,
            CredentialSource::CredentialsConfig,
            &Endpoints::default(),
            &reqwest::Client::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("/tmp/wif.json") && error.contains("external_account"), "{error}");
        assert!(error.contains("gcloud auth application-default login"), "{error}");
    }

    #[test]
    fn credentials_config_must_be_base64_of_a_key() {
        let error = from_credentials_config(
            lookup(&[("CREDENTIALS_CONFIG", "not base64!")]),
            &Endpoints::default(),
            &reqwest::Client::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("CREDENTIALS_CONFIG") && error.contains("not base64"), "{error}");
        assert!(
            from_credentials_config(lookup(&[]), &Endpoints::default(), &reqwest::Client::new()).unwrap().is_none()
        );
    }
}
