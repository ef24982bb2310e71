//! Sign-in through the real binary: `gatehouse login --no-browser` (the test plays the browser), `status`,
//! `serve` acting as the signed-in person, `logout`; and the messages for a keychain that is missing or locked.
//! The keychain is the real Secret Service that scripts/test.sh starts (gnome-keyring under dbus-run-session).

use std::process::Stdio;
use std::time::Duration;

use gatehouse_e2e::{Home, call, gatehouse, stdio_client, text};
use google_fake::{Account, ConsentMode, FakeGoogle, Identity, OAuthClient};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const CLIENT_ID: &str = "123-e2e.apps.googleusercontent.com";
const CLIENT_SECRET: &str = "GOCSPX-e2e";
const USER: &str = "ada@example.com";
const OTHER_USER: &str = "grace@example.com";
const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";

fn keychain_required() -> bool {
    std::env::var("GATEHOUSE_REQUIRE_KEYCHAIN").as_deref() == Ok("1")
}

/// `gatehouse` pointed at the emulator with the test's OAuth client, every sign-in setting cleared.
fn signin_command(home: &Home, google: &FakeGoogle) -> Command {
    let mut command = gatehouse(home);
    command
        .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
        .env("GATEHOUSE_OAUTH_CLIENT_ID", CLIENT_ID)
        .env("GATEHOUSE_OAUTH_CLIENT_SECRET", CLIENT_SECRET)
        .env_remove("CREDENTIALS_PATH")
        .env_remove("AUTH_METHOD")
        .env_remove("GATEHOUSE_TOKEN_STORE")
        .env("RUST_BACKTRACE", "1");
    command
}

async fn output(mut command: Command, args: &[&str]) -> (bool, String, String) {
    let out = command.args(args).stdin(Stdio::null()).output().await.expect("run gatehouse");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

async fn emulator() -> FakeGoogle {
    let google = FakeGoogle::start().await.unwrap();
    let mut world = google.world();
    world.oauth_clients.push(OAuthClient::installed(CLIENT_ID, CLIENT_SECRET));
    world.accounts.push(Account::user(USER, "Ada Lovelace"));
    world.consent = ConsentMode::Approve(Identity::user(USER));
    drop(world);
    google
}

/// `gatehouse login --no-browser ARGS`: the URL comes on stdout; the test's "browser" follows it to the loopback
/// listener. Returns what the command said on stderr.
async fn login_through_the_binary(mut login: Command, google: &FakeGoogle, args: &[&str]) -> String {
    login.args(["login", "--no-browser", "--timeout", "30"]).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = login.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
    assert!(url.starts_with(&format!("{}/o/oauth2/v2/auth?", google.url())), "{url}");
    let page = reqwest::get(&url).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("You can close this tab"));
    let done = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    assert!(done.status.success(), "{stderr}");
    stderr
}

#[tokio::test]
async fn login_status_serve_and_logout_through_the_binary() {
    let google = emulator().await;
    let id = google.world().create_spreadsheet("Budget 2026", &[("Sales", vec![])], &Identity::user(USER));
    let home = Home::new();
    let (ok, _, stderr) = output(signin_command(&home, &google), &["status"]).await;
    if !ok && !keychain_required() {
        eprintln!("SKIPPED: no usable keychain here: {stderr}");
        return;
    }
    assert!(ok, "{stderr}");

    let stderr = login_through_the_binary(signin_command(&home, &google), &google, &[]).await;
    assert!(stderr.contains(&format!("Signed in to Google as {USER}")), "{stderr}");

    let (ok, stdout, stderr) = output(signin_command(&home, &google), &["status"]).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains(&format!("* {USER} (active)")), "{stdout}");
    assert!(stdout.contains(CLIENT_ID), "{stdout}");

    // `serve` acts as the signed-in person, and says so in server://auth-status.
    let mut serve = signin_command(&home, &google);
    serve.arg("serve");
    let client = stdio_client(serve).await.unwrap();
    let sheets = call(&client, "list_sheets", json!({ "spreadsheet_id": id })).await.unwrap();
    assert!(!sheets.is_error.unwrap_or(false), "{}", text(&sheets));
    assert!(text(&sheets).contains("Sales"));
    let status =
        client.peer().read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status")).await.unwrap();
    let status = serde_json::to_string(&status).unwrap();
    assert!(status.contains(r#"\"auth_method\":\"oauth\""#), "{status}");
    assert!(status.contains(USER), "{status}");

    // Google revokes mid-session: the server keeps answering, with the sign-in message.
    google.world().revoke_all_tokens_of(USER);
    let refused = call(&client, "list_sheets", json!({ "spreadsheet_id": id })).await.unwrap();
    assert!(refused.is_error.unwrap_or(false));
    assert!(text(&refused).contains("sign in to Google again"), "{}", text(&refused));
    let status =
        client.peer().read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status")).await.unwrap();
    let status = serde_json::to_string(&status).unwrap();
    assert!(status.contains(r#"\"auth_method\":\"none\""#), "the status follows the sign-out: {status}");
    client.cancel().await.unwrap();

    let (ok, _, stderr) = output(signin_command(&home, &google), &["logout"]).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains(&format!("Signed out {USER}")), "{stderr}");
    let (ok, stdout, _) = output(signin_command(&home, &google), &["status"]).await;
    assert!(ok && stdout.contains("none signed in"), "{stdout}");
    assert_eq!(google.world().requests.iter().filter(|r| r.path == "/revoke").count(), 1);
}

#[tokio::test]
async fn a_missing_keychain_says_which_and_what_to_do_without_a_backtrace() {
    let google = emulator().await;
    let home = Home::new();
    let mut command = signin_command(&home, &google);
    command.env_remove("DBUS_SESSION_BUS_ADDRESS").env_remove("XDG_RUNTIME_DIR");
    let (ok, _, stderr) = output(command, &["status"]).await;
    assert!(!ok);
    assert!(stderr.contains("no D-Bus session bus"), "{stderr}");
    assert!(stderr.contains("GATEHOUSE_TOKEN_STORE=file"), "{stderr}");
    assert!(!stderr.contains("Stack backtrace"), "{stderr}");

    let mut command = signin_command(&home, &google);
    command.env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
    let (ok, _, stderr) = output(command, &["login", "--no-browser"]).await;
    assert!(!ok);
    assert!(stderr.contains("The Secret Service (gnome-keyring) is not running"), "{stderr}");
    assert!(!stderr.contains("Stack backtrace"), "{stderr}");
}

#[tokio::test]
async fn a_locked_keychain_says_so() {
    if which("dbus-run-session").is_none() || which("gnome-keyring-daemon").is_none() {
        assert!(!keychain_required(), "scripts/install-deps.sh installs dbus and gnome-keyring");
        eprintln!("SKIPPED: dbus-run-session or gnome-keyring-daemon is missing");
        return;
    }
    let google = emulator().await;
    let home = Home::new();
    let keyring_home = tempfile::tempdir().unwrap();
    let gatehouse_bin = gatehouse_e2e::gatehouse_bin();
    // First session: a login keyring with a password and one Gatehouse entry. Second session: gnome-keyring
    // starts with that keyring locked, and there is no display to ask for the password.
    let service = format!("gatehouse:{}", home.path().display());
    // The daemon answers `--unlock` before it may own the Secret Service name, and a store that races it can be
    // refused or land in a second, D-Bus-activated daemon's keyring; so the store is retried until a lookup reads
    // it back, and the keyring file is checked on disk before the second session relies on it.
    let seed = format!(
        "echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; \
         for try in $(seq 50); do \
           printf '%s' '{{\"active\":null,\"accounts\":[]}}' | secret-tool store --label=x service '{service}' username accounts \
             && secret-tool lookup service '{service}' username accounts >/dev/null && exit 0; \
           sleep 0.1; \
         done; exit 1"
    );
    let seeded = std::process::Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &seed])
        .env("HOME", keyring_home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(seeded.status.success(), "seeding the keyring failed: {}", String::from_utf8_lossy(&seeded.stderr));
    let keyrings = keyring_home.path().join(".local/share/keyrings");
    let saved = std::fs::read_dir(&keyrings)
        .map(|entries| entries.flatten().any(|entry| entry.path().extension().is_some_and(|ext| ext == "keyring")))
        .unwrap_or(false);
    assert!(saved, "no keyring file was saved in {}", keyrings.display());
    let mut locked = Command::new("dbus-run-session");
    locked
        .args(["--", gatehouse_bin.to_str().unwrap(), "status"])
        .env("HOME", keyring_home.path())
        .env("GATEHOUSE_HOME", home.path())
        .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
        .env_remove("GATEHOUSE_TOKEN_STORE")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let (ok, stdout, stderr) = tokio::time::timeout(Duration::from_secs(60), output(locked, &[])).await.unwrap();
    assert!(!ok, "status succeeded with the keyring locked: {stdout}{stderr}");
    assert!(stderr.contains("is locked"), "{stderr}");
    assert!(stderr.contains("gnome-keyring-daemon --unlock"), "{stderr}");
}

#[tokio::test]
async fn the_opt_in_token_file_is_warned_about() {
    let google = emulator().await;
    let home = Home::new();
    let mut command = signin_command(&home, &google);
    command.env("GATEHOUSE_TOKEN_STORE", "file");
    let (ok, stdout, stderr) = output(command, &["status"]).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains("GATEHOUSE_TOKEN_STORE=file"), "{stdout}");
    assert!(stdout.contains("Warning: Google sign-in tokens are kept in the file"), "{stdout}");
}

/// `gatehouse login --products`: Google is asked only for the products named; an unknown one is refused before
/// anything reaches Google, naming the ones there are.
#[tokio::test]
async fn login_asks_only_for_the_products_named() {
    let google = emulator().await;
    let home = Home::new();
    let command = |home: &Home| {
        let mut command = signin_command(home, &google);
        command.env("GATEHOUSE_TOKEN_STORE", "file");
        command
    };
    let (ok, _, stderr) = output(command(&home), &["login", "--no-browser", "--products", "sheets,photos"]).await;
    assert!(!ok);
    assert!(stderr.contains("\"photos\" is not a Google product"), "{stderr}");
    assert!(stderr.contains("sheets, docs, drive, calendar, gmail"), "{stderr}");
    assert!(google.world().oauth.authorize_requests.is_empty(), "a refused choice reached Google");

    let stderr = login_through_the_binary(command(&home), &google, &["--products", "sheets,drive"]).await;
    assert!(stderr.contains(&format!("Signed in to Google as {USER}")), "{stderr}");
    let scopes = google.world().oauth.last_scopes_asked();
    assert_eq!(
        scopes,
        [
            "email",
            "https://www.googleapis.com/auth/drive",
            "https://www.googleapis.com/auth/drive.activity.readonly",
            "https://www.googleapis.com/auth/spreadsheets",
            "openid"
        ]
    );
}

#[tokio::test]
async fn use_switches_the_active_account_among_those_signed_in() {
    let google = emulator().await;
    google.world().accounts.push(Account::user(OTHER_USER, "Grace Hopper"));
    let home = Home::new();
    let command = || {
        let mut command = signin_command(&home, &google);
        command.env("GATEHOUSE_TOKEN_STORE", "file");
        command
    };
    login_through_the_binary(command(), &google, &[]).await;
    google.world().consent = ConsentMode::Approve(Identity::user(OTHER_USER));
    login_through_the_binary(command(), &google, &["--account", OTHER_USER]).await;
    let (_, stdout, _) = output(command(), &["status"]).await;
    assert!(
        stdout.contains(&format!("* {OTHER_USER} (active)")) && stdout.contains(&format!("Acting as: {OTHER_USER}")),
        "{stdout}"
    );

    let (ok, _, stderr) = output(command(), &["use", USER]).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains(&format!("{USER} is now the active account")), "{stderr}");
    let (_, stdout, _) = output(command(), &["status"]).await;
    assert!(
        stdout.contains(&format!("* {USER} (active)")) && stdout.contains(&format!("Acting as: {USER}")),
        "{stdout}"
    );

    let (ok, _, stderr) = output(command(), &["use", "nobody@example.com"]).await;
    assert!(!ok);
    assert!(stderr.contains("nobody@example.com is not signed in") && stderr.contains(OTHER_USER), "{stderr}");
    assert!(!stderr.contains("stack backtrace"), "{stderr}");
}

#[tokio::test]
async fn status_and_serve_follow_auth_method_and_name_what_a_service_account_cannot_do() {
    let google = emulator().await;
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
    let command = |vars: &[(&str, &std::ffi::OsStr)]| {
        let mut command = signin_command(&home, &google);
        command.env("GATEHOUSE_TOKEN_STORE", "file").env("NO_GCE_CHECK", "true").envs(vars.iter().copied());
        command
    };

    let (ok, stdout, stderr) = output(command(&[("SERVICE_ACCOUNT_PATH", key.as_os_str())]), &["status"]).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains(&format!("Acting as: {ROBOT} (method service_account")), "{stdout}");
    assert!(stdout.contains("A service account has no Drive storage of its own"), "{stdout}");
    assert!(stdout.contains("create_spreadsheet") && stdout.contains("transfer_ownership"), "{stdout}");

    // The same key found through ADC: the method is adc, the identity still a service account.
    let vars = [("AUTH_METHOD", std::ffi::OsStr::new("adc")), ("GOOGLE_APPLICATION_CREDENTIALS", key.as_os_str())];
    let mut serve = command(&vars);
    serve.arg("serve");
    let client = stdio_client(serve).await.unwrap();
    let status =
        client.peer().read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status")).await.unwrap();
    let status = serde_json::to_string(&status).unwrap();
    assert!(status.contains(r#"\"auth_method\":\"adc\""#), "{status}");
    assert!(status.contains(r#"\"is_service_account_identity\":true"#), "{status}");
    client.cancel().await.unwrap();

    // A pinned method with nothing to find stops at start, saying what to set.
    let (ok, _, stderr) =
        output(command(&[("AUTH_METHOD", std::ffi::OsStr::new("service_account"))]), &["serve"]).await;
    assert!(!ok);
    assert!(stderr.contains("SERVICE_ACCOUNT_PATH"), "{stderr}");
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|path| path.is_file())
}
