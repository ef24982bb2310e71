//! The *Account* and *Advanced* pages end to end, in real WebKit: the real `gatehouse-desktop` under Xvfb with
//! its own D-Bus session, driven by tauri-driver and WebKitWebDriver.
//!
//! - Advanced: a value that can't be used is refused next to its field; a saved one waits for the restart;
//!   *Restart now* really restarts the app (the old process stops, a new one serves MCP again) and the new one
//!   uses the saved settings, as an assistant connecting afterwards sees.
//! - Account: from the sandbox (nobody signed in), *Sign in with Google* through the emulator's OAuth pages;
//!   the app restarts by itself and then acts as the person who signed in. Without an OAuth client, the
//!   guided setup's steps, a web client's file refused, and a Desktop client's file dropped on the page kept
//!   (0600) with *Sign in with Google* on at once.
//! - Welcome: the first launch in a fresh home, on a display with no tray host, opens the welcome window (with
//!   how to reopen Gatehouse); its *Connect an assistant* connects Claude Desktop on the Assistants page; the
//!   next launch, on a desktop with a tray (a mock StatusNotifierWatcher), opens no window by itself.

use std::ffi::OsStr;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_e2e::Home;
use gatehouse_e2e::desktop::{Desktop, WebDriver, call, process_name, process_tree, screenshot_path};
use google_fake::{Account, ConsentMode, FakeGoogle, Identity, OAuthClient};
use serde_json::json;

const CLIENT_ID: &str = "123-desktop.apps.googleusercontent.com";
const CLIENT_SECRET: &str = "GOCSPX-desktop-secret";
const USER: &str = "ada@example.com";

/// Shows a settings page by its tab, and waits until it has drawn itself.
async fn open_page(webdriver: &WebDriver, page: &str) {
    webdriver.click_on(&format!("#tab-{page}")).await.unwrap();
    let drawn = format!(
        "const s = document.getElementById('page-{page}'); return !s.hidden && !!s.querySelector('h2') && s.innerText.length > 40"
    );
    webdriver.wait_for(&format!("the {page} page"), &drawn, Duration::from_secs(30)).await.unwrap();
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists() && process_name(pid).starts_with("gatehouse-deskt")
}

/// The running `gatehouse-desktop` whose state is in `home` (the restarted app is no child of the driver).
fn app_of(home: &Path) -> Option<u32> {
    let wanted = format!("GATEHOUSE_HOME={}", home.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
        let environ = std::fs::read(entry.path().join("environ")).ok()?;
        let ours = environ.split(|byte| *byte == 0).any(|var| var == wanted.as_bytes());
        (ours && process_name(pid).starts_with("gatehouse-deskt")).then_some(pid)
    })
}

/// Waits for the app `first` to stop and another to serve MCP in its place; returns the new one.
async fn restarted(app: &Desktop, home: &Path, first: u32) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    while alive(first) {
        assert!(Instant::now() < deadline, "the app did not stop within 30 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.wait_until_mcp_ready(Duration::from_secs(60)).await.expect("the restarted app serves MCP again");
    let second = app_of(home).expect("the restarted app runs");
    assert_ne!(second, first);
    second
}

/// Stops a restarted app, which is no child of the driver, the way a session manager does (SIGTERM); then
/// whatever of its WebKit processes is left.
async fn stop(app: u32) {
    let tree = process_tree(app);
    let _ = std::process::Command::new("kill").arg("-TERM").arg(app.to_string()).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(app) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left: Vec<String> =
        tree.iter().filter(|pid| Path::new(&format!("/proc/{pid}")).exists()).map(u32::to_string).collect();
    if !left.is_empty() {
        let _ = std::process::Command::new("kill").arg("-KILL").args(left).status();
    }
    assert!(!alive(app), "the restarted app stops on SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_now_on_the_advanced_page_restarts_the_app_with_the_saved_settings() {
    let home = Home::new();
    // Nobody is signed in, so the app runs in the sandbox; the token file keeps the keychain out of it.
    let mut app =
        Desktop::launch(&home, &[("GATEHOUSE_TOKEN_STORE", OsStr::new("file"))]).await.expect("the app starts");
    let first = app.app_pid().expect("the app's process");
    app.launch_again().await.unwrap();
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the settings window").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    open_page(&webdriver, "advanced").await;

    // A time that isn't a number is refused in words, next to its field, which keeps what was typed.
    webdriver.execute("document.getElementById('setting-approval_timeout').value = 'abc'", json!([])).await.unwrap();
    webdriver.click_on("[data-key=approval_timeout] button.primary").await.unwrap();
    let refusal =
        "const m = document.querySelector('[data-key=approval_timeout] .message.error'); return m && m.textContent";
    let refusal = webdriver.wait_for("the refusal", refusal, Duration::from_secs(30)).await.unwrap();
    assert!(refusal.as_str().unwrap_or_default().contains("is not a number of seconds"), "{refusal}");
    let kept = webdriver.execute("return document.getElementById('setting-approval_timeout').value", json!([])).await;
    assert_eq!(kept.unwrap(), "abc");

    // Only two tools: saved, and marked as waiting for the restart.
    let tick = r#"for (const box of document.querySelectorAll("[data-key=enabled_tools] input[type=checkbox]"))
                    box.checked = box.value === "list_sheets" || box.value === "get_sheet_data";"#;
    webdriver.execute(tick, json!([])).await.unwrap();
    webdriver.click_on("[data-key=enabled_tools] button.primary").await.unwrap();
    let waits = "const p = document.querySelector('[data-key=enabled_tools] .pending'); return p && p.textContent";
    let waits = webdriver.wait_for("the restart note", waits, Duration::from_secs(30)).await.unwrap();
    assert_eq!(waits, "Applies when Gatehouse restarts.");

    // Restart now: the app stops (its core stopped the normal way) and starts again by itself.
    // (The click's own answer may never come: the window goes away with the app.)
    let _ = webdriver.click_on(".notice.restart button").await;
    let second = restarted(&app, home.path(), first).await;

    // An assistant connecting now sees the two tools only.
    let assistant = app.assistant("Claude Desktop", &[]).await.expect("an assistant connects");
    let mut tools: Vec<String> =
        assistant.list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    tools.sort();
    assert_eq!(tools, ["get_sheet_data", "list_sheets"]);
    drop(assistant);
    stop(second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_in_from_the_sandbox_restarts_the_app_as_the_person() {
    let google = FakeGoogle::start().await.expect("the Google emulator");
    let budget = {
        let mut world = google.world();
        world.oauth_clients.push(OAuthClient::installed(CLIENT_ID, CLIENT_SECRET));
        world.accounts.push(Account::user(USER, "Ada Lovelace"));
        world.consent = ConsentMode::Approve(Identity::user(USER));
        world.create_spreadsheet("Budget 2026", &[("Sales", vec![])], &Identity::user(USER))
    };
    let home = Home::new();
    let endpoint = google.url();
    let env: [(&str, &OsStr); 4] = [
        ("GATEHOUSE_GOOGLE_ENDPOINT", endpoint.as_ref()),
        ("GATEHOUSE_OAUTH_CLIENT_ID", CLIENT_ID.as_ref()),
        ("GATEHOUSE_OAUTH_CLIENT_SECRET", CLIENT_SECRET.as_ref()),
        ("GATEHOUSE_TOKEN_STORE", "file".as_ref()),
    ];
    let mut app = Desktop::launch(&home, &env).await.expect("the app starts in the sandbox");
    let first = app.app_pid().expect("the app's process");
    app.launch_again().await.unwrap();
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the settings window").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    open_page(&webdriver, "account").await;
    let said = webdriver.text_of("#page-account .who h3").await.unwrap();
    assert_eq!(said, "You're in the sandbox");

    // The products Google will be asked for: Sheets, Drive and Docs ticked, mail and calendars not.
    let ticked = r##"return [...document.querySelectorAll("#products input")].map((box) => box.value + "=" + box.checked).join(" ")"##;
    let ticked = webdriver.execute(ticked, json!([])).await.unwrap();
    assert_eq!(ticked, "sheets=true docs=true drive=true calendar=false gmail=false");
    webdriver.screenshot(&screenshot_path("settings-account-sign-in")).await.unwrap();

    // Sign in with Google: the address of Google's page is shown (and handed to the browser, when there is
    // one); the test opens it as the person's browser would.
    webdriver.click_on("#sign-in").await.unwrap();
    let address = "const i = document.getElementById('sign-in-url'); return i && i.value";
    let address = webdriver.wait_for("the sign-in address", address, Duration::from_secs(30)).await.unwrap();
    let address = address.as_str().expect("an address").to_owned();
    let landed = reqwest::get(&address).await.expect("the browser follows Google's redirect to the app");
    assert_eq!(landed.status(), 200);
    assert!(landed.text().await.unwrap().contains(&format!("signed in to Google as {USER}")));

    // The page says so, then the app restarts by itself and acts as the person.
    let done = "const n = document.querySelector('#page-account .notice.done'); return n && n.textContent";
    let done = webdriver.wait_for("the confirmation", done, Duration::from_secs(30)).await.unwrap();
    assert!(done.as_str().unwrap_or_default().contains(&format!("Signed in as {USER}.")), "{done}");
    let second = restarted(&app, home.path(), first).await;

    let assistant = app.assistant("Claude Desktop", &[]).await.expect("an assistant connects");
    let status = assistant
        .peer()
        .read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status"))
        .await
        .unwrap();
    let status = serde_json::to_string(&status).unwrap();
    assert!(status.contains(r#"\"auth_method\":\"oauth\""#) && status.contains(USER), "{status}");
    let sheets = call(assistant.peer(), "list_sheets", json!({ "spreadsheet_id": budget })).await.unwrap();
    assert!(!sheets.is_error.unwrap_or(false), "{sheets:?}");
    drop(assistant);
    stop(second).await;
}

/// The window handles whose page is `page`.
async fn windows_showing(webdriver: &WebDriver, page: &str) -> Vec<String> {
    let mut found = Vec::new();
    for handle in webdriver.window_handles().await.unwrap() {
        webdriver.switch_to_handle(&handle).await.unwrap();
        if webdriver.url().await.unwrap().contains(page) {
            found.push(handle);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_launch_welcomes_and_a_later_one_with_an_assistant_connected_starts_quietly() {
    let home = Home::new();
    let env: [(&str, &OsStr); 1] = [("GATEHOUSE_TOKEN_STORE", "file".as_ref())];

    // A fresh home on a desktop with no tray host (a bare X display, like stock GNOME): the welcome window
    // opens by itself, and WebDriver, waiting for a window, attaches to it.
    let mut app = Desktop::launch_idle(&home, &env).await.expect("the app starts");
    let webdriver = app.webdriver().await.expect("a window opens at the first launch").clone();
    webdriver.switch_to_page("welcome.html", Duration::from_secs(30)).await.unwrap();
    let reopen = "const r = document.getElementById('reopen'); return r && r.textContent";
    let reopen = webdriver.wait_for("the welcome window drawn", reopen, Duration::from_secs(30)).await.unwrap();
    assert!(reopen.as_str().unwrap_or_default().contains("start it again from your applications"), "{reopen}");
    let no_tray = webdriver.execute("return document.getElementById('reopen').className", json!([])).await.unwrap();
    assert_eq!(no_tray, "reopen no-tray");
    for (button, words) in
        [("#sign-in", "Sign in with Google"), ("#sandbox", "Try the sandbox"), ("#connect", "Connect an assistant")]
    {
        assert_eq!(webdriver.text_of(button).await.unwrap(), words);
    }
    // Nobody is signed in: the app already runs in the sandbox, and the window says so.
    let sandbox = webdriver.text_of("#sandbox-words").await.unwrap();
    assert!(sandbox.contains("Until you sign in, Gatehouse uses sample files"), "{sandbox}");
    webdriver.screenshot(&screenshot_path("welcome")).await.unwrap();
    assert!(home.path().join(gatehouse_core::welcome::MARKER).exists(), "the first launch is noted");

    // Try the sandbox: already in it, so the window points at connecting an assistant.
    webdriver.click_on("#sandbox").await.unwrap();
    let said = "const n = document.getElementById('notice'); return !n.hidden && n.textContent";
    let said = webdriver.wait_for("the sandbox answer", said, Duration::from_secs(30)).await.unwrap();
    assert!(said.as_str().unwrap_or_default().contains("You're in the sandbox"), "{said}");

    // Connect an assistant: the Gatehouse window on the Assistants page, whose Connect sets up Claude Desktop.
    webdriver.click_on("#connect").await.unwrap();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    let drawn = "const s = document.getElementById('page-assistants'); return !s.hidden && !!s.querySelector('button[aria-label=\"Connect Claude Desktop\"]')";
    webdriver.wait_for("the Assistants page", drawn, Duration::from_secs(30)).await.unwrap();
    webdriver.click_on("button[aria-label=\"Connect Claude Desktop\"]").await.unwrap();
    let connected = "const m = document.getElementById('assistant-claude-desktop-said'); return m && m.className.includes('done') && m.textContent";
    webdriver.wait_for("Claude Desktop connected", connected, Duration::from_secs(30)).await.unwrap();
    drop(webdriver);
    drop(app);

    // The next launch, on a desktop with a tray: an assistant is connected, so no welcome window. Launching
    // again opens the Gatehouse window, and it is the app's only window.
    let mut app = Desktop::launch_with_tray(&home, &env).await.expect("the app starts again");
    app.launch_again().await.unwrap();
    let webdriver = app.webdriver().await.expect("the settings window").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    // The rule is decided before the app takes a second launch; a moment more, for a window to show anyway.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(windows_showing(&webdriver, "welcome.html").await, Vec::<String>::new());
    // The card window may be there, made ahead of its first card (an assistant is set up) but hidden.
    let mut shown = Vec::new();
    let mut every = Vec::new();
    for handle in webdriver.window_handles().await.unwrap() {
        webdriver.switch_to_handle(&handle).await.unwrap();
        let seen = webdriver.execute("return [document.URL, document.visibilityState]", json!([])).await.unwrap();
        if seen[1] == "visible" {
            shown.push(seen[0].as_str().unwrap_or_default().to_owned());
        }
        every.push(seen);
    }
    assert_eq!(shown.len(), 1, "only the settings window shows: {every:?}");
    assert!(shown[0].contains("settings.html"), "{every:?}");
}

/// Hands `text` to the Account page as the file `name`, the way `how` says: `"pick"` as the file picker does
/// (the input's files, then its change event), `"drop"` as a file dropped on the last setup step.
async fn give_client_file(webdriver: &WebDriver, how: &str, name: &str, text: &str) {
    let script = r#"
        const [how, name, text] = arguments;
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], name, { type: "application/json" }));
        if (how === "pick") {
            const input = document.getElementById("client-file");
            input.files = transfer.files;
            input.dispatchEvent(new Event("change", { bubbles: true }));
        } else {
            const zone = document.getElementById("client-drop");
            zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }"#;
    webdriver.execute(script, json!([how, name, text])).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_client_the_account_page_guides_the_setup_and_a_chosen_desktop_client_enables_sign_in() {
    let home = Home::new();
    let env: [(&str, &OsStr); 1] = [("GATEHOUSE_TOKEN_STORE", "file".as_ref())];
    let mut app = Desktop::launch(&home, &env).await.expect("the app starts");
    app.launch_again().await.unwrap();
    let webdriver = app.webdriver().await.expect("a window of the app").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    open_page(&webdriver, "account").await;

    // No OAuth client: Sign in is off, and the steps are open, each with its Google Cloud button.
    let disabled = webdriver.execute("return document.getElementById('sign-in').disabled", json!([])).await.unwrap();
    assert_eq!(disabled, true);
    let steps = r#"const d = document.getElementById("setup");
        return d && d.open && [...d.querySelectorAll("li[data-step]")].map((li) => li.dataset.step).join(" ")"#;
    let steps = webdriver.wait_for("the setup steps", steps, Duration::from_secs(30)).await.unwrap();
    assert_eq!(steps, "project apis mcp_apis consent client file");
    let client_step = webdriver.text_of("li[data-step=client]").await.unwrap();
    assert!(client_step.contains("Use this client for an AI-powered agent"), "{client_step}");
    let buttons = "return document.querySelectorAll('#setup li[data-step] button').length";
    assert_eq!(webdriver.execute(buttons, json!([])).await.unwrap(), 6);
    webdriver.screenshot(&screenshot_path("settings-account-setup")).await.unwrap();

    // A web application's client, picked: refused in words, Sign in still off, nothing kept.
    let web = r#"{"web":{"client_id":"1-web.apps.googleusercontent.com","client_secret":"s"}}"#;
    give_client_file(&webdriver, "pick", "client_secret_web.json", web).await;
    let said = "const m = document.getElementById('client-file-said'); return m && m.textContent";
    let said = webdriver.wait_for("the refusal", said, Duration::from_secs(30)).await.unwrap();
    assert!(said.as_str().unwrap_or_default().contains("Web application"), "{said}");
    assert!(!home.path().join(gatehouse_core::auth::client_config::KEPT_FILE).exists());

    // A Desktop client, dropped on the page: kept (0600), and Sign in with Google is on at once.
    let desktop = format!(
        r#"{{"installed":{{"client_id":"{CLIENT_ID}","client_secret":"{CLIENT_SECRET}","token_uri":"https://oauth2.googleapis.com/token","redirect_uris":["http://localhost"]}}}}"#
    );
    give_client_file(&webdriver, "drop", "client_secret_desktop.json", &desktop).await;
    let done = "const n = document.querySelector('#page-account .notice.done'); return n && n.textContent";
    let done = webdriver.wait_for("the client kept", done, Duration::from_secs(30)).await.unwrap();
    assert!(done.as_str().unwrap_or_default().contains("You can sign in with Google now"), "{done}");
    let enabled = webdriver.execute("return !document.getElementById('sign-in').disabled", json!([])).await.unwrap();
    assert_eq!(enabled, true, "Sign in with Google is on");
    let kept = home.path().join(gatehouse_core::auth::client_config::KEPT_FILE);
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&kept).unwrap().permissions()) & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(&kept).unwrap().contains(CLIENT_ID));
    // Folded away now that there is a client, and saying which one is used.
    let folded = webdriver.execute("return document.getElementById('setup').open", json!([])).await.unwrap();
    assert_eq!(folded, false);
    webdriver.screenshot(&screenshot_path("settings-account-client-chosen")).await.unwrap();
}
