//! A local folder tree as the folder tools see it (`upload_local_folder`, and the local side of
//! `sync_folder`): its folders and files in a stable order, what was left out and why. The system-file rule
//! lives here once, so every folder tool leaves out the same files.
//!
//! Symbolic links inside the tree are never followed (a link could lead outside the folders Gatehouse may
//! use): they are reported as left out. The root itself is checked by [`crate::limits::local_files`].

use std::path::{Path, PathBuf};

/// Names of files an operating system or tool keeps for itself, never a person's content.
const SYSTEM_FILES: &[&str] = &[".DS_Store", "Thumbs.db", "ehthumbs.db", "desktop.ini", "Icon\r", ".localized"];

/// Names of folders that are an operating system's or a tool's own bookkeeping (left out whole).
const SYSTEM_FOLDERS: &[&str] = &[
    ".git",
    ".svn",
    ".hg",
    "__MACOSX",
    ".Spotlight-V100",
    ".Trashes",
    ".fseventsd",
    ".TemporaryItems",
    "$RECYCLE.BIN",
    "System Volume Information",
];

/// Whether a file or folder named `name` is system bookkeeping rather than content: the names above,
/// macOS resource forks (`._*`), Office and LibreOffice lock files (`~$*`, `.~lock.*#`) and Gatehouse's own
/// unfinished writes (`*.gatehouse-*.part`).
pub(crate) fn is_system_name(name: &str, is_folder: bool) -> bool {
    if is_folder {
        return SYSTEM_FOLDERS.iter().any(|n| n.eq_ignore_ascii_case(name));
    }
    SYSTEM_FILES.iter().any(|n| n.eq_ignore_ascii_case(name))
        || name.starts_with("._")
        || name.starts_with("~$")
        || (name.starts_with(".~lock.") && name.ends_with('#'))
        || (name.contains(".gatehouse-") && name.ends_with(".part"))
}

/// A relative path with `/` between its parts on every system, as results report paths.
pub(crate) fn slash(relative: &Path) -> String {
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// What an entry of the tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Folder,
    /// A regular file of that many bytes.
    File {
        size: u64,
    },
}

/// One folder or file under the root.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Its path under the root, e.g. `reports/2024/q1.csv`.
    pub relative: PathBuf,
    /// Its full path on disk.
    pub path: PathBuf,
    pub kind: Kind,
}

impl Entry {
    /// Its own name (the last part of the path).
    pub fn name(&self) -> String {
        self.relative.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// The relative path of the folder holding it (empty: the root).
    pub fn parent(&self) -> PathBuf {
        self.relative.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// Something under the root that is not in [`Tree::entries`], and why.
#[derive(Debug, Clone)]
pub(crate) struct LeftOut {
    pub relative: PathBuf,
    pub reason: String,
    /// Whether it could not be read (an error) rather than left out by a rule.
    pub failed: bool,
}

/// A walked tree: folders come before what they hold; names are in order within a folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tree {
    pub entries: Vec<Entry>,
    pub left_out: Vec<LeftOut>,
}

/// How to walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WalkOptions {
    /// Leave out system files and folders ([`is_system_name`]).
    pub skip_system_files: bool,
    /// Go into subfolders; `false`: only the root's own files and folders.
    pub recursive: bool,
}

/// Walks the folder `root` (already checked against the allowed folders). A subfolder that cannot be read
/// is reported in [`Tree::left_out`] and the walk goes on; only the root failing to read is an error.
pub(crate) fn walk(root: &Path, options: WalkOptions) -> std::io::Result<Tree> {
    let mut tree = Tree::default();
    let first = list(root)?;
    let mut stack = vec![(PathBuf::new(), first)];
    // Depth first, keeping each folder's names in order: a folder is pushed before its contents.
    while let Some((folder, mut names)) = stack.pop() {
        let Some((name, path)) = names.pop() else { continue };
        stack.push((folder.clone(), names));
        let relative = folder.join(&name);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(error) => {
                tree.left_out.push(LeftOut { relative, reason: error.to_string(), failed: true });
                continue;
            }
        };
        let name = name.to_string_lossy();
        if meta.file_type().is_symlink() {
            let reason = "a symbolic link, which is not followed".to_owned();
            tree.left_out.push(LeftOut { relative, reason, failed: false });
        } else if options.skip_system_files && is_system_name(&name, meta.is_dir()) {
            let reason = "a system file".to_owned();
            tree.left_out.push(LeftOut { relative, reason, failed: false });
        } else if meta.is_dir() {
            tree.entries.push(Entry { relative: relative.clone(), path: path.clone(), kind: Kind::Folder });
            if options.recursive {
                match list(&path) {
                    Ok(names) => stack.push((relative, names)),
                    Err(error) => tree.left_out.push(LeftOut { relative, reason: error.to_string(), failed: true }),
                }
            }
        } else if meta.is_file() {
            tree.entries.push(Entry { relative, path, kind: Kind::File { size: meta.len() } });
        } else {
            let reason = "not a regular file (a device, socket or pipe)".to_owned();
            tree.left_out.push(LeftOut { relative, reason, failed: false });
        }
    }
    Ok(tree)
}

/// A folder's names with their paths, last name first (so popping yields them in order).
fn list(folder: &Path) -> std::io::Result<Vec<(std::ffi::OsString, PathBuf)>> {
    let mut names = std::fs::read_dir(folder)?
        .map(|entry| entry.map(|e| (e.file_name(), e.path())))
        .collect::<std::io::Result<Vec<_>>>()?;
    names.sort_by(|a, b| b.0.cmp(&a.0));
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_names_are_recognised() {
        for name in [".DS_Store", "thumbs.db", "desktop.ini", "._photo.jpg", "~$report.docx", ".~lock.a.ods#"] {
            assert!(is_system_name(name, false), "{name}");
        }
        assert!(is_system_name("a.txt.gatehouse-0000abcd.part", false));
        assert!(is_system_name(".git", true) && is_system_name("__MACOSX", true));
        for name in ["notes.md", ".env", "git", "Thumbs.db.txt"] {
            assert!(!is_system_name(name, false), "{name}");
        }
        assert!(!is_system_name(".git", false), "a file named .git is a worktree pointer, not the folder");
    }

    #[test]
    fn walks_in_order_leaving_out_system_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b/inner")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("b/inner/c.txt"), "cc").unwrap();
        std::fs::write(root.join("b/.DS_Store"), "x").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref").unwrap();
        let tree = walk(root, WalkOptions { skip_system_files: true, recursive: true }).unwrap();
        let names: Vec<String> = tree.entries.iter().map(|e| slash(&e.relative)).collect();
        assert_eq!(names, ["a.txt", "b", "b/inner", "b/inner/c.txt"]);
        assert_eq!(tree.entries[3].kind, Kind::File { size: 2 });
        let left: Vec<String> = tree.left_out.iter().map(|l| slash(&l.relative)).collect();
        assert_eq!(left, [".git", "b/.DS_Store"]);
        let flat = walk(root, WalkOptions { skip_system_files: false, recursive: false }).unwrap();
        let names: Vec<String> = flat.entries.iter().map(|e| slash(&e.relative)).collect();
        assert_eq!(names, [".git", "a.txt", "b"]);
    }
}
