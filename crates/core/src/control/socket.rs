//! The socket files: their private folder, their names, and telling a live server's socket from one a gone
//! process left behind.

use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::UnixStream;

use super::ControlError;

/// A socket's file name is `<pid>.sock`.
const SOCKET_SUFFIX: &str = ".sock";

/// The longest path a Unix socket address holds, without its final NUL.
#[cfg(any(target_os = "linux", target_os = "android"))]
const MAX_PATH: usize = 107;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const MAX_PATH: usize = 103;

/// The socket of process `pid` in `dir`.
pub(super) fn socket_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}{SOCKET_SUFFIX}"))
}

/// Where process `pid` binds its socket before it is private and listening; only then is it renamed to
/// [`socket_path`], so clients never meet a half-made socket.
pub(super) fn binding_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.binding"))
}

/// Refuses a socket path the OS would cut or reject, before trying.
pub(super) fn check_length(path: &Path) -> Result<(), ControlError> {
    let len = path.as_os_str().len();
    if len > MAX_PATH {
        return Err(ControlError::PathTooLong { path: path.display().to_string(), len, max: MAX_PATH });
    }
    Ok(())
}

/// Makes `dir` a folder only this user can enter: creates it `0700`, or narrows an existing one. A link, a
/// file, or a folder of another user is refused.
pub(super) fn prepare_folder(dir: &Path) -> Result<(), ControlError> {
    let fail = |detail: String| ControlError::Folder { path: dir.display().to_string(), detail };
    if let Some(parent) = dir.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| fail(format!("its parent could not be created ({e})")))?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail(format!("it could not be created ({e})"))),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| fail(format!("it could not be read ({e})")))?;
    if !meta.is_dir() {
        return Err(fail("it is not a folder (a link or a file has its name): remove it".to_owned()));
    }
    if meta.uid() != rustix::process::getuid().as_raw() {
        return Err(fail(format!("it belongs to another user (uid {})", meta.uid())));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| fail(format!("it could not be made private ({e})")))?;
    }
    Ok(())
}

/// The sockets in `dir` with the process each belongs to; none when the folder does not exist.
pub(super) fn socket_files(dir: &Path) -> Result<Vec<(u32, PathBuf)>, ControlError> {
    super::server_files::server_files(dir, SOCKET_SUFFIX)
}

/// What connecting to a socket found.
pub(super) enum Probe {
    Live(UnixStream),
    /// Nobody listens there (its process is gone; the name was removed if so).
    Gone,
    /// Something else is wrong (permissions): skipped, with why.
    Unreachable(String),
}

/// Connects to process `pid`'s socket at `path`. A socket nobody listens on whose process no longer runs is
/// removed: it was left behind by a process that was killed.
pub(super) async fn probe(pid: u32, path: &Path) -> Probe {
    match UnixStream::connect(path).await {
        Ok(stream) => Probe::Live(stream),
        Err(e) if matches!(e.kind(), ErrorKind::ConnectionRefused | ErrorKind::NotFound) => {
            if !crate::process::runs(pid) && std::fs::remove_file(path).is_ok() {
                tracing::debug!(path = %path.display(), "removed the control socket of a process that is gone");
            }
            Probe::Gone
        }
        Err(e) => Probe::Unreachable(e.to_string()),
    }
}

/// Removes `path` if it is there.
pub(super) fn remove_quietly(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(path = %path.display(), "could not remove the control socket: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pid_sockets_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["12.sock", "7.sock", "0042.sock", "x.sock", "12.binding", "notes.txt", "-1.sock"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let listed = socket_files(dir.path()).unwrap();
        assert_eq!(listed, [(7, dir.path().join("7.sock")), (12, dir.path().join("12.sock"))]);
        assert!(socket_files(&dir.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn the_folder_is_made_private() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("a").join("control");
        prepare_folder(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        prepare_folder(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700, "an open folder is narrowed");

        let file = home.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(prepare_folder(&file).unwrap_err().to_string().contains("not a folder"));
        let link = home.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(prepare_folder(&link).unwrap_err().to_string().contains("not a folder"));
    }

    #[test]
    fn a_path_too_long_for_a_socket_is_refused_in_words() {
        let long = PathBuf::from(format!("/{}/1.sock", "x".repeat(200)));
        let error = check_length(&long).unwrap_err().to_string();
        assert!(error.contains("Set GATEHOUSE_HOME to a shorter folder"), "{error}");
        assert!(check_length(Path::new("/tmp/control/1.sock")).is_ok());
    }
}
