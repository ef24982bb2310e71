//! Issue 15, "every bad input answered": symbolic links in the export folder, and `local_path` naming a folder.
//! With real links in a temporary export folder, through real tool calls (`local_path` of a read, and
//! `download_file`):
//! - a link whose target doesn't exist (here, outside) is refused, and stays a link: no file appears in its place
//!   or at its target;
//! - a link to a file outside, or to a folder outside, is refused and the outside is untouched;
//! - a link to a file inside is followed: the result lands on that file, and the link stays a link;
//! - `local_path` naming a folder gets the result in a new file in it, named after the call, never over an
//!   existing file, and the reply says which.

use crate::support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::Harness;

struct Setup {
    h: Harness,
    sheet: String,
    blob: String,
    exports: PathBuf,
    outside: PathBuf,
}

async fn setup() -> Setup {
    let h = Harness::new().await;
    let sheet = h.google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &h.owner());
    let blob = h.google.world().drive.create_blob("notes.txt", "text/plain", b"notes".to_vec(), None, &h.owner());
    let exports = h.home.path().join("exports");
    fs::create_dir_all(&exports).unwrap();
    let outside = h.home.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    Setup { h, sheet, blob, exports, outside }
}

impl Setup {
    fn read(&self, local_path: &str) -> Value {
        json!({ "spreadsheet_id": self.sheet, "sheet": "Sales", "local_path": local_path })
    }

    fn download(&self, local_path: &str) -> Value {
        json!({ "file_id": self.blob, "local_path": local_path })
    }

    /// Both ways of writing a file refuse `name`, with `words` in the message.
    async fn both_refuse(&self, name: &str, words: &str) {
        let message = self.h.err("get_sheet_data", self.read(name)).await;
        assert!(message.contains(words), "get_sheet_data to {name}: {message}");
        let message = self.h.err("download_file", self.download(name)).await;
        assert!(message.contains(words), "download_file to {name}: {message}");
    }
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

#[tokio::test]
async fn a_dangling_link_is_refused_and_left_a_link() {
    let s = setup().await;
    let target = s.outside.join("planted.json");
    let link = s.exports.join("result.json");
    symlink(&target, &link).unwrap();
    s.both_refuse("result.json", "which does not exist").await;
    assert!(is_link(&link), "the link was replaced");
    assert!(!target.exists(), "a file was created outside, through the link");
    // Also as a folder on the way.
    let folder_link = s.exports.join("gone");
    symlink(s.outside.join("no-such-folder"), &folder_link).unwrap();
    s.both_refuse("gone/x.json", "which does not exist").await;
    assert!(!s.outside.join("no-such-folder").exists());
}

#[tokio::test]
async fn links_to_a_file_or_folder_outside_are_refused_and_the_outside_untouched() {
    let s = setup().await;
    let secret = s.outside.join("secret.txt");
    fs::write(&secret, "keep me").unwrap();
    symlink(&secret, s.exports.join("out.json")).unwrap();
    s.both_refuse("out.json", "outside").await;
    assert_eq!(fs::read_to_string(&secret).unwrap(), "keep me");

    symlink(&s.outside, s.exports.join("elsewhere")).unwrap();
    s.both_refuse("elsewhere/x.json", "outside").await;
    s.both_refuse("elsewhere", "outside").await;
    assert_eq!(fs::read_dir(&s.outside).unwrap().count(), 1, "nothing was written outside");
}

#[tokio::test]
async fn a_link_inside_the_folder_is_followed_and_stays_a_link() {
    let s = setup().await;
    fs::create_dir_all(s.exports.join("2026")).unwrap();
    let real = s.exports.join("2026/report.json");
    fs::write(&real, "old").unwrap();
    let link = s.exports.join("latest.json");
    symlink("2026/report.json", &link).unwrap();
    s.h.ok("get_sheet_data", s.read("latest.json")).await;
    assert!(is_link(&link), "the link was replaced by a file");
    assert!(fs::read_to_string(&real).unwrap().contains("Sales") || fs::read_to_string(&real).unwrap().contains('a'));
    assert_ne!(fs::read_to_string(&real).unwrap(), "old", "the result landed on the link's target");
    s.h.ok("download_file", s.download("latest.json")).await;
    assert!(is_link(&link));
    assert_eq!(fs::read_to_string(&real).unwrap(), "notes");
}

#[tokio::test]
async fn local_path_naming_a_folder_writes_a_new_file_in_it_and_says_which() {
    let s = setup().await;
    let folder = s.exports.join("reports");
    fs::create_dir_all(&folder).unwrap();
    let expected = folder.join(format!("get_sheet_data-{}-Sales.json", s.sheet));
    let reply = s.h.ok("get_sheet_data", s.read("reports")).await;
    let written = PathBuf::from(reply["local_path"].as_str().unwrap());
    assert_eq!(fs::canonicalize(&written).unwrap(), fs::canonicalize(&expected).unwrap(), "{reply}");
    let message = reply["message"].as_str().unwrap();
    assert!(
        message.contains("is a folder") && message.contains(&format!("get_sheet_data-{}-Sales.json", s.sheet)),
        "{message}"
    );
    let first = fs::read_to_string(&expected).unwrap();
    assert!(first.contains("Sales") || first.contains('a'), "{first}");

    // Again: the first file is kept, the second gets a suffix.
    fs::write(&expected, "mine").unwrap();
    let reply = s.h.ok("get_sheet_data", s.read("reports/")).await;
    let second = PathBuf::from(reply["local_path"].as_str().unwrap());
    assert_eq!(second.file_name().unwrap().to_string_lossy(), format!("get_sheet_data-{}-Sales-2.json", s.sheet));
    assert_eq!(fs::read_to_string(&expected).unwrap(), "mine", "an existing file is never overwritten");
    assert!(second.exists());

    // The export folder itself, and a range with characters no file name should carry.
    let range = json!({ "spreadsheet_id": s.sheet, "sheet": "Sales", "range": "A1:B2", "local_path": "." });
    let reply = s.h.ok("get_sheet_data", range).await;
    let name = PathBuf::from(reply["local_path"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, format!("get_sheet_data-{}-Sales-A1_B2.json", s.sheet));
}
