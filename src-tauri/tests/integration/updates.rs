//! The app's updates end to end against a local update server: Tauri's real updater plugin on the mock runtime
//! fetches a manifest over HTTP from a small server in this test, downloads the artefact it names, and checks its
//! minisign signature against a TEST key pair (updates/: made with `tauri signer generate`, used nowhere but
//! here; see updates/README.md).
//!
//! How far it goes: a properly signed update is offered (the window's `updates_status`), downloaded and its
//! signature verified, byte for byte what the server holds. It is not installed: on Linux that runs `pkexec
//! dpkg -i`, which would install a package on this machine (scripts/test-install.sh installs the real one).
//! A download whose signature is wrong — the bytes changed, another key, or signed for another version than
//! the manifest announces — is refused by *Install update* with a plain message, and nothing is installed.

use crate::mock;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use gatehouse_desktop::updates::{self, Source, Updates};
use gatehouse_desktop::{context, with_commands};
use mock::{assert_refused_by_acl, error_text, invoke, window};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager};

const PUBKEY: &str = include_str!("updates/test.key.pub");
const ARTEFACT: &[u8] = include_bytes!("updates/update.bin");
/// `update.bin` signed with the test key for version 0.2.0.
const SIGNATURE: &str = include_str!("updates/update.bin.sig");
/// `update.bin` signed for version 0.2.0 with another key than the test key.
const STRANGER_SIGNATURE: &str = include_str!("updates/stranger.sig");

/// An update server on a free loopback port: `/latest.json` is the manifest, `/update.bin` the artefact.
/// Serves until the test ends.
struct UpdateServer {
    url: String,
}

impl UpdateServer {
    /// Announces `version` with `signature` for the artefact, which is served as `artefact`.
    fn start(version: &str, signature: &str, artefact: Vec<u8>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        // The manifest Tauri's updater reads (a "static JSON file"): this platform's entry, as an unpatched
        // test binary looks it up ("{os}-{arch}").
        let platform = format!("linux-{}", std::env::consts::ARCH);
        let manifest = json!({
            "version": version,
            "notes": "Cards say what will change.",
            "pub_date": "2026-12-01T12:00:00Z",
            "platforms": { platform: { "signature": signature, "url": format!("{url}/update.bin") } },
        })
        .to_string()
        .into_bytes();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut request_line = String::new();
                let mut reader = BufReader::new(stream.try_clone().expect("the connection"));
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                // The rest of the request's head.
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                    line.clear();
                }
                let path = request_line.split_whitespace().nth(1).unwrap_or_default();
                let (status, kind, body) = match path {
                    "/latest.json" => ("200 OK", "application/json", manifest.as_slice()),
                    "/update.bin" => ("200 OK", "application/octet-stream", artefact.as_slice()),
                    _ => ("404 Not Found", "text/plain", b"not here".as_slice()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body));
            }
        });
        Self { url }
    }

    fn source(&self) -> Source {
        Source {
            pubkey: PUBKEY.trim().to_owned(),
            endpoints: vec![format!("{}/latest.json", self.url).parse().expect("the manifest's URL")],
        }
    }
}

/// The app on the mock runtime with the updater plugin and its real configuration (tauri.conf.json:
/// `requireSignedVersion`), updates coming from `source`.
fn app(source: Option<Source>) -> App<MockRuntime> {
    let app = with_commands(mock_builder().plugin(updates::plugin()))
        .build(context())
        .expect("the app builds on the mock runtime");
    app.manage(Updates::new(source));
    app
}

#[tokio::test(flavor = "multi_thread")]
async fn a_properly_signed_update_is_offered_downloaded_and_its_signature_verified() {
    let server = UpdateServer::start("0.2.0", SIGNATURE, ARTEFACT.to_vec());
    let app = app(Some(server.source()));
    let settings = window(&app, "settings");

    let before = invoke(&settings, "updates_status", json!({})).expect("the status");
    assert_eq!(before["state"], "not_checked");
    assert_eq!(before["banner"], false);

    let view = updates::check(app.handle(), false).await.expect("updates are set up");
    assert_eq!(view.state, "available", "{view:?}");
    let shown = invoke(&settings, "updates_status", json!({})).expect("the status");
    assert_eq!(shown["state"], "available");
    assert_eq!(shown["version"], "0.2.0");
    assert_eq!(shown["notes"], "Cards say what will change.");
    assert_eq!(shown["can_install"], true);
    assert_eq!(shown["banner"], true);
    assert_eq!(shown["message"], format!("Gatehouse 0.2.0 is available (you have {}).", env!("CARGO_PKG_VERSION")));

    // The person clicks Install: the download is checked against the test key before anything else happens.
    let (update, bytes) = updates::download_checked(app.handle()).await.expect("a good signature is accepted");
    assert_eq!(bytes, ARTEFACT, "what was downloaded and verified is what the server holds");
    assert_eq!(update.version, "0.2.0");
    // The plugin's own check, as `install` runs it first, agrees.
    update.verify(&bytes).expect("the signature verifies");
    let installing = invoke(&settings, "updates_status", json!({})).expect("the status");
    assert_eq!(installing["state"], "installing");
    assert_eq!(installing["can_install"], false, "one install at a time");
}

/// Offers a bad update and clicks *Install update* in the window: the refusal, and the status afterwards.
async fn refused(version: &str, signature: &str, artefact: Vec<u8>) -> (String, Value) {
    let server = UpdateServer::start(version, signature, artefact);
    let app = app(Some(server.source()));
    let settings = window(&app, "settings");
    let view = updates::check(app.handle(), false).await.expect("updates are set up");
    assert_eq!(view.state, "available", "the manifest itself is fine: {view:?}");
    let refusal = error_text(invoke(&settings, "updates_install", json!({})));
    let after = invoke(&settings, "updates_status", json!({})).expect("the status");
    (refusal, after)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_signature_is_refused_with_a_plain_message_and_nothing_is_installed() {
    let mut tampered = ARTEFACT.to_vec();
    tampered[4] ^= 1;
    let cases = [
        ("the artefact changed after it was signed", "0.2.0", SIGNATURE, tampered),
        ("signed with another key", "0.2.0", STRANGER_SIGNATURE, ARTEFACT.to_vec()),
        // A manifest pairing a newer version number with an older, genuinely signed release (a downgrade).
        ("signed for another version than announced", "0.3.0", SIGNATURE, ARTEFACT.to_vec()),
    ];
    for (case, version, signature, artefact) in cases {
        let (refusal, after) = refused(version, signature, artefact).await;
        assert_eq!(
            refusal,
            format!(
                "Gatehouse refused the update to {version}: it is not signed with Gatehouse's release key, so it may have been tampered with. Nothing was installed."
            ),
            "{case}"
        );
        assert_eq!(after["state"], "failed", "{case}");
        assert_eq!(after["can_install"], false, "{case}: the refused download is not offered again");
        assert_eq!(after["banner"], true, "{case}: the window says so");
        assert_eq!(after["message"], Value::String(refusal), "{case}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_is_installed_without_an_offer_and_only_the_settings_window_may_ask() {
    let server = UpdateServer::start("0.2.0", SIGNATURE, ARTEFACT.to_vec());
    let app = app(Some(server.source()));
    // Before any look found anything, Install has nothing to install.
    let settings = window(&app, "settings");
    let refusal = error_text(invoke(&settings, "updates_install", json!({})));
    assert!(refusal.contains("There is no update to install"), "{refusal}");
    // The card window, and any other, may not ask; nor may any window use the plugin's own commands.
    let card = window(&app, "card");
    for command in ["updates_status", "updates_install"] {
        assert_refused_by_acl(invoke(&card, command, json!({})), command, "the card window");
    }
    for command in ["check", "download_and_install", "install"] {
        let reply = invoke(&settings, &format!("plugin:updater|{command}"), json!({}));
        let text = error_text(reply);
        assert!(text.contains("not allowed"), "plugin:updater|{command} from the settings window: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_build_without_a_release_key_never_looks() {
    // The repository's configuration has no release key (docs/updates.md): such a build has no source.
    let probe = app(None);
    assert!(Source::from_config(probe.handle()).is_none(), "tauri.conf.json must not carry a release key");
    let view = updates::check(probe.handle(), true).await.expect("the tracker");
    assert_eq!(view.state, "off");
    assert!(!view.banner, "no banner without a source");
    let settings = window(&probe, "settings");
    let refusal = error_text(invoke(&settings, "updates_install", json!({})));
    assert!(refusal.contains("built without updates"), "{refusal}");
}
