//! `gatehouse audit`: the record of every tool call (newest first), checking that nobody changed it, and
//! exporting it as JSON Lines.

use std::path::{Path, PathBuf};

use crate::store_access::Access;
use crate::user_auth::plain_errors;
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use gatehouse_core::approval::model::{AuditEntry, CallOutcome};
use gatehouse_core::approval::store::{AuditQuery, AuditRecord};
use gatehouse_core::shown::shown;
use gatehouse_core::words::{agent_words, answer_channel_words, one_line, outcome_words, time, verdict_words};
use tokio::io::AsyncWriteExt;

#[derive(clap::Args)]
pub struct AuditArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// How many records to show, newest first.
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    limit: u32,
    /// Only the calls of this tool (e.g. update_cells).
    #[arg(long, value_name = "TOOL")]
    tool: Option<String>,
    /// Only the calls of this assistant, by the name it gave.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// The sandbox's audit log (`gatehouse serve --sandbox`) instead of your account's.
    #[arg(long, global = true)]
    sandbox: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Check that no record was changed, removed, reordered or added outside Gatehouse.
    Verify,
    /// Write the whole log as JSON Lines (one record per line, oldest first) to stdout or a file.
    Export {
        /// Write to this file (created readable by you only) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

pub async fn run(args: AuditArgs) -> Result<()> {
    plain_errors(audit(args).await)
}

async fn audit(args: AuditArgs) -> Result<()> {
    let mut access = Access::open(args.sandbox).await?;
    let result = match args.action {
        None => {
            let query = AuditQuery { limit: args.limit, before_seq: None, tool: args.tool, agent: args.agent };
            list(&mut access, &query).await
        }
        Some(Action::Verify) => verify(&mut access).await,
        Some(Action::Export { output }) => export(&mut access, output.as_deref()).await,
    };
    access.close().await;
    result
}

async fn list(access: &mut Access, query: &AuditQuery) -> Result<()> {
    let records = access.audit(query).await?;
    if records.is_empty() {
        println!("The audit log has no records{}.", filter_words(query));
        return Ok(());
    }
    let header =
        ["TIME", "AGENT", "TOOL", "TARGET", "VERDICT", "SOURCE", "ANSWERED", "OUTCOME", "DURATION"].map(str::to_owned);
    let rows: Vec<[String; 9]> = records.iter().map(row).collect();
    let mut widths = header.clone().map(|cell| cell.chars().count());
    for cells in &rows {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    println!("The newest {} record(s){}, newest first:", records.len(), filter_words(query));
    for cells in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = cells.iter().zip(widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        println!("{}", line.join("  ").trim_end());
    }
    Ok(())
}

fn row(record: &AuditRecord) -> [String; 9] {
    let AuditEntry { time: at, agent, tool, target, verdict, source, outcome, duration_ms, answered_via, .. } =
        &record.entry;
    let outcome = match outcome {
        CallOutcome::Error(message) => format!("error: {}", one_line(message, 60)),
        outcome => outcome_words(outcome),
    };
    [
        time(*at),
        agent.as_ref().map(agent_words).unwrap_or_else(|| "(unnamed)".to_owned()),
        one_line(tool, 64),
        target.as_deref().map(|target| one_line(target, 64)).unwrap_or_else(|| "-".to_owned()),
        verdict_words(*verdict).to_owned(),
        one_line(&source.to_string(), 64),
        answered_via.as_ref().map(answer_channel_words).unwrap_or_else(|| "-".to_owned()),
        outcome,
        format!("{duration_ms} ms"),
    ]
}

fn filter_words(query: &AuditQuery) -> String {
    match (&query.tool, &query.agent) {
        (None, None) => String::new(),
        (Some(tool), None) => format!(" of {}", shown(tool)),
        (None, Some(agent)) => format!(" from {}", shown(agent)),
        (Some(tool), Some(agent)) => format!(" of {} from {}", shown(tool), shown(agent)),
    }
}

async fn verify(access: &mut Access) -> Result<()> {
    let verification = access.verify().await?;
    for line in &verification.ignored {
        eprintln!("{}", shown(line));
    }
    if !verification.intact {
        bail!(
            "{} Keep a copy of the database as it is for whoever investigates; new records still chain on from the end.",
            shown(&verification.message)
        );
    }
    println!("{}", shown(&verification.message));
    if !verification.ignored.is_empty() {
        bail!(
            "The audit log's records chain, but Gatehouse found {} problem(s) with the approvals database (above): rows it does not honour or can't check. Keep a copy of the database as it is for whoever investigates.",
            verification.ignored.len()
        );
    }
    Ok(())
}

async fn export(access: &mut Access, output: Option<&Path>) -> Result<()> {
    match output {
        None => {
            let mut stdout = tokio::io::stdout();
            access.export(&mut stdout).await?;
            stdout.flush().await.context("writing the export to stdout")?;
        }
        Some(path) => {
            let mut file = private_file(path).await?;
            let count = access.export(&mut file).await?;
            file.sync_all().await.with_context(|| format!("saving {}", path.display()))?;
            eprintln!("Exported {count} audit record(s) to {}.", path.display());
        }
    }
    Ok(())
}

/// Creates (or empties) `path`, readable by this user only: the log holds the calls' arguments.
async fn private_file(path: &Path) -> Result<tokio::fs::File> {
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    options.open(path).await.with_context(|| {
        format!("{} could not be created: check the folder exists and you can write to it", path.display())
    })
}
