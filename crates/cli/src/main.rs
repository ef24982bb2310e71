//! `gatehouse`: run the Gatehouse MCP server over stdio or HTTP, against Google or in the sandbox.

use std::net::SocketAddr;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use gatehouse_core::config::Config;
use gatehouse_core::host::{Host, HostOptions, stop_signal};
use gatehouse_core::mcp;
use gatehouse_core::mcp::backend::Backend;
use std::sync::Arc;

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
    /// Print the tool reference (the generated docs/tools.md), or the tool sets (--sets).
    Tools(ToolsArgs),
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
struct ToolsArgs {
    /// List the tool sets `--tools` takes, with their tools and the size of their `tools/list` answer.
    #[arg(long)]
    sets: bool,
    /// Print the `manifest.json` of Gatehouse's MCP Bundle for Claude Desktop (`scripts/package.sh` packs it
    /// with this binary), for this platform.
    #[arg(long, conflicts_with = "sets")]
    mcpb_manifest: bool,
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
    /// Run as this user's host where there is no desktop app: the `gatehouse serve` processes assistants
    /// start relay to it (one set of grants, cards and sign-in). Serves no stdio; add --http to serve HTTP too.
    #[arg(long, conflicts_with = "unattended")]
    headless: bool,
    /// Offer this assistant only these tools: a comma list of tool sets (all, sheets, sheets-read, drive,
    /// drive-read, docs, …: `gatehouse tools --sets`) and tool names. ENABLED_TOOLS still bounds them (stdio
    /// only; an HTTP assistant's tools are set per token).
    #[arg(long, value_name = "SETS", conflicts_with_all = ["http", "headless"])]
    tools: Option<gatehouse_core::tools::sets::ToolSelection>,
    /// List at most N of those tools, for an assistant that takes only so many (`gatehouse connect` writes it
    /// for VS Code, Cursor and Windsurf): Google's own tools are the ones left out.
    #[arg(long, value_name = "N", requires = "tools", value_parser = clap::value_parser!(u16).range(1..))]
    max_tools: Option<u16>,
}

/// This platform as an MCP Bundle names it (Node's `process.platform`).
fn mcpb_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

fn init_logging() {
    // Logs go to stderr: stdout is the MCP channel in stdio mode. Never the person's data (see `logging`).
    gatehouse_core::logging::init_stderr();
}

fn main() -> Result<()> {
    limit_malloc_arenas();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting Gatehouse's async runtime")?
        .block_on(run())
}

/// glibc gives each thread that allocates an arena of its own (up to 8 per core), and keeps what each arena
/// once held: with tokio's workers, its blocking threads and one thread per SQLite connection, an idle
/// server kept several megabytes in arenas it no longer used (docs/benchmarks.md, *Idle memory*). Two
/// arenas serve this server's few busy threads without contention. Set before any thread starts; an
/// explicit `MALLOC_ARENA_MAX` in the environment still wins, as glibc reads it first.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

async fn run() -> Result<()> {
    let cli = Cli::parse();
    init_logging();
    // Every command's error is printed as its message alone: the messages say what to do, and a backtrace
    // (which RUST_BACKTRACE would add) would only bury them.
    user_auth::plain_errors(match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Tools(args) => {
            let tools = gatehouse_core::tools::all_tools();
            if args.sets {
                print!("{}", tool_sets(&tools)?);
            } else if args.mcpb_manifest {
                let manifest = gatehouse_core::tools::mcpb_manifest::manifest(&tools, mcpb_platform());
                println!("{}", serde_json::to_string_pretty(&manifest)?);
            } else {
                let discovered = gatehouse_core::tools::discovered::from_emulator();
                let google = gatehouse_core::tools::catalogue_doc::discovered_markdown(&discovered);
                print!("{}{google}", gatehouse_core::tools::catalogue_doc::markdown(&tools));
            }
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
    let config = Config::from_env()?;
    let tools = args.tools.map(|tools| match args.max_tools {
        Some(max) => tools.at_most(usize::from(max)),
        None => tools,
    });
    if args.print_token {
        println!("{}", mcp::token::load_or_create(&config.home)?);
        return Ok(());
    }
    if let Some(addr) = args.http {
        mcp::http::check_loopback(addr)?;
    }
    // An assistant's `gatehouse serve` relays to the user's host when one runs and serves what it asks for (the
    // sandbox for --sandbox; the account, or the sandbox only until someone signs in, otherwise).
    #[cfg(any(unix, windows))]
    if args.http.is_none() && !args.headless {
        match mcp::relay::Relay::connect(config.home.clone()).await {
            Ok(Some(relay)) if relay.serves(args.sandbox) => {
                tracing::info!(host = relay.host_pid(), "serving this assistant from the running Gatehouse host");
                let relay = match &tools {
                    Some(tools) => relay.offering(tools),
                    None => relay,
                };
                let relay: Arc<dyn Backend> = Arc::new(relay);
                return tokio::select! {
                    served = mcp::serve_stdio_offering(relay, !args.unattended, tools) => served.context("serving MCP over stdio"),
                    () = stop_signal() => std::process::exit(0),
                };
            }
            Ok(Some(_)) => {
                tracing::info!("a Gatehouse host runs, but for the other of sandbox or Google: serving here")
            }
            Ok(None) => {}
            Err(error) => tracing::warn!("the running Gatehouse host could not be reached ({error}): serving here"),
        }
    }
    let host = Host::start(HostOptions { config, sandbox: args.sandbox }).await?;
    if args.headless {
        if let Some(control) = host.control() {
            control.accept_relays();
        }
        let served = match args.http {
            Some(addr) => {
                let (local, _task) = host.serve_http(addr).await?;
                eprintln!("Gatehouse is this user's host, and serves MCP at http://{local}/mcp as well.");
                Ok(())
            }
            None => {
                eprintln!("Gatehouse is this user's host: the `gatehouse serve` your assistants start will use it.");
                Ok(())
            }
        };
        stop_signal().await;
        host.shutdown().await;
        return served;
    }
    let served = match args.http {
        Some(addr) => {
            let (local, task) = host.serve_http(addr).await?;
            eprintln!(
                "Gatehouse is serving MCP at http://{local}/mcp (bearer token: `gatehouse serve --print-token`, or one per assistant: `gatehouse assistants add NAME`)."
            );
            let stop = host.cancel_token();
            tokio::spawn(async move {
                stop_signal().await;
                stop.cancel();
            });
            match task.await {
                Ok(served) => served.map_err(anyhow::Error::from),
                Err(error) => Err(anyhow::anyhow!("the HTTP server stopped unexpectedly: {error}")),
            }
        }
        None => tokio::select! {
            served = mcp::serve_stdio_offering(host.engine().clone(), !args.unattended, tools) => served.context("serving MCP over stdio"),
            () = stop_signal() => {
                tracing::info!("stopping: asked to by a signal");
                host.shutdown().await;
                // The stdin reader may sit in a blocking read that would hold the exit until the next line.
                std::process::exit(0);
            }
        },
    };
    host.shutdown().await;
    served
}

/// The tool sets, each with its tools and the size of the `tools/list` result offering it (what it costs an
/// assistant's context), with how much of it is the tools' descriptions and their input schemas, as
/// `gatehouse tools --sets` prints them.
fn tool_sets(tools: &[gatehouse_core::tools::ToolDef]) -> Result<String, serde_json::Error> {
    use gatehouse_core::tools::sets;
    let metas: Vec<_> = tools.iter().map(|tool| tool.meta).collect();
    let mut out = String::from("set\ttools\ttools/list bytes\tdescriptions\tinput schemas\tholds\n");
    for set in sets::named_sets(&metas) {
        let chosen: Vec<_> = tools.iter().filter(|tool| set.tools.contains(&tool.meta.name)).cloned().collect();
        let bytes = sets::list_size(&chosen)?;
        let descriptions: usize = chosen.iter().map(|tool| tool.meta.description.len()).sum();
        let mut schemas = 0;
        for tool in &chosen {
            schemas += serde_json::to_vec(tool.input_schema().as_ref())?.len();
        }
        let (name, count, holds) = (&set.name, set.tools.len(), &set.description);
        out.push_str(&format!("{name}\t{count}\t{bytes}\t{descriptions}\t{schemas}\t{holds}\n"));
    }
    Ok(out)
}
