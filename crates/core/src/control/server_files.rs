//! Finding the running servers: each leaves a file named `<pid><suffix>` in the private control folder (its
//! socket on Unix, the file naming its pipe on Windows).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::ControlError;

/// The files in `dir` named `<pid><suffix>`, with the process each belongs to, in pid order; none when the
/// folder does not exist.
pub(super) fn server_files(dir: &Path, suffix: &str) -> Result<Vec<(u32, PathBuf)>, ControlError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(ControlError::Folder {
                path: dir.display().to_string(),
                detail: format!("it could not be listed ({e})"),
            });
        }
    };
    let mut files: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let pid = name.to_str()?.strip_suffix(suffix)?;
            // Only the canonical spelling of a number: `0042.sock` is not a pid's file.
            let pid: u32 = pid.parse().ok().filter(|parsed: &u32| parsed.to_string() == pid)?;
            Some((pid, entry.path()))
        })
        .collect();
    files.sort();
    Ok(files)
}
