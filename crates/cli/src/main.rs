//! `gatehouse`: run the Gatehouse MCP server over stdio or HTTP, against Google or in the sandbox.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{DATABASE_FILE, Store};
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::resolve::{Resolution, resolve};
use gatehouse_core::auth::state::AuthSnapshot;
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions, control, mcp};
use tokio_util::sync::CancellationToken;

mod approvals;
mod assistants;
mod audit;
mod connect;
mod grants;
mod login;
mod logout;
mod never;
mod status;
mod store_access;
mod switch;
mod user_auth;

#[derive(Parser)]
#[command(
    name = "gatehouse",
    version,
    about = "Let AI assistants work in your Google Sheets, Docs and Drive, with you in charge."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server (stdio by default).
    Serve(ServeArgs),
    /// Print the tool reference (the generated docs/tools.md).
    Tools,
    /// Sign in to Google in the browser; the sign-in is kept in the OS keychain.
    Login(login::LoginArgs),
    /// Sign a Google account out: revoke it at Google and delete it from the keychain.
    Logout(logout::LogoutArgs),
    /// Show who Gatehouse acts as, the signed-in accounts, what this sign-in cannot do, and warnings.
    Status,
    /// Make another signed-in Google account the active one.
    Use(switch::UseArgs),
    /// List the calls waiting for your approval in the running servers, or answer one (allow, deny, always).
    Approvals(approvals::ApprovalsArgs),
    /// List the standing approvals (grants), or revoke one.
    Grants(grants::GrantsArgs),
    /// List the tools you never allow (refused without asking, for a number of days), add one, or remove one.
    Never(never::NeverArgs),
    /// Show the record of every tool call, check it is intact, or export it as JSON Lines.
    Audit(audit::AuditArgs),
    /// List the assistants that connect over HTTP with their own token, add one (its token, URL and a snippet
    /// to paste are printed once), or revoke one.
    Assistants(assistants::AssistantsArgs),
    /// Add Gatehouse to an assistant's own config file (keeping everything else, after a backup), list the
    /// assistants and whether each is connected (--list), or print what to paste (--snippet).
    Connect(connect::ConnectArgs),
    /// Take Gatehouse out of an assistant's config file again, leaving everything else as it was.
    Disconnect(connect::DisconnectArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (loopback only, e.g. 127.0.0.1:8765).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Use the built-in Google emulator with sample files instead of a Google account.
    #[arg(long)]
    sandbox: bool,
    /// Print the HTTP bearer token (creating it if needed) and exit.
    #[arg(long)]
    print_token: bool,
    /// This connection is an automation, not a person chatting: nothing is asked, so only what the
    /// administrator's policy allows for unattended use runs (stdio only).
    #[arg(long, conflicts_with = "http")]
    unattended: bool,
}

fn init_logging() {
    // Logs go to stderr: stdout is the MCP channel in stdio mode.
    let filter = tracing_subscriber::EnvFilter::try_from_env("GATEHOUSE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).init();
}

#[tokio::main]
async fn main() -> Result<()> {
    let cli = Cli::parse();
    init_logging();
    // Every command's error is printed as its message alone: the messages say what to do, and a backtrace
    // (which RUST_BACKTRACE would add) would only bury them.
    user_auth::plain_errors(match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Tools => {
            print!("{}", gatehouse_core::tools::catalogue_doc::markdown(&gatehouse_core::tools::all_tools()));
            Ok(())
        }
        Command::Login(args) => login::run(args).await,
        Command::Logout(args) => logout::run(args).await,
        Command::Status => status::run().await,
        Command::Use(args) => switch::run(args).await,
        Command::Approvals(args) => approvals::run(args).await,
        Command::Grants(args) => grants::run(args).await,
        Command::Never(args) => never::run(args).await,
        Command::Audit(args) => audit::run(args).await,
        Command::Assistants(args) => assistants::run(args).await,
        Command::Connect(args) => connect::run_connect(args),
        Command::Disconnect(args) => connect::run_disconnect(args),
    })
}

async fn serve(args: ServeArgs) -> Result<()> {
    let mut config = Config::from_env()?;
    if args.print_token {
        println!("{}", mcp::token::load_or_create(&config.home)?);
        return Ok(());
    }
    if let Some(addr) = args.http {
        mcp::http::check_loopback(addr)?;
    }
    // The sandbox emulator must outlive the server: keep it bound here.
    let mut _sandbox = None;
    let resolution = if args.sandbox {
        let google = google_fake::FakeGoogle::start_sandbox().await.context("starting the sandbox emulator")?;
        let token = google.issue_token(google_fake::Identity::user(google_fake::SANDBOX_EMAIL));
        config.google_endpoint = Some(google.url().parse().context("the sandbox emulator's address")?);
        tracing::info!(endpoint = %google.url(), "sandbox: serving sample files from the built-in Google emulator");
        _sandbox = Some(google);
        sandbox_resolution(token)
    } else {
        resolve(&config, |name| std::env::var(name).ok()).await?
    };
    let approvals = approval_setup(&config, args.sandbox).await?;
    let engine = Engine::new(EngineOptions {
        config: config.clone(),
        tokens: resolution.tokens.clone(),
        sandbox: args.sandbox,
        retry: RetryPolicy::default(),
        approvals,
    })?;
    resolution.report_to(engine.auth());
    let cancel = CancellationToken::new();
    // Answers to approval cards come only through here (`gatehouse approvals`), never over MCP.
    let control = match control::serve(engine.clone(), &config.home, cancel.clone()).await {
        Ok(handle) => Some(handle),
        Err(error) => {
            tracing::error!(
                "{error} Until this is fixed, approval cards can't be answered from `gatehouse approvals`: changes wait for an answer, then are refused."
            );
            None
        }
    };
    let served = match args.http {
        Some(addr) => serve_http(engine, &config, addr, cancel.clone(), control.as_ref()).await,
        None => tokio::select! {
            served = mcp::serve_stdio(engine, !args.unattended) => served.context("serving MCP over stdio"),
            () = stop_signal() => {
                tracing::info!("stopping: asked to by a signal");
                if let Some(control) = control {
                    control.shutdown().await;
                }
                // The stdin reader may sit in a blocking read that would hold the exit until the next line.
                std::process::exit(0);
            }
        },
    };
    cancel.cancel();
    if let Some(control) = control {
        control.shutdown().await;
    }
    served
}

async fn serve_http(
    engine: Arc<Engine>,
    config: &Config,
    addr: SocketAddr,
    cancel: CancellationToken,
    control: Option<&control::ControlHandle>,
) -> Result<()> {
    let token = mcp::token::load_or_create(&config.home)?;
    let listener = mcp::http::bind(addr).await?;
    let local = listener.local_addr().context("reading the bound address")?;
    // So `gatehouse assistants add` can print the URL to give an assistant.
    if let Some(control) = control {
        control.serving_http(local);
    }
    let stop = cancel.clone();
    tokio::spawn(async move {
        stop_signal().await;
        stop.cancel();
    });
    eprintln!(
        "Gatehouse is serving MCP at http://{local}/mcp (bearer token: `gatehouse serve --print-token`, or one per assistant: `gatehouse assistants add NAME`)."
    );
    mcp::http::serve(engine, listener, &token, cancel).await?;
    Ok(())
}

/// Ctrl-C, or (on Unix) the SIGTERM a service manager or an assistant sends to stop the server.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The administrator's policy (a bad file stops the start, naming the line) and the store of grants and the
/// audit log under `GATEHOUSE_HOME` (the sandbox keeps its own). A store that cannot be opened leaves the server
/// running — the person's standing approvals then don't apply and every change not allowed by the policy is
/// asked about — and says why.
async fn approval_setup(config: &Config, sandbox: bool) -> Result<ApprovalSetup> {
    let tools: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    let policy = match Policy::load(|name| std::env::var(name).ok(), &tools)? {
        Some((path, policy)) => {
            tracing::info!(path = %path.display(), "using the administrator's approval policy");
            policy
        }
        None => Policy::default(),
    };
    let file = if sandbox { SANDBOX_DATABASE_FILE } else { DATABASE_FILE };
    let store = match Store::open(&config.home.join(file)).await {
        Ok(store) => Some(store),
        Err(error) => {
            tracing::error!("{error} Until then, every change is asked about and your standing approvals don't apply.");
            None
        }
    };
    Ok(ApprovalSetup { store, policy })
}

/// The sandbox's grants and audit log, apart from the real account's.
pub(crate) const SANDBOX_DATABASE_FILE: &str = "sandbox.db";

/// The sandbox's fixed sign-in: the emulator's sample account, with every scope.
fn sandbox_resolution(token: String) -> Resolution {
    let account = Some(google_fake::SANDBOX_EMAIL.to_owned());
    let snapshot = AuthSnapshot {
        method: AuthMethod::OAuth,
        class: Some(IdentityClass::User),
        account: account.clone(),
        granted_scopes: None,
    };
    let source = "the sandbox's sample account".to_owned();
    Resolution { tokens: Arc::new(StaticToken::new(token, account)), snapshot, user: None, source }
}
