//! The control channel on Windows end to end: a real engine with a real store behind `control::serve` (a named
//! pipe), `control::Client` in front, as `gatehouse approvals` uses it; the pipe's security read back from
//! the system; a second server in a second process (this test program run again, see [`CHILD_HOME`]).
#![cfg(windows)]

use std::ffi::c_void;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{RawAnswer, RawChoice};
use gatehouse_core::approval::model::{DecisionSource, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{AuditQuery, DATABASE_FILE, Store};
use gatehouse_core::config::Config;
use gatehouse_core::control::protocol::FailureKind;
use gatehouse_core::control::{Client, ControlError, ControlHandle};
use gatehouse_core::engine::{ApprovalSetup, Reply};
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions, control};
use google_fake::{FakeGoogle, Identity};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::windows::named_pipe::ClientOptions;
use tokio_util::sync::CancellationToken;
use windows_sys::Win32::Foundation::{ERROR_SUCCESS, HANDLE, HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    GetNamedSecurityInfoW, GetSecurityInfo, SE_FILE_OBJECT, SE_KERNEL_OBJECT,
};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACL, DACL_SECURITY_INFORMATION, GetAce, GetLengthSid, GetSecurityDescriptorControl,
    GetTokenInformation, OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SE_DACL_PROTECTED, TOKEN_QUERY,
    TOKEN_USER, TokenUser,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

const USER: &str = "ada@example.com";

/// Set when this program runs as the second server of
/// [`a_second_server_gets_its_own_pipe_and_leaves_no_file_when_it_stops`]: the home to serve.
const CHILD_HOME: &str = "GATEHOUSE_TEST_CONTROL_CHILD_HOME";

/// `ACCESS_ALLOWED_ACE_TYPE`.
const ACCESS_ALLOWED: u8 = 0;
/// What `GA` (generic all) is on a pipe or file once the system maps it: `FILE_ALL_ACCESS`.
const FILE_ALL_ACCESS: u32 = 0x001F_01FF;
const GENERIC_ALL: u32 = 0x1000_0000;

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    control: ControlHandle,
    sheet: String,
}

async fn engine(home: &Path, google: &FakeGoogle) -> Arc<Engine> {
    let store = Store::open(&home.join(DATABASE_FILE)).await.unwrap();
    let mut config = Config::with_home(home);
    config.google_endpoint = Some(google.url().parse().unwrap());
    // Gatehouse's own cards and grants, on Google's REST APIs: on its MCP servers Google asks about update_cells
    // with its own form at every call.
    config.google_backend = gatehouse_core::config::GoogleBackend::Rest;
    Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(google.issue_token(Identity::user(USER)), Some(USER.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store), policy: Policy::default() },
    })
    .unwrap()
}

async fn setup() -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let engine = engine(home.path(), &google).await;
    let control = control::serve(Arc::clone(&engine), home.path(), CancellationToken::new()).await.unwrap();
    Setup { google, home, engine, control, sheet }
}

fn control_dir(home: &Path) -> PathBuf {
    home.join("control")
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn start_write(setup: &Setup, value: &str) -> tokio::task::JoinHandle<Reply> {
    let engine = Arc::clone(&setup.engine);
    let Value::Object(arguments) =
        json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
    else {
        unreachable!()
    };
    tokio::spawn(async move { engine.call("update_cells", Some(arguments)).await.unwrap() })
}

async fn only_client(home: &Path) -> Client {
    let mut clients = Client::connect_all(home).await.unwrap();
    assert_eq!(clients.len(), 1, "one server runs");
    clients.remove(0)
}

async fn wait_for_card(client: &mut Client) -> PendingCard {
    for _ in 0..400 {
        if let Some(card) = client.pending().await.unwrap().into_iter().next() {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

/// This process's user SID, read from its token here rather than through the code under test.
fn my_sid() -> Vec<u8> {
    let mut token: HANDLE = null_mut();
    // SAFETY: the current process's pseudo-handle; `token` receives a handle (leaked: the test ends soon).
    assert_ne!(unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) }, 0);
    let mut needed = 0u32;
    // SAFETY: a size query.
    unsafe { GetTokenInformation(token, TokenUser, null_mut(), 0, &mut needed) };
    let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
    // SAFETY: `buffer` holds `needed` bytes.
    assert_ne!(unsafe { GetTokenInformation(token, TokenUser, buffer.as_mut_ptr().cast(), needed, &mut needed) }, 0);
    // SAFETY: filled with a TOKEN_USER whose SID points into `buffer`.
    unsafe { sid_bytes((*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid) }
}

/// # Safety
/// `sid` points at a valid SID.
unsafe fn sid_bytes(sid: PSID) -> Vec<u8> {
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(sid.cast::<u8>(), GetLengthSid(sid) as usize).to_vec() }
}

/// An object's owner and DACL as read back from the system.
struct Security {
    owner: Option<Vec<u8>>,
    protected: bool,
    /// (ACE type, flags, mask, SID) of each entry.
    aces: Vec<(u8, u8, u32, Vec<u8>)>,
}

/// # Safety
/// `owner` and `dacl` point into `descriptor`, a descriptor the system allocated for us.
unsafe fn security(owner: PSID, dacl: *mut ACL, descriptor: PSECURITY_DESCRIPTOR) -> Security {
    let mut control = 0u16;
    let mut revision = 0u32;
    // SAFETY: reading the descriptor and ACL the system returned; freed at the end.
    unsafe {
        assert_ne!(GetSecurityDescriptorControl(descriptor, &mut control, &mut revision), 0);
        assert!(!dacl.is_null(), "the object has a DACL (a null DACL would let everyone in)");
        let mut aces = Vec::new();
        for index in 0..u32::from((*dacl).AceCount) {
            let mut ace: *mut c_void = null_mut();
            assert_ne!(GetAce(dacl, index, &mut ace), 0);
            let ace = ace.cast::<ACCESS_ALLOWED_ACE>();
            let sid = (&raw mut (*ace).SidStart).cast::<c_void>();
            aces.push(((*ace).Header.AceType, (*ace).Header.AceFlags, (*ace).Mask, sid_bytes(sid)));
        }
        let owner = (!owner.is_null()).then(|| sid_bytes(owner));
        LocalFree(descriptor as HLOCAL);
        Security { owner, protected: control & SE_DACL_PROTECTED != 0, aces }
    }
}

fn kernel_object_security(handle: HANDLE) -> Security {
    let (mut owner, mut dacl, mut descriptor) = (null_mut(), null_mut(), null_mut());
    // SAFETY: `handle` is open with READ_CONTROL; the results point into `descriptor`.
    let read = unsafe {
        GetSecurityInfo(
            handle,
            SE_KERNEL_OBJECT,
            OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
            &mut owner,
            null_mut(),
            &mut dacl,
            null_mut(),
            &mut descriptor,
        )
    };
    assert_eq!(read, ERROR_SUCCESS, "{}", std::io::Error::from_raw_os_error(read as i32));
    // SAFETY: as returned by GetSecurityInfo.
    unsafe { security(owner, dacl, descriptor) }
}

fn file_security(path: &Path) -> Security {
    let name: Vec<u16> = path.as_os_str().encode_wide().chain([0]).collect();
    let (mut dacl, mut descriptor) = (null_mut(), null_mut());
    // SAFETY: `name` is NUL-terminated; the results point into `descriptor`.
    let read = unsafe {
        GetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            null_mut(),
            null_mut(),
            &mut dacl,
            null_mut(),
            &mut descriptor,
        )
    };
    assert_eq!(read, ERROR_SUCCESS, "{}", std::io::Error::from_raw_os_error(read as i32));
    // SAFETY: as returned by GetNamedSecurityInfoW.
    unsafe { security(null_mut(), dacl, descriptor) }
}

#[tokio::test]
async fn a_client_of_this_user_connects_and_answers_a_card_through_the_pipe() {
    let setup = setup().await;
    let mut client = only_client(setup.home.path()).await;
    let info = client.info().await.unwrap();
    assert_eq!(info.pid, std::process::id());
    assert_eq!(info.store.as_deref(), Some(setup.home.path().join(DATABASE_FILE).to_str().unwrap()));

    let first = start_write(&setup, "first");
    let card = wait_for_card(&mut client).await;
    assert_eq!(card.tool, "update_cells");
    let choice = RawChoice { scope: "TOOL".into(), days: "7".into(), limit: "CONSTRAINED".into() };
    client.answer(card.id, RawAnswer::Always(choice)).await.unwrap();
    let again = client.answer(card.id, RawAnswer::Deny).await.unwrap_err();
    assert!(matches!(&again, ControlError::Server { kind: FailureKind::NotPending, .. }), "{again:?}");
    let reply = first.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(setup.google.world().sheets.values(&setup.sheet, "Sales")[0][1], "first");

    let grants = client.grants().await.unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!((grants[0].tool.as_str(), &grants[0].owner), ("update_cells", &Owner::User(USER.into())));
    let second = tokio::time::timeout(Duration::from_secs(20), start_write(&setup, "second")).await.unwrap().unwrap();
    assert!(!second.is_error, "the grant covers the next call: {}", second.text);

    let records = client.audit(&AuditQuery::default()).await.unwrap();
    assert_eq!(records.last().map(|record| &record.entry.source), Some(&DecisionSource::Person));
    assert!(client.verify().await.unwrap().intact);
    let mut exported = Vec::new();
    assert_eq!(client.export(&mut exported).await.unwrap(), 2);

    // Several connections at once, each answered in order; a bad line gets an error and the connection stays.
    let mut raw = ClientOptions::new().open(setup.control.pipe_name()).unwrap();
    raw.write_all(b"{\"op\":\"fly\"}\n{\"op\":\"info\"}\n").await.unwrap();
    let mut lines = BufReader::new(&mut raw).lines();
    let error: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(error["error"]["kind"], "bad_request", "{error}");
    let info: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(info["info"]["pid"], std::process::id(), "{info}");
    assert!(client.pending().await.unwrap().is_empty());
}

#[tokio::test]
async fn the_pipe_grants_only_this_user_and_its_file_names_it() {
    let setup = setup().await;
    let me = my_sid();
    let dir = control_dir(setup.home.path());
    let file = dir.join(format!("{}.pipe", std::process::id()));
    assert_eq!(setup.control.path(), file);
    assert_eq!(file_names(&dir), [format!("{}.pipe", std::process::id())], "no half-written file is left");
    let named = std::fs::read_to_string(&file).unwrap();
    assert_eq!(named.trim_end(), setup.control.pipe_name());
    assert!(setup.control.pipe_name().starts_with(r"\\.\pipe\gatehouse-"), "{}", setup.control.pipe_name());
    assert!(setup.control.pipe_name().contains(&format!("-{}-", std::process::id())));

    // The pipe: owned by this user, a protected DACL with one entry, allowing this user's SID everything.
    let pipe = ClientOptions::new().open(setup.control.pipe_name()).unwrap();
    let security = kernel_object_security(pipe.as_raw_handle() as HANDLE);
    assert_eq!(security.owner.as_ref(), Some(&me), "the pipe is owned by this user");
    assert!(security.protected, "the pipe's DACL inherits nothing");
    assert_eq!(security.aces.len(), 1, "one entry: {:?}", security.aces);
    let (kind, _flags, mask, sid) = &security.aces[0];
    assert_eq!(*kind, ACCESS_ALLOWED);
    assert_eq!(sid, &me, "the one entry is this user's SID");
    assert!(*mask == FILE_ALL_ACCESS || *mask == GENERIC_ALL, "mask {mask:#x}");
}

#[tokio::test]
async fn the_control_folder_and_the_file_naming_the_pipe_grant_only_this_user() {
    let setup = setup().await;
    let me = my_sid();
    let dir = control_dir(setup.home.path());
    let file = dir.join(format!("{}.pipe", std::process::id()));
    // The folder: a protected DACL of this user only, passed on to the file naming the pipe.
    let folder = file_security(&dir);
    assert!(folder.protected, "the folder's DACL inherits nothing: {:?}", folder.aces);
    assert!(!folder.aces.is_empty());
    for (kind, _, _, sid) in &folder.aces {
        assert_eq!((*kind, sid), (ACCESS_ALLOWED, &me), "{:?}", folder.aces);
    }
    let named_file = file_security(&file);
    assert!(!named_file.aces.is_empty());
    for (kind, _, _, sid) in &named_file.aces {
        assert_eq!((*kind, sid), (ACCESS_ALLOWED, &me), "{:?}", named_file.aces);
    }
}

/// Runs as a plain test (a server that shuts down, then one that is dropped), and as the second server of
/// [`a_second_server_gets_its_own_pipe_and_leaves_no_file_when_it_stops`] when [`CHILD_HOME`] is set.
#[tokio::test]
async fn a_server_that_stops_leaves_no_file_behind() {
    let google = FakeGoogle::start().await.unwrap();
    let own_home;
    let home: PathBuf = match std::env::var_os(CHILD_HOME) {
        Some(home) => PathBuf::from(home),
        None => {
            own_home = tempfile::tempdir().unwrap();
            own_home.path().to_owned()
        }
    };
    let engine = engine(&home, &google).await;
    let control = control::serve(Arc::clone(&engine), &home, CancellationToken::new()).await.unwrap();
    let file = control.path().to_owned();
    assert!(file.exists());
    if std::env::var_os(CHILD_HOME).is_some() {
        // The parent says when to stop by removing the file that says this one runs.
        let running = home.join(format!("child-{}.running", std::process::id()));
        std::fs::write(&running, control.pipe_name()).unwrap();
        while running.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        control.shutdown().await;
        assert!(!file.exists(), "the stopped server's file is gone");
        return;
    }
    let pipe = control.pipe_name().to_owned();
    control.shutdown().await;
    assert!(!file.exists(), "the stopped server's file is gone");
    assert!(ClientOptions::new().open(&pipe).is_err(), "its pipe is closed");
    assert!(Client::connect_all(&home).await.unwrap().is_empty());

    // Dropped without a shutdown, as when the host's task ends: the same.
    let control = control::serve(Arc::clone(&engine), &home, CancellationToken::new()).await.unwrap();
    let file = control.path().to_owned();
    assert!(file.exists());
    drop(control);
    assert!(!file.exists(), "the dropped server's file is gone");
    assert!(Client::connect_all(&home).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_second_server_gets_its_own_pipe_and_leaves_no_file_when_it_stops() {
    let setup = setup().await;
    let dir = control_dir(setup.home.path());
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["a_server_that_stops_leaves_no_file_behind", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_HOME, setup.home.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let child_pid = child.id();
    let running = setup.home.path().join(format!("child-{child_pid}.running"));
    for _ in 0..3000 {
        if running.exists() {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the second server stopped early");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(running.exists(), "the second server did not start");
    let child_pipe = std::fs::read_to_string(&running).unwrap();

    let mut clients = Client::connect_all(setup.home.path()).await.unwrap();
    let mut pids: Vec<u32> = clients.iter().map(Client::pid).collect();
    pids.sort();
    let mut expected = vec![std::process::id(), child_pid];
    expected.sort();
    assert_eq!(pids, expected, "both servers are found");
    for client in &mut clients {
        assert_eq!(client.info().await.unwrap().pid, client.pid(), "each answers for itself");
    }
    assert_ne!(child_pipe, setup.control.pipe_name(), "each has its own pipe");
    let child_file = dir.join(format!("{child_pid}.pipe"));
    assert_eq!(std::fs::read_to_string(&child_file).unwrap().trim_end(), child_pipe);
    drop(clients);

    std::fs::remove_file(&running).unwrap();
    let status = tokio::task::spawn_blocking(move || child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "the second server's own checks passed: {status}");
    assert!(!child_file.exists(), "the stopped server's file is gone");
    let pids: Vec<u32> = Client::connect_all(setup.home.path()).await.unwrap().iter().map(Client::pid).collect();
    assert_eq!(pids, [std::process::id()]);
}

#[tokio::test]
async fn files_of_gone_processes_are_removed_and_a_pipe_served_by_another_process_is_skipped() {
    let setup = setup().await;
    let dir = control_dir(setup.home.path());
    // A process that is gone left its file; its pipe is long closed.
    let gone = dir.join("1073741808.pipe");
    std::fs::write(&gone, "\\\\.\\pipe\\gatehouse-0000000000000000-1073741808-0000000000000000\n").unwrap();
    // A file naming something else than a control pipe, of a process that is gone: not followed, removed.
    let strange = dir.join("1073741809.pipe");
    std::fs::write(&strange, "\\\\.\\pipe\\someone-else\n").unwrap();
    // A file that names this server's pipe under another pid: the pipe is not served by the process the
    // file names, so it is skipped (and left: it is not ours to judge).
    let misnamed = dir.join("4.pipe");
    std::fs::write(&misnamed, format!("{}\n", setup.control.pipe_name())).unwrap();

    let pids: Vec<u32> = Client::connect_all(setup.home.path()).await.unwrap().iter().map(Client::pid).collect();
    assert_eq!(pids, [std::process::id()]);
    assert!(!gone.exists(), "the gone process's file was removed");
    assert!(!strange.exists(), "the file naming something else was removed");
    assert!(misnamed.exists());

    // Windows soon gives a gone process's pid to another one. A file whose pipe is gone, written before the
    // process that now has its pid started, was left by the gone one: removed. One written since is left.
    let missing = format!("\\\\.\\pipe\\gatehouse-0000000000000000-{}-0000000000000001\n", std::process::id());
    let (before, since) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut files = Vec::new();
    for (home, written) in [
        (&before, std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(86_400)),
        (&since, std::time::SystemTime::now()),
    ] {
        std::fs::create_dir_all(control_dir(home.path())).unwrap();
        let file = control_dir(home.path()).join(format!("{}.pipe", std::process::id()));
        std::fs::write(&file, &missing).unwrap();
        std::fs::File::options().write(true).open(&file).unwrap().set_modified(written).unwrap();
        assert!(Client::connect_all(home.path()).await.unwrap().is_empty());
        files.push(file);
    }
    assert!(!files[0].exists(), "the file from before this process started was removed");
    assert!(files[1].exists(), "the file written since is this process's: left");
}

#[tokio::test]
async fn a_terminal_answer_from_the_assistants_own_process_tree_is_refused_and_another_is_recorded() {
    use gatehouse_core::approval::gate::CallMeta;
    use gatehouse_core::approval::model::{Agent, AnswerChannel, Caller};
    use gatehouse_core::process::Origin;

    let setup = setup().await;
    let write_from = |origin: u32, value: &str| {
        let engine = Arc::clone(&setup.engine);
        let Value::Object(arguments) =
            json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
        else {
            unreachable!()
        };
        let meta = CallMeta {
            caller: Caller { agent: Some(Agent::self_reported("claude-code")), interactive: true },
            origin: Some(Origin::Pid(origin)),
            ..CallMeta::default()
        };
        tokio::spawn(async move { engine.call_as(&meta, "update_cells", Some(arguments)).await.unwrap() })
    };
    let mut client = only_client(setup.home.path()).await;

    // The assistant is this test's own process: its answer through the pipe is its own, and refused.
    let mine = write_from(std::process::id(), "mine");
    let card = wait_for_card(&mut client).await;
    let refused = client.answer(card.id, RawAnswer::Deny).await.unwrap_err();
    let ControlError::Server { kind: FailureKind::Refused, message, .. } = &refused else {
        panic!("an assistant's own answer is refused: {refused:?}");
    };
    assert!(message.contains("can't approve its own changes"), "{message}");
    assert!(setup.engine.approvals().broker().get(card.id).is_some(), "the card still waits");
    setup.engine.approvals().broker().answer(card.id, RawAnswer::Deny).unwrap();
    assert!(mine.await.unwrap().is_error);

    // Another assistant (a process this one started, not an ancestor of it): the answer is taken, and the
    // audit record names the answering process.
    let mut other = std::process::Command::new("cmd.exe")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let theirs = write_from(other.id(), "theirs");
    let card = wait_for_card(&mut client).await;
    client.answer(card.id, RawAnswer::AllowOnce).await.unwrap();
    let reply = theirs.await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    other.kill().unwrap();
    other.wait().unwrap();
    // Newest first: the answer just given.
    let records = client.audit(&AuditQuery::default()).await.unwrap();
    let entry = &records.first().unwrap().entry;
    assert_eq!(entry.source, DecisionSource::Person);
    let Some(AnswerChannel::Terminal { pid: Some(pid), exe: Some(exe) }) = &entry.answered_via else {
        panic!("the record names the terminal: {:?}", entry.answered_via);
    };
    assert_eq!(*pid, std::process::id());
    assert!(exe.to_ascii_lowercase().ends_with(".exe"), "{exe}");
}
