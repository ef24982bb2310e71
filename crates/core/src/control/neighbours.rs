//! Telling the other running servers that use an approvals database that it changed (the
//! [`Neighbours`](crate::ops::Neighbours) of the operations layer): each is sent a `refresh`, which makes it
//! read the grants, never-allow rules and assistants again at once, and tells no one further.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;

use super::{Client, ControlError};
use crate::ops::Neighbours;

/// The servers of this user, found under `GATEHOUSE_HOME`'s control folder, that use one database; this
/// process's own server is left out (its memory changed with the change).
#[derive(Debug, Clone)]
pub struct RunningServers {
    home: PathBuf,
    store: PathBuf,
}

impl RunningServers {
    /// The servers under `home` that use the database at `store`.
    pub fn new(home: &Path, store: &Path) -> RunningServers {
        RunningServers { home: home.to_owned(), store: store.to_owned() }
    }

    /// The running servers whose approvals database is the one at `store` (however its path is spelt),
    /// connected; one that can't say which it uses is skipped and logged. None where this platform has no
    /// control socket.
    pub async fn connect(home: &Path, store: &Path) -> Result<Vec<Client>, ControlError> {
        let clients = match Client::connect_all(home).await {
            Ok(clients) => clients,
            Err(ControlError::Unsupported) => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let wanted = same_file(store);
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

    async fn tell(&self) {
        let servers = match RunningServers::connect(&self.home, &self.store).await {
            Ok(servers) => servers,
            Err(error) => {
                tracing::warn!(
                    "the other Gatehouse servers could not be told of a change (they see it within seconds): {error}"
                );
                return;
            }
        };
        let own = std::process::id();
        for mut server in servers.into_iter().filter(|server| server.pid() != own) {
            if let Err(error) = server.refresh().await {
                // Its periodic check of the database catches up within seconds.
                tracing::warn!("{error}");
            }
        }
    }
}

impl Neighbours for RunningServers {
    fn store_changed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.tell())
    }
}

/// A path as the file it names, whichever way it was spelt.
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}
