//! How `gatehouse grants`, `never`, `assistants` and `audit` reach the approvals database: through the
//! running servers that use it (so a revoke or a removal reaches each one's memory at once), or, when none
//! runs, by opening the file.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use gatehouse_core::approval::model::Grant;
use gatehouse_core::approval::store::{
    Assistant, AuditQuery, AuditRecord, DATABASE_FILE, NeverAllow, NewAssistant, Store,
};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::{MAX_AUDIT_PAGE, Verification};
use gatehouse_core::control::{Client, ControlError};
use tokio::io::AsyncWrite;

use gatehouse_core::host::SANDBOX_DATABASE_FILE;

/// The database a command works on: the real account's, or the sandbox's (`--sandbox`).
pub struct Access {
    path: PathBuf,
    home: PathBuf,
    reach: Reach,
}

enum Reach {
    /// The running servers using the database: reads go to the first.
    Servers { first: Client, others: Vec<Client> },
    /// No server uses it: the file, opened here.
    Direct(Store),
}

/// What a revoke found.
pub struct RevokeResult {
    /// This revoke changed it (`false`: it was already revoked, or there is no such grant).
    pub changed: bool,
    /// The grant as it now stands; `None` when there is no such grant.
    pub grant: Option<Grant>,
}

/// What a *never allow* removal found.
pub struct NeverRemoveResult {
    /// This removal changed it (`false`: it was already removed, or there is no such rule).
    pub changed: bool,
    /// The rule as it now stands; `None` when there is no such rule.
    pub rule: Option<NeverAllow>,
}

/// What an assistant's revoke found.
pub struct AssistantRevokeResult {
    /// This revoke changed it (`false`: it was already revoked, or there is no such assistant).
    pub changed: bool,
    /// The assistant as it now stands; `None` when there is no such assistant.
    pub assistant: Option<Assistant>,
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
        let mut servers = servers_using(home, path).await?.into_iter();
        Ok(match servers.next() {
            Some(first) => Reach::Servers { first, others: servers.collect() },
            None => Reach::Direct(Store::open_with(path, gatehouse_core::host::store_options()).await?),
        })
    }

    /// Every grant, newest first.
    pub async fn grants(&mut self) -> Result<Vec<Grant>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.grants().await?,
            Reach::Direct(store) => store.list_grants().await?,
        })
    }

    /// Revokes grant `id` in the database and in the memory of every server using it. A server that can't
    /// be told is logged: its periodic check of the database catches up within seconds.
    pub async fn revoke(&mut self, id: &str) -> Result<RevokeResult> {
        let mut result = RevokeResult { changed: false, grant: None };
        match &mut self.reach {
            Reach::Servers { first, others } => {
                for revoked in each_server(first, others, async |server: &mut Client| server.revoke(id).await).await? {
                    result.changed |= revoked.changed;
                    result.grant = revoked.grant.or(result.grant.take());
                }
            }
            Reach::Direct(store) => {
                result.changed = store.revoke_grant(id, chrono::Utc::now()).await?;
                result.grant = store.get_grant(id).await?;
                // A server that started meanwhile may have loaded the grant before the revoke: tell it too.
                // One that starts later loads it revoked, or catches up as soon as its socket is up.
                for mut server in servers_using(&self.home, &self.path).await? {
                    if let Err(error) = server.revoke(id).await {
                        tracing::warn!("{error}");
                    }
                }
            }
        }
        Ok(result)
    }

    /// Every *never allow* rule, removed ones too, newest first.
    pub async fn never_allows(&mut self) -> Result<Vec<NeverAllow>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.never_list().await?,
            Reach::Direct(store) => store.list_never_allow().await?,
        })
    }

    /// Makes a *never allow* rule through the first running server, which keeps it for the Google account it
    /// is signed in as; returns it and how many other servers use the database (they read it within seconds).
    /// With no server running there is no signed-in account to give it to, so that is an error.
    pub async fn add_never(&mut self, tool: &str, agent: Option<&str>, days: u32) -> Result<(NeverAllow, usize)> {
        match &mut self.reach {
            Reach::Servers { first, others } => Ok((first.never_add(tool, agent, days, None).await?, others.len())),
            Reach::Direct(_) => bail!(
                "No Gatehouse server is running for this user. A never-allow rule belongs to the Google account a running server is signed in as, so one must run: start your assistant (it runs `gatehouse serve`), then try again."
            ),
        }
    }

    /// Removes *never allow* rule `id` in the database and in the memory of every server using it. A server
    /// that can't be told is logged: its periodic check of the database catches up within seconds.
    pub async fn remove_never(&mut self, id: &str) -> Result<NeverRemoveResult> {
        let mut result = NeverRemoveResult { changed: false, rule: None };
        match &mut self.reach {
            Reach::Servers { first, others } => {
                let removals = each_server(first, others, async |server: &mut Client| server.never_remove(id).await);
                for removed in removals.await? {
                    result.changed |= removed.changed;
                    result.rule = removed.rule.or(result.rule.take());
                }
            }
            Reach::Direct(store) => {
                result.changed = store.remove_never_allow(id, chrono::Utc::now()).await?;
                result.rule = store.get_never_allow(id).await?;
                // A server that started meanwhile may have loaded the rule before the removal: tell it too.
                for mut server in servers_using(&self.home, &self.path).await? {
                    if let Err(error) = server.never_remove(id).await {
                        tracing::warn!("{error}");
                    }
                }
            }
        }
        Ok(result)
    }

    /// Every assistant registered for HTTP, revoked ones too, newest first.
    pub async fn assistants(&mut self) -> Result<Vec<Assistant>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.assistants().await?,
            Reach::Direct(store) => store.list_assistants().await?,
        })
    }

    /// Registers an assistant for HTTP: through a running server that serves HTTP (else the first), which
    /// knows its token at once, then tells the other servers to read it now; with none running, in the file.
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
                for (i, server) in servers.iter_mut().enumerate() {
                    if i != through
                        && let Err(error) = server.refresh().await
                    {
                        // Its periodic check of the database catches up within seconds.
                        tracing::warn!("{error}");
                    }
                }
                Ok(AddedAssistant { added, urls })
            }
            Reach::Direct(store) => {
                let added = store.add_assistant(name, interactive, chrono::Utc::now()).await?;
                // A server that started meanwhile loaded the assistants before the add: tell it to read again.
                let mut servers = servers_using(&self.home, &self.path).await?;
                for server in &mut servers {
                    if let Err(error) = server.refresh().await {
                        tracing::warn!("{error}");
                    }
                }
                let urls = http_urls(&mut servers).await;
                Ok(AddedAssistant { added, urls })
            }
        }
    }

    /// Revokes assistant `id` in the database and in the memory of every server using it, so its token is
    /// refused from its next request on. A server that can't be told is logged: its periodic check of the
    /// database catches up within seconds.
    pub async fn revoke_assistant(&mut self, id: &str) -> Result<AssistantRevokeResult> {
        let mut result = AssistantRevokeResult { changed: false, assistant: None };
        match &mut self.reach {
            Reach::Servers { first, others } => {
                let revokes = each_server(first, others, async |server: &mut Client| server.assistant_revoke(id).await);
                for revoked in revokes.await? {
                    result.changed |= revoked.changed;
                    result.assistant = revoked.assistant.or(result.assistant.take());
                }
            }
            Reach::Direct(store) => {
                result.changed = store.revoke_assistant(id, chrono::Utc::now()).await?;
                result.assistant = store.get_assistant(id).await?;
                // A server that started meanwhile may have loaded the assistant before the revoke: tell it too.
                for mut server in servers_using(&self.home, &self.path).await? {
                    if let Err(error) = server.assistant_revoke(id).await {
                        tracing::warn!("{error}");
                    }
                }
            }
        }
        Ok(result)
    }

    /// Offers assistant `id` only the tools of `tools` (`None`: every tool). Written to the database, then
    /// every running server using it is told to read it again; one that can't be told is logged (its periodic
    /// check of the database catches up within seconds). Returns the assistant as it now stands, and whether
    /// it changed (`false`: revoked, or no such assistant).
    pub async fn set_assistant_tools(
        &mut self,
        id: &str,
        tools: Option<&gatehouse_core::tools::sets::ToolSelection>,
    ) -> Result<(bool, Option<Assistant>)> {
        let opened;
        let store = match &self.reach {
            Reach::Direct(store) => store,
            Reach::Servers { .. } => {
                opened = Store::open(&self.path).await?;
                &opened
            }
        };
        let changed = store.set_assistant_tools(id, tools).await?;
        let assistant = store.get_assistant(id).await?;
        for mut server in servers_using(&self.home, &self.path).await? {
            if let Err(error) = server.refresh().await {
                tracing::warn!("{error}");
            }
        }
        Ok((changed, assistant))
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
                Reach::Direct(store) => store.list_audit(&page).await?,
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
            Reach::Direct(store) => {
                let mut verification = Verification::from(&store.verify_audit().await?);
                verification.ignored = store.seal_report().await?;
                verification
            }
        })
    }

    /// Everything the store holds but does not honour or can't check, in words (rows something other than
    /// Gatehouse wrote; no keychain to check them with).
    pub async fn seal_report(&mut self) -> Result<Vec<String>> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.seal_report().await?,
            Reach::Direct(store) => store.seal_report().await?,
        })
    }

    /// Writes the whole log to `out` as JSON Lines, oldest first; returns how many records.
    pub async fn export<W: AsyncWrite + Unpin>(&mut self, out: &mut W) -> Result<u64> {
        Ok(match &mut self.reach {
            Reach::Servers { first, .. } => first.export(out).await?,
            Reach::Direct(store) => store.export_audit(out).await?,
        })
    }

    /// Lets go of the database file (folding its write-ahead log in) when it was opened here.
    pub async fn close(self) {
        if let Reach::Direct(store) = self.reach {
            store.close().await;
        }
    }
}

/// The running servers whose approvals database is `path`; one that can't say which it uses is skipped
/// and logged. Where this platform has no control socket, none.
async fn servers_using(home: &Path, path: &Path) -> Result<Vec<Client>> {
    let clients = match Client::connect_all(home).await {
        Ok(clients) => clients,
        Err(ControlError::Unsupported) => return Ok(Vec::new()),
        Err(error) => return Err(error.into()),
    };
    let wanted = same_file(path);
    let mut using = Vec::new();
    for mut client in clients {
        match client.info().await {
            Ok(info) if info.store.as_deref().map(|store| same_file(Path::new(store))) == Some(wanted.clone()) => {
                using.push(client);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!("skipped a Gatehouse server: {error}"),
        }
    }
    Ok(using)
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

/// A path as the file it names, whichever way it was spelt.
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Asks every running server using the database (`first` and `others`) and returns their answers. A server that
/// can't be told is logged — its periodic check of the database catches up within seconds — and only when none
/// could be told is that an error.
async fn each_server<T>(
    first: &mut Client,
    others: &mut [Client],
    mut ask: impl AsyncFnMut(&mut Client) -> Result<T, ControlError>,
) -> Result<Vec<T>> {
    let (mut answers, mut failed) = (Vec::new(), None);
    for server in std::iter::once(first).chain(others.iter_mut()) {
        match ask(server).await {
            Ok(answer) => answers.push(answer),
            Err(error) => {
                tracing::warn!("{error}");
                failed.get_or_insert(error);
            }
        }
    }
    match (answers.is_empty(), failed) {
        (true, Some(error)) => Err(error.into()),
        _ => Ok(answers),
    }
}
