//! The XDG autostart entry (Linux and other XDG desktops): a desktop entry in `~/.config/autostart`, which
//! every desktop that follows the XDG autostart spec launches at login.

use std::path::Path;

/// The entry's file name in the XDG autostart folder.
pub const FILE_NAME: &str = "gatehouse.desktop";

/// The icon theme's name for Gatehouse's icon: the installers (Tauri's bundler) name it after the app's program,
/// `/usr/share/icons/hicolor/SIZE/apps/gatehouse-desktop.png`.
pub const ICON: &str = "gatehouse-desktop";

/// The autostart entry starting `program` (Desktop Entry Specification 1.5).
pub fn desktop_entry(program: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Version=1.5\n\
         Name=Gatehouse\n\
         Comment=Lets your AI assistants work in Google Sheets, Docs and Drive while you approve every change\n\
         Exec={}\n\
         Icon={ICON}\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n",
        exec_quoted(&program.to_string_lossy())
    )
}

/// Whether an entry's text leaves it switched on: the desktops' own startup settings switch one off with
/// `Hidden=true` or `X-GNOME-Autostart-enabled=false`.
pub(super) fn switched_on(text: &str) -> bool {
    !text.lines().map(str::trim).any(|line| line == "Hidden=true" || line == "X-GNOME-Autostart-enabled=false")
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
    use crate::autostart::{Autostart, Entry};

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
        let autostart = Autostart::at(Entry::Xdg { dir: dir.clone() }, "/opt/Gatehouse/gatehouse-desktop");
        assert!(!autostart.is_enabled());
        autostart.set(true).expect("on");
        let text = std::fs::read_to_string(dir.join(FILE_NAME)).expect("the entry");
        assert!(text.starts_with("[Desktop Entry]\n"), "{text}");
        assert!(text.contains("\nExec=/opt/Gatehouse/gatehouse-desktop\n"), "{text}");
        assert!(text.contains("\nIcon=gatehouse-desktop\n"), "the icon the installers put in the theme: {text}");
        assert!(autostart.is_enabled());
        // The desktop's own startup settings can switch it off without removing it.
        std::fs::write(dir.join(FILE_NAME), text.replace("enabled=true", "enabled=false")).expect("edit");
        assert!(!autostart.is_enabled());
        autostart.set(false).expect("off");
        assert!(!dir.join(FILE_NAME).exists());
        autostart.set(false).expect("off again is fine");
    }
}
