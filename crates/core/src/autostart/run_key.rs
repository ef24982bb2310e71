//! The Run key (Windows): a value named `Gatehouse` in the current user's
//! `Software\Microsoft\Windows\CurrentVersion\Run`, whose command Explorer runs at login. Task Manager's *Startup
//! apps* and Settings' *Startup* page switch it off without removing it: a binary value of the same name in
//! Explorer's `StartupApproved\Run` key, whose first byte is odd when off (Task Manager writes 2 for on, 3 for
//! off). Both keys are under `HKEY_CURRENT_USER` and are parameters, so tests use keys of their own.

use std::path::Path;

use super::AutostartError;

/// The Run key under `HKEY_CURRENT_USER`.
pub const RUN: &str = r"Software\Microsoft\Windows\CurrentVersion\Run";
/// Where Task Manager and Settings switch Run entries off, under `HKEY_CURRENT_USER`.
pub const STARTUP_APPROVED: &str = r"Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run";
/// The value's name in both keys, shown by Task Manager as the app's name.
pub const VALUE_NAME: &str = "Gatehouse";

/// The command the Run value holds: the program's path in quotes, so a path with spaces (`C:\Program Files\…`)
/// is one program, not a program and its arguments. Windows paths cannot hold `"` themselves.
pub fn command(program: &Path) -> String {
    format!("\"{}\"", program.display())
}

/// Whether a `StartupApproved` value (its bytes) switches the entry off.
pub fn switched_off(flags: &[u8]) -> bool {
    flags.first().is_some_and(|flag| flag & 1 == 1)
}

/// Whether the Run value is there and not switched off.
#[cfg(windows)]
pub(super) fn is_enabled(run: &str, approved: &str) -> bool {
    use windows_registry::CURRENT_USER;
    let present = CURRENT_USER.open(run).and_then(|key| key.get_type(VALUE_NAME)).is_ok();
    let off =
        CURRENT_USER.open(approved).and_then(|key| key.get_value(VALUE_NAME)).is_ok_and(|flags| switched_off(&flags));
    present && !off
}

/// Writes the Run value starting `program` and clears a switch-off left in `StartupApproved` (the person just
/// asked for it on); `None` removes the value.
#[cfg(windows)]
pub(super) fn set(run: &str, approved: &str, program: Option<&Path>) -> Result<(), AutostartError> {
    use windows_registry::CURRENT_USER;
    let failed = |action: &'static str, key: &str| {
        let key = key.to_owned();
        move |error: windows_result::Error| AutostartError::Registry { action, key, detail: error.message() }
    };
    match program {
        Some(program) => {
            let key = CURRENT_USER.create(run).map_err(failed("open", run))?;
            key.set_string(VALUE_NAME, command(program)).map_err(failed("write Gatehouse's value in", run))?;
            match CURRENT_USER.options().read().write().open(approved) {
                Ok(key) => absent_is_fine(key.remove_value(VALUE_NAME))
                    .map_err(failed("clear Gatehouse's switch in", approved)),
                Err(error) => absent_is_fine(Err(error)).map_err(failed("open", approved)),
            }
        }
        None => match CURRENT_USER.options().read().write().open(run) {
            Ok(key) => {
                absent_is_fine(key.remove_value(VALUE_NAME)).map_err(failed("remove Gatehouse's value from", run))
            }
            Err(error) => absent_is_fine(Err(error)).map_err(failed("open", run)),
        },
    }
}

/// A key or value that is not there is as good as removed.
#[cfg(windows)]
fn absent_is_fine(result: windows_result::Result<()>) -> windows_result::Result<()> {
    const ERROR_FILE_NOT_FOUND: u32 = 2;
    match result {
        Err(error) if error.code() == windows_result::HRESULT::from_win32(ERROR_FILE_NOT_FOUND) => Ok(()),
        other => other,
    }
}

#[cfg(not(windows))]
pub(super) fn is_enabled(_run: &str, _approved: &str) -> bool {
    false
}

#[cfg(not(windows))]
pub(super) fn set(_run: &str, _approved: &str, _program: Option<&Path>) -> Result<(), AutostartError> {
    Err(AutostartError::Unsupported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_quoted_path_and_odd_flags_mean_off() {
        assert_eq!(
            command(Path::new(r"C:\Program Files\Gatehouse\gatehouse-desktop.exe")),
            r#""C:\Program Files\Gatehouse\gatehouse-desktop.exe""#
        );
        assert!(!switched_off(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(switched_off(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(!switched_off(&[6, 0, 0, 0]));
        assert!(switched_off(&[7]));
        assert!(!switched_off(&[]));
    }

    /// Against the registry, written and read back by the system's own `reg.exe` (Wine's in
    /// scripts/test-windows.sh), in keys of the test's own, never the person's Run key.
    #[cfg(windows)]
    #[test]
    fn the_run_value_is_written_switched_off_by_startup_approved_and_removed() {
        use crate::autostart::{Autostart, Entry};

        let base = format!(r"Software\Gatehouse tests\autostart-{}", std::process::id());
        let (run, approved) = (format!(r"{base}\Run"), format!(r"{base}\StartupApproved\Run"));
        let reg = |args: &[&str]| {
            let out = std::process::Command::new("reg").args(args).output().expect("reg.exe runs");
            (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let program = r"C:\Program Files\Gatehouse\gatehouse-desktop.exe";
        let autostart = Autostart::at(Entry::RunKey { run: run.clone(), approved: approved.clone() }, program);
        assert!(autostart.supported());
        assert!(!autostart.is_enabled());
        autostart.set(false).expect("off when nothing is there is fine");

        autostart.set(true).expect("on");
        let (found, listed) = reg(&["query", &format!(r"HKCU\{run}"), "/v", VALUE_NAME]);
        assert!(found, "reg.exe does not see the value: {listed}");
        assert!(listed.contains("REG_SZ"), "{listed}");
        assert!(listed.contains(&format!("\"{program}\"")), "{listed}");
        assert!(autostart.is_enabled());

        // Task Manager switches it off.
        let key = format!(r"HKCU\{approved}");
        let (added, said) =
            reg(&["add", &key, "/v", VALUE_NAME, "/t", "REG_BINARY", "/d", "030000000000000000000000", "/f"]);
        assert!(added, "{said}");
        assert!(!autostart.is_enabled(), "a switch-off in StartupApproved was ignored");
        // Switching it on in Gatehouse clears that.
        autostart.set(true).expect("on again");
        assert!(autostart.is_enabled());
        assert!(!reg(&["query", &key, "/v", VALUE_NAME]).0, "the switch-off was left behind");

        autostart.set(false).expect("off");
        assert!(!reg(&["query", &format!(r"HKCU\{run}"), "/v", VALUE_NAME]).0, "the value was left behind");
        assert!(!autostart.is_enabled());
        let _ = reg(&["delete", &format!(r"HKCU\{base}"), "/f"]);
    }
}
