//! "Connect an assistant": write Gatehouse into an assistant's own config file, take it out again, and say
//! whether it is there.
//!
//! The desktop app and the CLI both call this module; they hold no logic of their own. The promise to the
//! person: everything else in the file stays as it was (other servers, other settings, their order, comments
//! where the format has them), a timestamped backup is made before any change, the file is replaced atomically,
//! and a file Gatehouse cannot read is never overwritten. Assistants Gatehouse cannot configure get a
//! [`snippet`] to paste, or an [`http_snippet`] with a per-assistant token.

mod clients;
mod entry;
mod error;
mod file;
mod json_file;
mod jsonc;
pub mod limit;
mod yaml_file;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use clients::{CLIENTS, Client, Format, Os, Shape, client, client_ids};
pub use entry::{ENTRY_NAME, ServerEntry, http_snippet, snippet, url_with_token};
pub use error::ConnectError;

/// Reads an environment variable: `|name| std::env::var(name).ok()` in the shells, a map in tests.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What [`connect`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectOutcome {
    /// Our entry was not there and now is.
    Added,
    /// Our entry was there with other settings (another binary, or the sandbox) and now says ours.
    Updated,
    /// Our entry already said exactly this: the file was not touched.
    AlreadyConnected,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connected {
    /// The client's id.
    pub client: &'static str,
    pub path: PathBuf,
    pub outcome: ConnectOutcome,
    /// The copy of the file as it was, when there was a file and it changed.
    pub backup: Option<PathBuf>,
    /// Whether the client looks installed; the entry is written either way, for when it is.
    pub installed: bool,
}

/// What [`disconnect`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisconnectOutcome {
    Removed,
    /// There was no file, or no entry of that name in it: nothing was touched.
    NothingToRemove,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disconnected {
    pub client: &'static str,
    pub path: PathBuf,
    pub outcome: DisconnectOutcome,
    pub backup: Option<PathBuf>,
}

/// Whether a client has our entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    NotConnected,
    Connected {
        /// The program the entry runs, and its arguments.
        command: Option<String>,
        args: Vec<String>,
        /// Whether that program is the binary asked about (this one, for the CLI and the app).
        this_binary: bool,
    },
    /// The file could not be read or understood; the error says why and what to do.
    Unreadable(ConnectError),
}

impl Connection {
    /// Whether our entry starts the sandbox (`serve --sandbox`), which reaches only a sandbox host.
    pub fn runs_sandbox(&self) -> bool {
        matches!(self, Connection::Connected { args, .. } if args.iter().any(|arg| arg == "--sandbox"))
    }

    /// The tools our entry offers the assistant (its `--tools` list), when it names some.
    pub fn tools(&self) -> Option<&str> {
        let Connection::Connected { args, .. } = self else { return None };
        args.iter().position(|arg| arg == "--tools").and_then(|at| args.get(at + 1)).map(String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub client: &'static str,
    pub path: PathBuf,
    /// The client's config folder (or its marker folder) exists.
    pub installed: bool,
    pub connection: Connection,
}

/// Why an edit was not made: a file the person must fix, or a layout Gatehouse won't risk editing.
pub(crate) enum Refusal {
    Error(ConnectError),
    Unsafe(&'static str),
}

impl From<ConnectError> for Refusal {
    fn from(error: ConnectError) -> Self {
        Refusal::Error(error)
    }
}

impl Refusal {
    fn into_error(self, path: &Path, remedy: impl FnOnce() -> String) -> ConnectError {
        match self {
            Refusal::Error(error) => error,
            Refusal::Unsafe(reason) => ConnectError::UnsafeEdit {
                path: path.display().to_string(),
                reason: reason.to_owned(),
                remedy: remedy(),
            },
        }
    }
}

/// The client with this id, or an error listing the ones Gatehouse knows.
pub fn find_client(id: &str) -> Result<&'static Client, ConnectError> {
    client(id).ok_or_else(|| ConnectError::UnknownClient { id: id.to_owned(), known: client_ids() })
}

/// Writes `entry` into `client`'s config file: creates the file (and folder) if missing, otherwise keeps every
/// other entry and setting, backs the file up first, and replaces it atomically. An entry that already says the
/// same leaves the file untouched.
pub fn connect(client: &Client, entry: &ServerEntry, lookup: Lookup) -> Result<Connected, ConnectError> {
    let os = Os::current();
    let path = client.config_path(os, lookup)?;
    let installed = client.installed_path(os, lookup)?.exists();
    let original = file::read(&path)?;
    let text = decode(client, &path, original.as_deref())?;
    let existing = current_entry(client, &path, &text, &entry.name)?;
    let done = |outcome, backup| Connected { client: client.id, path: path.clone(), outcome, backup, installed };
    if existing.as_ref().is_some_and(|existing| entry.matches(existing, client.shape)) {
        return Ok(done(ConnectOutcome::AlreadyConnected, None));
    }
    let edited = edit(client, &path, &text, &entry.name, Some(&entry.value(client.shape))).map_err(|refusal| {
        refusal.into_error(&path, || format!("Add this by hand instead:\n{}", snippet(Some(client), entry)))
    })?;
    let backup = save(&path, original.as_deref(), &edited)?;
    let outcome = if existing.is_some() { ConnectOutcome::Updated } else { ConnectOutcome::Added };
    tracing::info!(client = client.id, path = %path.display(), ?outcome, "connected an assistant");
    Ok(done(outcome, backup))
}

/// Removes the entry `name` from `client`'s config file (after a backup), leaving everything else as it was.
pub fn disconnect(client: &Client, name: &str, lookup: Lookup) -> Result<Disconnected, ConnectError> {
    let path = client.config_path(Os::current(), lookup)?;
    let original = file::read(&path)?;
    let text = decode(client, &path, original.as_deref())?;
    let done = |outcome, backup| Disconnected { client: client.id, path: path.clone(), outcome, backup };
    if current_entry(client, &path, &text, name)?.is_none() {
        return Ok(done(DisconnectOutcome::NothingToRemove, None));
    }
    let edited = edit(client, &path, &text, name, None).map_err(|refusal| {
        refusal.into_error(&path, || {
            format!("Remove the \"{name}\" entry under \"{}\" by hand instead.", client.container)
        })
    })?;
    let backup = save(&path, original.as_deref(), &edited)?;
    tracing::info!(client = client.id, path = %path.display(), "disconnected an assistant");
    Ok(done(DisconnectOutcome::Removed, backup))
}

/// Whether `client` is installed and has the entry `name`, and whether that entry runs `binary`.
pub fn status(client: &Client, name: &str, binary: &Path, lookup: Lookup) -> Result<Status, ConnectError> {
    let os = Os::current();
    let path = client.config_path(os, lookup)?;
    let installed = client.installed_path(os, lookup)?.exists();
    let connection = match read_entry(client, &path, name) {
        Ok(None) => Connection::NotConnected,
        Ok(Some(existing)) => {
            let (command, args) = entry::command_of(&existing);
            let this_binary = command.as_deref().is_some_and(|command| Path::new(command) == binary);
            Connection::Connected { command, args, this_binary }
        }
        Err(error) => Connection::Unreadable(error),
    };
    Ok(Status { client: client.id, path, installed, connection })
}

/// The first known assistant whose own config file already has the entry `name`: Gatehouse was set up there,
/// by *Connect* or by hand, so that assistant will call. A file that can't be read counts as not set up. Reads
/// every client's file (Claude Code's can be megabytes): call it off any thread that draws.
pub fn set_up_in(name: &str, lookup: Lookup) -> Option<&'static Client> {
    CLIENTS.iter().find(|client| {
        let found = client.config_path(Os::current(), lookup).and_then(|path| read_entry(client, &path, name));
        matches!(found, Ok(Some(_)))
    })
}

/// The entry `name` in `client`'s config file at `path`, if the file and the entry are there.
fn read_entry(client: &Client, path: &Path, name: &str) -> Result<Option<Value>, ConnectError> {
    let original = file::read(path)?;
    let text = decode(client, path, original.as_deref())?;
    current_entry(client, path, &text, name)
}

/// The file's text; a missing file reads as empty.
fn decode(client: &Client, path: &Path, original: Option<&[u8]>) -> Result<String, ConnectError> {
    let Some(bytes) = original else { return Ok(String::new()) };
    String::from_utf8(bytes.to_vec()).map_err(|_| ConnectError::Invalid {
        path: path.display().to_string(),
        format: format_name(client.format),
        line: None,
        column: None,
        detail: "it is not UTF-8 text".into(),
    })
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Json | Format::Jsonc => "JSON",
        Format::Yaml => "YAML",
    }
}

fn current_entry(client: &Client, path: &Path, text: &str, name: &str) -> Result<Option<Value>, ConnectError> {
    let shown = path.display().to_string();
    match client.format {
        Format::Json => json_file::entry(&shown, text, false, client.container, name),
        Format::Jsonc => json_file::entry(&shown, text, true, client.container, name),
        Format::Yaml => yaml_file::entry(&shown, text, client.container, name),
    }
}

fn edit(client: &Client, path: &Path, text: &str, name: &str, new: Option<&Value>) -> Result<String, Refusal> {
    let shown = path.display().to_string();
    match client.format {
        Format::Json => json_file::edit(&shown, text, false, client.container, name, new),
        Format::Jsonc => json_file::edit(&shown, text, true, client.container, name, new),
        Format::Yaml => yaml_file::edit(&shown, text, client.container, name, new),
    }
}

/// Backs up the file as it was (when there was one), then replaces it.
fn save(path: &Path, original: Option<&[u8]>, edited: &str) -> Result<Option<PathBuf>, ConnectError> {
    let backup = original.map(|bytes| file::backup(path, bytes)).transpose()?;
    file::replace(path, original, edited.as_bytes())?;
    Ok(backup)
}
