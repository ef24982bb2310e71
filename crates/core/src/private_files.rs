//! Files and folders only this OS user may open: `GATEHOUSE_HOME` (its grants, audit log, tokens, exports)
//! is created 0700 and a looser existing one narrowed; secret files are created 0600 and a looser existing
//! one narrowed, each narrowing logged. Other users of the computer are outside what an assistant should
//! reach (docs/security.md). On other platforms the folder's inherited ACL applies and these do nothing more.

use std::path::Path;

/// Creates `dir` (and its parents) if needed, readable only by this user, and narrows it when group or others
/// may use it. The parents keep the permissions they would get anyway.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        if !dir.exists() {
            if let Some(parent) = dir.parent().filter(|parent| !parent.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(error),
            }
        }
        narrow(dir, "folder")
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Narrows an existing file (or folder) that group or others may read or write to this user only, saying so
/// in the log; nothing when it is already private or does not exist.
pub fn narrow(path: &Path, what: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(metadata) => metadata.permissions().mode(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(error),
        };
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
            tracing::warn!(
                path = %path.display(),
                "this {what} could be read by other users of this computer (mode {:o}); it is now private to you (mode {:o})",
                mode & 0o777,
                mode & 0o700
            );
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = (path, what);
        Ok(())
    }
}

/// Options that create a file readable and writable by this user only (0600); they write, create and
/// truncate.
pub fn file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_folder_is_0700_and_a_loose_one_is_narrowed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("a/b/home");
        private_dir(&home).unwrap();
        assert_eq!(mode(&home), 0o700);
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&home).unwrap();
        assert_eq!(mode(&home), 0o700);
    }

    #[test]
    fn a_loose_file_is_narrowed_and_a_new_one_is_0600() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        file_options().open(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        narrow(&file, "file").unwrap();
        assert_eq!(mode(&file), 0o600);
        narrow(&dir.path().join("missing"), "file").unwrap();
    }
}
