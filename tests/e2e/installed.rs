//! The desktop app as the `.deb` installed it, end to end: scripts/test-install.sh bundles the debug build,
//! installs the package on this machine and runs this test program against the installed programs
//! (`GATEHOUSE_DESKTOP_BIN=/usr/bin/gatehouse-desktop`, `GATEHOUSE_BIN=/usr/bin/gatehouse`), then removes the
//! package again. It is no part of `cargo test --workspace` (`test = false`): without the package installed
//! there is nothing for it to test.
//!
//! The installed app, started under Xvfb with its own D-Bus session, serves MCP; an assistant's `gatehouse
//! serve` (the installed one, found on PATH) reaches it; launched again it shows its window; and *Start at
//! login* writes an entry that starts the installed program with the icon the package installed.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_e2e::Home;
use gatehouse_e2e::desktop::{Desktop, call, desktop_bin};
use serde_json::json;

/// The installed programs, as the package puts them and the environment names them.
fn installed() -> (PathBuf, PathBuf) {
    let named = |name: &str| {
        let path = std::env::var_os(name).map(PathBuf::from).unwrap_or_default();
        assert!(
            path.starts_with("/usr/bin"),
            "{name} is {path:?}: this test checks the installed package; run it with scripts/test-install.sh"
        );
        path
    };
    let (desktop, gatehouse) = (named("GATEHOUSE_DESKTOP_BIN"), named("GATEHOUSE_BIN"));
    assert_eq!(desktop_bin(), desktop, "the test harness starts the installed app");
    (desktop, gatehouse)
}

/// The value of `key` in a desktop entry's text.
fn entry_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installed_app_serves_mcp_shows_its_window_and_starts_at_login_from_where_it_is_installed() {
    let (desktop, gatehouse) = installed();
    let home = Home::new();
    // Nobody is signed in, so the app runs in the sandbox; the token file keeps the keychain out of it.
    let mut app = Desktop::launch(&home, &[("GATEHOUSE_TOKEN_STORE", OsStr::new("file"))])
        .await
        .expect("the installed app serves MCP");
    let pid = app.app_pid().expect("the app's process");
    let running = std::fs::read_link(format!("/proc/{pid}/exe")).expect("the app's program");
    assert_eq!(running, desktop, "the running app is the installed program");

    // An assistant starting the installed `gatehouse serve` reaches the app and sees its tools.
    let assistant = app.assistant("installed-test", &[]).await.expect("gatehouse serve connects");
    let tools = assistant.peer().list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|tool| tool.name == "get_sheet_data"), "tools/list through the installed gatehouse");
    let quota = call(assistant.peer(), "get_storage_quota", json!({})).await.expect("a call through the relay");
    assert_ne!(quota.is_error, Some(true), "{quota:?}");
    assistant.cancel().await.expect("the assistant disconnects");

    // Launched again, as a person clicking its icon in the menu, it shows its window.
    app.launch_again().await.expect("the second launch hands over to the running app");
    let webdriver = app.webdriver().await.expect("a window of the installed app appears").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.expect("the Gatehouse window");
    let shots = tempfile::tempdir().expect("a temp dir");
    let shot = shots.path().join("installed.png");
    // Taken from the X display: only a visible (mapped) window of the app is found there.
    webdriver.screenshot(&shot).await.expect("the window is on the screen");
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a picture of the window ({} bytes)", png.len());

    // *Start at login* on the Advanced page writes an entry that starts the installed program.
    webdriver.click_on("#tab-advanced").await.expect("the Advanced tab");
    let drawn = "return !!document.getElementById('setting-start_at_login')";
    webdriver.wait_for("the Advanced page", drawn, Duration::from_secs(30)).await.expect("the Advanced page");
    webdriver.click_on("#setting-start_at_login").await.expect("ticking Start at login");
    let entry_file = home.path().join("user/.config/autostart/gatehouse.desktop");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !entry_file.exists() {
        assert!(std::time::Instant::now() < deadline, "no autostart entry at {}", entry_file.display());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let entry = std::fs::read_to_string(&entry_file).expect("the autostart entry");
    assert_eq!(entry_value(&entry, "Exec"), desktop.to_str(), "{entry}");
    // The icon it names is the one the package installed in the desktop's icon theme.
    let icon = entry_value(&entry, "Icon").expect("the entry names an icon");
    let themed = Path::new("/usr/share/icons/hicolor/32x32/apps").join(format!("{icon}.png"));
    assert!(themed.is_file(), "the autostart entry's icon {icon} is not installed at {}", themed.display());
    // And it is the same program and icon as the menu entry the package installed.
    let menu = std::fs::read_to_string("/usr/share/applications/Gatehouse.desktop").expect("the menu entry");
    let menu_exec = entry_value(&menu, "Exec").expect("the menu entry's Exec");
    assert_eq!(which(menu_exec.split_whitespace().next().unwrap_or_default()).as_deref(), Some(desktop.as_path()));
    assert_eq!(entry_value(&menu, "Icon"), Some(icon), "{menu}");
    // The `gatehouse` an assistant is connected with is the one beside the app.
    assert_eq!(gatehouse.parent(), desktop.parent());
}

/// Where PATH finds `program`.
fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|path| path.is_file())
}
