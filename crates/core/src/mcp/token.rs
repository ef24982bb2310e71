//! The HTTP bearer token: generated on first start, kept in a file only this OS user can read.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine as _;

/// The token file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error(
    "Gatehouse could not {action} its HTTP token file {path}: {detail}. Check GATEHOUSE_HOME is a folder this user may write to."
)]
pub struct TokenFileError {
    action: &'static str,
    path: String,
    detail: String,
}

/// Where the token lives under `GATEHOUSE_HOME`.
pub fn token_path(home: &Path) -> PathBuf {
    home.join("http-token")
}

/// Reads the token, creating it (mode 0600) if there is none yet.
pub fn load_or_create(home: &Path) -> Result<String, TokenFileError> {
    let path = token_path(home);
    let error =
        |action, e: std::io::Error| TokenFileError { action, path: path.display().to_string(), detail: e.to_string() };
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => {
            // A token file others could read is narrowed (and said so in the log) before it is used.
            crate::private_files::narrow(&path, "HTTP token file")
                .map_err(|e| error("narrow the permissions of", e))?;
            return Ok(text.trim().to_owned());
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(error("read", e)),
    }
    crate::private_files::private_dir(home).map_err(|e| error("create the folder for", e))?;
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
    // An empty file left with wider permissions keeps its mode when reopened: narrow it first.
    crate::private_files::narrow(&path, "HTTP token file").map_err(|e| error("narrow the permissions of", e))?;
    let mut file = crate::private_files::file_options().open(&path).map_err(|e| error("create", e))?;
    file.write_all(token.as_bytes()).map_err(|e| error("write", e))?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_created_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path()).unwrap();
        assert!(first.len() >= 40);
        assert_eq!(load_or_create(dir.path()).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(token_path(dir.path())).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_could_read_is_narrowed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path()).unwrap();
        std::fs::set_permissions(token_path(dir.path()), std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(load_or_create(dir.path()).unwrap(), first);
        let mode = std::fs::metadata(token_path(dir.path())).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn the_home_it_creates_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        load_or_create(&home).unwrap();
        assert_eq!(std::fs::metadata(&home).unwrap().permissions().mode() & 0o777, 0o700);
    }
}
