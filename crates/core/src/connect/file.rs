//! Reading a client's config file, backing it up, and replacing it atomically.
//!
//! A crash or a full disk must never leave a half-written config: the new text goes to a temporary file in the
//! same folder and is renamed over the old one. The backup is written before, so the person can always go back.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use super::error::ConnectError;

fn io_error(action: &'static str, path: &Path, error: &std::io::Error) -> ConnectError {
    ConnectError::Io { action, path: path.display().to_string(), detail: error.to_string() }
}

/// The file's bytes, or `None` when there is no file yet.
pub(super) fn read(path: &Path) -> Result<Option<Vec<u8>>, ConnectError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error("read", path, &error)),
    }
}

/// Copies `original` (the bytes just read from `path`) to `<file>.gatehouse-backup-<UTC time>` beside it, with
/// the same permissions, never over an existing file.
pub(super) fn backup(path: &Path, original: &[u8]) -> Result<PathBuf, ConnectError> {
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let permissions = fs::metadata(path).ok().map(|metadata| metadata.permissions());
    for attempt in 0..100 {
        let suffix = if attempt == 0 { String::new() } else { format!("-{attempt}") };
        let candidate = path.with_file_name(format!("{name}.gatehouse-backup-{stamp}{suffix}"));
        let mut file = match private_options().open(&candidate) {
            Ok(file) => file,
            Err(error) if error.kind() == ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(io_error("write a backup of", path, &error)),
        };
        let written = file.write_all(original).and_then(|()| file.sync_all());
        if let Err(error) = written {
            let _ = fs::remove_file(&candidate);
            return Err(io_error("write a backup of", path, &error));
        }
        if let Some(permissions) = &permissions {
            // A backup readable by more people than the original would leak what the original protects.
            fs::set_permissions(&candidate, permissions.clone())
                .map_err(|error| io_error("set the permissions of the backup of", path, &error))?;
        }
        return Ok(candidate);
    }
    Err(ConnectError::Io {
        action: "find a free backup name for",
        path: path.display().to_string(),
        detail: "a hundred backups were made this second".into(),
    })
}

/// Replaces the file at `path` (the target of a symlink, which stays a link) with `contents`, keeping the old
/// file's permissions; a new file is readable by this user only. `original` is what was read before the edit:
/// if the file changed since (the assistant saved it meanwhile), nothing is written.
pub(super) fn replace(path: &Path, original: Option<&[u8]>, contents: &[u8]) -> Result<(), ConnectError> {
    let target = match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|error| io_error("follow the link", path, &error))?
        }
        _ => path.to_path_buf(),
    };
    let folder = target.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(|error| io_error("create the folder for", path, &error))?;
    let permissions: Option<Permissions> = fs::metadata(&target).ok().map(|metadata| metadata.permissions());
    let name = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = folder.join(format!(".{name}.gatehouse-{:016x}.tmp", rand::random::<u64>()));
    let written = write_new(&temporary, contents, permissions);
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        return Err(io_error("write", path, &error));
    }
    if read(&target)?.as_deref() != original {
        let _ = fs::remove_file(&temporary);
        return Err(ConnectError::ChangedMeanwhile { path: path.display().to_string() });
    }
    if let Err(error) = fs::rename(&temporary, &target) {
        let _ = fs::remove_file(&temporary);
        return Err(io_error("replace", path, &error));
    }
    // The rename is durable once the folder's entry is; not every platform can sync a folder, so best effort.
    if let Ok(folder) = File::open(folder) {
        let _ = folder.sync_all();
    }
    Ok(())
}

fn write_new(path: &Path, contents: &[u8], permissions: Option<Permissions>) -> std::io::Result<()> {
    let mut file = private_options().open(path)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    if let Some(permissions) = permissions {
        fs::set_permissions(path, permissions)?;
    }
    Ok(())
}

/// A new file only this user may read: a config can hold secrets in its `env`.
fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}
