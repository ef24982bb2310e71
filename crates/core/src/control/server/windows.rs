//! Windows: one named pipe per serving process that only this user may open (see `control::pipe`), answered
//! like the Unix socket.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::windows::named_pipe::NamedPipeServer;
use tokio_util::sync::CancellationToken;

use super::super::pipe::{
    Descriptor, User, binding_path, client_is, client_pid, create_pipe, pipe_name, prepare_folder, probe,
    registry_files, registry_path, remove_quietly, write_registry,
};
use super::super::{ControlError, control_dir};
use super::{ControlHandle, Door, HttpUrl, Limits, Peer, REFRESH_EVERY, answer, refresh_index, refuse_busy};
use crate::Engine;

/// Starts answering control requests for `engine` on a named pipe of this process, named in
/// `<home>/control/<pid>.pipe`, until `cancel` fires or the handle is shut down or dropped. Only this user's
/// SID may open the pipe and remote clients are refused; the file is written once the pipe listens. Files
/// left behind by processes that are gone are removed.
pub async fn serve(engine: Arc<Engine>, home: &Path, cancel: CancellationToken) -> Result<ControlHandle, ControlError> {
    let user = User::current().map_err(|detail| ControlError::Identity { detail })?;
    let dir = control_dir(home);
    prepare_folder(&dir, &user)?;
    let pid = std::process::id();
    let path = registry_path(&dir, pid);
    let binding = binding_path(&dir, pid);
    // Files with this process's names were left by an earlier process that had the same pid.
    remove_quietly(&binding);
    remove_quietly(&path);
    let name = pipe_name(&user, &dir, pid);
    let bind_error = |detail: String| ControlError::Bind { path: name.clone(), detail };
    let descriptor = Descriptor::pipe(&user).map_err(bind_error)?;
    let first = create_pipe(&name, &descriptor, true).map_err(|e| bind_error(e.to_string()))?;
    if let Err(e) = write_registry(&binding, &path, &name) {
        remove_quietly(&binding);
        return Err(ControlError::Bind { path: path.display().to_string(), detail: e.to_string() });
    }
    let stop = cancel.child_token();
    let http = HttpUrl::default();
    let _ = http.home.set(home.to_owned());
    let mut handle = ControlHandle {
        path: path.clone(),
        stop: stop.clone(),
        task: None,
        http: Arc::clone(&http),
        pipe: name.clone(),
    };

    for (other, file) in registry_files(&dir)? {
        if other != pid {
            // Opening is how a gone process's file is told apart; a live one just sees us hang up.
            let _ = probe(other, &file).await;
        }
    }
    // Now that the pipe can be found, catch up with revokes made while it could not.
    refresh_index(&engine).await;

    let pipe = Pipe { name: name.clone(), descriptor, user };
    handle.task = Some(tokio::spawn(accept(first, pipe, engine, stop, http)));
    tracing::info!(pipe = %name, "answering `gatehouse approvals` on this control pipe");
    Ok(handle)
}

/// What it takes to offer more instances of the pipe.
struct Pipe {
    name: String,
    descriptor: Descriptor,
    user: User,
}

impl Pipe {
    /// A fresh instance for the next client, retried while the system can't make one, until `stop`.
    async fn next(&self, stop: &CancellationToken) -> Option<NamedPipeServer> {
        loop {
            match create_pipe(&self.name, &self.descriptor, false) {
                Ok(server) => return Some(server),
                Err(e) => tracing::warn!("the control pipe could not offer another connection: {e}"),
            }
            tokio::select! {
                () = stop.cancelled() => return None,
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
    }
}

async fn accept(mut server: NamedPipeServer, pipe: Pipe, engine: Arc<Engine>, stop: CancellationToken, http: HttpUrl) {
    let door = Arc::new(Door::new(Limits::default()));
    // The first check was made before the pipe was served.
    let mut refresh = tokio::time::interval_at(tokio::time::Instant::now() + REFRESH_EVERY, REFRESH_EVERY);
    refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = refresh.tick() => refresh_index(&engine).await,
            connected = server.connect() => {
                if let Err(e) = &connected {
                    // A client that left before it was accepted, and the like: this instance is spent.
                    tracing::warn!("the control pipe could not accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                // The next instance is offered before this one is answered, so a client always finds one.
                let Some(next) = pipe.next(&stop).await else { return };
                let client = std::mem::replace(&mut server, next);
                if connected.is_err() {
                    continue;
                }
                match client_is(&client, &pipe.user) {
                    Some(false) => {
                        tracing::warn!("refused a control connection from another user");
                        continue;
                    }
                    Some(true) => {}
                    None => tracing::debug!("a control connection's user could not be read; the pipe's DACL admitted it"),
                }
                // The client's process, for the descent check of a terminal answer (see `answers`).
                let peer = Peer { pid: client_pid(&client) };
                let (read, write) = tokio::io::split(client);
                let Some(seat) = door.admit() else {
                    tokio::spawn(refuse_busy(write, door.connections()));
                    continue;
                };
                let served = answer(read, write, peer, Arc::clone(&engine), stop.clone(), Arc::clone(&http), Arc::clone(&door));
                tokio::spawn(async move {
                    served.await;
                    drop(seat);
                });
            },
        }
    }
}
