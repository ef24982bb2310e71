//! Local files: tools read and write the person's disk only inside the folders the person allowed — the
//! export folder always, plus `GATEHOUSE_LOCAL_ROOTS`. Paths are resolved (`..`, symlinks) before the
//! check, so neither traversal nor a symlink can lead out.
//!
//! Symbolic links: every link on the path is followed to where it really leads, and that is what must be
//! inside an allowed folder, so a link whose target is outside (a file, a folder) is refused. A link whose
//! target does not exist is refused wherever it points: following it would create its target, and not
//! following it would replace the link (which is how a write used to turn a dangling link into a file). A
//! link that leads to a file or folder inside the folder is followed: the write lands on that target, and the
//! link itself is never replaced (see [`LocalFiles::write`]).

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
    #[error(
        "{path} is a symbolic link to {target}, which does not exist. Gatehouse neither follows nor replaces such a link: remove it, or use another name."
    )]
    DanglingLink { path: String, target: String },
    #[error("{path} is a symbolic link; Gatehouse never replaces a link with a file. Remove it, or use another name.")]
    Link { path: String },
    #[error("{folder} already has every name Gatehouse tried for the file ({stem}…). Name the file in local_path.")]
    NoFreeName { folder: String, stem: String },
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
        // A rename would replace a link planted under the name since the path was checked: never do that.
        if tokio::fs::symlink_metadata(path).await.is_ok_and(|meta| meta.file_type().is_symlink()) {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(LocalPathError::Link { path: path.display().to_string() });
        }
        if let Err(error) = tokio::fs::rename(&temp, path).await {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(io(error));
        }
        Ok(bytes.len() as u64)
    }

    /// A path in `folder` (already checked) for a file named after `stem` with `extension`, that names nothing
    /// yet: `stem.extension`, else `stem-2.extension`, `stem-3.extension`… so an existing file is never
    /// overwritten. `stem` is made a safe file name first ([`safe_file_name`]).
    pub fn unused_file_in(&self, folder: &Path, stem: &str, extension: &str) -> Result<PathBuf, LocalPathError> {
        const TRIES: u32 = 1_000;
        let stem = safe_file_name(stem);
        for n in 1..=TRIES {
            let name = if n == 1 { format!("{stem}.{extension}") } else { format!("{stem}-{n}.{extension}") };
            let candidate = folder.join(name);
            // A dangling link is an entry too: only a name with nothing at all under it is free.
            if std::fs::symlink_metadata(&candidate).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
                return Ok(candidate);
            }
        }
        Err(LocalPathError::NoFreeName { folder: folder.display().to_string(), stem })
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
    // Canonicalize the deepest existing entry (following symlinks), then re-append the rest. A link whose
    // target is missing is an entry that exists (`symlink_metadata`), though `exists()` says it doesn't: it
    // must stop the walk, not be taken for a new name the write may create.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name().map(|n| n.to_owned()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&existing).map_err(|e| {
        match std::fs::read_link(&existing) {
            // Its parent resolved (the entry was found), so the link itself, or one it leads to, is dangling.
            Ok(target) if e.kind() == std::io::ErrorKind::NotFound => LocalPathError::DanglingLink {
                path: existing.display().to_string(),
                target: target.display().to_string(),
            },
            _ => LocalPathError::Io { path: existing.display().to_string(), detail: e.to_string() },
        }
    })?;
    for name in rest.into_iter().rev() {
        resolved.push(name);
    }
    Ok(resolved)
}

/// The name (without extension) of the file a tool's result goes to when `local_path` names a folder: the
/// tool, then what the call reads, from its arguments — ids first, then names (a sheet), then ranges, each in
/// the arguments' order — e.g. `get_sheet_data-1AbC-Sales-A1_C9`. Made safe by [`unused_file_in`]
/// (see [`safe_file_name`]).
///
/// [`unused_file_in`]: LocalFiles::unused_file_in
pub fn result_file_stem(tool: &str, args: &serde_json::Value) -> String {
    use super::arguments::ArgKind;
    const PART_CHARS: usize = 60;
    let mut parts = vec![tool.to_owned()];
    let Some(args) = args.as_object() else { return tool.to_owned() };
    for wanted in [ArgKind::Id, ArgKind::Name, ArgKind::Range] {
        for (key, value) in args {
            if let (true, Some(text)) = (ArgKind::of(key) == wanted, value.as_str()) {
                let text = text.trim();
                if !text.is_empty() {
                    parts.push(text.chars().take(PART_CHARS).collect());
                }
            }
        }
    }
    parts.join("-")
}

/// `name` as one file name that is safe on every system: letters, digits, `.`, `-` and `_` kept, every other
/// run of characters one `_`, no leading dot (nothing hidden, no `..`), at most 120 characters; `result` when
/// nothing is left.
pub fn safe_file_name(name: &str) -> String {
    const MAX_CHARS: usize = 120;
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
        if out.len() >= MAX_CHARS {
            break;
        }
    }
    let out = out.trim_start_matches(['.', '_']).trim_end_matches(['.', '_']);
    if out.is_empty() { "result".to_owned() } else { out.to_owned() }
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

    // A link whose target is missing is refused wherever it points, and a write never replaces a link.
    #[cfg(unix)]
    #[tokio::test]
    async fn dangling_links_are_refused_and_links_never_replaced() {
        let (dir, files) = files();
        std::fs::create_dir_all(files.export_dir()).unwrap();
        let link = files.export_dir().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("outside/missing.json"), &link).unwrap();
        for requested in ["dangling.json", "dangling.json/deeper"] {
            let error = files.export_target(requested).unwrap_err();
            assert!(matches!(error, LocalPathError::DanglingLink { .. }), "{requested}: {error}");
            assert!(files.allowed(requested).is_err(), "{requested}");
        }
        std::os::unix::fs::symlink("missing-inside.json", files.export_dir().join("inside.json")).unwrap();
        assert!(matches!(files.export_target("inside.json"), Err(LocalPathError::DanglingLink { .. })));
        // A link planted under a checked name before the write is refused, not replaced.
        let checked = files.export_target("late.json").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere.json"), &checked).unwrap();
        assert!(matches!(files.write(&checked, b"{}").await, Err(LocalPathError::Link { .. })));
        assert!(std::fs::symlink_metadata(&checked).unwrap().file_type().is_symlink());
        assert!(!dir.path().join("elsewhere.json").exists());
        assert_eq!(std::fs::read_dir(files.export_dir()).unwrap().count(), 3, "no temporary file is left");
    }

    #[test]
    fn result_files_are_named_after_the_call_and_never_take_a_used_name() {
        let args =
            serde_json::json!({ "spreadsheet_id": "1AbC", "sheet": "Q1 / Sales", "range": "A1:C9", "local_path": "r" });
        assert_eq!(result_file_stem("get_sheet_data", &args), "get_sheet_data-1AbC-Q1 / Sales-A1:C9");
        assert_eq!(safe_file_name("get_sheet_data-1AbC-Q1 / Sales-A1:C9"), "get_sheet_data-1AbC-Q1_Sales-A1_C9");
        assert_eq!(safe_file_name("../../etc/passwd"), "etc_passwd");
        assert_eq!(safe_file_name("…"), "result");
        assert!(safe_file_name(&"x".repeat(1_000)).len() <= 120);
        let (_dir, files) = files();
        std::fs::create_dir_all(files.export_dir()).unwrap();
        let folder = std::fs::canonicalize(files.export_dir()).unwrap();
        let first = files.unused_file_in(&folder, "a b", "json").unwrap();
        assert_eq!(first, folder.join("a_b.json"));
        std::fs::write(&first, "x").unwrap();
        assert_eq!(files.unused_file_in(&folder, "a b", "json").unwrap(), folder.join("a_b-2.json"));
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
