//! Which core the app hosts and how it stops.
//!
//! The app starts with the person's Google sign-in when there is one, and in the sandbox (the built-in
//! emulator's sample files) when asked to or when nobody is signed in, so a first launch always shows
//! something that works. MCP over HTTP is served on loopback when its address is free; a taken port is logged
//! and the app runs on without it (assistants launching `gatehouse serve` still reach it over the socket).

use std::net::SocketAddr;
use std::sync::Mutex;

use gatehouse_core::auth::identity::AuthMethod;
use gatehouse_core::config::Config;
use gatehouse_core::host::{Host, HostOptions};
use gatehouse_core::settings::PersonSettings;
use tauri::{AppHandle, Manager, Runtime};

/// Where MCP over HTTP is served unless `GATEHOUSE_HTTP_ADDR` says otherwise.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8765";

/// How the app was asked to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `--sandbox` or `GATEHOUSE_SANDBOX=1`.
    pub sandbox: bool,
    /// `GATEHOUSE_HTTP_ADDR`, or [`DEFAULT_HTTP_ADDR`].
    pub http_addr: SocketAddr,
}

/// Why the app's options could not be read; each says what to change.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error(
        "{0:?} is not an option of gatehouse-desktop. The only option is --sandbox (sample files instead of a Google account)."
    )]
    UnknownArgument(String),
    #[error(
        "GATEHOUSE_HTTP_ADDR is set to {0:?}, which is not an address and port. Use e.g. 127.0.0.1:8765, or unset it."
    )]
    HttpAddr(String),
    #[error(
        "GATEHOUSE_SANDBOX is set to {0:?}. Use 1 to start in the sandbox, 0 (or unset it) to use your Google account."
    )]
    Sandbox(String),
}

impl Options {
    /// Reads the command line (without the program name) and the environment through `lookup`.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, OptionsError> {
        let mut sandbox = match lookup("GATEHOUSE_SANDBOX").as_deref().map(str::trim) {
            None | Some("" | "0" | "false") => false,
            Some("1" | "true") => true,
            Some(other) => return Err(OptionsError::Sandbox(other.to_owned())),
        };
        for arg in args {
            match arg.as_str() {
                "--sandbox" => sandbox = true,
                _ => return Err(OptionsError::UnknownArgument(arg)),
            }
        }
        let http_addr = match lookup("GATEHOUSE_HTTP_ADDR").filter(|value| !value.trim().is_empty()) {
            Some(value) => value.trim().parse().map_err(|_| OptionsError::HttpAddr(value))?,
            None => DEFAULT_HTTP_ADDR.parse().map_err(|_| OptionsError::HttpAddr(DEFAULT_HTTP_ADDR.to_owned()))?,
        };
        Ok(Self { sandbox, http_addr })
    }
}

/// Whose files the assistants work in, as the tray says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// A Google sign-in: the account when known, else how it was found.
    Account { account: Option<String>, method: AuthMethod },
    /// The built-in emulator's sample files; `because_signed_out` when the app chose it itself.
    Sandbox { because_signed_out: bool },
}

impl Mode {
    /// The tray's first line.
    pub fn label(&self) -> String {
        match self {
            Mode::Account { account: Some(account), .. } => format!("Signed in as {account}"),
            Mode::Account { account: None, method } => format!("Signed in ({})", method.as_str()),
            Mode::Sandbox { because_signed_out: false } => "Sandbox — sample files".to_owned(),
            Mode::Sandbox { because_signed_out: true } => "Sandbox — sample files (nobody is signed in)".to_owned(),
        }
    }
}

/// A started core and what it serves.
pub struct Started {
    pub host: Host,
    pub mode: Mode,
    /// The bound MCP-over-HTTP address, when the port was free.
    pub http: Option<SocketAddr>,
}

/// Starts the core as `options` ask (see the module documentation).
pub async fn start(options: &Options) -> anyhow::Result<Started> {
    let config = Config::from_env()?;
    // The person can ask for the sandbox in the settings window (Advanced); `--sandbox` and GATEHOUSE_SANDBOX win.
    let sandbox = options.sandbox
        || PersonSettings::load_for_home(&config.home).await.starts_in_sandbox(|name| std::env::var(name).ok());
    let mut host = Host::start(HostOptions { config, sandbox }).await?;
    let mut mode = match sandbox {
        true => Mode::Sandbox { because_signed_out: false },
        false => {
            let auth = host.engine().auth().current();
            Mode::Account { account: auth.account, method: auth.method }
        }
    };
    if matches!(mode, Mode::Account { method: AuthMethod::None, .. }) {
        tracing::info!(
            "nobody is signed in to Google: starting in the sandbox with sample files (sign in with `gatehouse login`, then restart Gatehouse)"
        );
        host.shutdown().await;
        host = Host::start(HostOptions { config: Config::from_env()?, sandbox: true }).await?;
        mode = Mode::Sandbox { because_signed_out: true };
    }
    // The app is this user's host: the `gatehouse serve` an assistant starts over stdio relays to it, so its
    // calls show their cards here and share the app's grants and sign-in.
    if let Some(control) = host.control() {
        control.accept_relays();
        // The sandbox it chose itself: assistants connected for the account (a plain `gatehouse serve`) reach
        // it now, and the account once the person signs in.
        if mode == (Mode::Sandbox { because_signed_out: true }) {
            control.sandbox_until_sign_in();
        }
    }
    let http = match host.serve_http(options.http_addr).await {
        Ok((local, _task)) => {
            tracing::info!("serving MCP at http://{local}/mcp");
            Some(local)
        }
        Err(error) => {
            tracing::warn!(
                "{error} Gatehouse runs on without MCP over HTTP: assistants that start `gatehouse serve` still reach it."
            );
            None
        }
    };
    Ok(Started { host, mode, http })
}

/// The running core, in the app's managed state until it is shut down.
pub struct Hosted(Mutex<Option<Host>>);

impl Hosted {
    pub fn new(host: Host) -> Self {
        Self(Mutex::new(Some(host)))
    }

    /// The core, once: whoever takes it shuts it down.
    pub fn take(&self) -> Option<Host> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }
}

/// Quits: denies what is pending (each waiting call gets a refusal), stops the core, then exits.
pub fn quit<R: Runtime>(app: &AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        stop_host(&app).await;
        app.exit(0);
    });
}

/// Quits as the tray's *Quit* does on Ctrl-C or (on Unix) the SIGTERM a session manager sends, so waiting calls
/// are denied and the control socket removed rather than left behind.
pub fn quit_on_signal<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        gatehouse_core::host::stop_signal().await;
        tracing::info!("stopping: asked to by a signal");
        quit(&app);
    });
}

/// Stops the core if it still runs: what is pending is denied, the control socket removed, HTTP stopped.
pub async fn stop_host<R: Runtime>(app: &AppHandle<R>) {
    let host = app.try_state::<Hosted>().and_then(|hosted| hosted.take());
    if let Some(host) = host {
        host.shutdown().await;
    }
}

/// [`stop_host`] from the main thread, as the app exits some other way than Quit.
pub fn shut_down_now<R: Runtime>(app: &AppHandle<R>) {
    tauri::async_runtime::block_on(stop_host(app));
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Options, OptionsError> {
        let env: HashMap<String, String> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Options::parse(args.iter().map(|arg| (*arg).to_owned()), |name| env.get(name).cloned())
    }

    #[test]
    fn the_sandbox_is_asked_for_by_flag_or_environment() {
        assert!(!parse(&[], &[]).unwrap().sandbox);
        assert!(parse(&["--sandbox"], &[]).unwrap().sandbox);
        assert!(parse(&[], &[("GATEHOUSE_SANDBOX", "1")]).unwrap().sandbox);
        assert!(!parse(&[], &[("GATEHOUSE_SANDBOX", "0")]).unwrap().sandbox);
        let error = parse(&[], &[("GATEHOUSE_SANDBOX", "yes please")]).unwrap_err().to_string();
        assert!(error.contains("Use 1 to start in the sandbox"), "{error}");
        let error = parse(&["--sandbx"], &[]).unwrap_err().to_string();
        assert!(error.contains("\"--sandbx\" is not an option") && error.contains("--sandbox"), "{error}");
    }

    #[test]
    fn http_is_served_on_loopback_8765_unless_told_otherwise() {
        assert_eq!(parse(&[], &[]).unwrap().http_addr, "127.0.0.1:8765".parse().unwrap());
        let addr = parse(&[], &[("GATEHOUSE_HTTP_ADDR", "127.0.0.1:9000")]).unwrap().http_addr;
        assert_eq!(addr, "127.0.0.1:9000".parse().unwrap());
        let error = parse(&[], &[("GATEHOUSE_HTTP_ADDR", "localhost")]).unwrap_err().to_string();
        assert!(error.contains("GATEHOUSE_HTTP_ADDR") && error.contains("127.0.0.1:8765"), "{error}");
    }

    #[test]
    fn the_tray_says_whose_files_are_used() {
        let signed_in = Mode::Account { account: Some("ada@example.com".into()), method: AuthMethod::OAuth };
        assert_eq!(signed_in.label(), "Signed in as ada@example.com");
        assert_eq!(Mode::Sandbox { because_signed_out: false }.label(), "Sandbox — sample files");
        assert!(Mode::Sandbox { because_signed_out: true }.label().contains("nobody is signed in"));
    }
}
