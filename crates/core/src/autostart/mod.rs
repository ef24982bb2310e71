//! *Start at login*, written where the system's own login machinery reads it:
//! - Linux: an XDG autostart entry, `~/.config/autostart/gatehouse.desktop` (under `XDG_CONFIG_HOME` when set)
//!   ([`xdg`]);
//! - macOS: a launchd agent, `~/Library/LaunchAgents/app.gatehouse.desktop.plist` ([`launchd`]);
//! - Windows: a `Gatehouse` value in the current user's Run key ([`run_key`]).
//!
//! Each starts the app as it runs now (on Linux the AppImage itself when run from one, not its temporary
//! mount). The entry itself is the state, so nothing is stored in Gatehouse's own settings, and a switch-off
//! made in the system's own startup settings shows as off.

pub mod launchd;
pub mod run_key;
pub mod xdg;

use std::path::{Path, PathBuf};

pub use launchd::LAUNCH_AGENT_LABEL;
pub use xdg::FILE_NAME;

/// Where the entry that starts Gatehouse at login goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// An XDG autostart desktop entry in `dir` (Linux and other XDG desktops).
    Xdg { dir: PathBuf },
    /// A launchd agent in `dir` (macOS).
    LaunchAgent { dir: PathBuf },
    /// A value in the `run` key under `HKEY_CURRENT_USER`, switched off by the same value in `approved`
    /// (Windows; [`run_key`]).
    RunKey { run: String, approved: String },
}

/// Why *Start at login* could not be changed, in words for the settings window.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error(
        "Starting Gatehouse at login is not supported on this operating system. Add Gatehouse to your startup apps yourself."
    )]
    Unsupported,
    #[error(
        "Gatehouse could not find your settings folder (neither XDG_CONFIG_HOME nor HOME is set), so it can't start at login."
    )]
    NoConfigHome,
    #[error("Gatehouse could not find its own program file ({0}), so it can't start at login.")]
    NoProgram(String),
    #[error("Gatehouse could not {action} {path} ({detail}). Check that you can change files in that folder.")]
    File { action: &'static str, path: String, detail: String },
    #[error(
        "Gatehouse could not {action} the Windows registry key HKEY_CURRENT_USER\\{key} ({detail}). Check that your account may change its own settings, or add Gatehouse to your startup apps yourself."
    )]
    Registry { action: &'static str, key: String, detail: String },
}

/// Where the autostart entry goes and what it starts.
#[derive(Debug, Clone)]
pub struct Autostart {
    /// `None` on systems this module does not support.
    entry: Option<Entry>,
    /// The program the entry starts.
    program: Result<PathBuf, String>,
}

impl Autostart {
    /// This user's entry for this system, starting the running app (see the module documentation).
    pub fn from_env() -> Self {
        let program = match std::env::var_os("APPIMAGE").filter(|path| !path.is_empty()) {
            Some(appimage) => Ok(PathBuf::from(appimage)),
            None => std::env::current_exe().map_err(|error| error.to_string()),
        };
        let home = || std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
        let entry = if cfg!(target_os = "macos") {
            Some(Entry::LaunchAgent { dir: home().map(|home| home.join("Library/LaunchAgents")).unwrap_or_default() })
        } else if cfg!(windows) {
            Some(Entry::RunKey { run: run_key::RUN.to_owned(), approved: run_key::STARTUP_APPROVED.to_owned() })
        } else if cfg!(target_os = "linux") {
            let config_home = std::env::var_os("XDG_CONFIG_HOME")
                .filter(|path| !path.is_empty() && Path::new(path).is_absolute())
                .map(PathBuf::from)
                .or_else(|| home().map(|home| home.join(".config")));
            Some(Entry::Xdg { dir: config_home.map(|home| home.join("autostart")).unwrap_or_default() })
        } else {
            None
        };
        Self { entry, program }
    }

    /// `entry` starting `program` (tests, and other homes).
    pub fn at(entry: Entry, program: impl Into<PathBuf>) -> Self {
        Self { entry: Some(entry), program: Ok(program.into()) }
    }

    /// Whether this system can start Gatehouse at login through this module.
    pub fn supported(&self) -> bool {
        match &self.entry {
            Some(Entry::RunKey { .. }) => cfg!(windows),
            Some(_) => true,
            None => false,
        }
    }

    /// The entry's file, for the kinds that are files in a known folder.
    pub fn file(&self) -> Option<PathBuf> {
        let (dir, name) = match self.entry.as_ref()? {
            Entry::Xdg { dir } => (dir, FILE_NAME.to_owned()),
            Entry::LaunchAgent { dir } => (dir, format!("{LAUNCH_AGENT_LABEL}.plist")),
            Entry::RunKey { .. } => return None,
        };
        (!dir.as_os_str().is_empty()).then(|| dir.join(name))
    }

    /// Whether Gatehouse starts at login now: the entry is there and not switched off by the system's own
    /// startup settings.
    pub fn is_enabled(&self) -> bool {
        let read = || self.file().and_then(|file| std::fs::read_to_string(file).ok());
        match &self.entry {
            Some(Entry::Xdg { .. }) => read().is_some_and(|text| xdg::switched_on(&text)),
            Some(Entry::LaunchAgent { .. }) => read().is_some_and(|text| launchd::switched_on(&text)),
            Some(Entry::RunKey { run, approved }) => run_key::is_enabled(run, approved),
            None => false,
        }
    }

    /// Turns starting at login on (writes the entry, replacing one left by an older install) or off (removes it).
    pub fn set(&self, enabled: bool) -> Result<(), AutostartError> {
        let entry = self.entry.as_ref().ok_or(AutostartError::Unsupported)?;
        let program = match enabled {
            true => Some(self.program.clone().map_err(AutostartError::NoProgram)?),
            false => None,
        };
        let (dir, contents): (&Path, fn(&Path) -> String) = match entry {
            Entry::Xdg { dir } => (dir, xdg::desktop_entry),
            Entry::LaunchAgent { dir } => (dir, launchd::launch_agent),
            Entry::RunKey { run, approved } => return run_key::set(run, approved, program.as_deref()),
        };
        let file = self.file().ok_or(AutostartError::NoConfigHome)?;
        let path = file.display().to_string();
        let Some(program) = program else {
            return match std::fs::remove_file(&file) {
                Ok(()) => Ok(()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(error) => Err(AutostartError::File { action: "remove", path, detail: error.to_string() }),
            };
        };
        std::fs::create_dir_all(dir).map_err(|error| AutostartError::File {
            action: "create the folder",
            path: dir.display().to_string(),
            detail: error.to_string(),
        })?;
        std::fs::write(&file, contents(&program)).map_err(|error| AutostartError::File {
            action: "write",
            path,
            detail: error.to_string(),
        })
    }
}
