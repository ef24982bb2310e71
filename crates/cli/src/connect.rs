//! `gatehouse connect CLIENT [--sandbox]`, `gatehouse connect --list`, `gatehouse connect --snippet [CLIENT]` and
//! `gatehouse disconnect CLIENT`: the terminal face of `gatehouse_core::connect`, which does all the work.

use std::path::PathBuf;

use anyhow::{Context, Result};
use gatehouse_core::connect::{
    CLIENTS, ConnectOutcome, Connection, DisconnectOutcome, ENTRY_NAME, ServerEntry, client_ids, connect, disconnect,
    find_client, limit, snippet, status,
};
use gatehouse_core::tools::sets::catalogue;

use crate::user_auth::plain_errors;

#[derive(clap::Args)]
pub struct ConnectArgs {
    /// The assistant: claude-desktop, claude-code, cursor, vscode, windsurf or goose.
    #[arg(required_unless_present_any = ["list", "snippet"])]
    client: Option<String>,
    /// Connect it to the sandbox (`gatehouse serve --sandbox`): sample files, no Google account.
    #[arg(long)]
    sandbox: bool,
    /// List the assistants Gatehouse can connect, whether each is installed and connected.
    #[arg(long, conflicts_with_all = ["client", "sandbox", "snippet"])]
    list: bool,
    /// Print what to paste into the assistant's settings instead of changing its file (with no assistant named:
    /// the form most MCP clients read).
    #[arg(long)]
    snippet: bool,
    /// Offer the assistant only these tools: a comma list of tool sets (`gatehouse tools --sets`) and tool
    /// names, written into its entry as `gatehouse serve --tools …`. Without it, an assistant that takes only so
    /// many tools (VS Code, Cursor, Windsurf) is offered sets that fit, and told so.
    #[arg(long, value_name = "SETS", conflicts_with = "list")]
    tools: Option<gatehouse_core::tools::sets::ToolSelection>,
}

#[derive(clap::Args)]
pub struct DisconnectArgs {
    /// The assistant: claude-desktop, claude-code, cursor, vscode, windsurf or goose.
    client: String,
}

fn lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// This program, which the assistant is told to start: it launches with a bare PATH, so the full path it is.
fn this_binary() -> Result<PathBuf> {
    std::env::current_exe().context("Gatehouse could not find the path of its own program, which the assistant needs")
}

pub fn run_connect(args: ConnectArgs) -> Result<()> {
    plain_errors(connect_command(args))
}

pub fn run_disconnect(args: DisconnectArgs) -> Result<()> {
    plain_errors(disconnect_command(args))
}

fn connect_command(args: ConnectArgs) -> Result<()> {
    if args.list {
        return list();
    }
    let entry = ServerEntry::gatehouse(&this_binary()?, args.sandbox)?;
    let client = args.client.as_deref().map(find_client).transpose()?;
    // An assistant that takes only so many tools gets a set that fits, unless the person chose one.
    let fit = client.map(|client| limit::fit(client, args.tools.as_ref(), catalogue()));
    let selection = match &fit {
        Some(fit) => fit.selection.as_ref(),
        None => args.tools.as_ref(),
    };
    let entry = match selection {
        Some(tools) => entry.offering(tools),
        None => entry,
    };
    if args.snippet {
        print!("{}", snippet(client, &entry));
        return Ok(());
    }
    let Some(client) = client else {
        anyhow::bail!("Name the assistant to connect, one of: {}.", client_ids());
    };
    let connected = connect(client, &entry, &lookup)?;
    let path = connected.path.display();
    let name = client.name;
    match connected.outcome {
        ConnectOutcome::AlreadyConnected => println!("{name} is already connected ({path}): nothing changed."),
        outcome => {
            let verb = if outcome == ConnectOutcome::Added { "Added" } else { "Updated" };
            println!("{verb} \"{ENTRY_NAME}\" in {path}.");
            if let Some(backup) = &connected.backup {
                println!("The file as it was is saved in {}.", backup.display());
            }
            println!("Restart {name} (or reload its MCP servers) to start using Gatehouse.");
        }
    }
    if let Some(words) = fit.and_then(|fit| fit.words) {
        println!(
            "{words} To choose other tools: gatehouse connect {} --tools SETS (gatehouse tools --sets lists them).",
            client.id
        );
    }
    if !connected.installed {
        println!(
            "Note: {name} does not look installed on this computer; the setting is ready for when it is. \
             To undo: gatehouse disconnect {}",
            client.id
        );
    }
    Ok(())
}

fn disconnect_command(args: DisconnectArgs) -> Result<()> {
    let client = find_client(&args.client)?;
    let disconnected = disconnect(client, ENTRY_NAME, &lookup)?;
    let path = disconnected.path.display();
    match disconnected.outcome {
        DisconnectOutcome::NothingToRemove => {
            println!("{} was not connected ({path} has no \"{ENTRY_NAME}\" entry): nothing changed.", client.name)
        }
        DisconnectOutcome::Removed => {
            println!("Removed \"{ENTRY_NAME}\" from {path}; everything else in it is as it was.");
            if let Some(backup) = &disconnected.backup {
                println!("The file as it was is saved in {}.", backup.display());
            }
            println!("Restart {} to let it notice.", client.name);
        }
    }
    Ok(())
}

/// One line per assistant: installed, connected (to this program or another), and its config file.
fn list() -> Result<()> {
    let binary = this_binary()?;
    let width = CLIENTS.iter().map(|client| client.id.len()).max().unwrap_or(0);
    for client in &CLIENTS {
        let status = status(client, ENTRY_NAME, &binary, &lookup)?;
        let installed = if status.installed { "installed" } else { "not installed" };
        let connected = match &status.connection {
            Connection::NotConnected => "not connected".to_owned(),
            connection @ Connection::Connected { this_binary: true, .. } if connection.runs_sandbox() => {
                "connected (sandbox)".to_owned()
            }
            Connection::Connected { this_binary: true, .. } => "connected".to_owned(),
            Connection::Connected { command, .. } => format!(
                "connected to another program ({}): `gatehouse connect {}` points it here",
                command.as_deref().unwrap_or("none"),
                client.id
            ),
            Connection::Unreadable(error) => format!("unknown: {error}"),
        };
        println!("{:width$}  {installed:13}  {connected}  [{}]", client.id, status.path.display());
    }
    Ok(())
}
