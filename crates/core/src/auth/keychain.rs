//! Where a signed-in person's refresh token lives: the OS keychain (Secret Service on Linux, the macOS
//! Keychain, Windows Credential Manager) through `keyring`, and nowhere else. Access tokens are never stored.
//!
//! Layout in the keychain, under the service name `gatehouse` (or `gatehouse:<GATEHOUSE_HOME>` when
//! `GATEHOUSE_HOME` is set, so isolated homes — tests, a second profile — never share or clobber entries):
//! - `account:<email>`: `{"refresh_token", "client_id", "client_secret", "token_uri", "scopes"}` for each
//!   signed-in Google account. The OAuth client is kept with the token because Google accepts a refresh token
//!   only from the client it was issued to, so serving needs no client settings once someone signed in (an
//!   installed app's client secret is not confidential, as Google documents; it is kept here all the same);
//! - `accounts`: `{"active", "accounts"}`, which accounts are signed in and which one acts. It is kept in the
//!   keychain too, so not even the account's email is written to disk.
//!
//! `GATEHOUSE_TOKEN_STORE=file` opts into one file instead, `<GATEHOUSE_HOME>/google-tokens.json`, written with
//! mode 0600: for headless servers without a keychain. `gatehouse status` warns while it is in use.
//!
//! `keyring` calls block (D-Bus round trips on Linux), so each runs on tokio's blocking pool.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::Secret;
use crate::config::Config;

/// The token file's name under `GATEHOUSE_HOME` (only with `GATEHOUSE_TOKEN_STORE=file`).
pub const TOKEN_FILE_NAME: &str = "google-tokens.json";
const INDEX_USER: &str = "accounts";
const ACCOUNT_PREFIX: &str = "account:";

/// How the platform's keychain is called in messages.
#[cfg(target_os = "macos")]
const KEYCHAIN: &str = "the macOS Keychain";
#[cfg(target_os = "windows")]
const KEYCHAIN: &str = "Windows Credential Manager";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const KEYCHAIN: &str = "the Secret Service keyring (gnome-keyring or KWallet)";

/// Where the keychain keeps a sign-in, in a person's words (the settings window), without service names.
#[cfg(target_os = "macos")]
const KEYCHAIN_PLAIN: &str = "in this Mac's Keychain";
#[cfg(target_os = "windows")]
const KEYCHAIN_PLAIN: &str = "in this computer's Windows Credential Manager";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const KEYCHAIN_PLAIN: &str = "in this computer's keyring";

#[cfg(target_os = "macos")]
const UNLOCK: &str = "Unlock it in Keychain Access";
#[cfg(target_os = "windows")]
const UNLOCK: &str = "Sign in to Windows again";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const UNLOCK: &str = "Unlock it (log in to the desktop, or unlock the \"Login\" keyring in Passwords and Keys; on a machine without a desktop, `gnome-keyring-daemon --unlock`)";

/// Why the token store could not be used. Each message says which store and what to do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "Gatehouse cannot reach the keychain: there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), which the Secret Service needs. On a desktop, sign in to a graphical session; on a headless server, set GATEHOUSE_TOKEN_STORE=file to keep the sign-in in a private file under GATEHOUSE_HOME."
    )]
    NoSessionBus,
    #[error(
        "The Secret Service (gnome-keyring) is not running, so Gatehouse has nowhere safe to keep the Google sign-in ({detail}). Start your desktop's keyring (install gnome-keyring if there is none), or set GATEHOUSE_TOKEN_STORE=file on a headless server."
    )]
    NotRunning { detail: String },
    #[error(
        "Gatehouse cannot read or keep the Google sign-in because {keychain} is locked. {unlock} and try again, or set GATEHOUSE_TOKEN_STORE=file on a headless server.",
        keychain = KEYCHAIN,
        unlock = UNLOCK
    )]
    Locked { detail: String },
    #[error(
        "Gatehouse could not use {keychain}: {detail}. Check the keychain works (e.g. other apps can save passwords), or set GATEHOUSE_TOKEN_STORE=file on a headless server.",
        keychain = KEYCHAIN
    )]
    Unavailable { detail: String },
    #[error(
        "The Google sign-in Gatehouse keeps in {store} is damaged ({detail}). Run `gatehouse logout` and sign in again."
    )]
    Corrupt { store: String, detail: String },
    #[error(
        "The token file {path} could not be {action}: {detail}. Check GATEHOUSE_HOME is a folder you may write to."
    )]
    File { path: String, action: &'static str, detail: String },
    #[error(
        "GATEHOUSE_TOKEN_STORE is set to {0:?}, which is not \"keychain\" or \"file\". Unset it to use the OS keychain, or set it to \"file\" on a headless server."
    )]
    BadSetting(String),
    #[error("{0} is not signed in to Gatehouse. Run `gatehouse status` to see the signed-in accounts.")]
    UnknownAccount(String),
    #[error("Gatehouse's keychain task stopped unexpectedly ({0}). Try again.")]
    Task(String),
}

/// Which kind of store holds the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Keychain,
    File,
}

/// A signed-in Google account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAccount {
    pub email: String,
    pub refresh_token: Secret,
    /// The OAuth client the refresh token was issued to (Google accepts it from no other), with its secret and
    /// token endpoint.
    pub client_id: String,
    pub client_secret: Option<Secret>,
    pub token_uri: String,
    pub scopes: Vec<String>,
    /// The `GATEHOUSE_GOOGLE_ENDPOINT` root the sign-in was made through (an emulator); `None`: with Google.
    /// The refresh token and client secret are sent nowhere else
    /// ([`Endpoints::credential_url`](crate::google::Endpoints::credential_url)).
    pub endpoint: Option<String>,
}

/// Which accounts are signed in, and which one acts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountList {
    #[serde(default)]
    pub active: Option<String>,
    #[serde(default)]
    pub accounts: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Record {
    refresh_token: String,
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default = "default_token_uri")]
    token_uri: String,
    #[serde(default)]
    scopes: Vec<String>,
    /// Absent in entries written before it existed: those were made with Google.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    endpoint: Option<String>,
}

fn default_token_uri() -> String {
    super::client_config::DEFAULT_TOKEN_URI.to_owned()
}

impl Record {
    fn into_account(self, email: &str) -> StoredAccount {
        StoredAccount {
            email: email.to_owned(),
            refresh_token: Secret::new(self.refresh_token),
            client_id: self.client_id,
            client_secret: self.client_secret.map(Secret::new),
            token_uri: self.token_uri,
            scopes: self.scopes,
            endpoint: self.endpoint,
        }
    }

    fn from_account(account: &StoredAccount) -> Self {
        Self {
            refresh_token: account.refresh_token.expose().to_owned(),
            client_id: account.client_id.clone(),
            client_secret: account.client_secret.as_ref().map(|secret| secret.expose().to_owned()),
            token_uri: account.token_uri.clone(),
            scopes: account.scopes.clone(),
            endpoint: account.endpoint.clone(),
        }
    }
}

/// The whole token file (`GATEHOUSE_TOKEN_STORE=file`).
#[derive(Default, Serialize, Deserialize)]
struct TokenFile {
    #[serde(default)]
    active: Option<String>,
    #[serde(default)]
    accounts: BTreeMap<String, Record>,
}

#[derive(Debug, Clone)]
enum Backend {
    Keychain { service: String },
    File { path: PathBuf },
}

/// The store of signed-in accounts. Cheap to clone.
#[derive(Debug, Clone)]
pub struct TokenStore {
    backend: Backend,
}

/// Serializes this process's read-modify-write of the account list (and of the approvals store's key entry).
static LOCK: Mutex<()> = Mutex::new(());

/// Runs `work` (blocking keychain calls) holding this process's keychain lock.
pub(crate) fn with_lock<T>(work: impl FnOnce() -> T) -> T {
    let _guard = LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    work()
}

impl TokenStore {
    /// The store the environment asks for (`GATEHOUSE_TOKEN_STORE`, `GATEHOUSE_HOME`).
    pub fn from_env(config: &Config) -> Result<Self, StoreError> {
        Self::from_lookup(config, |name| std::env::var(name).ok())
    }

    /// Like [`from_env`](Self::from_env), reading settings through `lookup`.
    pub fn from_lookup(config: &Config, lookup: impl Fn(&str) -> Option<String>) -> Result<Self, StoreError> {
        let setting = lookup("GATEHOUSE_TOKEN_STORE").map(|v| v.trim().to_ascii_lowercase()).unwrap_or_default();
        match setting.as_str() {
            "" | "keychain" => {
                let custom_home = lookup("GATEHOUSE_HOME").is_some_and(|home| !home.trim().is_empty());
                Ok(Self::keychain(if custom_home { Self::service_for_home(&config.home) } else { "gatehouse".into() }))
            }
            "file" => Ok(Self::file(config.home.join(TOKEN_FILE_NAME))),
            _ => Err(StoreError::BadSetting(lookup("GATEHOUSE_TOKEN_STORE").unwrap_or_default())),
        }
    }

    /// The keychain service name used for a `GATEHOUSE_HOME`.
    pub fn service_for_home(home: &Path) -> String {
        format!("gatehouse:{}", home.display())
    }

    /// Entries in the OS keychain under `service`.
    pub fn keychain(service: impl Into<String>) -> Self {
        Self { backend: Backend::Keychain { service: service.into() } }
    }

    /// One 0600 file at `path` (the opt-in for headless servers).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self { backend: Backend::File { path: path.into() } }
    }

    pub fn kind(&self) -> StoreKind {
        match self.backend {
            Backend::Keychain { .. } => StoreKind::Keychain,
            Backend::File { .. } => StoreKind::File,
        }
    }

    /// Where the tokens are, in words.
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::Keychain { service } => format!("{KEYCHAIN}, service \"{service}\""),
            Backend::File { path } => format!("the file {} (GATEHOUSE_TOKEN_STORE=file)", path.display()),
        }
    }

    /// Where the tokens are, in plain words for a person ("in this computer's keyring", "in a private file on
    /// this computer"); [`describe`](Self::describe) names the service or path for whoever needs it.
    pub fn plain_words(&self) -> &'static str {
        match &self.backend {
            Backend::Keychain { .. } => KEYCHAIN_PLAIN,
            Backend::File { .. } => "in a private file on this computer",
        }
    }

    /// Things the person should know about where the tokens are.
    pub fn warnings(&self) -> Vec<String> {
        let Backend::File { path } = &self.backend else { return Vec::new() };
        // Only Unix adds to it (a mode check); elsewhere the one warning stands alone.
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut warnings = vec![format!(
            "Google sign-in tokens are kept in the file {} (GATEHOUSE_TOKEN_STORE=file), not the OS keychain: anyone who can read that file can act as the signed-in Google accounts. Use this only on a headless server without a keychain.",
            path.display()
        )];
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(meta) = std::fs::metadata(path) {
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    warnings.push(format!(
                        "{} can be read by other users (mode {mode:o}): run `chmod 600 {}`.",
                        path.display(),
                        path.display()
                    ));
                }
            }
        }
        warnings
    }

    /// The signed-in accounts and the active one.
    pub async fn accounts(&self) -> Result<AccountList, StoreError> {
        self.blocking(|backend| backend.read_list()).await
    }

    /// The stored account for `email`.
    pub async fn get(&self, email: &str) -> Result<Option<StoredAccount>, StoreError> {
        let email = email.to_owned();
        self.blocking(move |backend| backend.read_account(&email)).await
    }

    /// The active account, if one is signed in.
    pub async fn active(&self) -> Result<Option<StoredAccount>, StoreError> {
        self.blocking(|backend| match backend.read_list()?.active {
            Some(email) => backend.read_account(&email),
            None => Ok(None),
        })
        .await
    }

    /// Stores (or replaces) an account and makes it the active one.
    pub async fn save(&self, account: StoredAccount) -> Result<(), StoreError> {
        self.blocking(move |backend| backend.write_account(&account)).await
    }

    /// Makes another signed-in account the active one.
    pub async fn set_active(&self, email: &str) -> Result<(), StoreError> {
        let email = email.to_owned();
        self.blocking(move |backend| backend.set_active(&email)).await
    }

    /// Forgets an account; when it was active, the next signed-in account (if any) becomes active.
    pub async fn remove(&self, email: &str) -> Result<(), StoreError> {
        let email = email.to_owned();
        self.blocking(move |backend| backend.remove(&email)).await
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Backend) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let backend = self.backend.clone();
        tokio::task::spawn_blocking(move || {
            let _guard = LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            work(&backend)
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }
}

impl Backend {
    fn read_list(&self) -> Result<AccountList, StoreError> {
        match self {
            Backend::Keychain { service } => match keychain_get(service, INDEX_USER)? {
                Some(text) => serde_json::from_str(&text).map_err(|e| self.corrupt(format!("the account list: {e}"))),
                None => Ok(AccountList::default()),
            },
            Backend::File { path } => {
                let file = read_file(path)?;
                Ok(AccountList { active: file.active, accounts: file.accounts.into_keys().collect() })
            }
        }
    }

    fn read_account(&self, email: &str) -> Result<Option<StoredAccount>, StoreError> {
        match self {
            Backend::Keychain { service } => match keychain_get(service, &format!("{ACCOUNT_PREFIX}{email}"))? {
                Some(text) => serde_json::from_str::<Record>(&text)
                    .map(|record| Some(record.into_account(email)))
                    .map_err(|e| self.corrupt(format!("the entry of {email}: {e}"))),
                None => Ok(None),
            },
            Backend::File { path } => Ok(read_file(path)?.accounts.remove(email).map(|r| r.into_account(email))),
        }
    }

    fn write_account(&self, account: &StoredAccount) -> Result<(), StoreError> {
        let record = Record::from_account(account);
        match self {
            Backend::Keychain { service } => {
                let text = serde_json::to_string(&record).map_err(|e| self.corrupt(e.to_string()))?;
                keychain_set(service, &format!("{ACCOUNT_PREFIX}{}", account.email), &text)?;
                let mut list = self.read_list()?;
                if !list.accounts.contains(&account.email) {
                    list.accounts.push(account.email.clone());
                }
                list.active = Some(account.email.clone());
                self.write_list(&list)
            }
            Backend::File { path } => {
                let mut file = read_file(path)?;
                file.accounts.insert(account.email.clone(), record);
                file.active = Some(account.email.clone());
                write_file(path, &file)
            }
        }
    }

    fn write_list(&self, list: &AccountList) -> Result<(), StoreError> {
        let Backend::Keychain { service } = self else { return Ok(()) };
        if list.accounts.is_empty() {
            return keychain_delete(service, INDEX_USER);
        }
        let text = serde_json::to_string(list).map_err(|e| self.corrupt(e.to_string()))?;
        keychain_set(service, INDEX_USER, &text)
    }

    fn set_active(&self, email: &str) -> Result<(), StoreError> {
        match self {
            Backend::Keychain { .. } => {
                let mut list = self.read_list()?;
                if !list.accounts.iter().any(|a| a == email) {
                    return Err(StoreError::UnknownAccount(email.to_owned()));
                }
                list.active = Some(email.to_owned());
                self.write_list(&list)
            }
            Backend::File { path } => {
                let mut file = read_file(path)?;
                if !file.accounts.contains_key(email) {
                    return Err(StoreError::UnknownAccount(email.to_owned()));
                }
                file.active = Some(email.to_owned());
                write_file(path, &file)
            }
        }
    }

    fn remove(&self, email: &str) -> Result<(), StoreError> {
        match self {
            Backend::Keychain { service } => {
                keychain_delete(service, &format!("{ACCOUNT_PREFIX}{email}"))?;
                let mut list = self.read_list()?;
                list.accounts.retain(|a| a != email);
                if list.active.as_deref() == Some(email) || list.active.is_none() {
                    list.active = list.accounts.first().cloned();
                }
                self.write_list(&list)
            }
            Backend::File { path } => {
                let mut file = read_file(path)?;
                file.accounts.remove(email);
                if file.active.as_deref() == Some(email) || file.active.is_none() {
                    file.active = file.accounts.keys().next().cloned();
                }
                if file.accounts.is_empty() {
                    return match std::fs::remove_file(path) {
                        Ok(()) => Ok(()),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                        Err(e) => Err(file_error(path, "deleted", e)),
                    };
                }
                write_file(path, &file)
            }
        }
    }

    fn corrupt(&self, detail: String) -> StoreError {
        let store = match self {
            Backend::Keychain { service } => format!("{KEYCHAIN} (service \"{service}\")"),
            Backend::File { path } => path.display().to_string(),
        };
        StoreError::Corrupt { store, detail }
    }
}

fn entry(service: &str, user: &str) -> Result<keyring::Entry, StoreError> {
    keyring::Entry::new(service, user).map_err(keyring_error)
}

/// One keychain entry's text (also the approvals store's key, `approval::store::seal`).
pub(crate) fn keychain_get(service: &str, user: &str) -> Result<Option<String>, StoreError> {
    match entry(service, user)?.get_password() {
        Ok(text) => Ok(Some(text)),
        Err(keyring_core::Error::NoEntry) => Ok(None),
        Err(e) => Err(keyring_error(e)),
    }
}

pub(crate) fn keychain_set(service: &str, user: &str, text: &str) -> Result<(), StoreError> {
    entry(service, user)?.set_password(text).map_err(keyring_error)
}

fn keychain_delete(service: &str, user: &str) -> Result<(), StoreError> {
    match entry(service, user)?.delete_credential() {
        Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
        Err(e) => Err(keyring_error(e)),
    }
}

/// Turns a `keyring` failure into what the person can do about it.
fn keyring_error(error: keyring_core::Error) -> StoreError {
    use keyring_core::Error as E;
    match error {
        // The platform store failed to start; its own error says why.
        E::NoDefaultStore => match keyring::Entry::store_status() {
            Err(E::NoStorageAccess(detail)) => StoreError::Locked { detail: detail.to_string() },
            Err(E::PlatformFailure(detail)) => platform_failure(detail.to_string()),
            Err(other) => StoreError::Unavailable { detail: other.to_string() },
            Ok(()) => StoreError::Unavailable { detail: "no keychain is available".into() },
        },
        E::NoStorageAccess(detail) => StoreError::Locked { detail: detail.to_string() },
        E::PlatformFailure(detail) => platform_failure(detail.to_string()),
        E::BadEncoding(_) | E::BadDataFormat(..) => {
            StoreError::Corrupt { store: KEYCHAIN.to_owned(), detail: "an entry is not readable text".into() }
        }
        E::Ambiguous(entries) => StoreError::Corrupt {
            store: KEYCHAIN.to_owned(),
            detail: format!("{} entries have the same name", entries.len()),
        },
        other => StoreError::Unavailable { detail: other.to_string() },
    }
}

/// Tells apart "no session bus", "no Secret Service" and other failures (Linux); elsewhere the detail speaks.
fn platform_failure(detail: String) -> StoreError {
    if cfg!(all(unix, not(target_os = "macos"))) {
        let bus_set = std::env::var("DBUS_SESSION_BUS_ADDRESS").is_ok_and(|v| !v.trim().is_empty());
        let runtime_bus = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| Path::new(&dir).join("bus").exists());
        if !bus_set && !runtime_bus {
            return StoreError::NoSessionBus;
        }
        if ["ServiceUnknown", "NameHasNoOwner", "org.freedesktop.secrets", "no such name"]
            .iter()
            .any(|needle| detail.contains(needle))
        {
            return StoreError::NotRunning { detail };
        }
        if ["Connection refused", "No such file or directory"].iter().any(|needle| detail.contains(needle)) {
            return StoreError::NotRunning { detail: format!("the D-Bus session bus did not answer: {detail}") };
        }
    }
    StoreError::Unavailable { detail }
}

fn file_error(path: &Path, action: &'static str, error: std::io::Error) -> StoreError {
    StoreError::File { path: path.display().to_string(), action, detail: error.to_string() }
}

fn read_file(path: &Path) -> Result<TokenFile, StoreError> {
    // A token file others could read is narrowed (and said so in the log) before its tokens are used.
    crate::private_files::narrow(path, "token file").map_err(|e| file_error(path, "made private", e))?;
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| StoreError::Corrupt { store: path.display().to_string(), detail: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TokenFile::default()),
        Err(e) => Err(file_error(path, "read", e)),
    }
}

/// Writes the whole file through a 0600 temporary file and a rename, so it is never seen half-written or
/// with wider permissions.
fn write_file(path: &Path, file: &TokenFile) -> Result<(), StoreError> {
    use std::io::Write;
    let text = serde_json::to_vec_pretty(file)
        .map_err(|e| StoreError::Corrupt { store: path.display().to_string(), detail: e.to_string() })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::private_files::private_dir(dir).map_err(|e| file_error(dir, "created", e))?;
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = crate::private_files::file_options().open(&temp).and_then(|mut out| {
        out.write_all(&text)?;
        out.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temp, path)) {
        let _ = std::fs::remove_file(&temp);
        return Err(file_error(path, "written", e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(email: &str, token: &str) -> StoredAccount {
        StoredAccount {
            email: email.into(),
            refresh_token: Secret::new(token),
            client_id: "client".into(),
            client_secret: Some(Secret::new("secret")),
            token_uri: "https://oauth2.googleapis.com/token".into(),
            scopes: vec!["s".into()],
            endpoint: None,
        }
    }

    #[tokio::test]
    async fn the_file_store_keeps_several_accounts_one_active_in_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::file(dir.path().join("sub").join(TOKEN_FILE_NAME));
        assert_eq!(store.accounts().await.unwrap(), AccountList::default());
        store.save(account("a@x", "rt-a")).await.unwrap();
        store.save(account("b@x", "rt-b")).await.unwrap();
        assert_eq!(store.active().await.unwrap().unwrap().email, "b@x");
        store.set_active("a@x").await.unwrap();
        assert_eq!(store.active().await.unwrap().unwrap().refresh_token.expose(), "rt-a");
        assert!(matches!(store.set_active("c@x").await, Err(StoreError::UnknownAccount(_))));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("sub").join(TOKEN_FILE_NAME)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(store.warnings().len(), 1);
        store.remove("a@x").await.unwrap();
        assert_eq!(store.accounts().await.unwrap().active.as_deref(), Some("b@x"));
        store.remove("b@x").await.unwrap();
        assert!(!dir.path().join("sub").join(TOKEN_FILE_NAME).exists());
    }

    #[test]
    fn the_setting_picks_the_store_and_homes_get_their_own_keychain_service() {
        let config = Config::with_home(Path::new("/tmp/gh"));
        let store = TokenStore::from_lookup(&config, |_| None).unwrap();
        assert!(store.describe().contains("\"gatehouse\""), "{}", store.describe());
        let store =
            TokenStore::from_lookup(&config, |name| (name == "GATEHOUSE_HOME").then(|| "/tmp/gh".into())).unwrap();
        assert!(store.describe().contains("gatehouse:/tmp/gh"), "{}", store.describe());
        let store =
            TokenStore::from_lookup(&config, |name| (name == "GATEHOUSE_TOKEN_STORE").then(|| "FILE".into())).unwrap();
        assert_eq!(store.kind(), StoreKind::File);
        let error = TokenStore::from_lookup(&config, |name| (name == "GATEHOUSE_TOKEN_STORE").then(|| "vault".into()))
            .unwrap_err();
        assert!(error.to_string().contains("\"vault\""), "{error}");
    }
}
