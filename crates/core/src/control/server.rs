//! The server side: one socket per serving process, one task per connection, one response per request line.
//! A request it cannot read gets an error response naming what was wrong, and the connection stays open.
//! Opening the channel is per platform (here for Unix sockets, in `windows` for named pipes); answering a
//! connection is shared.

use std::net::SocketAddr;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
#[cfg(unix)]
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::approval::store::IndexSync;

#[cfg(windows)]
use super::pipe::remove_quietly;
use super::protocol::{
    AssistantRevoked, FailureKind, LineError, MAX_AUDIT_PAGE, MAX_REQUEST_LINE, NeverRemoved, Request, Response,
    Revoked, ServerInfo, Verification, read_line,
};
#[cfg(unix)]
use super::socket::{binding_path, check_length, prepare_folder, probe, remove_quietly, socket_files, socket_path};
#[cfg(unix)]
use super::{ControlError, control_dir};
use crate::Engine;
use crate::approval::CallMeta;
use crate::approval::model::Constraint;
use crate::approval::store::{AuditQuery, Store, StoreError};
use crate::never_rules::{self, NeverAddError, NeverRequest};
use crate::tools::progress::{Progress, Step};

/// How often the grant index drops grants another process revoked (another `gatehouse serve`, the settings
/// window). `gatehouse grants revoke` also tells every running server at once; this catches the rest.
const REFRESH_EVERY: Duration = Duration::from_secs(3);

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::serve;

/// A running control server. Dropping it (or [`ControlHandle::shutdown`]) stops it and removes its socket.
pub struct ControlHandle {
    path: PathBuf,
    stop: CancellationToken,
    task: Option<JoinHandle<()>>,
    /// Where this process serves MCP over HTTP and whether it is the user's host, as `info` tells them.
    http: HttpUrl,
    /// The named pipe it listens on (`path` is the file that names it for clients).
    #[cfg(windows)]
    pipe: String,
}

/// What `info` tells about this process beyond its engine: the URL it serves MCP at over HTTP (set once, when
/// the listener is bound), and whether it is the user's host for relays.
#[derive(Default)]
struct Published {
    url: OnceLock<String>,
    host: AtomicBool,
    sandbox_until_sign_in: AtomicBool,
    /// The host is the desktop app: cards are answered on the card unless the person allows terminal answers
    /// (see `answers`).
    desktop: AtomicBool,
    /// `GATEHOUSE_HOME`, where the person's settings are (the account's store, also while the sandbox runs).
    home: OnceLock<PathBuf>,
}

/// What the OS says about the process at the other end of a control connection.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Peer {
    pub pid: Option<u32>,
}

type HttpUrl = Arc<Published>;

impl ControlHandle {
    /// The socket it listens on (on Windows: the file in the control folder that names its pipe).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The named pipe it listens on, `\\.\pipe\gatehouse-…`.
    #[cfg(windows)]
    pub fn pipe_name(&self) -> &str {
        &self.pipe
    }

    /// Says this process serves MCP over HTTP at `addr`, so `gatehouse assistants add` can show the URL an
    /// assistant should be given. Only the first call counts: a process serves HTTP on one address.
    pub fn serving_http(&self, addr: SocketAddr) {
        let _ = self.http.url.set(format!("http://{addr}/mcp"));
    }

    /// Says this process is the user's host (the desktop app, `gatehouse serve --headless`): a `gatehouse
    /// serve` an assistant starts relays its calls here, so every assistant shares one set of grants, cards
    /// and sign-in.
    pub fn accept_relays(&self) {
        self.http.host.store(true, Ordering::SeqCst);
    }

    /// Says this host serves the sandbox only because nobody is signed in, so a plain `gatehouse serve` relays
    /// here too (see [`ServerInfo::takes_relay`]).
    pub fn sandbox_until_sign_in(&self) {
        self.http.sandbox_until_sign_in.store(true, Ordering::SeqCst);
    }

    /// Says this host is the desktop app: from now on a card is answered on the card,
    /// and a terminal answer is refused unless the person turned on *Answer from a terminal* (see `answers`).
    pub fn answer_on_cards(&self) {
        self.http.desktop.store(true, Ordering::SeqCst);
    }

    /// Stops accepting and answering, waits for that, and removes the socket.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        remove_quietly(&self.path);
    }
}

impl Drop for ControlHandle {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            task.abort();
        }
        remove_quietly(&self.path);
    }
}

/// Starts answering control requests for `engine` on `<home>/control/<pid>.sock` until `cancel` fires or the
/// handle is shut down or dropped. The folder is made `0700` and the socket `0600` before it takes its name;
/// sockets left behind by processes that are gone are removed.
#[cfg(unix)]
pub async fn serve(engine: Arc<Engine>, home: &Path, cancel: CancellationToken) -> Result<ControlHandle, ControlError> {
    let dir = control_dir(home);
    prepare_folder(&dir)?;
    let pid = std::process::id();
    let path = socket_path(&dir, pid);
    let binding = binding_path(&dir, pid);
    check_length(&binding)?;
    check_length(&path)?;
    // Files with this process's names were left by an earlier process that had the same pid.
    remove_quietly(&binding);
    remove_quietly(&path);
    let bind_error = |e: std::io::Error| ControlError::Bind { path: path.display().to_string(), detail: e.to_string() };
    let listener = UnixListener::bind(&binding).map_err(bind_error)?;
    let named = std::fs::set_permissions(&binding, std::fs::Permissions::from_mode(0o600))
        .and_then(|()| std::fs::rename(&binding, &path));
    if let Err(e) = named {
        remove_quietly(&binding);
        return Err(bind_error(e));
    }
    let stop = cancel.child_token();
    let http = HttpUrl::default();
    let _ = http.home.set(home.to_owned());
    let mut handle = ControlHandle { path: path.clone(), stop: stop.clone(), task: None, http: Arc::clone(&http) };

    for (other, file) in socket_files(&dir)? {
        if other != pid {
            // Connecting is how a gone process's socket is told apart; a live one just sees us hang up.
            let _ = probe(other, &file).await;
        }
    }
    // Now that the socket can be found, catch up with revokes made while it could not.
    refresh_index(&engine).await;

    handle.task = Some(tokio::spawn(accept(listener, engine, stop, http)));
    tracing::info!(socket = %path.display(), "answering `gatehouse approvals` on this control socket");
    Ok(handle)
}

#[cfg(unix)]
async fn accept(listener: UnixListener, engine: Arc<Engine>, stop: CancellationToken, http: HttpUrl) {
    let uid = rustix::process::getuid().as_raw();
    // The first check was made before the socket was served.
    let mut refresh = tokio::time::interval_at(tokio::time::Instant::now() + REFRESH_EVERY, REFRESH_EVERY);
    refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = refresh.tick() => refresh_index(&engine).await,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => match stream.peer_cred() {
                    Ok(peer) if peer.uid() == uid => {
                        let peer = Peer { pid: peer.pid().and_then(|pid| u32::try_from(pid).ok()) };
                        tokio::spawn(connection(stream, peer, Arc::clone(&engine), stop.clone(), Arc::clone(&http)));
                    }
                    Ok(peer) => tracing::warn!(uid = peer.uid(), "refused a control connection from another user"),
                    Err(e) => tracing::warn!("refused a control connection whose user is unknown: {e}"),
                },
                Err(e) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!("the control socket could not accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            },
        }
    }
}

/// Brings this process's grant index (and never-allow rules, and assistants) in step with what other
/// processes changed.
async fn refresh_index(engine: &Engine) {
    let Some(store) = engine.approvals().store() else { return };
    match store.sync_index().await {
        Ok(sync) if sync == IndexSync::default() => {}
        Ok(IndexSync { forgotten, joined }) => {
            tracing::info!(forgotten, joined, "grants revoked or made by another Gatehouse process now count here")
        }
        Err(error) => tracing::warn!("could not check for grants made or revoked elsewhere: {error}"),
    }
}

#[cfg(unix)]
async fn connection(stream: UnixStream, peer: Peer, engine: Arc<Engine>, stop: CancellationToken, http: HttpUrl) {
    let (read, write) = stream.into_split();
    answer(read, write, peer, engine, stop, http).await;
}

/// Answers one connection's requests, in order, until it closes or the server stops.
async fn answer<R, W>(read: R, mut write: W, peer: Peer, engine: Arc<Engine>, stop: CancellationToken, http: HttpUrl)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(read);
    loop {
        let line = tokio::select! {
            () = stop.cancelled() => return,
            line = read_line(&mut reader, MAX_REQUEST_LINE) => line,
        };
        let line = match line {
            Ok(Some(line)) => line,
            Ok(None) | Err(LineError::Io(_)) => return,
            Err(too_long @ LineError::TooLong { .. }) => {
                // The rest of the line was not read, so the next request can't be found: answer and hang up.
                let message =
                    format!("The request could not be read: {too_long}. Send one small JSON object per line.");
                let _ = send(&mut write, &Response::error(FailureKind::BadRequest, message)).await;
                return;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let sent = match serde_json::from_slice::<Request>(&line) {
            Err(e) => {
                let message = format!(
                    "The request could not be read: {e}. Send one JSON object per line with an \"op\" of info, pending, answer, grants, ignored_grants, revoke, audit, verify, export, never_list, never_add, never_remove, assistants, assistant_add, assistant_revoke, refresh, tools, call or read_resource, e.g. {{\"op\":\"pending\"}}."
                );
                send(&mut write, &Response::error(FailureKind::BadRequest, message)).await
            }
            Ok(Request::Export) => export(&engine, &mut write).await,
            // A relay hangs up when its assistant cancels the call or goes away (or it is killed): the call is
            // then dropped, which withdraws its card at once and records it as withdrawn.
            Ok(Request::Call { name, arguments, mut meta, tools, progress }) => {
                // The relay is a `gatehouse serve` its assistant started: the assistant is the relay's parent.
                // Found here from the socket's peer, never taken from what the relay says.
                meta.origin = peer.pid.and_then(super::process::Origin::parent_of_relay);
                // Steps the call reports go out as `progress` lines while it runs, before its answer.
                let (steps, mut heard) = tokio::sync::mpsc::unbounded_channel();
                let progress = if progress {
                    Progress::to(move |step: Step| {
                        let line =
                            Response::Progress { progress: step.progress, total: step.total, message: step.message };
                        let _ = steps.send(line);
                        Box::pin(std::future::ready(()))
                    })
                } else {
                    Progress::none()
                };
                let work = call(&engine, name, arguments, meta, tools, progress);
                match unless_hung_up(&mut reader, passing_on(&mut write, &mut heard, work)).await {
                    Some(response) => send(&mut write, &response).await,
                    None => return,
                }
            }
            Ok(Request::Answer { id, answer }) => {
                send(&mut write, &terminal_answer(&engine, &http, peer, id, answer).await).await
            }
            Ok(request) => send(&mut write, &handle(&engine, &http, request).await).await,
        };
        if sent.is_err() {
            return;
        }
    }
}

/// Runs `work`, writing each line `heard` gets meanwhile (a call's progress steps), the last of them before
/// `work`'s own answer.
async fn passing_on<W: AsyncWrite + Unpin, T>(
    write: &mut W,
    heard: &mut tokio::sync::mpsc::UnboundedReceiver<Response>,
    work: impl Future<Output = T>,
) -> T {
    let mut work = std::pin::pin!(work);
    loop {
        tokio::select! {
            biased;
            Some(line) = heard.recv() => {
                let _ = send(write, &line).await;
            }
            done = &mut work => {
                while let Ok(line) = heard.try_recv() {
                    let _ = send(write, &line).await;
                }
                return done;
            }
        }
    }
}

/// Runs a relayed assistant's call through this host's approvals, refused when outside the relay's tools.
async fn call(
    engine: &Engine,
    name: String,
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
    meta: CallMeta,
    tools: Option<String>,
    progress: Progress,
) -> Response {
    let outside = match tools.as_deref().map(crate::tools::sets::ToolSelection::parse) {
        None => None,
        Some(Ok(selection)) => {
            (!selection.allows(&name)).then(|| selection.refusal(&name, &crate::tools::sets::Chosen::Serve))
        }
        Some(Err(error)) => Some(format!("This assistant's `--tools` cannot be read by the Gatehouse app: {error}")),
    };
    if let Some(text) = outside {
        return Response::Called { text, is_error: true };
    }
    match engine.call_reporting(&meta, &name, arguments, progress).await {
        Ok(reply) => Response::Called { text: reply.text, is_error: reply.is_error },
        Err(error) => Response::error(FailureKind::UnknownTool, error.to_string()),
    }
}

/// Runs `work` unless the client hangs up first (`None`: `work` is dropped). Bytes it sends meanwhile (its next
/// request) stay buffered for the loop to read.
async fn unless_hung_up<R: AsyncRead + Unpin, T>(
    reader: &mut BufReader<R>,
    work: impl Future<Output = T>,
) -> Option<T> {
    use tokio::io::AsyncBufReadExt;
    let mut work = std::pin::pin!(work);
    tokio::select! {
        done = &mut work => return Some(done),
        read = reader.fill_buf() => {
            if matches!(read, Ok([]) | Err(_)) {
                return None;
            }
        }
    }
    Some(work.await)
}

async fn send<W: AsyncWrite + Unpin>(write: &mut W, response: &Response) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(response).map_err(std::io::Error::other)?;
    line.push(b'\n');
    write.write_all(&line).await?;
    write.flush().await
}

async fn handle(engine: &Engine, http: &HttpUrl, request: Request) -> Response {
    let approvals = engine.approvals();
    match request {
        Request::Tools => {
            // Only a `gatehouse serve` relay asks for the tools, as it attaches for an assistant.
            engine.assistant_connected();
            Response::Tools(engine.tools().iter().filter_map(|tool| serde_json::to_value(tool.to_mcp()).ok()).collect())
        }
        Request::Call { name, arguments, meta, tools, progress: _ } => {
            call(engine, name, arguments, meta, tools, Progress::none()).await
        }
        Request::ReadResource { uri } => match crate::resources::read(engine, &uri).await {
            Ok(text) => Response::Resource(text),
            Err(error @ crate::resources::ResourceError::Unknown(_)) => {
                Response::error(FailureKind::UnknownResource, error.to_string())
            }
            Err(error) => Response::error(FailureKind::Invalid, error.to_string()),
        },
        Request::Info => Response::Info(ServerInfo {
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            sandbox: engine.is_sandbox(),
            store: approvals.store().map(|store| store.path().display().to_string()),
            http_url: http.url.get().cloned(),
            host: http.host.load(Ordering::SeqCst),
            sandbox_until_sign_in: http.sandbox_until_sign_in.load(Ordering::SeqCst),
        }),
        Request::Pending => Response::Pending(approvals.broker().pending()),
        // Answers are taken in `answer`, where the connection's peer is known (see `terminal_answer`).
        Request::Answer { id, .. } => Response::error(
            FailureKind::BadRequest,
            format!("Approval {id} was not answered: this connection can't answer approvals."),
        ),
        Request::Grants => {
            with_store(engine, |store| async move { store.list_grants().await.map(Response::Grants) }).await
        }
        Request::Revoke { id } => {
            with_store(engine, |store| async move {
                let changed = store.revoke_grant(&id, chrono::Utc::now()).await?;
                if changed {
                    tracing::info!(grant = %id, "grant revoked from `gatehouse grants revoke`");
                }
                let grant = store.get_grant(&id).await?;
                Ok(Response::Revoked(Revoked { changed, grant }))
            })
            .await
        }
        Request::Audit { limit, tool, agent, before_seq } => {
            let query = AuditQuery { limit: limit.min(MAX_AUDIT_PAGE), before_seq, tool, agent };
            with_store(engine, |store| async move { store.list_audit(&query).await.map(Response::Audit) }).await
        }
        Request::Verify => {
            with_store(engine, |store| async move {
                let verification = store.verify_audit().await?;
                let mut verification = Verification::from(&verification);
                verification.ignored = store.ignored_grants().await?.iter().map(ToString::to_string).collect();
                Ok(Response::Verified(verification))
            })
            .await
        }
        Request::IgnoredGrants => {
            with_store(engine, |store| async move { store.ignored_grants().await.map(Response::IgnoredGrants) }).await
        }
        Request::Export => Response::error(FailureKind::BadRequest, "export is answered as a stream"),
        Request::NeverList => {
            with_store(engine, |store| async move { store.list_never_allow().await.map(Response::NeverAllows) }).await
        }
        Request::NeverAdd { tool, agent, days, constraint } => never_add(engine, tool, agent, days, constraint).await,
        Request::NeverRemove { id } => {
            with_store(engine, |store| async move {
                let changed = store.remove_never_allow(&id, chrono::Utc::now()).await?;
                if changed {
                    tracing::info!(rule = %id, "never-allow rule removed from `gatehouse never remove`");
                }
                let rule = store.get_never_allow(&id).await?;
                Ok(Response::NeverRemoved(NeverRemoved { changed, rule }))
            })
            .await
        }
        Request::Assistants => {
            with_store(engine, |store| async move { store.list_assistants().await.map(Response::Assistants) }).await
        }
        Request::AssistantAdd { name, interactive } => with_store(engine, |store| async move {
            let added = store.add_assistant(&name, interactive, chrono::Utc::now()).await?;
            let kind = if interactive { "interactive" } else { "automation" };
            tracing::info!(assistant = %added.assistant.name, kind, "assistant added from `gatehouse assistants add`");
            Ok(Response::AssistantAdded(added))
        })
        .await,
        Request::AssistantRevoke { id } => {
            with_store(engine, |store| async move {
                let changed = store.revoke_assistant(&id, chrono::Utc::now()).await?;
                let assistant = store.get_assistant(&id).await?;
                if changed {
                    let name = assistant.as_ref().map(|a| a.name.as_str()).unwrap_or_default();
                    tracing::info!(assistant = name, "assistant's token revoked from `gatehouse assistants revoke`");
                }
                Ok(Response::AssistantRevoked(AssistantRevoked { changed, assistant }))
            })
            .await
        }
        Request::Refresh => {
            refresh_index(engine).await;
            Response::Refreshed
        }
    }
}

/// Passes on an answer from `gatehouse approvals` unless [`answers::refusal`](super::answers::refusal) refuses
/// it; the audit record names the answering process.
async fn terminal_answer(
    engine: &Engine,
    http: &HttpUrl,
    peer: Peer,
    id: u64,
    answer: crate::approval::card::RawAnswer,
) -> Response {
    let broker = engine.approvals().broker();
    let Some(origin) = broker.origin(id) else {
        return Response::error(
            FailureKind::NotPending,
            crate::approval::broker::AnswerError::NotPending(id).to_string(),
        );
    };
    let desktop = http.desktop.load(Ordering::SeqCst);
    // Read at each answer, so turning it off on the Advanced page counts at once.
    let terminal_allowed = match http.home.get() {
        Some(home) if desktop => crate::settings::answers_from_terminal(home).await,
        _ => false,
    };
    let asked = super::answers::TerminalAnswer { id, pid: peer.pid, origin, desktop, terminal_allowed };
    if let Some(refusal) = super::answers::refusal(&asked) {
        tracing::warn!(approval = id, pid = ?peer.pid, assistant = ?origin, "refused an answer from a terminal: {refusal}");
        return Response::error(FailureKind::Refused, refusal);
    }
    let channel = crate::approval::model::AnswerChannel::Terminal {
        pid: peer.pid,
        exe: peer.pid.and_then(super::process::executable_of),
    };
    match broker.answer_via(id, answer, channel) {
        Ok(()) => {
            tracing::info!(approval = id, pid = ?peer.pid, "answered from `gatehouse approvals`");
            Response::Answered { id }
        }
        Err(error) => Response::error(FailureKind::NotPending, error.to_string()),
    }
}

/// Makes a *never allow* rule for the account this server acts as (the checks are [`never_rules::add`]'s).
async fn never_add(
    engine: &Engine,
    tool: String,
    agent: Option<String>,
    days: u32,
    constraint: Option<Constraint>,
) -> Response {
    match never_rules::add(engine, NeverRequest { tool, agent, days, constraint }).await {
        Ok(rule) => {
            tracing::info!(rule = %rule.id, tool = %rule.tool, "never-allow rule added from `gatehouse never add`");
            Response::NeverAdded(rule)
        }
        Err(NeverAddError::NoStore) => no_store(),
        Err(error @ NeverAddError::NotSignedIn) => Response::error(FailureKind::NotSignedIn, error.to_string()),
        Err(error @ NeverAddError::Store(_)) => Response::error(FailureKind::Store, error.to_string()),
        Err(error) => Response::error(FailureKind::Invalid, error.to_string()),
    }
}

async fn with_store<F, Fut>(engine: &Engine, run: F) -> Response
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = Result<Response, StoreError>>,
{
    match engine.approvals().store() {
        Some(store) => run(store.clone()).await.unwrap_or_else(|error| {
            // What the request asked for can't be done as asked; the store itself is fine.
            let kind = match error {
                StoreError::AssistantName { .. } | StoreError::DuplicateAssistant { .. } => FailureKind::Invalid,
                _ => FailureKind::Store,
            };
            Response::error(kind, error.to_string())
        }),
        None => no_store(),
    }
}

fn no_store() -> Response {
    Response::error(
        FailureKind::NoStore,
        "This Gatehouse server has no approvals database (it could not open one; its log says why), so it keeps no grants or audit log. Fix that and restart it.",
    )
}

/// The whole log, one record per line, then `{"exported":N}`; an `error` line if the store fails midway.
async fn export<W: AsyncWrite + Unpin>(engine: &Engine, write: &mut W) -> std::io::Result<()> {
    let Some(store) = engine.approvals().store() else { return send(write, &no_store()).await };
    match store.export_audit(write).await {
        Ok(count) => send(write, &Response::Exported(count)).await,
        Err(error) => send(write, &Response::error(FailureKind::Store, error.to_string())).await,
    }
}
