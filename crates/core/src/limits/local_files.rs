//! Local files: tools read and write the person's disk only inside the folders the person allowed — the
//! export folder always, plus `GATEHOUSE_LOCAL_ROOTS`. Paths are resolved (`..`, symlinks) before the
//! check, so neither traversal nor a symlink can lead out.

use std::path::{Component, Path, PathBuf};

/// A path refused or a file that could not be written, with what to do.
#[derive(Debug, thiserror::Error)]
pub enum LocalPathError {
    #[error(
        "local_path {path:?} leads outside the export folder {root}. Use a path inside it (a relative path is taken inside it)."
    )]
    OutsideExportFolder { path: String, root: String },
    #[error(
        "{path:?} is outside the folders Gatehouse may use ({roots}). Use a path inside one of them, or add the folder in Gatehouse's settings (GATEHOUSE_LOCAL_ROOTS)."
    )]
    OutsideAllowedRoots { path: String, roots: String },
    #[error("local_path must name a file, not be empty.")]
    Empty,
    #[error("Gatehouse could not use {path}: {detail}.")]
    Io { path: String, detail: String },
}

/// The folders tools may use, resolved once.
#[derive(Debug, Clone)]
pub struct LocalFiles {
    export_dir: PathBuf,
    roots: Vec<PathBuf>,
}

impl LocalFiles {
    pub fn new(export_dir: PathBuf, extra_roots: Vec<PathBuf>) -> Self {
        Self { export_dir, roots: extra_roots }
    }

    /// The export folder (created on first use).
    pub fn export_dir(&self) -> &Path {
        &self.export_dir
    }

    /// Where a `local_path` result goes: confined to the export folder; a relative path is inside it.
    pub fn export_target(&self, requested: &str) -> Result<PathBuf, LocalPathError> {
        let root = self.ensure_export_dir()?;
        let path = resolve(&root, requested)?;
        if path.starts_with(&root) {
            Ok(path)
        } else {
            Err(LocalPathError::OutsideExportFolder { path: requested.to_owned(), root: root.display().to_string() })
        }
    }

    /// A path a tool may read or write (downloads, uploads): inside the export folder or an allowed root.
    pub fn allowed(&self, requested: &str) -> Result<PathBuf, LocalPathError> {
        let export = self.ensure_export_dir()?;
        let path = resolve(&export, requested)?;
        let mut roots = vec![export];
        roots.extend(self.roots.iter().filter_map(|root| std::fs::canonicalize(root).ok()));
        if roots.iter().any(|root| path.starts_with(root)) {
            Ok(path)
        } else {
            let roots = roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ");
            Err(LocalPathError::OutsideAllowedRoots { path: requested.to_owned(), roots })
        }
    }

    /// Writes `bytes` to an already-checked path, creating folders, via a temporary file and a rename so a
    /// crash never leaves half a file under the final name. Returns the byte count.
    pub async fn write(&self, path: &Path, bytes: &[u8]) -> Result<u64, LocalPathError> {
        let io = |e: std::io::Error| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() };
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent).await.map_err(io)?;
        }
        let temp = path.with_extension(format!("gatehouse-{:08x}.part", rand::random::<u32>()));
        // Exported files are the person's data: readable by this user only (0600), like everything in
        // GATEHOUSE_HOME.
        let options = tokio::fs::OpenOptions::from(crate::private_files::file_options());
        let mut file = options.open(&temp).await.map_err(io)?;
        tokio::io::AsyncWriteExt::write_all(&mut file, bytes).await.map_err(io)?;
        tokio::io::AsyncWriteExt::flush(&mut file).await.map_err(io)?;
        drop(file);
        if let Err(error) = tokio::fs::rename(&temp, path).await {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(io(error));
        }
        Ok(bytes.len() as u64)
    }

    fn ensure_export_dir(&self) -> Result<PathBuf, LocalPathError> {
        let io = |e: std::io::Error| LocalPathError::Io {
            path: self.export_dir.display().to_string(),
            detail: e.to_string(),
        };
        std::fs::create_dir_all(&self.export_dir).map_err(io)?;
        std::fs::canonicalize(&self.export_dir).map_err(io)
    }
}

/// Resolves `requested` against `base`: `..` and `.` are applied, and the longest existing prefix is
/// canonicalized so symlinks anywhere on the path are followed before any check.
fn resolve(base: &Path, requested: &str) -> Result<PathBuf, LocalPathError> {
    if requested.trim().is_empty() {
        return Err(LocalPathError::Empty);
    }
    let requested = Path::new(requested);
    let joined = if requested.is_absolute() { requested.to_path_buf() } else { base.join(requested) };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    // Canonicalize the deepest existing ancestor (following symlinks), then re-append the rest.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_owned()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&existing)
        .map_err(|e| LocalPathError::Io { path: existing.display().to_string(), detail: e.to_string() })?;
    for name in rest.into_iter().rev() {
        resolved.push(name);
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> (tempfile::TempDir, LocalFiles) {
        let dir = tempfile::tempdir().unwrap();
        let files = LocalFiles::new(dir.path().join("exports"), Vec::new());
        (dir, files)
    }

    #[test]
    fn relative_paths_land_in_the_export_folder() {
        let (_dir, files) = files();
        let path = files.export_target("reports/q1.json").unwrap();
        assert!(path.starts_with(std::fs::canonicalize(files.export_dir()).unwrap()));
        assert!(path.ends_with("reports/q1.json"));
    }

    #[test]
    fn traversal_is_refused() {
        let (_dir, files) = files();
        let error = files.export_target("../../etc/passwd").unwrap_err();
        assert!(matches!(error, LocalPathError::OutsideExportFolder { .. }), "{error}");
        assert!(files.export_target("/etc/passwd").is_err());
    }

    // Making a symlink on Windows takes a privilege most users lack; the check itself is the same there.
    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_folder_are_refused() {
        let (dir, files) = files();
        std::fs::create_dir_all(files.export_dir()).unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, files.export_dir().join("escape")).unwrap();
        let error = files.export_target("escape/secret.txt").unwrap_err();
        assert!(error.to_string().contains("outside the export folder"), "{error}");
    }

    #[test]
    fn extra_roots_are_allowed_for_downloads_only() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("Documents");
        std::fs::create_dir_all(&docs).unwrap();
        let files = LocalFiles::new(dir.path().join("exports"), vec![docs.clone()]);
        let target = docs.join("a.csv");
        assert!(files.allowed(target.to_str().unwrap()).is_ok());
        assert!(files.export_target(target.to_str().unwrap()).is_err());
        assert!(files.allowed("/tmp/elsewhere.csv").is_err());
    }

    #[tokio::test]
    async fn writes_are_whole() {
        let (_dir, files) = files();
        let path = files.export_target("out/data.json").unwrap();
        assert_eq!(files.write(&path, b"{}").await.unwrap(), 2);
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1);
    }
}
