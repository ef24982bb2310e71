//! The desktop app end to end, in real WebKit: the real `gatehouse-desktop` under Xvfb with its own D-Bus
//! session, driven by tauri-driver and WebKitWebDriver, while a real MCP client (rmcp, through `gatehouse
//! serve` over stdio, which relays to the app) makes the calls a person answers on the card.
//!
//! Screenshots of what a person sees go to docs/screenshots/; when a wait fails, what the window showed instead
//! goes to target/e2e-failures/. `GATEHOUSE_E2E_APP_LOG=1` shows the app's and the drivers' logs.
//! Needs Xvfb, WebKitWebDriver, tauri-driver, xdotool and ImageMagick (the screenshots are taken from the X
//! display): `bash scripts/install-deps.sh --validators`.

use std::ffi::OsStr;
use std::time::Duration;

use gatehouse_e2e::Home;
use gatehouse_e2e::desktop::{Assistant, Desktop, Element, WebDriver, call, screenshot_path};
use rmcp::RoleClient;
use rmcp::service::Peer;
use serde_json::{Value, json};

const ASSISTANT: &str = "Claude Desktop";

fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default()
}

async fn spreadsheet_id(peer: &Peer<RoleClient>, name: &str) -> String {
    let found = call(peer, "search_spreadsheets", json!({ "query": name })).await.expect("search_spreadsheets");
    let found: Value = serde_json::from_str(&text(&found)).expect("search results");
    found["spreadsheets"]
        .as_array()
        .and_then(|files| files.iter().find(|file| file["name"] == name))
        .and_then(|file| file["id"].as_str())
        .unwrap_or_else(|| panic!("no spreadsheet named {name}: {found}"))
        .to_owned()
}

fn write(id: &str, sheet: &str, cell: &str, value: &str) -> Value {
    json!({ "spreadsheet_id": id, "sheet": sheet, "range": cell, "data": [[value]] })
}

/// Starts `update_cells` as the assistant in the background: it returns only once the call is answered.
fn start_write(
    peer: &Peer<RoleClient>,
    args: Value,
) -> tokio::task::JoinHandle<anyhow::Result<rmcp::model::CallToolResult>> {
    let peer = peer.clone();
    tokio::spawn(async move { call(&peer, "update_cells", args).await })
}

/// What the card shows once it is on screen: the window visible, the card filled in. `[who, heading, target]`.
const CARD_ON_SCREEN: &str = r#"
    const card = document.getElementById("card");
    const heading = document.getElementById("heading").textContent;
    if (document.visibilityState !== "visible" || card.hidden || !heading) return null;
    return [document.getElementById("who").textContent, heading, document.getElementById("target").textContent];
"#;

/// Waits for the card window to show a card, and returns `[who, heading, target]`.
async fn card_on_screen(webdriver: &WebDriver) -> Vec<String> {
    webdriver.switch_to_page("card.html", Duration::from_secs(30)).await.expect("the card window");
    let shown = webdriver.wait_for("the card on screen", CARD_ON_SCREEN, Duration::from_secs(30)).await.unwrap();
    serde_json::from_value(shown).expect("the card's texts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_in_real_webkit_always_allow_for_one_spreadsheet_then_revoked_in_permissions() {
    let home = Home::new();
    // Gatehouse's own cards and grants: on Google's REST APIs, as every e2e test unless it says otherwise (on
    // Google's MCP servers, Google asks about each update_cells with its own form, which no grant answers:
    // the next test).
    let mut app = Desktop::launch(&home, &[]).await.expect("the desktop app starts and serves MCP");
    // A plain `gatehouse serve`, as *Connect* writes it while the app is in the sandbox only because nobody is
    // signed in: it relays to the app now (and reaches the account once the person signs in).
    let assistant = app.assistant(ASSISTANT, &[]).await.expect("an assistant through gatehouse serve");
    let peer = assistant.peer().clone();
    let budget = spreadsheet_id(&peer, "Budget 2026").await;
    let contacts = spreadsheet_id(&peer, "Team Contacts").await;

    // A write waits for the person: the card window appears (and WebDriver, waiting for a window, attaches).
    let first = start_write(&peer, write(&budget, "Sales", "J1", "approved on the card"));
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the card window").clone();
    let [who, heading, target]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
    // It connected over stdio, so its name is only what it says of itself (issue 15, item 5).
    assert_eq!(who, format!("“{ASSISTANT}” (says it is) wants to"));
    assert_eq!(heading, "write 1 cell in “Budget 2026” › “Sales” (J1)");
    assert!(target.contains("“Budget 2026”") && target.contains(&budget), "{target}");
    // The focus is never on an Allow button.
    let focused = webdriver.execute("return document.activeElement.id", json!([])).await.unwrap();
    assert_eq!(focused, "heading");
    webdriver.screenshot(&screenshot_path("card")).await.unwrap();

    // Always allow… → 7 days → only this spreadsheet.
    webdriver.click_on("#always").await.unwrap();
    let limit = webdriver.text_of("#limits label:first-child").await.unwrap();
    assert!(limit.contains("Budget 2026"), "the offered limit names the spreadsheet: {limit}");
    webdriver.click_on(r#"input[name="days"][value="7"]"#).await.unwrap();
    webdriver.click_on(r#"input[name="limit"][value="CONSTRAINED"]"#).await.unwrap();
    webdriver.screenshot(&screenshot_path("card-always-allow")).await.unwrap();
    webdriver.click_on("#always-confirm").await.unwrap();

    let done = tokio::time::timeout(Duration::from_secs(30), first).await.expect("the call returns").unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    let read = call(&peer, "get_sheet_data", json!({ "spreadsheet_id": budget, "sheet": "Sales", "range": "J1" }))
        .await
        .unwrap();
    assert!(text(&read).contains("approved on the card"), "the emulator has the write: {}", text(&read));
    webdriver
        .wait_for("the card to go away", "return document.visibilityState === 'hidden'", Duration::from_secs(10))
        .await
        .unwrap();

    // The same spreadsheet again: the grant covers it, no card (nobody answers here).
    let second = tokio::time::timeout(
        Duration::from_secs(30),
        call(&peer, "update_cells", write(&budget, "Sales", "J2", "covered by the grant")),
    )
    .await
    .expect("a covered write runs without waiting for anyone")
    .unwrap();
    assert!(!second.is_error.unwrap_or(false), "{}", text(&second));
    let hidden = webdriver.execute("return document.visibilityState", json!([])).await.unwrap();
    assert_eq!(hidden, "hidden", "no card for a covered call");

    // Another spreadsheet: a card again, which the person denies. A second call waits behind it: "1 of 2 waiting".
    let other = start_write(&peer, write(&contacts, "Contacts", "F1", "not allowed"));
    let [_, _, target]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
    assert!(target.contains("“Team Contacts”"), "{target}");
    let behind = start_write(&peer, write(&contacts, "Contacts", "F2", "waits behind"));
    let queue = "return document.getElementById('queue').textContent === '1 of 2 waiting'";
    webdriver.wait_for("the queue of two", queue, Duration::from_secs(30)).await.unwrap();
    webdriver.screenshot(&screenshot_path("card-queue")).await.unwrap();
    webdriver.click_on("#deny").await.unwrap();
    let refused =
        tokio::time::timeout(Duration::from_secs(30), other).await.expect("the call returns").unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false) && text(&refused).contains("declined"), "{}", text(&refused));
    // The next card takes its place, alone now; Escape denies it.
    let next = "return document.getElementById('queue').textContent === ''
        && document.getElementById('arguments').textContent.includes('waits behind')";
    webdriver.wait_for("the second card", next, Duration::from_secs(30)).await.unwrap();
    // A card drawn where another just was keeps its answers inert for a moment (issue 15, item 6): a person
    // answers once its buttons are live again.
    let live = "return !document.getElementById('deny').disabled";
    webdriver.wait_for("the second card's answers", live, Duration::from_secs(5)).await.unwrap();
    webdriver.press_escape().await.unwrap();
    let refused =
        tokio::time::timeout(Duration::from_secs(30), behind).await.expect("the call returns").unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false) && text(&refused).contains("declined"), "{}", text(&refused));

    // Launching the app again (nothing waits now) opens its settings window, badged as the sandbox.
    app.launch_again().await.unwrap();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.expect("the settings window");
    let badge = webdriver
        .wait_for(
            "the sandbox badge",
            "const b = document.getElementById('sandbox-badge'); return !b.hidden && b.textContent",
            Duration::from_secs(30),
        )
        .await
        .unwrap();
    assert!(badge.as_str().unwrap_or_default().contains("Sandbox"), "{badge}");
    // The badge with the header around it: the window made as small as it goes (its least height is 400) for
    // one screenshot (WebKitWebDriver's element screenshots come out black under Xvfb).
    webdriver.set_size(620, 400).await.unwrap();
    webdriver.screenshot(&screenshot_path("sandbox-badge")).await.unwrap();
    webdriver.set_size(900, 640).await.unwrap();
    for page in ["account", "assistants", "advanced"] {
        open_page(&webdriver, page).await;
        webdriver.screenshot(&screenshot_path(&format!("settings-{page}"))).await.unwrap();
    }
    // Where sign-ins are kept, in a person's words; the keyring's service name only in the tooltip.
    open_page(&webdriver, "account").await;
    let kept = "const p = document.getElementById('kept-in'); return p && [p.textContent, p.title];";
    let kept = webdriver.wait_for("where sign-ins are kept", kept, Duration::from_secs(30)).await.unwrap();
    assert_eq!(kept[0], "Google sign-ins are kept in this computer's keyring.", "{kept}");
    assert!(kept[1].as_str().unwrap_or_default().contains("service \"gatehouse:"), "{kept}");
    // The pages' element helper flattens children at any depth: nested arrays never print "[object …]".
    let nested = r#"const { el } = window.Gatehouse;
        return el("p", {}, ["a", [el("b", {}, "b"), [["c", [el("i", {}, [["d"]])]]]]]).innerHTML;"#;
    let nested = webdriver.execute(nested, json!([])).await.unwrap();
    assert_eq!(nested, "a<b>b</b>c<i>d</i>");

    // Permissions lists the standing approval made on the card; revoking it there brings the card back.
    open_page(&webdriver, "permissions").await;
    let row_text = format!("const found = (() => {{ {FIND_REVOCABLE} }})(); return found && found[0].innerText;");
    let row = webdriver.wait_for("the standing approval's row", &row_text, Duration::from_secs(30)).await.unwrap();
    let row = row.as_str().unwrap_or_default().to_owned();
    assert!(row.contains("Update cells") && row.contains("Claude Desktop") && row.contains("“Budget 2026”"), "{row}");
    webdriver.screenshot(&screenshot_path("settings-permissions")).await.unwrap();
    let button = format!("return (() => {{ {FIND_REVOCABLE} }})()[1];");
    let button = webdriver.execute(&button, json!([])).await.unwrap();
    webdriver.click(&Element::from_value(&button).expect("the Revoke button")).await.unwrap();
    // Revoked once the page has drawn the list again: that follows the core's answer (the button it disables on
    // the click comes before it), so the call below cannot be decided while the grant still counts.
    let revoked = r##"return ![...document.querySelectorAll("#page-permissions tr[data-grant-id] button")]
        .some((b) => (b.getAttribute("aria-label") || b.textContent).trim().startsWith("Revoke"));"##;
    webdriver.wait_for("the grant revoked", revoked, Duration::from_secs(30)).await.unwrap();

    let again = start_write(&peer, write(&budget, "Sales", "J3", "asks again"));
    let [_, _, target]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
    assert!(target.contains("“Budget 2026”"), "{target}");
    webdriver.click_on("#deny").await.unwrap();
    let refused =
        tokio::time::timeout(Duration::from_secs(30), again).await.expect("the call returns").unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false), "{}", text(&refused));

    // Activity has every decision of this run.
    webdriver.switch_to_page("settings.html", Duration::from_secs(10)).await.unwrap();
    open_page(&webdriver, "activity").await;
    // The newest call is in view when the page opens (the filters fold into one line), its spreadsheet by name.
    let newest = r##"const row = document.querySelector("#page-activity tr[data-seq]");
        if (!row || !row.innerText.includes("“Budget 2026”")) return null;
        const box = row.getBoundingClientRect();
        return { text: row.innerText, in_view: box.bottom <= window.innerHeight };"##;
    let newest = webdriver.wait_for("the newest call, by name", newest, Duration::from_secs(30)).await.unwrap();
    assert_eq!(newest["in_view"], true, "the newest call is below the first screen: {newest}");
    webdriver.screenshot(&screenshot_path("settings-activity")).await.unwrap();

    assistant.cancel().await.unwrap();
}

/// The card's preview of a cell write as the page shows it: `[[cell, now, after], …]` and its "and N more".
const CELL_PREVIEW: &str = r##"
    const rows = [...document.querySelectorAll("#preview tr")].slice(1)
        .map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent));
    if (document.getElementById("preview").hidden || !rows.length) return null;
    const more = [...document.querySelectorAll("#preview p")].map((p) => p.textContent).join(" ");
    return [rows, more];
"##;

/// The values of `range` on `sheet` of spreadsheet `id` as the emulator holds them, read by the assistant.
async fn cells_of(peer: &Peer<RoleClient>, id: &str, sheet: &str, range: &str) -> Vec<Vec<String>> {
    let read = call(peer, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": sheet, "range": range }))
        .await
        .expect("get_sheet_data");
    let read: Value = serde_json::from_str(&text(&read)).expect("the cells as JSON");
    let rows = read["values"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .map(|row| {
            let row = row.as_array().cloned().unwrap_or_default();
            row.iter().map(|cell| cell.as_str().map_or_else(|| cell.to_string(), str::to_owned)).collect()
        })
        .collect()
}

/// Issue 18, item 4, in real WebKit: the card says in one sentence what a cell write does and previews the
/// cells before → after as the emulator holds them; after *Allow once* the emulator holds the "after". Then the
/// other kinds of card (a delete, sharing, mail), each with its sentence and preview, for screenshots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_in_real_webkit_say_what_a_call_does_and_preview_the_change() {
    let home = Home::new();
    let mut app = Desktop::launch(&home, &[]).await.expect("the app starts");
    let assistant = app.assistant(ASSISTANT, &["--sandbox"]).await.expect("an assistant through gatehouse serve");
    let peer = assistant.peer().clone();
    let budget = spreadsheet_id(&peer, "Budget 2026").await;
    let before = cells_of(&peer, &budget, "Summary", "A7:B7").await;
    assert_eq!(before, [["Annual budget", "60000"]], "the emulator's seed");

    let args = json!({ "spreadsheet_id": budget, "sheet": "Summary", "range": "A7", "data": [["Annual budget (revised)", 65000]] });
    let waiting = {
        let peer = peer.clone();
        tokio::spawn(async move { call(&peer, "update_cells", args).await })
    };
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the card window").clone();
    let [_, heading, _]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
    assert_eq!(heading, "write 2 cells in “Budget 2026” › “Summary” (A7:B7)");
    let preview = webdriver.wait_for("the cell preview", CELL_PREVIEW, Duration::from_secs(30)).await.unwrap();
    assert_eq!(
        preview[0],
        json!([["A7", "Annual budget", "Annual budget (revised)"], ["B7", "60000", "65000"]]),
        "the preview's before is what the emulator holds: {preview}"
    );
    let details_open = webdriver.execute("return document.getElementById('arguments-box').open", json!([])).await;
    assert_eq!(details_open.unwrap(), json!(false), "the raw arguments wait behind Details");
    webdriver.screenshot(&screenshot_path("card-cells")).await.unwrap();
    webdriver.click_on("#allow-once").await.unwrap();
    let done =
        tokio::time::timeout(Duration::from_secs(30), waiting).await.expect("the call returns").unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(cells_of(&peer, &budget, "Summary", "A7:B7").await, [["Annual budget (revised)", "65000"]]);

    // The other kinds: each card's sentence and preview, then Deny.
    let found = call(&peer, "search_files", json!({ "query": "Meeting notes" })).await.expect("search_files");
    let found: Value = serde_json::from_str(&text(&found)).expect("search results");
    let notes = found["files"][0]["id"].as_str().expect("the meeting notes").to_owned();
    let kinds = [
        ("card-delete", "delete_file", json!({ "file_id": notes }), "move “", "to the trash"),
        (
            "card-share",
            "share_file",
            json!({ "file_id": notes, "permissions": [{ "email_address": "anna@example.com", "role": "writer" }] }),
            "share “",
            "with anna@example.com as an editor",
        ),
        (
            "card-mail",
            "send_message",
            json!({ "to": ["ann@example.com", "bo@example.com"], "cc": "cy@example.com", "subject": "Budget 2026",
                    "body": "Hi both,\n\nthe revised budget is in the Summary sheet.\nThanks" }),
            "send an email to 3 people:",
            "subject “Budget 2026”",
        ),
    ];
    for (shot, tool, args, starts, holds) in kinds {
        let waiting = {
            let peer = peer.clone();
            tokio::spawn(async move { call(&peer, tool, args).await })
        };
        let [_, heading, _]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
        assert!(heading.starts_with(starts) && heading.contains(holds), "{tool}: {heading}");
        let preview = "const p = document.getElementById('preview'); return !p.hidden && p.textContent";
        let preview = webdriver.wait_for("the preview", preview, Duration::from_secs(30)).await.unwrap();
        let preview = preview.as_str().unwrap_or_default().to_owned();
        match tool {
            "delete_file" => assert!(preview.contains("“Meeting notes”") && preview.contains("trash"), "{preview}"),
            "share_file" => assert!(preview.contains("Who has access now"), "{preview}"),
            _ => assert!(
                preview.contains("To: ann@example.com, bo@example.com") && preview.contains("Hi both,"),
                "{preview}"
            ),
        }
        webdriver.screenshot(&screenshot_path(shot)).await.unwrap();
        webdriver.click_on("#deny").await.unwrap();
        let refused = tokio::time::timeout(Duration::from_secs(30), waiting).await.expect("returns").unwrap().unwrap();
        assert!(refused.is_error.unwrap_or(false), "{tool} was denied");
        webdriver
            .wait_for("the card to go away", "return document.visibilityState === 'hidden'", Duration::from_secs(10))
            .await
            .unwrap();
    }
    assistant.cancel().await.unwrap();
}

/// Finds the first standing approval that can still be revoked: a `<tr data-grant-id>` with a button whose
/// accessible name starts with "Revoke". A function body returning `[row, button]` or null.
const FIND_REVOCABLE: &str = r##"
    for (const row of document.querySelectorAll("#page-permissions tr[data-grant-id]")) {
        const revoke = [...row.querySelectorAll("button")].find((b) =>
            (b.getAttribute("aria-label") || b.textContent).trim().startsWith("Revoke"));
        if (revoke && !revoke.disabled) return [row, revoke];
    }
    return null;"##;

/// Shows a settings page by its tab, and waits until it has drawn itself.
/// What the card shows of Google's form: `[form shown, Google's message, "Google asks too" shown, Always allow
/// shown, the Allow button's words]`.
const GOOGLE_FORM_ON_CARD: &str = r#"
    const shown = (id) => { const e = document.getElementById(id); return !e.hidden && e.offsetParent !== null; };
    return [shown("google-form"), document.getElementById("google-message").textContent, shown("google-too"),
            shown("always"), document.getElementById("allow-once").textContent];
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_google_form_in_real_webkit_is_the_only_card_allow_sends_it_and_deny_declines() {
    let home = Home::new();
    // The default backend, `both`: update_cells goes to the emulator's Sheets MCP server, which asks at every
    // call.
    let both = [("GATEHOUSE_GOOGLE_BACKEND", OsStr::new("both"))];
    let mut app = Desktop::launch(&home, &both).await.expect("the desktop app starts and serves MCP");
    let assistant = app.assistant(ASSISTANT, &[]).await.expect("an assistant through gatehouse serve");
    let peer = assistant.peer().clone();
    let budget = spreadsheet_id(&peer, "Budget 2026").await;

    let first = start_write(&peer, write(&budget, "Sales", "K1", "approved on Google's form"));
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the card window").clone();
    let [who, heading, target]: [String; 3] = card_on_screen(&webdriver).await.try_into().unwrap();
    assert_eq!(who, format!("“{ASSISTANT}” (says it is) wants to"));
    assert_eq!(heading, "Update cells", "a Google form card has the tool's title: Google's message says what it asks");
    assert!(target.contains("“Budget 2026”"), "{target}");
    let shown = webdriver.execute(GOOGLE_FORM_ON_CARD, json!([])).await.unwrap();
    let message = shown[1].as_str().unwrap_or_default().to_owned();
    assert_eq!(shown[0], json!(true), "Google's form is on the card");
    assert!(message.contains("update values in the spreadsheet “Budget 2026”"), "Google's own words: {message}");
    assert_eq!(shown[2], json!(false), "Gatehouse left the call to Google: no \"Google asks too\"");
    assert_eq!(shown[3], json!(false), "no Always allow on Google's form");
    assert_eq!(shown[4], json!("Allow"));
    webdriver.screenshot(&screenshot_path("card-google-form")).await.unwrap();

    webdriver.click_on("#allow-once").await.unwrap();
    let done = tokio::time::timeout(Duration::from_secs(30), first).await.expect("the call returns").unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    let read = call(&peer, "get_sheet_data", json!({ "spreadsheet_id": budget, "sheet": "Sales", "range": "K1" }))
        .await
        .unwrap();
    assert!(text(&read).contains("approved on Google's form"), "Google wrote it: {}", text(&read));

    // The next write asks again (no grant answers Google's form); Deny declines it, and nothing is written.
    let second = start_write(&peer, write(&budget, "Sales", "K2", "declined"));
    let live = "return document.visibilityState === 'visible' && !document.getElementById('deny').disabled
        && document.getElementById('arguments').textContent.includes('declined')";
    webdriver.wait_for("the second form's card", live, Duration::from_secs(30)).await.unwrap();
    webdriver.click_on("#deny").await.unwrap();
    let refused =
        tokio::time::timeout(Duration::from_secs(30), second).await.expect("the call returns").unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false), "{}", text(&refused));
    assert!(text(&refused).contains("declined Google's approval form"), "{}", text(&refused));
    let read = call(&peer, "get_sheet_data", json!({ "spreadsheet_id": budget, "sheet": "Sales", "range": "K2" }))
        .await
        .unwrap();
    assert!(!text(&read).contains("declined"), "nothing written: {}", text(&read));
}

async fn open_page(webdriver: &WebDriver, page: &str) {
    webdriver.click_on(&format!("#tab-{page}")).await.unwrap();
    until_page_drawn(webdriver, page).await;
}

async fn until_page_drawn(webdriver: &WebDriver, page: &str) {
    let drawn = format!(
        "const s = document.getElementById('page-{page}'); return !s.hidden && !!s.querySelector('h2') && s.innerText.length > 40"
    );
    webdriver.wait_for(&format!("the {page} page"), &drawn, Duration::from_secs(30)).await.unwrap();
}

/// Signed in with a service-account key (the emulator plays Google), the *Account* page says, as cards, what a
/// service account cannot do and what to do instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_service_account_key_the_account_page_shows_its_limitations() {
    const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";
    let google = google_fake::FakeGoogle::start().await.expect("the Google emulator");
    google.world().service_accounts.push(google_fake::ServiceAccountKey {
        email: ROBOT.into(),
        public_key_pem: include_str!("../data/test-service-account.pub.pem").into(),
    });
    let home = Home::new();
    let key = home.path().join("key.json");
    let key_json = json!({
        "type": "service_account",
        "private_key_id": "k1",
        "private_key": include_str!("../data/test-service-account.pem"),
        "client_email": ROBOT,
        "token_uri": "https://oauth2.googleapis.com/token",
    });
    std::fs::write(&key, key_json.to_string()).unwrap();
    let endpoint = google.url();
    let env: [(&str, &std::ffi::OsStr); 4] = [
        ("SERVICE_ACCOUNT_PATH", key.as_os_str()),
        ("GATEHOUSE_GOOGLE_ENDPOINT", endpoint.as_ref()),
        ("GATEHOUSE_TOKEN_STORE", "file".as_ref()),
        ("NO_GCE_CHECK", "true".as_ref()),
    ];
    let mut app = Desktop::launch(&home, &env).await.expect("the desktop app starts with the key");

    // The app starts to the tray; launching it again opens the settings window on Account.
    app.launch_again().await.unwrap();
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the settings window").clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    let mode =
        webdriver.wait_for("the header", "return document.getElementById('mode').textContent", Duration::from_secs(30));
    let mode = mode.await.unwrap();
    assert!(mode.as_str().unwrap_or_default().contains(ROBOT), "{mode}");
    let badge_hidden = webdriver.execute("return document.getElementById('sandbox-badge').hidden", json!([])).await;
    assert_eq!(badge_hidden.unwrap(), true, "no sandbox badge when signed in");

    let limitations = r##"
        const cards = [...document.querySelectorAll("#page-account article.card.limitation")];
        return cards.length >= 2 && cards.map((card) => [
            card.dataset.category,
            card.querySelector("h3").textContent,
            card.querySelectorAll(".alternatives li").length,
        ]);
    "##;
    let cards = webdriver.wait_for("the limitation cards", limitations, Duration::from_secs(30)).await.unwrap();
    let cards: Vec<(String, String, usize)> = serde_json::from_value(cards.clone()).expect("the cards");
    let categories: Vec<&str> = cards.iter().map(|(category, _, _)| category.as_str()).collect();
    assert!(
        categories.contains(&"no_drive_storage_quota") && categories.contains(&"no_personal_drive_identity"),
        "{cards:?}"
    );
    assert!(cards.iter().all(|(_, title, alternatives)| !title.is_empty() && *alternatives > 0), "{cards:?}");
    // The limitations in view, under their heading.
    let heading = "const first = document.querySelector('#page-account article.card.limitation');
        (first.parentElement.previousElementSibling || first).scrollIntoView({ block: 'start' }); return true;";
    webdriver.execute(heading, json!([])).await.unwrap();
    webdriver.screenshot(&screenshot_path("settings-account-service-account")).await.unwrap();
}

/// With the desktop's theme dark, the card is dark too (it follows the OS, as the person set it).
/// An app in a new home (with `env`) whose card shows a write of `value` to "Budget 2026", sent by an assistant
/// through `gatehouse serve --sandbox`; WebDriver is on the card. The app, the assistant (kept connected), the
/// call waiting for its answer, and WebDriver.
/// The app's home comes back with it: the folder is deleted when the `Home` is dropped, and an app whose
/// database file is gone finds no tables on the next connection it opens.
async fn a_card_on_screen(
    env: &[(&str, &OsStr)],
    value: &str,
) -> (Home, Desktop, Assistant, tokio::task::JoinHandle<anyhow::Result<rmcp::model::CallToolResult>>, WebDriver) {
    let home = Home::new();
    let mut app = Desktop::launch(&home, env).await.expect("the app starts");
    let assistant = app.assistant(ASSISTANT, &["--sandbox"]).await.expect("an assistant through gatehouse serve");
    let budget = spreadsheet_id(assistant.peer(), "Budget 2026").await;
    let waiting = start_write(assistant.peer(), write(&budget, "Summary", "D1", value));
    let webdriver = app.webdriver().await.expect("WebDriver attaches to the card window").clone();
    card_on_screen(&webdriver).await;
    (home, app, assistant, waiting, webdriver)
}

/// Waits for the call the card answered to come back refused.
async fn refused(waiting: tokio::task::JoinHandle<anyhow::Result<rmcp::model::CallToolResult>>) {
    let refused = tokio::time::timeout(Duration::from_secs(30), waiting).await.expect("the call returns").unwrap();
    assert!(refused.unwrap().is_error.unwrap_or(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_follows_a_dark_desktop_theme() {
    let (_home, _app, _assistant, waiting, webdriver) =
        a_card_on_screen(&[("GTK_THEME", "Adwaita:dark".as_ref())], "in the dark").await;
    let dark =
        "return [matchMedia('(prefers-color-scheme: dark)').matches, getComputedStyle(document.body).backgroundColor]";
    let dark = webdriver.execute(dark, json!([])).await.unwrap();
    assert_eq!(dark, json!([true, "rgb(28, 31, 36)"]), "the card's scheme and background");
    webdriver.screenshot(&screenshot_path("card-dark")).await.unwrap();
    webdriver.click_on("#deny").await.unwrap();
    refused(waiting).await;
}

/// Whether the page fits its window's width: nothing to scroll sideways for (what is wider, like a long address,
/// wraps or scrolls inside its own box); otherwise the page's and the window's widths in CSS pixels.
const FITS: &str = r#"
const page = document.documentElement;
return page.scrollWidth <= page.clientWidth + 1 ? true : [page.scrollWidth, page.clientWidth];
"#;

/// Zooms the current window's page to 200% as a person does, pressing Ctrl+= (20% a press) until the page is
/// half as many CSS pixels wide. Pressed one at a time: a press made while the window takes the focus is lost.
async fn zoom_to_200(webdriver: &WebDriver) {
    let width =
        || async { webdriver.execute("return innerWidth", json!([])).await.unwrap().as_f64().expect("a width") };
    let before = width().await;
    for _ in 0..10 {
        let was = width().await;
        if (was - before / 2.0).abs() <= 1.0 {
            return;
        }
        webdriver.zoom_in(1).await.unwrap();
        let changed = format!("return innerWidth !== {was}");
        let _ = webdriver.wait_for("the page zoomed in", &changed, Duration::from_secs(2)).await;
    }
    panic!("the page did not reach 200% zoom: {} CSS pixels wide, from {before}", width().await);
}

/// At 200% zoom (Ctrl+=) the card and every settings page still fit their windows' width, so nothing needs
/// scrolling sideways, and the card still answers from the keyboard. Screenshots for a look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_and_the_settings_pages_fit_their_windows_at_200_percent_zoom() {
    let (_home, app, _assistant, waiting, webdriver) = a_card_on_screen(&[], "zoomed").await;
    zoom_to_200(&webdriver).await;
    assert_eq!(webdriver.execute(FITS, json!([])).await.unwrap(), json!(true), "the card at 200%");
    webdriver.screenshot_zoomed(&screenshot_path("card-zoom-200"), 2.0).await.unwrap();
    webdriver.press_escape().await.unwrap();
    refused(waiting).await;

    app.launch_again().await.unwrap();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await.unwrap();
    zoom_to_200(&webdriver).await;
    for page in ["account", "assistants", "permissions", "activity", "advanced"] {
        // WebDriver's pointer misses under page zoom: the tab is pressed from the page, as Enter on it would.
        let press = format!("document.getElementById('tab-{page}').click(); return true");
        webdriver.execute(&press, json!([])).await.unwrap();
        until_page_drawn(&webdriver, page).await;
        let fits = webdriver.execute(FITS, json!([])).await.unwrap();
        if page == "activity" {
            webdriver.screenshot_zoomed(&screenshot_path("settings-activity-zoom-200"), 2.0).await.unwrap();
        }
        assert_eq!(fits, json!(true), "the {page} page at 200%");
    }
}
