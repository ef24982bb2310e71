//! `gatehouse assistants`: the assistants that reach Gatehouse over HTTP, each with its own token, so its
//! calls carry its name (on cards, in grants, in the audit log) and its token can be revoked alone. An
//! assistant added with `--automation` is never asked about: only what the administrator's policy allows
//! for unattended use runs. Changes reach every running server at once; with none running, the database.

use anyhow::{Result, bail};
use clap::Subcommand;
use gatehouse_core::approval::store::Assistant;
use gatehouse_core::connect::{http_snippet, url_with_token};
use gatehouse_core::shown::shown;

use crate::grants::time;
use crate::store_access::Access;
use crate::user_auth::plain_errors;

/// The address the hint suggests when no server serves HTTP yet.
const SUGGESTED_ADDR: &str = "127.0.0.1:8765";

#[derive(clap::Args)]
pub struct AssistantsArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// The sandbox's assistants (`gatehouse serve --sandbox --http …`) instead of your account's.
    #[arg(long, global = true)]
    sandbox: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Register an assistant and print its token (shown only once), its URL and a snippet to paste.
    Add {
        /// The name its calls are shown and recorded under, e.g. claude-desktop or nightly-report.
        name: String,
        /// It runs on its own (a scheduled job, a pipeline), not a person chatting: nothing it does is asked
        /// about, so only what the administrator's policy allows for unattended use runs.
        #[arg(long)]
        automation: bool,
    },
    /// Offer an assistant only some tools: a comma list of tool sets (`gatehouse tools --sets`) and tool
    /// names, or `all` for every tool. ENABLED_TOOLS still bounds them.
    Tools {
        /// The assistant's name, or its id (the first 8 characters are enough).
        name_or_id: String,
        /// e.g. sheets-read,drive-read
        sets: String,
    },
    /// End an assistant's token now: its next request is refused.
    Revoke {
        /// The assistant's name, or its id as `gatehouse assistants` shows it (the first 8 characters are
        /// enough).
        name_or_id: String,
    },
}

pub async fn run(args: AssistantsArgs) -> Result<()> {
    plain_errors(assistants(args).await)
}

async fn assistants(args: AssistantsArgs) -> Result<()> {
    let mut access = Access::open(args.sandbox).await?;
    let result = match args.action {
        None => list(&mut access).await,
        Some(Action::Add { name, automation }) => add(&mut access, &name, !automation).await,
        Some(Action::Tools { name_or_id, sets }) => tools(&mut access, &name_or_id, &sets).await,
        Some(Action::Revoke { name_or_id }) => revoke(&mut access, &name_or_id).await,
    };
    access.close().await;
    result
}

async fn list(access: &mut Access) -> Result<()> {
    let assistants = access.assistants().await?;
    if assistants.is_empty() {
        println!(
            "No assistants have their own token. `gatehouse assistants add NAME` makes one for an assistant that connects over HTTP."
        );
        return Ok(());
    }
    let active = assistants.iter().filter(|assistant| assistant.revoked.is_none()).count();
    println!("Assistants: {} ({active} active).", assistants.len());
    for assistant in &assistants {
        println!();
        println!("Assistant {}", shown(&assistant.name));
        println!("  Id:         {}", shown(&assistant.id));
        let kind = if assistant.interactive { "interactive" } else { "automation (never asked)" };
        println!("  Kind:       {kind}");
        println!("  Created:    {}", time(assistant.created));
        println!("  Last used:  {}", assistant.last_used.map(time).unwrap_or_else(|| "never".into()));
        println!("  State:      {}", state(assistant));
        println!("  Tools:      {}", shown(assistant.tools.as_deref().unwrap_or("all")));
    }
    println!();
    println!("End one's token with `gatehouse assistants revoke NAME`.");
    Ok(())
}

async fn add(access: &mut Access, name: &str, interactive: bool) -> Result<()> {
    let added = access.add_assistant(name, interactive).await?;
    let assistant = &added.added.assistant;
    let token = &added.added.token;
    println!("Added the assistant “{}” ({}).", shown(&assistant.name), kind_words(interactive));
    println!();
    println!("Its token, shown only this once (keep it secret: it lets anyone with it act as this assistant):");
    println!("  {token}");
    println!();
    let url = match added.urls.first() {
        Some(url) => {
            println!("Gatehouse serves it at: {url}");
            url.clone()
        }
        None => {
            let url = format!("http://{SUGGESTED_ADDR}/mcp");
            println!(
                "No Gatehouse server is serving HTTP right now. Start one with `gatehouse serve --http {SUGGESTED_ADDR}`; the URL is then {url}."
            );
            url
        }
    };
    println!();
    println!("For a client configured with JSON (paste into its MCP settings):");
    print!("{}", http_snippet(&url, token));
    println!();
    println!("For a client that takes only a URL:");
    println!("  {}", url_with_token(&url, token));
    println!();
    println!("End its token with `gatehouse assistants revoke {}`.", shown(&assistant.name));
    Ok(())
}

async fn tools(access: &mut Access, given: &str, sets: &str) -> Result<()> {
    let selection = gatehouse_core::ToolSelection::parse_kept(sets)?;
    let assistant = find(access, given).await?;
    let (changed, now) = access.set_assistant_tools(&assistant.id, selection.as_ref()).await?;
    match (changed, now) {
        (true, Some(now)) => println!(
            "The assistant “{}” is now offered {} from its next request on.",
            shown(&now.name),
            now.tools.map(|tools| format!("the tool set “{tools}”")).unwrap_or_else(|| "every tool".to_owned())
        ),
        (_, Some(now)) if now.revoked.is_some() => {
            bail!("The assistant “{}” is revoked, so its tools can't be changed.", now.name)
        }
        _ => bail!("There is no assistant {given}. Run `gatehouse assistants` to see them."),
    }
    Ok(())
}

async fn revoke(access: &mut Access, given: &str) -> Result<()> {
    let assistant = find(access, given).await?;
    let result = access.revoke_assistant(&assistant.id).await?;
    let Some(assistant) = result.assistant else {
        bail!("There is no assistant {given}. Run `gatehouse assistants` to see them.");
    };
    match (result.changed, assistant.revoked) {
        (true, _) => println!(
            "Revoked the token of the assistant “{}” ({}). Its next request is refused.",
            shown(&assistant.name),
            assistant.id
        ),
        (false, Some(at)) => {
            println!(
                "The assistant “{}” ({}) was already revoked at {}.",
                shown(&assistant.name),
                assistant.id,
                time(at)
            )
        }
        (false, None) => {
            bail!("The assistant “{}” could not be revoked. Run the command again.", shown(&assistant.name))
        }
    }
    Ok(())
}

/// The assistant `given` names: by id, by the name of an active assistant (ignoring case), by the start of
/// an id (8 characters at least), or else by the name of the newest revoked one.
async fn find(access: &mut Access, given: &str) -> Result<Assistant> {
    let given = given.trim();
    if given.is_empty() {
        bail!(
            "Say which assistant to revoke: `gatehouse assistants revoke NAME` with a name `gatehouse assistants` shows."
        );
    }
    let assistants = access.assistants().await?;
    let named = |assistant: &&Assistant| assistant.name.eq_ignore_ascii_case(given);
    if let Some(found) = assistants.iter().find(|assistant| assistant.id == given) {
        return Ok(found.clone());
    }
    if let Some(found) = assistants.iter().filter(|assistant| assistant.revoked.is_none()).find(named) {
        return Ok(found.clone());
    }
    let matching: Vec<&Assistant> = assistants.iter().filter(|assistant| assistant.id.starts_with(given)).collect();
    match matching.as_slice() {
        [only] if given.len() >= 8 => return Ok((*only).clone()),
        [_] => bail!("{given:?} is too short to name an assistant's id safely: give at least its first 8 characters."),
        [] => {}
        several => {
            let ids: Vec<&str> = several.iter().map(|assistant| assistant.id.as_str()).collect();
            bail!("{given:?} starts the ids of several assistants ({}): give more of it.", ids.join(", "))
        }
    }
    // Newest first, so the most recent of that name.
    match assistants.iter().find(named) {
        Some(found) => Ok(found.clone()),
        None => bail!("There is no assistant {given}. Run `gatehouse assistants` to see them."),
    }
}

fn kind_words(interactive: bool) -> &'static str {
    if interactive {
        "interactive: a person chats through it, and its changes are asked about"
    } else {
        "automation: nothing it does is asked about, so only what the administrator's policy allows for unattended use runs"
    }
}

fn state(assistant: &Assistant) -> String {
    match assistant.revoked {
        Some(at) => format!("revoked {}", time(at)),
        None => "active".to_owned(),
    }
}
