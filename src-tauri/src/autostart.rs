//! *Start at login*: on Linux an XDG autostart entry, `~/.config/autostart/gatehouse.desktop` (under
//! `XDG_CONFIG_HOME` when set), which every desktop that follows the XDG autostart spec launches at login. Its
//! `Exec` is the app as it runs now (the AppImage itself when run from one, not its temporary mount).
//!
//! This is OS integration, not a Gatehouse setting: the entry itself is the state, so nothing is stored in the
//! core. macOS (a login item) and Windows (the Run key) are not supported yet and say so.

use std::path::{Path, PathBuf};

/// The entry's file name in the autostart folder.
pub const FILE_NAME: &str = "gatehouse.desktop";

/// Why *Start at login* could not be changed, in words for the settings window.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error(
        "Starting Gatehouse at login is not supported yet on this operating system. Add Gatehouse to your login items yourself for now."
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
}

/// Where the autostart entry goes and what it starts.
#[derive(Debug, Clone)]
pub struct Autostart {
    /// The autostart folder; `None` on systems without XDG autostart.
    dir: Option<PathBuf>,
    /// The program the entry starts.
    program: Result<PathBuf, String>,
}

impl Autostart {
    /// This user's autostart folder and the running app (see the module documentation).
    pub fn from_env() -> Self {
        let program = match std::env::var_os("APPIMAGE").filter(|path| !path.is_empty()) {
            Some(appimage) => Ok(PathBuf::from(appimage)),
            None => std::env::current_exe().map_err(|error| error.to_string()),
        };
        if !cfg!(target_os = "linux") {
            return Self { dir: None, program };
        }
        let config_home = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|path| !path.is_empty() && Path::new(path).is_absolute())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").filter(|home| !home.is_empty()).map(|h| Path::new(&h).join(".config"))
            });
        Self { dir: Some(config_home.map(|home| home.join("autostart")).unwrap_or_default()), program }
    }

    /// An entry in `dir` starting `program` (tests, and other homes).
    pub fn at(dir: impl Into<PathBuf>, program: impl Into<PathBuf>) -> Self {
        Self { dir: Some(dir.into()), program: Ok(program.into()) }
    }

    /// Whether this system can start Gatehouse at login through this module.
    pub fn supported(&self) -> bool {
        self.dir.is_some()
    }

    /// The entry's path, when supported and the folder is known.
    pub fn file(&self) -> Option<PathBuf> {
        self.dir.as_ref().filter(|dir| !dir.as_os_str().is_empty()).map(|dir| dir.join(FILE_NAME))
    }

    /// Whether Gatehouse starts at login now: the entry is there and not switched off (`Hidden=true` or
    /// `X-GNOME-Autostart-enabled=false`, which desktops' own startup settings write).
    pub fn is_enabled(&self) -> bool {
        let Some(text) = self.file().and_then(|file| std::fs::read_to_string(file).ok()) else { return false };
        !text.lines().map(str::trim).any(|line| line == "Hidden=true" || line == "X-GNOME-Autostart-enabled=false")
    }

    /// Turns starting at login on (writes the entry, replacing one left by an older install) or off (removes it).
    pub fn set(&self, enabled: bool) -> Result<(), AutostartError> {
        let dir = self.dir.as_ref().ok_or(AutostartError::Unsupported)?;
        let file = self.file().ok_or(AutostartError::NoConfigHome)?;
        let path = file.display().to_string();
        if !enabled {
            return match std::fs::remove_file(&file) {
                Ok(()) => Ok(()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(error) => Err(AutostartError::File { action: "remove", path, detail: error.to_string() }),
            };
        }
        let program = self.program.clone().map_err(AutostartError::NoProgram)?;
        std::fs::create_dir_all(dir).map_err(|error| AutostartError::File {
            action: "create the folder",
            path: dir.display().to_string(),
            detail: error.to_string(),
        })?;
        std::fs::write(&file, desktop_entry(&program)).map_err(|error| AutostartError::File {
            action: "write",
            path,
            detail: error.to_string(),
        })
    }
}

/// The autostart entry starting `program` (Desktop Entry Specification 1.5).
pub fn desktop_entry(program: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Version=1.5\n\
         Name=Gatehouse\n\
         Comment=Lets your AI assistants work in Google Sheets, Docs and Drive while you approve every change\n\
         Exec={}\n\
         Icon=gatehouse\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n",
        exec_quoted(&program.to_string_lossy())
    )
}

/// `program` as the `Exec` key's first argument: quoted when it holds anything but plain path characters, with
/// the characters the spec reserves inside quotes escaped, and `%` doubled (field codes).
fn exec_quoted(program: &str) -> String {
    let plain = program.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,@:".contains(c));
    if plain {
        return program.to_owned();
    }
    let mut quoted = String::with_capacity(program.len() + 2);
    quoted.push('"');
    for c in program.chars() {
        match c {
            '"' | '`' | '$' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '%' => quoted.push_str("%%"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    // A desktop file's string values escape backslashes once more.
    quoted.replace('\\', "\\\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_path_is_written_as_is_and_others_are_quoted() {
        assert_eq!(exec_quoted("/usr/bin/gatehouse-desktop"), "/usr/bin/gatehouse-desktop");
        assert_eq!(exec_quoted("/home/ada/My Apps/gatehouse"), "\"/home/ada/My Apps/gatehouse\"");
        assert_eq!(exec_quoted("/opt/100%/g$x"), "\"/opt/100%%/g\\\\$x\"");
    }

    #[test]
    fn the_entry_is_written_and_removed_and_reports_its_state() {
        let home = tempfile::tempdir().expect("temp dir");
        let dir = home.path().join("autostart");
        let autostart = Autostart::at(&dir, "/opt/Gatehouse/gatehouse-desktop");
        assert!(!autostart.is_enabled());
        autostart.set(true).expect("on");
        let text = std::fs::read_to_string(dir.join(FILE_NAME)).expect("the entry");
        assert!(text.starts_with("[Desktop Entry]\n"), "{text}");
        assert!(text.contains("\nExec=/opt/Gatehouse/gatehouse-desktop\n"), "{text}");
        assert!(autostart.is_enabled());
        // The desktop's own startup settings can switch it off without removing it.
        std::fs::write(dir.join(FILE_NAME), text.replace("enabled=true", "enabled=false")).expect("edit");
        assert!(!autostart.is_enabled());
        autostart.set(false).expect("off");
        assert!(!dir.join(FILE_NAME).exists());
        autostart.set(false).expect("off again is fine");
    }
}
