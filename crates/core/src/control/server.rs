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
use tokio::net::UnixListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::RunningServers;
#[cfg(windows)]
use super::pipe::remove_quietly;
use super::protocol::{FailureKind, MAX_REQUEST_LINE, MAX_SMALL_REQUEST_LINE, Request, Response, ServerInfo, ToolList};
#[cfg(unix)]
use super::socket::{binding_path, check_length, prepare_folder, probe, remove_quietly, socket_files, socket_path};
#[cfg(unix)]
use super::{ControlError, control_dir};
use crate::Engine;
use crate::approval::CallMeta;
use crate::approval::store::{AuditQuery, StoreError};
use crate::engine::Reply;
use crate::ops::never::{NeverAddError, NeverRequest};
use crate::ops::{self, Ops, OpsError};
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
    /// The store the person's settings are read from for terminal answers, when the host gave one; else the
    /// store under `home` is opened at each answer.
    settings: OnceLock<crate::approval::store::Store>,
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
    /// `settings`: the store the person's settings live in, when the host has it open (else it is opened
    /// under `GATEHOUSE_HOME` at each answer).
    pub fn answer_on_cards(&self, settings: Option<crate::approval::store::Store>) {
        if let Some(settings) = settings {
            let _ = self.http.settings.set(settings);
        }
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
    serve_limited(engine, home, cancel, Limits::default()).await
}

/// [`serve`] within `limits` (tests shorten them).
#[cfg(unix)]
async fn serve_limited(
    engine: Arc<Engine>,
    home: &Path,
    cancel: CancellationToken,
    limits: Limits,
) -> Result<ControlHandle, ControlError> {
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

    handle.task = Some(tokio::spawn(accept(listener, engine, stop, http, Arc::new(Door::new(limits)))));
    tracing::info!(socket = %path.display(), "answering `gatehouse approvals` on this control socket");
    Ok(handle)
}

#[cfg(unix)]
async fn accept(listener: UnixListener, engine: Arc<Engine>, stop: CancellationToken, http: HttpUrl, door: Arc<Door>) {
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
                        let (read, write) = stream.into_split();
                        match door.admit() {
                            Some(seat) => {
                                let served = answer(read, write, peer, Arc::clone(&engine), stop.clone(), Arc::clone(&http), Arc::clone(&door));
                                tokio::spawn(async move {
                                    served.await;
                                    drop(seat);
                                });
                            }
                            None => {
                                tokio::spawn(refuse_busy(write, door.connections()));
                            }
                        }
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
    if let Some(store) = engine.approvals().store() {
        ops::refresh(store).await;
    }
}

/// What keeps one control server's memory small whatever a program of this user sends it: every request line
/// but a `call`'s is short, only a few long `call` lines are read at once, only so many connections are
/// served at once, and a connection that sends nothing (or half a line) for a while is closed. Before these
/// limits, twelve connections each sending half of a 32 MiB line took a host from 44 to 417 MiB.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// The longest line of any request but `call`: they carry ids, names and small choices.
    small_line: usize,
    /// The longest `call` line: a relayed call carries the tool's arguments (cells, a document's text, a mail).
    call_line: usize,
    /// How many connections may be reading a `call` line longer than `small_line` at once; the others wait.
    long_reads: usize,
    /// How many connections are served at once; one more is told so and closed.
    connections: usize,
    /// How long a connection may take to send its next whole request line.
    idle: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            small_line: MAX_SMALL_REQUEST_LINE,
            call_line: MAX_REQUEST_LINE,
            long_reads: 2,
            connections: 64,
            idle: Duration::from_secs(60),
        }
    }
}

/// The [`Limits`] of one server, with the seats they count.
struct Door {
    limits: Limits,
    seats: Arc<tokio::sync::Semaphore>,
    long_reads: tokio::sync::Semaphore,
}

impl Door {
    fn new(limits: Limits) -> Self {
        Door {
            limits,
            seats: Arc::new(tokio::sync::Semaphore::new(limits.connections)),
            long_reads: tokio::sync::Semaphore::new(limits.long_reads),
        }
    }

    /// A seat for one more connection, held while it is served; `None` when every seat is taken.
    fn admit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        Arc::clone(&self.seats).try_acquire_owned().ok()
    }

    fn connections(&self) -> usize {
        self.limits.connections
    }
}

/// Tells a connection over the cap why it is closed, without waiting long on it.
async fn refuse_busy<W: AsyncWrite + Unpin>(mut write: W, cap: usize) {
    let message = format!(
        "This Gatehouse server is already answering {cap} connections, the most it serves at once. Close some (finished `gatehouse` commands, assistants' `gatehouse serve`) and try again."
    );
    let _ =
        tokio::time::timeout(Duration::from_secs(1), send(&mut write, &Response::error(FailureKind::Busy, message)))
            .await;
}

/// Why the next request line could not be read.
#[derive(Debug)]
enum NextLine {
    Line(Vec<u8>),
    /// The connection closed (a half-sent line is dropped).
    Closed,
    TooLong {
        max: usize,
        call: bool,
    },
    /// Nothing, or not a whole line, within the idle time.
    Idle,
    Io,
}

/// Reads the next request line within `door`'s limits. A line may grow past `small_line` only when it
/// begins as a `call` (`{"op":"call"`, as every client writes it: the tag first), and only while one of
/// the few long-read permits is held.
async fn next_line<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R, door: &Door) -> NextLine {
    use tokio::io::AsyncBufReadExt;
    let deadline = tokio::time::Instant::now() + door.limits.idle;
    let mut line = Vec::new();
    let mut long = None;
    loop {
        let available = match tokio::time::timeout_at(deadline, reader.fill_buf()).await {
            Err(_) => return NextLine::Idle,
            Ok(Err(_)) => return NextLine::Io,
            Ok(Ok(available)) => available,
        };
        if available.is_empty() {
            return NextLine::Closed;
        }
        let (take, done) = match available.iter().position(|byte| *byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        let content = if done { &available[..take - 1] } else { &available[..take] };
        let max = if long.is_some() { door.limits.call_line } else { door.limits.small_line };
        if line.len() + content.len() > max {
            if long.is_none() && begins_a_call(&line, content) {
                match tokio::time::timeout_at(deadline, door.long_reads.acquire()).await {
                    Ok(Ok(permit)) => long = Some(permit),
                    Ok(Err(_)) => return NextLine::Io,
                    Err(_) => return NextLine::Idle,
                }
                continue;
            }
            return NextLine::TooLong { max, call: long.is_some() };
        }
        line.extend_from_slice(content);
        reader.consume(take);
        if done {
            return NextLine::Line(line);
        }
    }
}

/// Whether the bytes read so far (`line`, then `more`) begin a `call` request as clients write it.
fn begins_a_call(line: &[u8], more: &[u8]) -> bool {
    const CALL: &[u8] = br#"{"op":"call""#;
    let head: Vec<u8> = line.iter().chain(more).copied().skip_while(u8::is_ascii_whitespace).take(CALL.len()).collect();
    head == CALL
}

/// Answers one connection's requests, in order, until it closes, goes idle or the server stops.
async fn answer<R, W>(
    read: R,
    mut write: W,
    peer: Peer,
    engine: Arc<Engine>,
    stop: CancellationToken,
    http: HttpUrl,
    door: Arc<Door>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(read);
    loop {
        let line = tokio::select! {
            () = stop.cancelled() => return,
            line = next_line(&mut reader, &door) => line,
        };
        let line = match line {
            NextLine::Line(line) => line,
            NextLine::Closed | NextLine::Io => return,
            NextLine::Idle => {
                tracing::debug!("closed a control connection that sent no whole request in time");
                let message = format!(
                    "Closed: no whole request line came within {} seconds. Connect again and send one JSON object per line.",
                    door.limits.idle.as_secs()
                );
                let _ = tokio::time::timeout(
                    Duration::from_secs(1),
                    send(&mut write, &Response::error(FailureKind::BadRequest, message)),
                )
                .await;
                return;
            }
            NextLine::TooLong { max, call } => {
                // The rest of the line was not read, so the next request can't be found: answer and hang up.
                let message = match call {
                    true => format!(
                        "The request could not be read: the call's line is longer than {max} bytes. Send smaller arguments."
                    ),
                    false => format!(
                        "The request could not be read: the line is longer than {max} bytes, the most for any request but a call. Send one small JSON object per line."
                    ),
                };
                let _ = send(&mut write, &Response::error(FailureKind::BadRequest, message)).await;
                return;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let request = serde_json::from_slice::<Request>(&line);
        // Only a call may be long, whatever its first bytes said.
        let request = match request {
            Ok(request) if line.len() > door.limits.small_line && !matches!(request, Request::Call { .. }) => {
                let message = format!(
                    "The request could not be read: the line is longer than {} bytes, the most for any request but a call.",
                    door.limits.small_line
                );
                let _ = send(&mut write, &Response::error(FailureKind::BadRequest, message)).await;
                return;
            }
            request => request,
        };
        drop(line);
        let sent = match request {
            Err(e) => {
                let message = format!(
                    "The request could not be read: {e}. Send one JSON object per line with an \"op\" of info, pending, answer, grants, ignored_grants, seal_report, revoke, audit, verify, export, never_list, never_add, never_remove, assistants, assistant_add, assistant_revoke, assistant_tools, refresh, tools, call or read_resource, e.g. {{\"op\":\"pending\"}}."
                );
                send(&mut write, &Response::error(FailureKind::BadRequest, message)).await
            }
            Ok(Request::Export) => export(&engine, &http, &mut write).await,
            // A relay hangs up when its assistant cancels the call or goes away (or it is killed): the call is
            // then dropped, which withdraws its card at once and records it as withdrawn.
            Ok(Request::Call { name, arguments, mut meta, tools, progress }) => {
                meta.origin = relay_origin(peer);
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
            // A resource read may wait for the person like a call (it is one): dropped likewise on hang-up.
            Ok(Request::ReadResource { uri, meta, tools }) => {
                let meta = CallMeta { origin: relay_origin(peer), ..meta.unwrap_or_default() };
                let request = Request::ReadResource { uri, meta: Some(meta), tools };
                match unless_hung_up(&mut reader, handle(&engine, &http, request)).await {
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
    if let Some(text) = outside(tools.as_deref(), &name) {
        return Response::Called { text, is_error: true, notice: None };
    }
    let meta = relayed(meta);
    match engine.call_reporting(&meta, &name, arguments, progress).await {
        Ok(Reply { text, is_error, notice, .. }) => Response::Called { text, is_error, notice },
        Err(error) => Response::error(FailureKind::UnknownTool, error.to_string()),
    }
}

/// The refusal of `tool` when it is outside a relayed assistant's `--tools` (`tools`), for its calls and for
/// the resources that mirror it.
fn outside(tools: Option<&str>, tool: &str) -> Option<String> {
    match tools.map(crate::tools::sets::ToolSelection::parse) {
        None => None,
        Some(Ok(selection)) => {
            (!selection.allows(tool)).then(|| selection.refusal(tool, &crate::tools::sets::Chosen::Serve))
        }
        Some(Err(error)) => Some(format!("This assistant's `--tools` cannot be read by the Gatehouse app: {error}")),
    }
}

/// A relayed call's meta as this host trusts it: whatever the relay says, the name it gives is only what its
/// assistant said of itself (a relay is a `gatehouse serve` over stdio, or any program that can reach the
/// socket), never a registered assistant's, which only an HTTP token proves.
/// The assistant behind a relaying `gatehouse serve` whose process is the socket's `peer`: the relay's parent,
/// found from the OS, never taken from what the relay says (`CallMeta::origin` is not on the wire).
fn relay_origin(peer: Peer) -> Option<crate::process::Origin> {
    peer.pid.and_then(crate::process::Origin::parent_of_relay)
}

fn relayed(mut meta: CallMeta) -> CallMeta {
    if let Some(agent) = &mut meta.caller.agent {
        agent.self_reported = true;
    }
    meta
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

/// Answers one request: each management request is one operation of [`ops`], run on this server's store
/// and told to the other servers using it.
async fn handle(engine: &Engine, http: &HttpUrl, request: Request) -> Response {
    match request {
        Request::Tools => tools(engine),
        Request::ToolList { unless, refresh, attach } => tool_list(engine, unless, refresh, attach).await,
        Request::Call { name, arguments, meta, tools, progress: _ } => {
            call(engine, name, arguments, meta, tools, Progress::none()).await
        }
        Request::ReadResource { uri, meta, tools } => read_resource(engine, &uri, meta, tools.as_deref()).await,
        Request::Info => info(engine, http),
        Request::Pending => Response::Pending(engine.approvals().broker().pending()),
        // Answers are taken in `answer`, where the connection's peer is known (see `terminal_answer`).
        Request::Answer { id, .. } => Response::error(
            FailureKind::BadRequest,
            format!("Approval {id} was not answered: this connection can't answer approvals."),
        ),
        Request::Export => Response::error(FailureKind::BadRequest, "export is answered as a stream"),
        Request::Grants => with_ops(engine, http, async |ops| ops.grants().await, Response::Grants).await,
        Request::IgnoredGrants => {
            with_ops(engine, http, async |ops| ops.ignored_grants().await, Response::IgnoredGrants).await
        }
        Request::Revoke { id } => {
            with_ops(engine, http, async |ops| ops.revoke_grant(&id).await, Response::Revoked).await
        }
        Request::Audit { limit, tool, agent, before_seq } => {
            let query = AuditQuery { limit, before_seq, tool, agent };
            with_ops(engine, http, async |ops| ops.audit(&query).await, Response::Audit).await
        }
        Request::Verify => with_ops(engine, http, async |ops| ops.verify().await, Response::Verified).await,
        Request::SealReport => with_ops(engine, http, async |ops| ops.seal_report().await, Response::SealReport).await,
        Request::NeverList => with_ops(engine, http, async |ops| ops.never_allows().await, Response::NeverAllows).await,
        Request::NeverAdd { tool, agent, days, constraint } => {
            never_add(engine, http, NeverRequest { tool, agent, days, constraint }).await
        }
        Request::NeverRemove { id } => {
            with_ops(engine, http, async |ops| ops.remove_never(&id).await, Response::NeverRemoved).await
        }
        Request::Assistants => with_ops(engine, http, async |ops| ops.assistants().await, Response::Assistants).await,
        Request::AssistantAdd { name, interactive } => {
            with_ops(engine, http, async |ops| ops.add_assistant(&name, interactive).await, Response::AssistantAdded)
                .await
        }
        Request::AssistantRevoke { id } => {
            with_ops(engine, http, async |ops| ops.revoke_assistant(&id).await, Response::AssistantRevoked).await
        }
        Request::AssistantTools { id, tools } => assistant_tools(engine, http, &id, tools.as_deref()).await,
        Request::Refresh => {
            refresh_index(engine).await;
            Response::Refreshed
        }
    }
}

/// The MCP tools this server offers; a `gatehouse serve` relay of an earlier version asks, as it attaches.
fn tools(engine: &Engine) -> Response {
    engine.assistant_connected();
    Response::Tools(mcp_tools(engine))
}

fn mcp_tools(engine: &Engine) -> Vec<serde_json::Value> {
    engine.offered_tools().iter().filter_map(|tool| serde_json::to_value(tool.to_mcp()).ok()).collect()
}

/// The MCP tools this server offers now, for a relay (see [`Request::ToolList`]).
async fn tool_list(engine: &Engine, unless: Option<u64>, refresh: bool, attach: bool) -> Response {
    if attach {
        engine.assistant_connected();
    }
    if refresh {
        engine.refresh_tools(crate::engine::LIST_WAIT).await;
    }
    // The generation is read before the tools: a change in between is seen again at the next look.
    let generation = *engine.tool_changes().borrow();
    let tools = (unless != Some(generation)).then(|| mcp_tools(engine));
    Response::ToolList(ToolList { generation, changes: engine.tools_change(), tools })
}

/// Which server this is and what it works with.
fn info(engine: &Engine, http: &HttpUrl) -> Response {
    Response::Info(ServerInfo {
        pid: std::process::id(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        sandbox: engine.is_sandbox(),
        store: engine.approvals().store().map(|store| store.path().display().to_string()),
        http_url: http.url.get().cloned(),
        host: http.host.load(Ordering::SeqCst),
        sandbox_until_sign_in: http.sandbox_until_sign_in.load(Ordering::SeqCst),
    })
}

/// Reads a resource for a relayed assistant, refused when its tool is outside the relay's tools.
async fn read_resource(engine: &Engine, uri: &str, meta: Option<CallMeta>, tools: Option<&str>) -> Response {
    if let Some(text) = crate::resources::Resource::mirrored_tool(uri).and_then(|tool| outside(tools, tool)) {
        return Response::error(FailureKind::Invalid, text);
    }
    match engine.read_resource(&relayed(meta.unwrap_or_default()), uri).await {
        Ok(text) => Response::Resource(text),
        Err(error @ crate::resources::ResourceError::Unknown(_)) => {
            Response::error(FailureKind::UnknownResource, error.to_string())
        }
        Err(error) => Response::error(FailureKind::Invalid, error.to_string()),
    }
}

/// The operations on this server's store, telling the other servers under its `GATEHOUSE_HOME` that use the
/// same store; `None` when it runs without one.
fn ops_of(engine: &Engine, http: &HttpUrl) -> Option<Ops> {
    let store = engine.approvals().store()?;
    let neighbours: Arc<dyn ops::Neighbours> = match http.home.get() {
        Some(home) => Arc::new(RunningServers::new(home, store.path())),
        None => Arc::new(ops::NoNeighbours),
    };
    Some(Ops::new(store.clone(), neighbours))
}

/// Runs one operation and answers with its result (`into`), or the store's failure in words.
async fn with_ops<T>(
    engine: &Engine,
    http: &HttpUrl,
    run: impl AsyncFnOnce(&Ops) -> Result<T, StoreError>,
    into: impl FnOnce(T) -> Response,
) -> Response {
    let Some(ops) = ops_of(engine, http) else { return no_store() };
    match run(&ops).await {
        Ok(done) => into(done),
        Err(error) => store_failure(error),
    }
}

/// A store's failure as an answer. What the request asked for can't be done as asked (`Invalid`), or the store
/// failed (`Store`).
fn store_failure(error: StoreError) -> Response {
    let kind = match error {
        StoreError::AssistantName { .. } | StoreError::DuplicateAssistant { .. } => FailureKind::Invalid,
        _ => FailureKind::Store,
    };
    Response::error(kind, error.to_string())
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
    let terminal_allowed = match (http.settings.get(), http.home.get()) {
        _ if !desktop => false,
        (Some(store), _) => crate::settings::answers_from_terminal_in(store).await,
        (None, Some(home)) => crate::settings::answers_from_terminal(home).await,
        (None, None) => false,
    };
    let asked = super::answers::TerminalAnswer { id, pid: peer.pid, origin, desktop, terminal_allowed };
    if let Some(refusal) = super::answers::refusal(&asked) {
        tracing::warn!(approval = id, pid = ?peer.pid, assistant = ?origin, "refused an answer from a terminal: {refusal}");
        return Response::error(FailureKind::Refused, refusal);
    }
    let channel = crate::approval::model::AnswerChannel::Terminal {
        pid: peer.pid,
        exe: peer.pid.and_then(crate::process::executable_of),
    };
    match broker.answer_via(id, answer, channel) {
        Ok(()) => {
            tracing::info!(approval = id, pid = ?peer.pid, "answered from `gatehouse approvals`");
            Response::Answered { id }
        }
        Err(error @ crate::approval::broker::AnswerError::NotPending(_)) => {
            Response::error(FailureKind::NotPending, error.to_string())
        }
        // An answer that does not fit the card (a form's field): the card still waits for a right one.
        Err(error @ crate::approval::broker::AnswerError::Unfit(_)) => {
            Response::error(FailureKind::Invalid, error.to_string())
        }
    }
}

/// Makes a *never allow* rule for the account this server acts as (the checks are [`ops::never::add`]'s).
async fn never_add(engine: &Engine, http: &HttpUrl, request: NeverRequest) -> Response {
    let Some(ops) = ops_of(engine, http) else { return no_store() };
    match ops.add_never(engine, request).await {
        Ok(rule) => Response::NeverAdded(rule),
        Err(NeverAddError::NoStore) => no_store(),
        Err(error @ NeverAddError::NotSignedIn) => Response::error(FailureKind::NotSignedIn, error.to_string()),
        Err(error @ NeverAddError::Store(_)) => Response::error(FailureKind::Store, error.to_string()),
        Err(error) => Response::error(FailureKind::Invalid, error.to_string()),
    }
}

/// Offers an assistant only some tools; a list of tools that can't be read is refused in words.
async fn assistant_tools(engine: &Engine, http: &HttpUrl, id: &str, tools: Option<&str>) -> Response {
    let selection = match tools.map(crate::tools::sets::ToolSelection::parse_kept).transpose() {
        Ok(selection) => selection.flatten(),
        Err(error) => return Response::error(FailureKind::Invalid, error.to_string()),
    };
    let set = async |ops: &Ops| ops.set_assistant_tools(id, selection.as_ref()).await;
    with_ops(engine, http, set, Response::AssistantTools).await
}

fn no_store() -> Response {
    Response::error(FailureKind::NoStore, OpsError::NoStore.to_string())
}

/// The whole log, one record per line, then `{"exported":N}`; an `error` line if the store fails midway.
async fn export<W: AsyncWrite + Unpin>(engine: &Engine, http: &HttpUrl, write: &mut W) -> std::io::Result<()> {
    let Some(ops) = ops_of(engine, http) else { return send(write, &no_store()).await };
    match ops.export(write).await {
        Ok(count) => send(write, &Response::Exported(count)).await,
        Err(error) => send(write, &Response::error(FailureKind::Store, error.to_string())).await,
    }
}

/// The limits against a real socket (issue 15, item 9). They are unit tests so that the limits can be made
/// small here without a public setting to change them.
#[cfg(all(test, unix))]
mod limit_tests {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    use tokio::net::UnixStream;

    use super::*;
    use crate::EngineOptions;
    use crate::approval::policy::Policy;
    use crate::config::Config;
    use crate::engine::ApprovalSetup;
    use crate::google::RetryPolicy;
    use crate::google::auth::StaticToken;

    struct Served {
        _home: tempfile::TempDir,
        handle: ControlHandle,
    }

    async fn served(limits: Limits) -> Served {
        let home = tempfile::tempdir().unwrap();
        let engine = Engine::new(EngineOptions {
            config: Config::with_home(home.path()),
            tokens: Arc::new(StaticToken::new("token", Some("ada@example.com".to_owned()))),
            sandbox: false,
            retry: RetryPolicy::default(),
            approvals: ApprovalSetup { store: None, policy: Policy::default() },
        })
        .unwrap();
        let handle = serve_limited(engine, home.path(), CancellationToken::new(), limits).await.unwrap();
        Served { _home: home, handle }
    }

    impl Served {
        async fn connect(&self) -> UnixStream {
            UnixStream::connect(self.handle.path()).await.unwrap()
        }

        /// Whether a new connection gets `info` answered: the server still serves.
        async fn serves(&self) -> bool {
            let mut stream = self.connect().await;
            stream.write_all(b"{\"op\":\"info\"}\n").await.unwrap();
            let answer = first_line(&mut stream).await;
            answer["info"]["pid"] == std::process::id()
        }
    }

    async fn first_line(stream: &mut UnixStream) -> Value {
        let mut line = String::new();
        let mut reader = BufReader::new(stream);
        let read = tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line));
        read.await.expect("an answer came").unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    /// Whether the server closed `stream` (after anything it had to say).
    async fn closed(stream: &mut UnixStream) -> bool {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest)).await;
        matches!(read, Ok(Ok(_)))
    }

    use serde_json::Value;

    fn small() -> Limits {
        Limits { small_line: 1024, call_line: 64 * 1024, long_reads: 1, connections: 64, idle: Duration::from_secs(30) }
    }

    #[tokio::test]
    async fn a_long_line_that_is_not_a_call_gets_a_clear_error_and_the_server_keeps_serving() {
        let served = served(small()).await;
        let mut stream = served.connect().await;
        let long = format!("{{\"op\":\"info\",\"pad\":\"{}\"}}\n", "x".repeat(2000));
        stream.write_all(long.as_bytes()).await.unwrap();
        let answer = first_line(&mut stream).await;
        assert_eq!(answer["error"]["kind"], "bad_request", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("longer than 1024 bytes, the most for any request but a call"), "{message}");
        assert!(closed(&mut stream).await);
        // A line that only pretends to be a call past its first bytes is refused too.
        let mut stream = served.connect().await;
        let pretends = format!("{{\"op\":\"call\" , \"op\":\"info\",\"pad\":\"{}\"}}\n", "x".repeat(2000));
        stream.write_all(pretends.as_bytes()).await.unwrap();
        assert_eq!(first_line(&mut stream).await["error"]["kind"], "bad_request");
        assert!(served.serves().await);
    }

    #[tokio::test]
    async fn a_call_may_be_longer_up_to_its_own_limit() {
        let served = served(small()).await;
        let call = |size: usize| {
            let Value::Object(arguments) = serde_json::json!({ "text": "x".repeat(size) }) else { unreachable!() };
            let request = Request::Call {
                name: "no_such_tool".into(),
                arguments: Some(arguments),
                meta: CallMeta::default(),
                tools: None,
                progress: false,
            };
            format!("{}\n", serde_json::to_string(&request).unwrap())
        };
        let mut stream = served.connect().await;
        stream.write_all(call(10_000).as_bytes()).await.unwrap();
        let answer = first_line(&mut stream).await;
        assert_eq!(answer["error"]["kind"], "unknown_tool", "read whole and answered: {answer}");
        // The same connection goes on.
        stream.write_all(b"{\"op\":\"info\"}\n").await.unwrap();
        assert_eq!(first_line(&mut stream).await["info"]["pid"], std::process::id());
        stream.write_all(call(70_000).as_bytes()).await.unwrap();
        let answer = first_line(&mut stream).await;
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("the call's line is longer than 65536 bytes"), "{message}");
        assert!(served.serves().await);
    }

    #[tokio::test]
    async fn a_connection_that_sends_nothing_or_half_a_line_is_closed_after_the_idle_time() {
        let served = served(Limits { idle: Duration::from_millis(300), ..small() }).await;
        let mut silent = served.connect().await;
        let mut half = served.connect().await;
        half.write_all(b"{\"op\":\"inf").await.unwrap();
        let started = std::time::Instant::now();
        for stream in [&mut silent, &mut half] {
            let answer = first_line(stream).await;
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains("no whole request line came within"), "{message}");
            assert!(closed(stream).await);
        }
        assert!(started.elapsed() < Duration::from_secs(5), "closed after the idle time, not later");
        // A half-sent long call is dropped too, and its long-read permit (the only one) is given back.
        let mut long_half = served.connect().await;
        long_half.write_all(format!("{{\"op\":\"call\",\"name\":\"{}", "x".repeat(5000)).as_bytes()).await.unwrap();
        assert!(first_line(&mut long_half).await["error"]["message"].as_str().unwrap().contains("no whole request"));
        assert!(closed(&mut long_half).await);
        let Value::Object(arguments) = serde_json::json!({ "text": "x".repeat(5000) }) else { unreachable!() };
        let request = Request::Call {
            name: "no_such_tool".into(),
            arguments: Some(arguments),
            meta: CallMeta::default(),
            tools: None,
            progress: false,
        };
        let mut next = served.connect().await;
        next.write_all(format!("{}\n", serde_json::to_string(&request).unwrap()).as_bytes()).await.unwrap();
        assert_eq!(first_line(&mut next).await["error"]["kind"], "unknown_tool", "the next long call is read");
        assert!(served.serves().await);
    }

    #[tokio::test]
    async fn connections_beyond_the_cap_are_refused_until_one_closes() {
        let served = served(Limits { connections: 2, ..small() }).await;
        let first = served.connect().await;
        let _second = served.connect().await;
        // Let both be admitted before the third arrives.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut third = served.connect().await;
        let answer = first_line(&mut third).await;
        assert_eq!(answer["error"]["kind"], "busy", "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("already answering 2 connections"));
        assert!(closed(&mut third).await);
        drop(first);
        let mut served_again = false;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if served.serves().await {
                served_again = true;
                break;
            }
        }
        assert!(served_again, "a seat came free when a connection closed");
    }

    #[test]
    fn only_a_line_that_begins_as_a_call_may_grow() {
        assert!(begins_a_call(b"  {\"op\":", b"\"call\",\"name\""));
        assert!(!begins_a_call(b"{\"op\":\"calls\"", b""), "begins_a_call checks the tag's whole value");
        assert!(!begins_a_call(b"{\"name\":\"x\",\"op\":\"call\"}", b""));
        assert!(!begins_a_call(b"{\"op\":\"info\"}", b""));
    }
}
