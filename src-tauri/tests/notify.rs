//! The OS notification for a card not in view, against a real notification server: python3-dbusmock's
//! `notification_daemon` template on a private D-Bus session bus, with the app on Tauri's mock runtime.
//!
//! notify-rust always talks to the session bus named by DBUS_SESSION_BUS_ADDRESS, so this binary holds one
//! test, which points that variable at its own bus before anything else runs (see `private_bus`).

#[path = "integration/mock/mod.rs"]
mod mock;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gatehouse_core::approval::Permit;
use gatehouse_core::approval::broker::Dismissal;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::DecisionSource;
use gatehouse_desktop::notify::{Notices, OPEN_ACTION, SETTLE};
use gatehouse_desktop::{Cards, card};
use mock::{approvals_without_store, ask, pending};
use tauri::Manager;
use zbus::zvariant::{OwnedValue, Value};

const NOTIFICATIONS: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const MOCK: &str = "org.freedesktop.DBus.Mock";

/// A child process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a D-Bus session bus of our own (no service activation, so nothing but the mock can answer for
/// notifications) and makes it this process's session bus.
fn private_bus(dir: &std::path::Path) -> Running {
    let config = dir.join("session.conf");
    std::fs::write(
        &config,
        format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>"#,
            dir.display()
        ),
    )
    .expect("writing the bus configuration");
    let mut daemon = Command::new("dbus-daemon")
        .arg(format!("--config-file={}", config.display()))
        .args(["--print-address", "--nofork"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("dbus-daemon (package dbus, see scripts/install-deps.sh)");
    let mut address = String::new();
    BufReader::new(daemon.stdout.take().expect("stdout")).read_line(&mut address).expect("the bus address");
    let address = address.trim().to_owned();
    assert!(address.starts_with("unix:"), "dbus-daemon printed no address: {address:?}");
    // SAFETY: this is the only test of this binary and it sets the variable before it starts any thread of
    // its own (the runtime, the app): nothing reads the environment concurrently.
    unsafe { std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &address) };
    Running(daemon)
}

/// Starts python3-dbusmock's notification server on the session bus and waits until it owns its name.
fn notification_server(bus: &zbus::blocking::Connection) -> Running {
    let server = Command::new("/usr/bin/python3")
        .args(["-m", "dbusmock", "--session", "--template", "notification_daemon"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3-dbusmock (see scripts/install-deps.sh)");
    let server = Running(server);
    let names = zbus::blocking::fdo::DBusProxy::new(bus).expect("the bus's own interface");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !names.name_has_owner(NOTIFICATIONS.try_into().expect("a bus name")).expect("asking the bus") {
        assert!(
            Instant::now() < deadline,
            "the mock notification server did not come up (is python3-dbusmock installed?)"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// A `Notify` call as the server received it.
#[derive(Debug)]
struct Notified {
    app_name: String,
    summary: String,
    body: String,
    actions: Vec<String>,
}

fn mock_calls(bus: &zbus::blocking::Connection, method: &str) -> Vec<Vec<OwnedValue>> {
    let reply = bus
        .call_method(Some(NOTIFICATIONS), PATH, Some(MOCK), "GetMethodCalls", &(method,))
        .expect("the mock's call log");
    let calls: Vec<(u64, Vec<OwnedValue>)> = reply.body().deserialize().expect("a(tav)");
    calls.into_iter().map(|(_, args)| args).collect()
}

fn text(value: &OwnedValue) -> String {
    String::try_from(value.try_clone().expect("a plain value")).expect("a string argument")
}

fn notified(bus: &zbus::blocking::Connection) -> Vec<Notified> {
    mock_calls(bus, "Notify")
        .into_iter()
        .map(|args| Notified {
            app_name: text(&args[0]),
            summary: text(&args[3]),
            body: text(&args[4]),
            actions: Vec::<String>::try_from(args[5].try_clone().expect("a plain value")).expect("as"),
        })
        .collect()
}

/// Waits until the server has been sent `count` notifications in all.
fn wait_for_notifications(bus: &zbus::blocking::Connection, count: usize) -> Vec<Notified> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sent = notified(bus);
        if sent.len() >= count {
            return sent;
        }
        assert!(Instant::now() < deadline, "expected {count} notifications, the server got {sent:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The ids (the mock numbers them 1, 2, … in order) the app closed.
fn closed(bus: &zbus::blocking::Connection) -> Vec<u32> {
    mock_calls(bus, "CloseNotification")
        .iter()
        .map(|args| match &*args[0] {
            Value::U32(id) => *id,
            // The mock declares the argument as a signed int, unlike the spec; dbus-python keeps what was sent.
            Value::I32(id) => u32::try_from(*id).expect("a notification id"),
            other => panic!("CloseNotification got {other:?}"),
        })
        .collect()
}

/// The person clicks notification `id` (the server's ActionInvoked signal).
fn click(bus: &zbus::blocking::Connection, id: u32) {
    let signal_args = vec![Value::from(id), Value::from(OPEN_ACTION)];
    bus.call_method(
        Some(NOTIFICATIONS),
        PATH,
        Some(MOCK),
        "EmitSignal",
        &(NOTIFICATIONS, "ActionInvoked", "us", signal_args),
    )
    .expect("emitting ActionInvoked");
}

#[test]
fn a_card_not_in_view_is_announced_and_clicking_the_notification_opens_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let _bus_daemon = private_bus(dir.path());
    let _ = tracing_subscriber::fmt().with_env_filter("gatehouse_desktop=debug").with_test_writer().try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let bus = zbus::blocking::Connection::session().expect("the private session bus");

        // No notification server at all: the card still shows and is answered as ever.
        let approvals = approvals_without_store();
        let app = mock::app(&approvals);
        card::watch(app.handle().clone(), approvals.clone());
        let call = ask(&approvals, "S0");
        let id = pending(&approvals, 1).await[0].id;
        tokio::time::sleep(SETTLE * 3).await;
        assert!(app.get_webview_window(card::LABEL).is_some(), "the card shows without notifications");
        app.state::<Cards>().answer(id, RawAnswer::AllowOnce).expect("the card is answered");
        assert_eq!(call.await.expect("the call ends"), Permit::Run { source: DecisionSource::Person });

        let _server = notification_server(&bus);

        // A card while no card window is open: announced in plain words; a click on it opens the card.
        let approvals_b = approvals_without_store();
        let app_b = mock::app(&approvals_b);
        let call = ask(&approvals_b, "S1");
        let waiting = pending(&approvals_b, 1).await;
        // Kept while the card waits: dropping it withdraws its notifications.
        let mut notices = Notices::default();
        notices.announce(app_b.handle(), &waiting[0]);
        let sent = tokio::task::block_in_place(|| wait_for_notifications(&bus, 1));
        let first = &sent[0];
        assert_eq!(first.app_name, "Gatehouse");
        assert_eq!(first.summary, "“claude” (says it is) wants to write 1 cell in the spreadsheet S1 › “Sales” (A1)");
        assert!(first.body.contains("Answer within 2 min, or it will not run."), "{}", first.body);
        assert!(first.body.contains("Click to open the approval card."), "{}", first.body);
        assert_eq!(first.actions, [OPEN_ACTION, "Open the card"]);
        assert!(app_b.get_webview_window(card::LABEL).is_none(), "nothing opened the card yet");
        // Clicked until the app listens (it subscribes to the signal just after the notification is sent).
        let deadline = Instant::now() + Duration::from_secs(10);
        while app_b.get_webview_window(card::LABEL).is_none() {
            assert!(Instant::now() < deadline, "clicking the notification did not open the card");
            tokio::task::block_in_place(|| click(&bus, 1));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        approvals_b.broker().dismiss_all(Dismissal::ShuttingDown);
        call.await.expect("the call ends");

        // A card already waiting when the app starts to watch (an assistant that was waiting for the app) is
        // shown and, the window not having the focus (the mock runtime's never has), announced. A second card
        // then queues behind it: announced as "2 of 2". Both notifications are closed once the cards are
        // answered.
        let approvals_c = approvals_without_store();
        let app_c = mock::app(&approvals_c);
        let first_call = ask(&approvals_c, "S2");
        pending(&approvals_c, 1).await;
        card::watch(app_c.handle().clone(), approvals_c.clone());
        tokio::task::block_in_place(|| wait_for_notifications(&bus, 2));
        let second_call = ask(&approvals_c, "S3");
        pending(&approvals_c, 2).await;
        let sent = tokio::task::block_in_place(|| wait_for_notifications(&bus, 3));
        assert!(sent[1].body.contains("Click to open the approval card.") && !sent[1].body.contains(" of "));
        assert!(sent[2].body.contains("Approval 2 of 2 waiting."), "{}", sent[2].body);
        assert!(closed(&bus).is_empty(), "nothing is closed while the cards wait");
        approvals_c.broker().dismiss_all(Dismissal::ShuttingDown);
        first_call.await.expect("the call ends");
        second_call.await.expect("the call ends");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut ids = tokio::task::block_in_place(|| closed(&bus));
            ids.sort_unstable();
            if ids == [2, 3] {
                break;
            }
            assert!(Instant::now() < deadline, "the answered cards' notifications were not closed: {ids:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        drop(app);
        drop(app_b);
        drop(app_c);
    });
}
