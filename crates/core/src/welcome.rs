//! When the desktop app opens its welcome window by itself.
//!
//! A person who was told "install it, sign in, connect Claude" starts the app and must see something: the
//! tray icon alone is easy to miss, and on desktops with no tray host (stock GNOME) there is not even that.
//! So the app opens the welcome window on its first launch, whenever it would otherwise be of no use yet
//! (nobody signed in and no assistant connected), and at every start where there is no tray to come back to,
//! so it never hides itself where the person can't find it. Everywhere else it starts quietly into the tray.
//!
//! The rule is [`welcome_reason`]; the shell gathers the facts ([`Start`]) and only opens the window. Whether
//! the welcome window was ever shown is a marker file in `GATEHOUSE_HOME` ([`MARKER`]): the first launch is
//! the one before it exists.

use std::path::{Path, PathBuf};

/// The file in `GATEHOUSE_HOME` whose presence says the welcome window was shown once. It holds nothing.
pub const MARKER: &str = "welcome-shown";

/// What the app knows as it starts, for [`welcome_reason`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    /// The welcome window was never shown in this `GATEHOUSE_HOME` ([`first_launch`]).
    pub first_launch: bool,
    /// Gatehouse acts as a Google identity (a signed-in account, a service account, Application Default
    /// Credentials), not only the sandbox it falls back to.
    pub signed_in: bool,
    /// An assistant is set up to start Gatehouse (its config file has Gatehouse's entry) or has used it before.
    pub assistant_connected: bool,
    /// The desktop shows tray icons (on Linux: a StatusNotifier host is registered, or an XEmbed tray runs).
    pub tray_host: bool,
}

/// Why the welcome window opens, which the window may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The first launch in this home.
    FirstLaunch,
    /// Nobody is signed in and no assistant is connected: without a step from the person, Gatehouse does nothing.
    NothingSetUp,
    /// Everything is set up, but this desktop shows no tray icons: the window is the only sign Gatehouse runs.
    NoTray,
}

/// Whether the app opens the welcome window at this start, and why; `None`: it starts quietly into the tray.
pub fn welcome_reason(start: &Start) -> Option<Reason> {
    if start.first_launch {
        Some(Reason::FirstLaunch)
    } else if !start.signed_in && !start.assistant_connected {
        Some(Reason::NothingSetUp)
    } else if !start.tray_host {
        Some(Reason::NoTray)
    } else {
        None
    }
}

fn marker(home: &Path) -> PathBuf {
    home.join(MARKER)
}

/// No welcome window was shown yet with its state in `home`.
pub fn first_launch(home: &Path) -> bool {
    // A marker that can't be looked at (a folder without permission) counts as there: better no welcome than
    // one at every start.
    !marker(home).try_exists().unwrap_or(true)
}

/// Notes in `home` that the welcome window was shown, so later starts are no longer first launches. A marker
/// that can't be written is logged, not fatal: the window then also opens at the next start.
pub fn mark_shown(home: &Path) {
    let written = crate::private_files::private_dir(home)
        .and_then(|()| crate::private_files::file_options().open(marker(home)).map(drop));
    if let Err(error) = written {
        tracing::warn!(
            "Gatehouse could not note in {} that its welcome window was shown ({error}); it opens again at the next start",
            home.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SET_UP: Start = Start { first_launch: false, signed_in: true, assistant_connected: true, tray_host: true };

    #[test]
    fn the_first_launch_always_welcomes() {
        for (signed_in, assistant_connected, tray_host) in
            [(true, true, true), (false, false, false), (true, false, true)]
        {
            let start = Start { first_launch: true, signed_in, assistant_connected, tray_host };
            assert_eq!(welcome_reason(&start), Some(Reason::FirstLaunch), "{start:?}");
        }
    }

    #[test]
    fn nothing_set_up_welcomes_again_even_with_a_tray() {
        let start = Start { signed_in: false, assistant_connected: false, ..SET_UP };
        assert_eq!(welcome_reason(&start), Some(Reason::NothingSetUp));
    }

    #[test]
    fn a_sign_in_or_a_connected_assistant_is_enough_to_start_quietly_into_a_tray() {
        assert_eq!(welcome_reason(&SET_UP), None);
        assert_eq!(welcome_reason(&Start { signed_in: false, ..SET_UP }), None);
        assert_eq!(welcome_reason(&Start { assistant_connected: false, ..SET_UP }), None);
    }

    #[test]
    fn without_a_tray_host_the_app_never_starts_hidden() {
        assert_eq!(welcome_reason(&Start { tray_host: false, ..SET_UP }), Some(Reason::NoTray));
        let start = Start { signed_in: false, assistant_connected: false, tray_host: false, ..SET_UP };
        assert_eq!(welcome_reason(&start), Some(Reason::NothingSetUp));
    }

    #[test]
    fn the_first_launch_is_the_one_before_the_marker() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        assert!(first_launch(&home), "a home that doesn't exist yet");
        mark_shown(&home);
        assert!(!first_launch(&home));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(home.join(MARKER)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
