//! The desktop app in real WebKit: each launch gets its own X display (Xvfb), its own D-Bus session (the app's
//! single-instance lock and tray live there, so parallel tests never see each other's app), and its own
//! tauri-driver, through which WebKitWebDriver starts the app and drives its windows.
//!
//! WebKitWebDriver's new session waits until the app has a webview to hand it: so the session is asked for in
//! the background at launch and resolves when the first window appears (the welcome window, which a bare Xvfb
//! with no tray host always gets, a card, or the settings window that a second launch opens). Every window of the app
//! shares one automated web context, so later windows show up as further window handles.
//!
//! Everything started here is ended on drop, by process id: the driver's whole process tree (WebKitWebDriver,
//! the app, its WebKit processes), the bus and the display.

use std::ffi::{OsStr, OsString};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::Home;

/// The WebDriver element reference key (W3C).
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The `gatehouse-desktop` binary, rebuilt first when run under cargo (see [`crate::gatehouse_bin`]).
pub fn desktop_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("GATEHOUSE_DESKTOP_BIN") {
        return PathBuf::from(path);
    }
    static BUILD: std::sync::Once = std::sync::Once::new();
    BUILD.call_once(|| {
        if let Some(cargo) = std::env::var_os("CARGO") {
            let output = Command::new(cargo)
                .args(["build", "--quiet", "-p", "gatehouse-desktop"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("running cargo");
            assert!(
                output.status.success(),
                "building gatehouse-desktop failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let path = target.join("debug").join(format!("gatehouse-desktop{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: run `cargo build -p gatehouse-desktop` first", path.display());
    path
}

/// A program from PATH, or from cargo's bin folder (where `cargo install tauri-driver` puts it).
pub fn find_program(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(cargo_home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(cargo_home).join("bin"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.push(PathBuf::from("/root/.cargo/bin"));
    dirs.into_iter().map(|dir| dir.join(name)).find(|path| path.is_file())
}

fn require(name: &str, package: &str) -> Result<PathBuf> {
    find_program(name)
        .with_context(|| format!("{name} is not installed: run `bash scripts/install-deps.sh` ({package})"))
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    let [port] = free_ports();
    port
}

/// `N` different free ports on 127.0.0.1: all are held while the others are picked, so no two are the same (a
/// port let go can be the next one handed out).
pub fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: Vec<TcpListener> = (0..N).map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port")).collect();
    std::array::from_fn(|i| listeners[i].local_addr().map(|a| a.port()).expect("a bound port"))
}

/// `pid` and every process below it, children last. Read from /proc.
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
            let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
            if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
                parents.push((child, ppid));
            }
        }
    }
    let mut tree = vec![pid];
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        tree.extend(parents.iter().filter(|(_, ppid)| *ppid == parent).map(|(child, _)| *child));
        at += 1;
    }
    tree
}

/// The resident memory of a process, in KiB (`VmRSS` from /proc).
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// The command name of a process (`comm`).
pub fn process_name(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim().to_owned()).unwrap_or_default()
}

fn kill_pids(pids: &[u32]) {
    if pids.is_empty() {
        return;
    }
    let _ = Command::new("kill")
        .arg("-KILL")
        .args(pids.iter().map(u32::to_string))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// A virtual X display of our own.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb on the first free display number from 90 up (another test, or a person's X server, may hold
    /// any of them).
    pub fn start() -> Result<Self> {
        let xvfb = require("Xvfb", "Debian package xvfb")?;
        for number in 90..190 {
            // A number is taken while the server named in its lock file runs; a lock left by a server that was
            // killed is stale, and Xvfb takes the number over.
            if lock_owner(number).is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists()) {
                continue;
            }
            let mut child = Command::new(&xvfb)
                .args([format!(":{number}").as_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("starting Xvfb")?;
            let socket = format!("/tmp/.X11-unix/X{number}");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                // Ready, and ours: the lock names our server (a test running alongside may have raced us to the
                // number) and its socket takes connections.
                if lock_owner(number) == Some(child.id()) && std::os::unix::net::UnixStream::connect(&socket).is_ok() {
                    return Ok(Self { child, display: format!(":{number}") });
                }
                // Lost the number to someone else: try the next.
                if child.try_wait()?.is_some() || Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        bail!("no free X display number between :90 and :189")
    }
}

/// The process id in display `number`'s lock file, if there is one.
fn lock_owner(number: u32) -> Option<u32> {
    std::fs::read_to_string(format!("/tmp/.X{number}-lock")).ok()?.trim().parse().ok()
}

/// Asks `child` to stop (SIGTERM: Xvfb then removes its lock file and socket), and kills it if it has not
/// within 2 s.
fn terminate(child: &mut Child) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).stderr(Stdio::null()).status();
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}

/// A private D-Bus session bus, with a Secret Service on it: gnome-keyring, unlocked, keeping its keyring in a
/// folder of its own. The app keeps the key that seals its approvals there (`approval::store::seal`): with no
/// keychain it honours no grant, as it should, and an *Always allow* would not cover the next call.
pub struct SessionBus {
    child: Child,
    pub address: String,
    _keyring_home: tempfile::TempDir,
}

impl SessionBus {
    pub fn start() -> Result<Self> {
        let daemon = require("dbus-daemon", "Debian package dbus")?;
        let keyring = require("gnome-keyring-daemon", "Debian package gnome-keyring")?;
        let mut child = Command::new(daemon)
            .args(["--session", "--nofork", "--print-address=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting dbus-daemon")?;
        let stdout = child.stdout.take().context("dbus-daemon's stdout")?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let address = line.trim().to_owned();
        ensure!(address.starts_with("unix:"), "dbus-daemon printed no address: {line:?}");
        let bus = Self { child, address, _keyring_home: tempfile::tempdir()? };

        // It goes to the background once it serves, and ends with the bus.
        let home = bus._keyring_home.path();
        std::fs::create_dir_all(home.join("run"))?;
        let mut unlock = Command::new(keyring)
            .args(["--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .env("HOME", home)
            .env("XDG_RUNTIME_DIR", home.join("run"))
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting gnome-keyring-daemon")?;
        std::io::Write::write_all(&mut unlock.stdin.take().context("gnome-keyring-daemon's stdin")?, b"pw")?;
        ensure!(unlock.wait()?.success(), "gnome-keyring-daemon --unlock failed");
        Ok(bus)
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tray host on the session bus `bus`, as a desktop with a panel has one: python3-dbusmock playing
/// `org.kde.StatusNotifierWatcher`, with a StatusNotifier host registered. Without it (a bare Xvfb) the app
/// finds no tray to live in. Ends with the test (by process id).
pub struct TrayHost(Child);

impl TrayHost {
    const WATCHER: &str = "org.kde.StatusNotifierWatcher";

    pub fn start(bus: &str) -> Result<Self> {
        // The system's Python, which Debian's python3-dbusmock is installed for (as tests/notify.rs uses it).
        let child = Command::new("/usr/bin/python3")
            .args(["-m", "dbusmock", "--session", Self::WATCHER, "/StatusNotifierWatcher", Self::WATCHER])
            .env("DBUS_SESSION_BUS_ADDRESS", bus)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting python3-dbusmock (Debian package python3-dbusmock)")?;
        let host = Self(child);
        let send = |args: &[&str]| -> Result<String> {
            let out = Command::new(require("dbus-send", "Debian package dbus-bin")?)
                .arg(format!("--bus={bus}"))
                .arg("--print-reply")
                .args(args)
                .output()?;
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        let owner = format!("string:{}", Self::WATCHER);
        let asked = ["--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.NameHasOwner", owner.as_str()];
        while !send(&asked)?.contains("boolean true") {
            ensure!(Instant::now() < deadline, "python3-dbusmock did not take {} within 20 s", Self::WATCHER);
            std::thread::sleep(Duration::from_millis(50));
        }
        let mock = ["--dest=org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"];
        let interface = format!("string:{}", Self::WATCHER);
        for (name, value) in
            [("IsStatusNotifierHostRegistered", "variant:boolean:true"), ("ProtocolVersion", "variant:int32:0")]
        {
            let name = format!("string:{name}");
            let args = [mock[0], mock[1], "org.freedesktop.DBus.Mock.AddProperty", &interface, &name, value];
            send(&args)?;
        }
        for method in ["RegisterStatusNotifierItem", "RegisterStatusNotifierHost"] {
            let method = format!("string:{method}");
            let args = [
                mock[0],
                mock[1],
                "org.freedesktop.DBus.Mock.AddMethod",
                &interface,
                &method,
                "string:s",
                "string:",
                "string:",
            ];
            send(&args)?;
        }
        Ok(host)
    }
}

impl Drop for TrayHost {
    fn drop(&mut self) {
        terminate(&mut self.0);
    }
}

/// The environment the app runs in: a private home, display and bus, MCP over HTTP on `http`, and none of the
/// caller's Google settings.
pub fn app_env(home: &Path, display: &str, bus: &str, http: SocketAddr) -> Vec<(OsString, Option<OsString>)> {
    let user_home = home.join("user");
    let _ = std::fs::create_dir_all(&user_home);
    let set = |k: &str, v: &OsStr| (OsString::from(k), Some(v.to_owned()));
    let unset = |k: &str| (OsString::from(k), None);
    vec![
        set("HOME", user_home.as_os_str()),
        set("GATEHOUSE_HOME", home.as_os_str()),
        set("GATEHOUSE_HTTP_ADDR", OsStr::new(&http.to_string())),
        set("GATEHOUSE_LOG", OsStr::new("info")),
        set(crate::E2E_BACKEND.0, OsStr::new(crate::E2E_BACKEND.1)),
        set("DISPLAY", OsStr::new(display)),
        set("GDK_BACKEND", OsStr::new("x11")),
        set("DBUS_SESSION_BUS_ADDRESS", OsStr::new(bus)),
        // The machine's light theme, whatever the person running the tests has chosen.
        set("GTK_THEME", OsStr::new("Adwaita")),
        unset("WAYLAND_DISPLAY"),
        unset("XDG_CONFIG_HOME"),
        unset("XDG_DATA_HOME"),
        unset("XDG_CACHE_HOME"),
        unset("GATEHOUSE_SANDBOX"),
        unset("GATEHOUSE_GOOGLE_ENDPOINT"),
        unset("SERVICE_ACCOUNT_PATH"),
        unset("GOOGLE_APPLICATION_CREDENTIALS"),
        unset("CREDENTIALS_PATH"),
        unset("AUTH_METHOD"),
        unset("ENABLED_TOOLS"),
        unset("MAX_TOOL_RESPONSE_CHARS"),
    ]
}

pub fn apply_env(command: &mut Command, env: &[(OsString, Option<OsString>)]) {
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
}

/// Whether an MCP `initialize` over HTTP at `http` succeeds, with the server's own bearer token (which it
/// writes to `GATEHOUSE_HOME` before it serves).
pub async fn mcp_ready(client: &reqwest::Client, home: &Path, http: SocketAddr) -> bool {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "readiness-probe", "version": "1" } }
    });
    let token = std::fs::read_to_string(home.join("http-token")).unwrap_or_default();
    let answered = client
        .post(format!("http://{http}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(token.trim())
        .json(&body)
        .send()
        .await;
    answered.is_ok_and(|response| response.status().is_success())
}

/// Whether the app under `home` runs as this user's host and serves MCP over HTTP, asked over its control
/// socket (as `gatehouse approvals` asks). Unlike [`mcp_ready`] this is no MCP client connecting, so the app
/// does not get ready for an assistant's cards (it makes its card window when the first assistant connects).
pub async fn host_ready(home: &Path) -> bool {
    host_http(home).await.is_some()
}

/// Where the app that runs as this user's host (see [`host_ready`]) serves MCP over HTTP, once it does.
pub async fn host_http(home: &Path) -> Option<SocketAddr> {
    match gatehouse_core::control::Client::connect_host(home).await {
        Ok(Some(mut host)) => {
            let info = host.info().await.ok().filter(|info| info.host)?;
            let url = info.http_url?;
            url.strip_prefix("http://")?.strip_suffix("/mcp")?.parse().ok()
        }
        Ok(None) | Err(_) => None,
    }
}

/// One running desktop app, started by WebKitWebDriver through tauri-driver. The apps of one test binary run one
/// at a time (see [`one_at_a_time`]).
pub struct Desktop {
    home: PathBuf,
    env: Vec<(OsString, Option<OsString>)>,
    driver: Child,
    driver_url: String,
    session: Option<tokio::task::JoinHandle<Result<WebDriver>>>,
    webdriver: Option<WebDriver>,
    /// When tauri-driver was asked for the session that starts the app.
    pub launched: Instant,
    _tray: Option<TrayHost>,
    _bus: SessionBus,
    _display: Xvfb,
    /// Held until everything above is gone (fields drop in order).
    _alone: tokio::sync::OwnedMutexGuard<()>,
}

/// Waits until no other app of this test binary runs. Ports picked free and bound only later — tauri-driver's
/// two, picked here, and the inspector server's that WebKitWebDriver picks for the app it starts, bound when the
/// app makes its first window — could be given to two apps starting together. (The app's own HTTP port is no
/// longer one of them: it picks it itself.) Seen in parallel runs: "Failed to start remote inspector server …
/// Address already in use" (WebDriver never attached), the app's HTTP port taken, and a WebDriver attached to
/// the other test's app, whose card was hidden. Tests of different binaries never overlap: cargo runs those one
/// after the other.
async fn one_at_a_time() -> tokio::sync::OwnedMutexGuard<()> {
    static ONE: std::sync::LazyLock<std::sync::Arc<tokio::sync::Mutex<()>>> =
        std::sync::LazyLock::new(Default::default);
    ONE.clone().lock_owned().await
}

impl Desktop {
    /// Starts the app with its state in `home`, `extra` set on top of its environment, and waits until it
    /// serves MCP (so an assistant's `gatehouse serve` finds it as this user's host).
    pub async fn launch(home: &Home, extra: &[(&str, &OsStr)]) -> Result<Self> {
        let desktop = Self::launch_idle(home, extra).await?;
        desktop.wait_until_mcp_ready(Duration::from_secs(60)).await?;
        Ok(desktop)
    }

    /// Starts the app like [`Desktop::launch`] but waits only until it runs as this user's host, asking over the
    /// control socket ([`host_ready`]): no MCP client connects, so the app stays as it is with no assistant.
    pub async fn launch_idle(home: &Home, extra: &[(&str, &OsStr)]) -> Result<Self> {
        Self::launch_on(home, extra, false).await
    }

    /// [`Desktop::launch_idle`] on a desktop with a tray host ([`TrayHost`]), as KDE or GNOME with its
    /// AppIndicator extension.
    pub async fn launch_with_tray(home: &Home, extra: &[(&str, &OsStr)]) -> Result<Self> {
        Self::launch_on(home, extra, true).await
    }

    async fn launch_on(home: &Home, extra: &[(&str, &OsStr)], tray: bool) -> Result<Self> {
        let alone = one_at_a_time().await;
        let display = Xvfb::start()?;
        let bus = SessionBus::start()?;
        let tray = if tray { Some(TrayHost::start(&bus.address)?) } else { None };
        // The app picks its own HTTP port (port 0) and says which over its control socket: a port picked here and
        // let go could be taken again before the app binds it (WebKitWebDriver picks its inspector's port so).
        let http: SocketAddr = "127.0.0.1:0".parse()?;
        let mut env = app_env(home.path(), &display.display, &bus.address, http);
        env.extend(extra.iter().map(|(k, v)| (OsString::from(k), Some(v.to_os_string()))));
        let x_display = display.display.clone();

        let tauri_driver = require("tauri-driver", "cargo install tauri-driver --locked")?;
        require("WebKitWebDriver", "Debian package webkit2gtk-driver")?;
        let [port, native_port] = free_ports();
        let mut command = Command::new(tauri_driver);
        command
            .args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        // The app's log (and the drivers') go to the test's output only when asked: they are long. Otherwise
        // they are kept in the home, and their warnings shown if the test fails (see `Drop`).
        if std::env::var_os("GATEHOUSE_E2E_APP_LOG").is_none() {
            // Appended to: a test that launches the app again in the same home keeps the first launch's lines.
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(home.path().join(APP_LOG))
                .context("opening the app's log file")?;
            command.stderr(log);
        }
        apply_env(&mut command, &env);
        let driver = command.spawn().context("starting tauri-driver")?;
        let driver_url = format!("http://127.0.0.1:{port}");
        let mut desktop = Self {
            home: home.path().to_owned(),
            env,
            driver,
            driver_url,
            session: None,
            webdriver: None,
            launched: Instant::now(),
            _tray: tray,
            _bus: bus,
            _display: display,
            _alone: alone,
        };
        desktop.wait_for_driver().await?;
        let application = desktop_bin();
        let url = desktop.driver_url.clone();
        desktop.launched = Instant::now();
        desktop.session = Some(tokio::spawn(WebDriver::new_session(url, application, x_display)));
        let deadline = Instant::now() + Duration::from_secs(60);
        while host_http(&desktop.home).await.is_none() {
            if let Some(session) = &desktop.session
                && session.is_finished()
            {
                bail!("the app stopped before it ran as this user's host (the WebDriver session ended)");
            }
            ensure!(Instant::now() < deadline, "the app did not answer on its control socket within 60 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(desktop)
    }

    async fn wait_for_driver(&mut self) -> Result<()> {
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(response) = client.get(format!("{}/status", self.driver_url)).send().await
                && response.status().is_success()
            {
                return Ok(());
            }
            if let Some(status) = self.driver.try_wait()? {
                bail!("tauri-driver stopped ({status}); is WebKitWebDriver installed (webkit2gtk-driver)?");
            }
            ensure!(Instant::now() < deadline, "tauri-driver did not answer in 20 s");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until an MCP `initialize` over HTTP succeeds; returns how long after launch that was.
    pub async fn wait_until_mcp_ready(&self, timeout: Duration) -> Result<Duration> {
        let client = reqwest::Client::builder().timeout(Duration::from_secs(5)).build()?;
        let deadline = Instant::now() + timeout;
        loop {
            // Asked each time: an app that restarted itself serves on a port of its own choosing again.
            let http = host_http(&self.home).await;
            if let Some(http) = http
                && mcp_ready(&client, &self.home, http).await
            {
                return Ok(self.launched.elapsed());
            }
            if let Some(session) = &self.session
                && session.is_finished()
            {
                bail!("the app stopped before it served MCP (the WebDriver session ended)");
            }
            ensure!(Instant::now() < deadline, "the app did not serve MCP (at {http:?}) within {timeout:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The WebDriver session, once the app has a window (waits up to 60 s for it).
    pub async fn webdriver(&mut self) -> Result<&WebDriver> {
        if self.webdriver.is_none() {
            let session = self.session.take().context("the WebDriver session was already lost")?;
            let webdriver = tokio::time::timeout(Duration::from_secs(60), session)
                .await
                .context("no window of the app appeared within 60 s, so WebDriver could not attach")???;
            self.webdriver = Some(webdriver);
        }
        self.webdriver.as_ref().context("no WebDriver session")
    }

    /// Launches the app a second time, as a person clicking its icon again: the running app opens its settings
    /// window (or the card, when one waits) and the second process exits.
    pub async fn launch_again(&self) -> Result<()> {
        let mut command = Command::new(desktop_bin());
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        apply_env(&mut command, &self.env);
        let mut command = tokio::process::Command::from(command);
        let status = tokio::time::timeout(Duration::from_secs(30), command.kill_on_drop(true).status())
            .await
            .context("the second launch did not exit within 30 s")??;
        ensure!(status.success(), "the second launch failed: {status}");
        Ok(())
    }

    /// The app's process id (WebKitWebDriver's child).
    pub fn app_pid(&self) -> Option<u32> {
        process_tree(self.driver.id()).into_iter().find(|pid| process_name(*pid).starts_with("gatehouse-deskt"))
    }

    /// A `gatehouse` command with the app's state folder and home, as an assistant would start it.
    pub fn gatehouse(&self) -> tokio::process::Command {
        let mut command = Command::new(crate::gatehouse_bin());
        apply_env(&mut command, &self.env);
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        command
    }

    /// An assistant named `name` connected over stdio through `gatehouse serve ARGS`, which relays to the app
    /// when it serves what the app serves (`--sandbox` for a sandbox the person chose; a plain one also
    /// relays to an app in the sandbox only because nobody is signed in).
    pub async fn assistant(&self, name: &str, args: &[&str]) -> Result<Assistant> {
        let mut serve = self.gatehouse();
        serve.arg("serve").args(args);
        let (transport, _) =
            TokioChildProcess::builder(serve).stderr(Stdio::null()).spawn().context("spawning gatehouse serve")?;
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new(name, "1.0");
        Ok(info.serve(transport).await?)
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            session.abort();
        }
        // The driver's tree: WebKitWebDriver, the app it started, the app's WebKit processes.
        kill_pids(&process_tree(self.driver.id()));
        let _ = self.driver.wait();
        if std::thread::panicking() {
            print_warnings(&self.home.join(APP_LOG));
        }
    }
}

/// Where a launch keeps the app's (and the drivers') log, in the test's home.
const APP_LOG: &str = "desktop-app.log";

/// The app's warnings and errors, and what its card window did, from its log at `path`, for a test that failed
/// (its output shows them).
fn print_warnings(path: &Path) {
    let Ok(log) = std::fs::read_to_string(path) else { return };
    let lines: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" WARN ") || line.contains(" ERROR ") || line.contains("gatehouse_desktop::card"))
        .collect();
    eprintln!(
        "the app's warnings, errors and card lines ({} of them, the last 40; the whole log: {}):",
        lines.len(),
        path.display()
    );
    for line in lines.iter().rev().take(40).rev() {
        eprintln!("  {line}");
    }
}

pub type Assistant = RunningService<RoleClient, ClientConfig>;

/// Calls a tool as the assistant behind `peer` (`assistant.peer().clone()` can move into a task).
pub async fn call(peer: &Peer<RoleClient>, tool: &str, arguments: Value) -> Result<CallToolResult> {
    let Value::Object(arguments) = arguments else { bail!("arguments must be an object") };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    Ok(peer.call_tool(params).await?)
}

/// The id of the app's visible X window on `display` whose inside is `width` x `height` pixels (xdotool): the
/// app's windows are titled "Gatehouse…", and never two of the same size at once in the tests.
async fn x_window(display: &str, (width, height): (u64, u64)) -> Result<String> {
    let xdotool = require("xdotool", "Debian package xdotool")?;
    let xdotool = |args: Vec<&str>| {
        let mut command = tokio::process::Command::new(&xdotool);
        command.args(args).env("DISPLAY", display);
        command
    };
    let found = xdotool(vec!["search", "--onlyvisible", "--name", "^Gatehouse"]).output().await?;
    let mut sized = Vec::new();
    for id in String::from_utf8_lossy(&found.stdout).split_whitespace() {
        let geometry = xdotool(vec!["getwindowgeometry", "--shell", id]).output().await?;
        let geometry = String::from_utf8_lossy(&geometry.stdout).into_owned();
        let value = |key: &str| geometry.lines().find_map(|line| line.strip_prefix(key)?.parse::<u64>().ok());
        if value("WIDTH=") == Some(width) && value("HEIGHT=") == Some(height) {
            sized.push(id.to_owned());
        }
    }
    match sized.as_slice() {
        [id] => Ok(id.clone()),
        [] => bail!("no visible window of the app is {width}x{height} on {display}"),
        _ => bail!("{} visible windows of the app are {width}x{height} on {display}: {sized:?}", sized.len()),
    }
}

/// The app's windows on `display` as X has them (which are mapped, and their sizes), for a failure's message.
async fn x_windows(display: &str) -> String {
    let Some(xwininfo) = find_program("xwininfo") else { return "no xwininfo to list the windows".to_owned() };
    let tree = tokio::process::Command::new(&xwininfo).args(["-root", "-tree"]).env("DISPLAY", display).output().await;
    let tree = tree.map(|out| String::from_utf8_lossy(&out.stdout).into_owned()).unwrap_or_default();
    let ours: Vec<&str> = tree.lines().filter(|line| line.contains("\"Gatehouse")).map(str::trim).collect();
    let mut listed = Vec::new();
    for line in ours {
        let Some(id) = line.split_whitespace().next() else { continue };
        let info = tokio::process::Command::new(&xwininfo).args(["-id", id]).env("DISPLAY", display).output().await;
        let info = info.map(|out| String::from_utf8_lossy(&out.stdout).into_owned()).unwrap_or_default();
        let state = info.lines().find_map(|l| l.trim().strip_prefix("Map State: ")).unwrap_or("?").to_owned();
        listed.push(format!("{line} [{state}]"));
    }
    format!("the app's X windows: {listed:?}")
}

/// A PNG of X window `window` on `display`, as the screen shows it (ImageMagick's `import`).
async fn x_screenshot(display: &str, window: &str) -> Result<Vec<u8>> {
    let import = require("import", "Debian package imagemagick")?;
    let shot = tokio::process::Command::new(import)
        // 8-bit RGB, without the time it was taken: the same picture gives the same file.
        .args(["-silent", "-window", window, "-strip", "png24:-"])
        .env("DISPLAY", display)
        .output()
        .await
        .context("running import")?;
    ensure!(
        shot.status.success() && shot.stdout.starts_with(b"\x89PNG"),
        "import took no picture of window {window}: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    Ok(shot.stdout)
}

/// A small W3C WebDriver client: only what the tests use.
#[derive(Clone)]
pub struct WebDriver {
    http: reqwest::Client,
    session: String,
    /// The X display the app's windows are on: screenshots are taken from it.
    display: String,
}

/// An element of the current window.
#[derive(Debug, Clone)]
pub struct Element(String);

impl Element {
    /// The element a script returned (WebDriver sends DOM elements back as references).
    pub fn from_value(value: &Value) -> Option<Self> {
        value.get(ELEMENT).and_then(Value::as_str).map(|id| Self(id.to_owned()))
    }
}

impl WebDriver {
    /// Asks for a session whose browser is the app at `application` (tauri-driver's capability), which shows
    /// its windows on the X display `display`.
    pub async fn new_session(driver_url: String, application: PathBuf, display: String) -> Result<Self> {
        let http = reqwest::Client::new();
        let body = json!({ "capabilities": { "alwaysMatch": {
            "tauri:options": { "application": application },
        } } });
        let response: Value = http.post(format!("{driver_url}/session")).json(&body).send().await?.json().await?;
        let id = response["value"]["sessionId"]
            .as_str()
            .with_context(|| format!("no WebDriver session: {response}"))?
            .to_owned();
        Ok(Self { http, session: format!("{driver_url}/session/{id}"), display })
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<Value> {
        let mut request = self.http.request(method.clone(), format!("{}{path}", self.session));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response: Value = request.send().await?.json().await?;
        let value = response.get("value").cloned().unwrap_or(Value::Null);
        if let Some(error) = value.get("error").and_then(Value::as_str) {
            bail!("WebDriver {method} {path}: {error}: {}", value["message"]);
        }
        Ok(value)
    }

    async fn get(&self, path: &str) -> Result<Value> {
        self.command(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value> {
        self.command(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn window_handles(&self) -> Result<Vec<String>> {
        let handles = self.get("/window/handles").await?;
        Ok(serde_json::from_value(handles)?)
    }

    pub async fn url(&self) -> Result<String> {
        Ok(self.get("/url").await?.as_str().unwrap_or_default().to_owned())
    }

    /// Switches to the window `handle`.
    pub async fn switch_to_handle(&self, handle: &str) -> Result<()> {
        self.post("/window", json!({ "handle": handle })).await.map(drop)
    }

    /// Switches to the window whose page is `page` (e.g. "card.html"), waiting up to `timeout` for it.
    pub async fn switch_to_page(&self, page: &str, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            for handle in self.window_handles().await? {
                self.post("/window", json!({ "handle": handle })).await?;
                if self.url().await?.contains(page) {
                    return Ok(());
                }
            }
            ensure!(Instant::now() < deadline, "no window showed {page} within {timeout:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the current window.
    pub async fn execute(&self, script: &str, args: Value) -> Result<Value> {
        self.post("/execute/sync", json!({ "script": script, "args": args })).await
    }

    /// Polls `script` until it returns something truthy; returns it. One poll is one WebDriver round trip.
    pub async fn wait_for(&self, what: &str, script: &str, timeout: Duration) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.execute(script, json!([])).await?;
            let truthy = !matches!(&value, Value::Null | Value::Bool(false))
                && value.as_str() != Some("")
                && value.as_array().is_none_or(|a| !a.is_empty());
            if truthy {
                return Ok(value);
            }
            if Instant::now() >= deadline {
                // What the window showed instead, for whoever reads the failure.
                let shot = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/e2e-failures")
                    .join(format!("{}.png", what.replace(|c: char| !c.is_ascii_alphanumeric(), "-")));
                let saved = match self.screenshot(&shot).await {
                    Ok(()) => format!("the window: {}", shot.display()),
                    Err(error) => format!("no screenshot: {error}; {}", x_windows(&self.display).await),
                };
                // Its address, whether it is in view, and the start of what it says (an error notice, say).
                let state =
                    "return [document.URL, document.visibilityState, (document.body || {}).innerText?.slice(0, 600)]";
                let page = self.execute(state, json!([])).await;
                let page = page.map(|page| page.to_string()).unwrap_or_else(|error| error.to_string());
                bail!("{what}: not within {timeout:?} ({saved}; the page {page} returned {value})");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn find(&self, css: &str) -> Result<Element> {
        let found = self
            .post("/element", json!({ "using": "css selector", "value": css }))
            .await
            .with_context(|| format!("finding {css}"))?;
        Ok(Element(found[ELEMENT].as_str().context("no element reference")?.to_owned()))
    }

    pub async fn click(&self, element: &Element) -> Result<()> {
        self.post(&format!("/element/{}/click", element.0), json!({})).await.map(drop)
    }

    pub async fn text(&self, element: &Element) -> Result<String> {
        Ok(self.get(&format!("/element/{}/text", element.0)).await?.as_str().unwrap_or_default().to_owned())
    }

    pub async fn displayed(&self, element: &Element) -> Result<bool> {
        Ok(self.get(&format!("/element/{}/displayed", element.0)).await?.as_bool().unwrap_or(false))
    }

    /// Finds `css` and clicks it.
    pub async fn click_on(&self, css: &str) -> Result<()> {
        let element = self.find(css).await?;
        self.click(&element).await.with_context(|| format!("clicking {css}"))
    }

    /// The text of `css`.
    pub async fn text_of(&self, css: &str) -> Result<String> {
        let element = self.find(css).await?;
        self.text(&element).await
    }

    /// A PNG of the current window as it is on the screen, written to `path`, once the window has painted what
    /// its page holds now (a snapshot taken right after a change could show the frame before it).
    ///
    /// Taken from the X display (ImageMagick's `import` of the app's window the page fills), not with
    /// WebDriver's `/screenshot`: WebKitWebDriver's snapshots stop answering at random for pages drawn without
    /// WebKit's GPU compositor, which is how the app draws them (src-tauri/src/main.rs).
    pub async fn screenshot(&self, path: &Path) -> Result<()> {
        self.screenshot_zoomed(path, 1.0).await
    }

    /// [`WebDriver::screenshot`] of a page zoomed to `zoom` (Ctrl+=): its CSS pixels are then `zoom` screen
    /// pixels each, which the page itself can't tell.
    pub async fn screenshot_zoomed(&self, path: &Path, zoom: f64) -> Result<()> {
        let painted = "const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
            setTimeout(() => done(false), 500);";
        self.post("/execute/async", json!({ "script": painted, "args": [] })).await?;
        let size = "return [innerWidth, innerHeight].map((css) => Math.round(css * devicePixelRatio * arguments[0]))";
        let size = serde_json::from_value(self.execute(size, json!([zoom])).await?).context("the window's size")?;
        let window = x_window(&self.display, size).await?;
        // The page's frame reaches the X window a moment later: the shot is taken once two in a row agree.
        let mut shot = x_screenshot(&self.display, &window).await?;
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let again = x_screenshot(&self.display, &window).await?;
            if again == shot {
                break;
            }
            shot = again;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, shot).with_context(|| format!("writing {}", path.display()))
    }

    /// Presses and releases Escape on whatever has the keyboard focus.
    pub async fn press_escape(&self) -> Result<()> {
        let keys = json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": [
            { "type": "keyDown", "value": "\u{E00C}" },
            { "type": "keyUp", "value": "\u{E00C}" },
        ] }] });
        self.post("/actions", keys).await.map(drop)
    }

    /// Presses Ctrl+= `times` times on whatever has the keyboard focus: the page zooms in 20% each time.
    pub async fn zoom_in(&self, times: usize) -> Result<()> {
        let mut actions = vec![json!({ "type": "keyDown", "value": "\u{E009}" })];
        for _ in 0..times {
            actions.push(json!({ "type": "keyDown", "value": "=" }));
            actions.push(json!({ "type": "keyUp", "value": "=" }));
        }
        actions.push(json!({ "type": "keyUp", "value": "\u{E009}" }));
        let keys = json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] });
        self.post("/actions", keys).await.map(drop)
    }

    /// Closes the current window, as its close button does.
    pub async fn close_window(&self) -> Result<()> {
        self.command(reqwest::Method::DELETE, "/window", None).await.map(drop)
    }

    /// Sets the current window's size.
    pub async fn set_size(&self, width: u32, height: u32) -> Result<()> {
        self.post("/window/rect", json!({ "width": width, "height": height })).await.map(drop)
    }
}

/// Where the end-to-end tests keep a screenshot for the docs: `docs/screenshots/NAME.png`.
pub fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/screenshots").join(format!("{name}.png"))
}
