//! How `gatehouse grants`, `never`, `assistants` and `audit` reach the approvals database: through a running
//! server that uses it (which does the operation and tells the others, so a revoke or a removal reaches each
//! one's memory at once), or, when none runs, by opening the file and doing the same operation here
//! (`gatehouse_core::ops`, which then tells any server that started meanwhile).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use gatehouse_core::approval::store::{Assistant, AuditQuery, AuditRecord, DATABASE_FILE, NeverAllow, NewAssistant};
use gatehouse_core::control::ControlError;
use gatehouse_core::control::protocol::{AssistantTools, Request};
use gatehouse_core::host::SANDBOX_DATABASE_FILE;
use gatehouse_core::ops::{AssistantRevoked, MAX_AUDIT_PAGE, NeverRemoved, Revoked, Verification};
use gatehouse_core::{Client, Config, Grant, Ops, RunningServers, Store, ToolSelection};
use tokio::io::AsyncWrite;

/// The database a command works on: the real account's, or the sandbox's (`--sandbox`).
pub struct Access {
    path: PathBuf,
    home: PathBuf,
    reach: Reach,
}

enum Reach {
    /// The running servers using the database: each operation goes to the first that answers.
    Servers { first: Client, others: Vec<Client> },
    /// No server uses it: the file, opened here.
    Direct(Ops),
}

/// A newly added assistant, and where the running servers serve MCP over HTTP.
pub struct AddedAssistant {
    pub added: NewAssistant,
    /// The URLs (`http://127.0.0.1:PORT/mcp`) of the running servers using this database that serve HTTP.
    pub urls: Vec<String>,
}

impl Access {
    pub async fn open(sandbox: bool) -> Result<Access> {
        let config = Config::from_env()?;
        let path = config.home.join(if sandbox { SANDBOX_DATABASE_FILE } else { DATABASE_FILE });
        let reach = Access::open_reach(&config.home, &path).await?;
        Ok(Access { path, home: config.home, reach })
    }

    /// The running servers using the database at `path`, or the file itself when none runs.
    async fn open_reach(home: &Path, path: &Path) -> Result<Reach> {
        let mut servers = RunningServers::connect(home, path).await?.into_iter();
        Ok(match servers.next() {
            Some(first) => Reach::Servers { first, others: servers.collect() },
            None => {
                let store = Store::open_with(path, gatehouse_core::host::store_options()).await?;
                // A server that starts meanwhile is told of each change.
                Reach::Direct(Ops::new(store, Arc::new(RunningServers::new(home, path))))
            }
        })
    }

    /// Every grant, newest first.
    pub async fn grants(&mut self) -> Result<Vec<Grant>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.grants().await?,
            Reach::Direct(ops) => ops.grants().await?,
        })
    }

    /// Revokes grant `id` in the database and in the memory of every server using it.
    pub async fn revoke(&mut self, id: &str) -> Result<Revoked> {
        Ok(match &mut self.reach {
            Reach::Servers { first, others } => {
                first_answering(first, others, async |server: &mut Client| server.revoke(id).await).await?
            }
            Reach::Direct(ops) => ops.revoke_grant(id).await?,
        })
    }

    /// Every *never allow* rule, removed ones too, newest first.
    pub async fn never_allows(&mut self) -> Result<Vec<NeverAllow>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.never_list().await?,
            Reach::Direct(ops) => ops.never_allows().await?,
        })
    }

    /// Makes a *never allow* rule through the first running server, which keeps it for the Google account it
    /// is signed in as (and tells the others); returns it and how many other servers use the database.
    /// With no server running there is no signed-in account to give it to, so that is an error.
    pub async fn add_never(&mut self, tool: &str, agent: Option<&str>, days: u32) -> Result<(NeverAllow, usize)> {
        match &mut self.reach {
            Reach::Servers { first, others } => Ok((first.never_add(tool, agent, days, None).await?, others.len())),
            Reach::Direct(_) => bail!(
                "No Gatehouse server is running for this user. A never-allow rule belongs to the Google account a running server is signed in as, so one must run: start your assistant (it runs `gatehouse serve`), then try again."
            ),
        }
    }

    /// Removes *never allow* rule `id` in the database and in the memory of every server using it.
    pub async fn remove_never(&mut self, id: &str) -> Result<NeverRemoved> {
        Ok(match &mut self.reach {
            Reach::Servers { first, others } => {
                first_answering(first, others, async |server: &mut Client| server.never_remove(id).await).await?
            }
            Reach::Direct(ops) => ops.remove_never(id).await?,
        })
    }

    /// Every assistant registered for HTTP, revoked ones too, newest first.
    pub async fn assistants(&mut self) -> Result<Vec<Assistant>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.assistants().await?,
            Reach::Direct(ops) => ops.assistants().await?,
        })
    }

    /// Registers an assistant for HTTP: through a running server that serves HTTP (else the first), which
    /// knows its token at once and tells the other servers; with none running, in the file.
    pub async fn add_assistant(&mut self, name: &str, interactive: bool) -> Result<AddedAssistant> {
        match &mut self.reach {
            Reach::Servers { first, others } => {
                let mut servers: Vec<&mut Client> = std::iter::once(first).chain(others.iter_mut()).collect();
                let mut urls = Vec::new();
                let mut serving_http = None;
                for (i, server) in servers.iter_mut().enumerate() {
                    match server.info().await {
                        Ok(info) => {
                            if let Some(url) = info.http_url {
                                serving_http.get_or_insert(i);
                                urls.push(url);
                            }
                        }
                        Err(error) => tracing::warn!("skipped a Gatehouse server: {error}"),
                    }
                }
                let through = serving_http.unwrap_or(0);
                let added = servers[through].assistant_add(name, interactive).await?;
                Ok(AddedAssistant { added, urls })
            }
            Reach::Direct(ops) => {
                let added = ops.add_assistant(name, interactive).await?;
                let urls = http_urls(&mut RunningServers::connect(&self.home, &self.path).await?).await;
                Ok(AddedAssistant { added, urls })
            }
        }
    }

    /// Revokes assistant `id` in the database and in the memory of every server using it, so its token is
    /// refused from its next request on.
    pub async fn revoke_assistant(&mut self, id: &str) -> Result<AssistantRevoked> {
        Ok(match &mut self.reach {
            Reach::Servers { first, others } => {
                first_answering(first, others, async |server: &mut Client| server.assistant_revoke(id).await).await?
            }
            Reach::Direct(ops) => ops.revoke_assistant(id).await?,
        })
    }

    /// Offers assistant `id` only the tools of `tools` (`None`: every tool), in the database and every running
    /// server using it. Returns whether it changed (`false`: revoked, or no such assistant) and the assistant as
    /// it now stands.
    pub async fn set_assistant_tools(
        &mut self,
        id: &str,
        tools: Option<&ToolSelection>,
    ) -> Result<(bool, Option<Assistant>)> {
        let done = match &mut self.reach {
            Reach::Servers { first, others } => {
                let request = Request::AssistantTools { id: id.to_owned(), tools: tools.map(|t| t.spec().to_owned()) };
                first_answering(first, others, async |server: &mut Client| server.ask::<AssistantTools>(&request).await)
                    .await?
            }
            Reach::Direct(ops) => ops.set_assistant_tools(id, tools).await?,
        };
        Ok((done.changed, done.assistant))
    }

    /// The newest `query.limit` records matching it, newest first (fetched a page at a time).
    pub async fn audit(&mut self, query: &AuditQuery) -> Result<Vec<AuditRecord>> {
        let mut records: Vec<AuditRecord> = Vec::new();
        let mut page = query.clone();
        let mut asked_again = false;
        while records.len() < query.limit as usize {
            page.limit = (query.limit - records.len() as u32).min(MAX_AUDIT_PAGE);
            let more = match &mut self.reach {
                Reach::Servers { first, .. } => match first.audit(&page).await {
                    Ok(more) => more,
                    // The server stopped while it was asked (its assistant quit): ask again wherever the
                    // database is now reached, another server or the file itself.
                    Err(ControlError::Io { .. }) if !asked_again => {
                        asked_again = true;
                        self.reach = Access::open_reach(&self.home, &self.path).await?;
                        continue;
                    }
                    Err(error) => return Err(error.into()),
                },
                Reach::Direct(ops) => ops.audit(&page).await?,
            };
            let full = more.len() == page.limit as usize;
            page.before_seq = more.last().map(|record| record.seq);
            records.extend(more);
            if !full || page.before_seq.is_none() {
                break;
            }
        }
        Ok(records)
    }

    pub async fn verify(&mut self) -> Result<Verification> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.verify().await?,
            Reach::Direct(ops) => ops.verify().await?,
        })
    }

    /// Everything the store holds but does not honour or can't check, in words (rows something other than
    /// Gatehouse wrote; no keychain to check them with).
    pub async fn seal_report(&mut self) -> Result<Vec<String>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.seal_report().await?,
            Reach::Direct(ops) => ops.seal_report().await?,
        })
    }

    /// Writes the whole log to `out` as JSON Lines, oldest first; returns how many records.
    pub async fn export<W: AsyncWrite + Unpin>(&mut self, out: &mut W) -> Result<u64> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.export(out).await?,
            Reach::Direct(ops) => ops.export(out).await?,
        })
    }

    /// Lets go of the database file (folding its write-ahead log in) when it was opened here.
    pub async fn close(self) {
        if let Reach::Direct(ops) = self.reach {
            ops.store().close().await;
        }
    }
}

/// Where the given servers serve MCP over HTTP; one that can't say is logged and left out.
async fn http_urls(servers: &mut [Client]) -> Vec<String> {
    let mut urls = Vec::new();
    for server in servers {
        match server.info().await {
            Ok(info) => urls.extend(info.http_url),
            Err(error) => tracing::warn!("skipped a Gatehouse server: {error}"),
        }
    }
    urls
}

/// Asks the running servers using the database (`first`, then `others`) in turn until one answers: that one
/// does the operation and tells the rest. A server that can't be reached is logged, and only when none
/// answers is that an error.
async fn first_answering<T>(
    first: &mut Client,
    others: &mut [Client],
    mut ask: impl AsyncFnMut(&mut Client) -> Result<T, ControlError>,
) -> Result<T> {
    let mut failed = None;
    for server in std::iter::once(first).chain(others.iter_mut()) {
        match ask(server).await {
            Ok(answer) => return Ok(answer),
            // The server answered that it can't: another would say the same.
            Err(error @ ControlError::Server { .. }) => return Err(error.into()),
            Err(error) => {
                tracing::warn!("{error}");
                failed.get_or_insert(error);
            }
        }
    }
    match failed {
        Some(error) => Err(error.into()),
        None => bail!("No Gatehouse server answered."),
    }
}
