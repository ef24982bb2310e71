//! The local side of a sync: the files under the folder (through the folder tools' one walk and
//! system-file rule), with their sizes and modified times; MD5s and modified times read and set.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};

use super::super::local_tree::{self, Kind, WalkOptions};
use crate::limits::local_files::LocalPathError;
use crate::tools::ToolError;

pub(super) use local_tree::WalkOptions as Options;

/// One local file.
#[derive(Debug, Clone)]
pub(super) struct LocalFile {
    /// Its path under the root with `/` separators, as results name it.
    pub rel: String,
    pub path: PathBuf,
    pub size: u64,
    /// Modified time, milliseconds since the Unix epoch.
    pub mtime_ms: i64,
}

/// What the local side holds: files, and what the walk could not read.
#[derive(Debug, Default)]
pub(super) struct LocalSide {
    pub files: Vec<LocalFile>,
    pub unreadable: Vec<String>,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> LocalPathError + '_ {
    move |e| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() }
}

/// The files under `root` (none when it does not exist yet).
pub(super) async fn scan(root: &Path, options: WalkOptions) -> Result<LocalSide, ToolError> {
    if !root.exists() {
        return Ok(LocalSide::default());
    }
    let owned = root.to_path_buf();
    let tree = tokio::task::spawn_blocking(move || local_tree::walk(&owned, options))
        .await
        .map_err(|e| LocalPathError::Io { path: root.display().to_string(), detail: e.to_string() })?
        .map_err(io(root))?;
    let mut side = LocalSide::default();
    for entry in tree.entries {
        let Kind::File { size } = entry.kind else { continue };
        let modified = std::fs::metadata(&entry.path).and_then(|m| m.modified()).map_err(io(&entry.path))?;
        side.files.push(LocalFile {
            rel: local_tree::slash(&entry.relative),
            path: entry.path,
            size,
            mtime_ms: millis(modified),
        });
    }
    side.unreadable = tree
        .left_out
        .into_iter()
        .filter(|l| l.failed)
        .map(|l| format!("{}: {}", local_tree::slash(&l.relative), l.reason))
        .collect();
    Ok(side)
}

fn millis(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// The hex MD5 of a file's content, as Drive's `md5Checksum` writes it.
pub(super) async fn md5_hex(path: &Path) -> Result<String, LocalPathError> {
    let bytes = tokio::fs::read(path).await.map_err(io(path))?;
    Ok(hex(&bytes))
}

pub(super) fn hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Sets a file's modified time (milliseconds since the Unix epoch).
pub(super) fn set_mtime(path: &Path, ms: i64) -> Result<(), LocalPathError> {
    let Ok(ms) = u64::try_from(ms) else { return Ok(()) };
    let file = std::fs::File::options().write(true).open(path).map_err(io(path))?;
    file.set_modified(UNIX_EPOCH + Duration::from_millis(ms)).map_err(io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_drives_hex_form() {
        assert_eq!(hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[tokio::test]
    async fn modified_times_are_set_to_the_millisecond() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "a").unwrap();
        set_mtime(&path, 1_700_000_000_123).unwrap();
        let side = scan(dir.path(), Options { recursive: false, skip_system_files: true }).await.unwrap();
        assert_eq!(side.files.len(), 1);
        assert_eq!(side.files[0].mtime_ms, 1_700_000_000_123);
        assert_eq!(side.files[0].rel, "a.txt");
    }
}
