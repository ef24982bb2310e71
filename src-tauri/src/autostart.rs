//! *Start at login*, as a file the system's own login machinery reads:
//! - Linux: an XDG autostart entry, `~/.config/autostart/gatehouse.desktop` (under `XDG_CONFIG_HOME` when set),
//!   which every desktop that follows the XDG autostart spec launches at login;
//! - macOS: a launchd agent, `~/Library/LaunchAgents/app.gatehouse.desktop.plist`, which launchd loads at login
//!   (`RunAtLoad`).
//!
//! Either starts the app as it runs now (on Linux the AppImage itself when run from one, not its temporary
//! mount). This is OS integration, not a Gatehouse setting: the file itself is the state, so nothing is stored
//! in the core. Windows (the Run key) is not supported yet and says so.

use std::path::{Path, PathBuf};

/// The entry's file name in the XDG autostart folder.
pub const FILE_NAME: &str = "gatehouse.desktop";

/// The launchd agent's label, and its file's name in `~/Library/LaunchAgents` (with `.plist`): the app's
/// bundle identifier, as launchd's convention asks.
pub const LAUNCH_AGENT_LABEL: &str = "app.gatehouse.desktop";

/// Which file starts Gatehouse at login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// An XDG autostart desktop entry (Linux and other XDG desktops).
    Xdg,
    /// A launchd agent (macOS).
    LaunchAgent,
}

impl Entry {
    fn file_name(self) -> String {
        match self {
            Entry::Xdg => FILE_NAME.to_owned(),
            Entry::LaunchAgent => format!("{LAUNCH_AGENT_LABEL}.plist"),
        }
    }

    fn contents(self, program: &Path) -> String {
        match self {
            Entry::Xdg => desktop_entry(program),
            Entry::LaunchAgent => launch_agent(program),
        }
    }

    /// Whether an entry's text leaves it switched on: the desktops' own startup settings switch an XDG entry
    /// off with `Hidden=true` or `X-GNOME-Autostart-enabled=false`, launchctl an agent with `Disabled`.
    fn switched_on(self, text: &str) -> bool {
        match self {
            Entry::Xdg => !text
                .lines()
                .map(str::trim)
                .any(|line| line == "Hidden=true" || line == "X-GNOME-Autostart-enabled=false"),
            Entry::LaunchAgent => {
                let squeezed: String = text.split_whitespace().collect();
                !squeezed.contains("<key>Disabled</key><true/>")
            }
        }
    }
}

/// Why *Start at login* could not be changed, in words for the settings window.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error(
        "Starting Gatehouse at login is not supported yet on this operating system. Add Gatehouse to your startup apps yourself for now."
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
    /// The kind of entry and the folder it goes in; `None` on systems this module does not support.
    dir: Option<(Entry, PathBuf)>,
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
        let home = || std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
        let dir = if cfg!(target_os = "macos") {
            Some((Entry::LaunchAgent, home().map(|home| home.join("Library/LaunchAgents")).unwrap_or_default()))
        } else if cfg!(target_os = "linux") {
            let config_home = std::env::var_os("XDG_CONFIG_HOME")
                .filter(|path| !path.is_empty() && Path::new(path).is_absolute())
                .map(PathBuf::from)
                .or_else(|| home().map(|home| home.join(".config")));
            Some((Entry::Xdg, config_home.map(|home| home.join("autostart")).unwrap_or_default()))
        } else {
            None
        };
        Self { dir, program }
    }

    /// An entry of `kind` in `dir` starting `program` (tests, and other homes).
    pub fn at(kind: Entry, dir: impl Into<PathBuf>, program: impl Into<PathBuf>) -> Self {
        Self { dir: Some((kind, dir.into())), program: Ok(program.into()) }
    }

    /// Whether this system can start Gatehouse at login through this module.
    pub fn supported(&self) -> bool {
        self.dir.is_some()
    }

    /// The entry's path, when supported and the folder is known.
    pub fn file(&self) -> Option<PathBuf> {
        let (kind, dir) = self.dir.as_ref()?;
        (!dir.as_os_str().is_empty()).then(|| dir.join(kind.file_name()))
    }

    /// Whether Gatehouse starts at login now: the entry is there and not switched off by the system's own
    /// startup settings.
    pub fn is_enabled(&self) -> bool {
        let Some((kind, _)) = &self.dir else { return false };
        let Some(text) = self.file().and_then(|file| std::fs::read_to_string(file).ok()) else { return false };
        kind.switched_on(&text)
    }

    /// Turns starting at login on (writes the entry, replacing one left by an older install) or off (removes it).
    pub fn set(&self, enabled: bool) -> Result<(), AutostartError> {
        let (kind, dir) = self.dir.as_ref().ok_or(AutostartError::Unsupported)?;
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
        std::fs::write(&file, kind.contents(&program)).map_err(|error| AutostartError::File {
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

/// The launchd agent starting `program` at login (launchd.plist(5)): `RunAtLoad`, and `Interactive`, since
/// the person waits on the app's cards.
pub fn launch_agent(program: &Path) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \t<key>Label</key>\n\
         \t<string>{LAUNCH_AGENT_LABEL}</string>\n\
         \t<key>ProgramArguments</key>\n\
         \t<array>\n\
         \t\t<string>{}</string>\n\
         \t</array>\n\
         \t<key>RunAtLoad</key>\n\
         \t<true/>\n\
         \t<key>ProcessType</key>\n\
         \t<string>Interactive</string>\n\
         </dict>\n\
         </plist>\n",
        xml_escaped(&program.to_string_lossy())
    )
}

/// `text` as XML character data.
fn xml_escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
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
        let autostart = Autostart::at(Entry::Xdg, &dir, "/opt/Gatehouse/gatehouse-desktop");
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

    #[test]
    fn the_launch_agent_is_written_and_removed_and_reports_its_state() {
        let home = tempfile::tempdir().expect("temp dir");
        let dir = home.path().join("Library/LaunchAgents");
        let program = "/Applications/Gatehouse & Co.app/Contents/MacOS/gatehouse-desktop";
        let autostart = Autostart::at(Entry::LaunchAgent, &dir, program);
        assert!(!autostart.is_enabled());
        autostart.set(true).expect("on");
        let file = dir.join("app.gatehouse.desktop.plist");
        let text = std::fs::read_to_string(&file).expect("the agent");
        assert!(text.contains("<string>app.gatehouse.desktop</string>"), "{text}");
        assert!(
            text.contains("<string>/Applications/Gatehouse &amp; Co.app/Contents/MacOS/gatehouse-desktop</string>"),
            "{text}"
        );
        assert!(text.contains("<key>RunAtLoad</key>\n\t<true/>"), "{text}");
        assert!(autostart.is_enabled());
        // `launchctl disable` or an edit can switch it off without removing it.
        let disabled = text.replace("</dict>", "\t<key>Disabled</key>\n\t<true/>\n</dict>");
        std::fs::write(&file, disabled).expect("edit");
        assert!(!autostart.is_enabled());
        autostart.set(false).expect("off");
        assert!(!file.exists());
    }

    /// Read back by Python's `plistlib`, a real property-list parser (macOS's own is not here).
    #[test]
    fn the_launch_agent_is_a_property_list_launchd_can_read() {
        let program = "/Applications/A<B> & C.app/Contents/MacOS/gatehouse-desktop";
        let read = std::process::Command::new("python3")
            .args([
                "-c",
                "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.argv[1].encode())))",
                &launch_agent(Path::new(program)),
            ])
            .output()
            .expect("python3 runs");
        assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
        let agent: serde_json::Value = serde_json::from_slice(&read.stdout).expect("JSON");
        assert_eq!(
            agent,
            serde_json::json!({
                "Label": "app.gatehouse.desktop",
                "ProgramArguments": [program],
                "RunAtLoad": true,
                "ProcessType": "Interactive",
            })
        );
    }
}
