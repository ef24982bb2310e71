//! Windows: the control channel is a named pipe per serving process instead of a Unix socket.
//!
//! The pipe's security descriptor names this user's SID as its owner and gives that SID, and nobody else, all
//! access (`O:<sid>D:P(A;;GA;;;<sid>)`: protected, so nothing is inherited); remote clients are refused. Its
//! name, `\\.\pipe\gatehouse-<home key>-<pid>-<random>`, is written to `<GATEHOUSE_HOME>/control/<pid>.pipe`
//! once the pipe listens (written under a temporary name and renamed, like the Unix socket), and the folder
//! gets a protected DACL of this user only, inherited by those files: the `0700` folder's counterpart. Pipe
//! names are global on a machine, so the random part keeps another user from taking a future server's name
//! first, and a client talks only to a pipe owned by this user and served by the process its file names.

use std::ffi::c_void;
use std::io::ErrorKind;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeClient, NamedPipeServer, PipeMode, ServerOptions};
use windows_sys::Win32::Foundation::{CloseHandle, ERROR_PIPE_BUSY, ERROR_SUCCESS, HANDLE, HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SDDL_REVISION_1,
    SE_FILE_OBJECT, SE_KERNEL_OBJECT, SetNamedSecurityInfoW,
};
use windows_sys::Win32::Security::{
    ACL, DACL_SECURITY_INFORMATION, GetLengthSid, GetSecurityDescriptorDacl, GetTokenInformation, IsValidSid,
    OWNER_SECURITY_INFORMATION, PROTECTED_DACL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SECURITY_ATTRIBUTES,
    TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::System::Pipes::{GetNamedPipeClientProcessId, GetNamedPipeServerProcessId};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
};

use super::ControlError;

/// A server's file is `<pid>.pipe`; it holds the pipe's name.
const REGISTRY_SUFFIX: &str = ".pipe";

/// Every control pipe's name starts so; a file naming anything else is not followed.
const PIPE_PREFIX: &str = r"\\.\pipe\gatehouse-";

/// The longest pipe name Windows takes (256 characters, the `\\.\pipe\` included).
const MAX_PIPE_NAME: usize = 256;

/// How long a client waits for a free instance of a pipe whose instances are all taken at once.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// The client's halves of an opened pipe, as [`tokio::net::unix::OwnedReadHalf`] and its writer are on Unix.
pub(super) type OwnedReadHalf = tokio::io::ReadHalf<NamedPipeClient>;
pub(super) type OwnedWriteHalf = tokio::io::WriteHalf<NamedPipeClient>;

/// `into_split` for an opened pipe, as a Unix stream has it, so the client reads the same on both.
pub(super) trait IntoSplit {
    fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf);
}

impl IntoSplit for NamedPipeClient {
    fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        tokio::io::split(self)
    }
}

/// A Windows user: their SID as bytes (to compare) and as text (for SDDL).
pub(super) struct User {
    sid: Vec<u8>,
    text: String,
}

impl User {
    /// The user this process runs as.
    pub(super) fn current() -> Result<User, String> {
        // SAFETY: the current process's pseudo-handle is always valid and needs no closing.
        token_user(unsafe { GetCurrentProcess() })
    }

    /// Whether `sid` is this user's SID.
    fn is(&self, sid: PSID) -> bool {
        sid_bytes(sid).is_some_and(|bytes| bytes == self.sid)
    }
}

/// A handle closed when dropped.
struct Owned(HANDLE);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by us, is valid and is closed only here.
        unsafe { CloseHandle(self.0) };
    }
}

/// Memory the system allocated for us (a security descriptor, a SID's text), freed when dropped.
struct Local(*mut c_void);

impl Drop for Local {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from a function that says to free it with LocalFree, once.
            unsafe { LocalFree(self.0 as HLOCAL) };
        }
    }
}

fn last_error(what: &str) -> String {
    format!("{what} failed: {}", std::io::Error::last_os_error())
}

/// The user of `process`'s token.
fn token_user(process: HANDLE) -> Result<User, String> {
    let mut token: HANDLE = null_mut();
    // SAFETY: `process` is a valid process handle and `token` a place for the result.
    if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
        return Err(last_error("opening the process token"));
    }
    let token = Owned(token);
    let mut needed = 0u32;
    // SAFETY: asks only for the size, with no buffer.
    unsafe { GetTokenInformation(token.0, TokenUser, null_mut(), 0, &mut needed) };
    if needed == 0 {
        return Err(last_error("reading the token's user"));
    }
    // u64s so the TOKEN_USER at its start is aligned.
    let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
    // SAFETY: `buffer` holds at least `needed` bytes.
    if unsafe { GetTokenInformation(token.0, TokenUser, buffer.as_mut_ptr().cast(), needed, &mut needed) } == 0 {
        return Err(last_error("reading the token's user"));
    }
    // SAFETY: the call filled the buffer with a TOKEN_USER whose SID points into the same buffer.
    let sid = unsafe { (*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid };
    let bytes = sid_bytes(sid).ok_or_else(|| "the token's user is not a valid SID".to_owned())?;
    let mut text = null_mut();
    // SAFETY: `sid` is valid (checked above) and `text` a place for the string the call allocates.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
        return Err(last_error("writing the SID as text"));
    }
    let text = Local(text.cast());
    // SAFETY: the call returned a NUL-terminated UTF-16 string.
    let text = unsafe { wide_string(text.0.cast()) };
    Ok(User { sid: bytes, text })
}

/// The bytes of a valid SID.
fn sid_bytes(sid: PSID) -> Option<Vec<u8>> {
    // SAFETY: IsValidSid reads a SID that may be anything; GetLengthSid is only asked of a valid one.
    unsafe {
        if sid.is_null() || IsValidSid(sid) == 0 {
            return None;
        }
        let len = GetLengthSid(sid) as usize;
        Some(std::slice::from_raw_parts(sid.cast::<u8>(), len).to_vec())
    }
}

/// # Safety
/// `text` points at a NUL-terminated UTF-16 string.
unsafe fn wide_string(text: *const u16) -> String {
    let mut len = 0;
    // SAFETY: the string ends with a NUL (the caller's promise).
    while unsafe { *text.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: `len` characters were just read.
    String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, len) })
}

fn wide(text: &std::ffi::OsStr) -> Vec<u16> {
    text.encode_wide().chain(std::iter::once(0)).collect()
}

/// A security descriptor made from SDDL.
pub(super) struct Descriptor(Local);

// SAFETY: the descriptor is a block of memory that is only read after it is made; nothing ties it to a thread.
unsafe impl Send for Descriptor {}
// SAFETY: as above: shared, it is only read.
unsafe impl Sync for Descriptor {}

impl Descriptor {
    fn from_sddl(sddl: &str) -> Result<Descriptor, String> {
        let sddl = wide(sddl.as_ref());
        let mut descriptor: PSECURITY_DESCRIPTOR = null_mut();
        // SAFETY: `sddl` is NUL-terminated and `descriptor` a place for the descriptor the call allocates.
        let made = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                null_mut(),
            )
        };
        if made == 0 {
            return Err(last_error("making the security descriptor"));
        }
        Ok(Descriptor(Local(descriptor)))
    }

    /// The pipe's: `user` owns it and is the only one allowed anything; nothing inherited.
    pub(super) fn pipe(user: &User) -> Result<Descriptor, String> {
        Descriptor::from_sddl(&format!("O:{0}D:P(A;;GA;;;{0})", user.text))
    }

    /// The control folder's: only `user`, passed on to the files and folders in it; nothing inherited.
    fn folder(user: &User) -> Result<Descriptor, String> {
        Descriptor::from_sddl(&format!("D:P(A;OICI;FA;;;{})", user.text))
    }

    fn dacl(&self) -> Result<*mut ACL, String> {
        let (mut present, mut defaulted, mut dacl) = (0, 0, null_mut());
        // SAFETY: the descriptor is valid; the DACL pointer points into it and lives as long as it.
        if unsafe { GetSecurityDescriptorDacl(self.0.0, &mut present, &mut dacl, &mut defaulted) } == 0 {
            return Err(last_error("reading the security descriptor"));
        }
        if present == 0 || dacl.is_null() {
            return Err("the security descriptor has no access list".to_owned());
        }
        Ok(dacl)
    }
}

/// Makes an instance of pipe `name` with `descriptor`, refusing remote clients. The `first` instance fails if
/// a pipe of that name exists already (someone else's): it is never joined.
pub(super) fn create_pipe(name: &str, descriptor: &Descriptor, first: bool) -> std::io::Result<NamedPipeServer> {
    let mut attributes = SECURITY_ATTRIBUTES {
        nLength: size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: descriptor.0.0,
        bInheritHandle: 0,
    };
    let mut options = ServerOptions::new();
    options.first_pipe_instance(first).reject_remote_clients(true).pipe_mode(PipeMode::Byte);
    // SAFETY: `attributes` is a valid SECURITY_ATTRIBUTES whose descriptor outlives the call.
    unsafe { options.create_with_security_attributes_raw(name, (&raw mut attributes).cast::<c_void>()) }
}

/// The name of the pipe process `pid` serves for `dir`: a key for this user and folder (so servers of
/// different homes are told apart), the pid, and a random part nobody can take first.
pub(super) fn pipe_name(user: &User, dir: &Path, pid: u32) -> String {
    let mut key = Sha256::new();
    key.update(user.text.as_bytes());
    key.update([0]);
    key.update(dir.as_os_str().as_encoded_bytes());
    let key: String = key.finalize().iter().take(8).map(|byte| format!("{byte:02x}")).collect();
    format!("{PIPE_PREFIX}{key}-{pid}-{:016x}", rand::random::<u64>())
}

/// The file of process `pid` in `dir` that names its pipe.
pub(super) fn registry_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}{REGISTRY_SUFFIX}"))
}

/// Where process `pid` writes its file before renaming it to [`registry_path`], so clients never read half
/// of one.
pub(super) fn binding_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.binding"))
}

/// Writes `name` to `binding` and renames it to `path`.
pub(super) fn write_registry(binding: &Path, path: &Path, name: &str) -> std::io::Result<()> {
    std::fs::write(binding, format!("{name}\n"))?;
    std::fs::rename(binding, path)
}

/// The pipe name in a server's file, when it is one of ours.
fn read_registry(path: &Path) -> std::io::Result<String> {
    let text = std::fs::read_to_string(path)?;
    let name = text.trim_end_matches(['\r', '\n']);
    if !name.starts_with(PIPE_PREFIX) || name.len() > MAX_PIPE_NAME || name.contains(['\r', '\n']) {
        return Err(std::io::Error::new(ErrorKind::InvalidData, "it does not name a Gatehouse control pipe"));
    }
    Ok(name.to_owned())
}

/// Makes `dir` a folder only this user can enter: creates it, then gives it a protected access list of this
/// user only, which the files in it inherit. A link or a file is refused; a folder whose access list can't be
/// set (another user's) too.
pub(super) fn prepare_folder(dir: &Path, user: &User) -> Result<(), ControlError> {
    let fail = |detail: String| ControlError::Folder { path: dir.display().to_string(), detail };
    if let Some(parent) = dir.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| fail(format!("its parent could not be created ({e})")))?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail(format!("it could not be created ({e})"))),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| fail(format!("it could not be read ({e})")))?;
    if !meta.is_dir() || meta.file_type().is_symlink() {
        return Err(fail("it is not a folder (a link or a file has its name): remove it".to_owned()));
    }
    let descriptor = Descriptor::folder(user).map_err(&fail)?;
    let dacl = descriptor.dacl().map_err(&fail)?;
    let name = wide(dir.as_os_str());
    // SAFETY: `name` is NUL-terminated; `dacl` points into `descriptor`, alive for the call.
    let set = unsafe {
        SetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
            null_mut(),
            null_mut(),
            dacl,
            null_mut(),
        )
    };
    if set != ERROR_SUCCESS {
        let error = std::io::Error::from_raw_os_error(set as i32);
        return Err(fail(format!("it could not be made private ({error})")));
    }
    Ok(())
}

/// The servers' files in `dir` with the process each belongs to; none when the folder does not exist.
pub(super) fn registry_files(dir: &Path) -> Result<Vec<(u32, PathBuf)>, ControlError> {
    super::server_files::server_files(dir, REGISTRY_SUFFIX)
}

/// What opening a server's pipe found.
pub(super) enum Probe {
    Live(NamedPipeClient),
    /// Nobody serves it (its process is gone; its file was removed if so).
    Gone,
    /// Something else is wrong (not this user's pipe, access refused): skipped, with why.
    Unreachable(String),
}

/// Opens the pipe process `pid`'s file at `path` names. A file whose pipe nobody serves and whose process no
/// longer runs is removed: it was left behind by a process that was killed. Windows hands a gone process's
/// pid to a new one soon, so a process that started after the file was written does not count.
pub(super) async fn probe(pid: u32, path: &Path) -> Probe {
    let gone = || {
        let written = std::fs::metadata(path).and_then(|meta| meta.modified()).ok();
        if !crate::process::runs_since(pid, written) && std::fs::remove_file(path).is_ok() {
            tracing::debug!(path = %path.display(), "removed the control pipe's file of a process that is gone");
        }
        Probe::Gone
    };
    let name = match read_registry(path) {
        Ok(name) => name,
        Err(e) if e.kind() == ErrorKind::NotFound => return Probe::Gone,
        Err(e) if e.kind() == ErrorKind::InvalidData => return gone(),
        Err(e) => return Probe::Unreachable(e.to_string()),
    };
    let deadline = Instant::now() + BUSY_WAIT;
    let client = loop {
        match ClientOptions::new().open(&name) {
            Ok(client) => break client,
            // Every instance is taken this moment; the server offers a new one as soon as one is.
            Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) if e.kind() == ErrorKind::NotFound => return gone(),
            Err(e) => return Probe::Unreachable(e.to_string()),
        }
    };
    match check_server(&client, pid) {
        Ok(()) => Probe::Live(client),
        Err(detail) => Probe::Unreachable(detail),
    }
}

/// A pipe is talked to only when this user owns it and process `pid` serves it: pipe names are global, so
/// another user could have made one of the name a file of ours names once its server stopped.
fn check_server(client: &NamedPipeClient, pid: u32) -> Result<(), String> {
    let user = User::current()?;
    let handle = client.as_raw_handle() as HANDLE;
    let (mut owner, mut descriptor): (PSID, PSECURITY_DESCRIPTOR) = (null_mut(), null_mut());
    // SAFETY: `handle` is the open pipe; the owner points into `descriptor`, freed after it is compared.
    let read = unsafe {
        GetSecurityInfo(
            handle,
            SE_KERNEL_OBJECT,
            OWNER_SECURITY_INFORMATION,
            &mut owner,
            null_mut(),
            null_mut(),
            null_mut(),
            &mut descriptor,
        )
    };
    let descriptor = Local(descriptor);
    if read != ERROR_SUCCESS {
        return Err(format!("its owner could not be read ({})", std::io::Error::from_raw_os_error(read as i32)));
    }
    if !user.is(owner) {
        return Err("its pipe belongs to another user: not talked to".to_owned());
    }
    drop(descriptor);
    let mut server = 0u32;
    // SAFETY: `handle` is the open pipe and `server` a place for the pid.
    if unsafe { GetNamedPipeServerProcessId(handle, &mut server) } == 0 {
        return Err(last_error("asking which process serves the pipe"));
    }
    if server != pid {
        return Err(format!("its pipe is served by process {server}, not by the one its file names"));
    }
    Ok(())
}

/// The process at the other end of `server`, from the OS (never from what the client says).
pub(super) fn client_pid(server: &NamedPipeServer) -> Option<u32> {
    let mut pid = 0u32;
    // SAFETY: the handle is the connected pipe and `pid` a place for the client's pid.
    if unsafe { GetNamedPipeClientProcessId(server.as_raw_handle() as HANDLE, &mut pid) } == 0 {
        return None;
    }
    Some(pid)
}

/// Whether the process at the other end of `server` runs as `user`: the counterpart of the Unix peer check
/// (the pipe's DACL already let only `user` open it). `None` when its user can't be read, as for an elevated
/// process seen from one that is not.
pub(super) fn client_is(server: &NamedPipeServer, user: &User) -> Option<bool> {
    let pid = client_pid(server)?;
    // SAFETY: opening a process by pid; a null handle is checked.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return None;
    }
    let process = Owned(process);
    let client = token_user(process.0).ok()?;
    Some(client.sid == user.sid)
}

/// Removes `path` if it is there.
pub(super) fn remove_quietly(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(path = %path.display(), "could not remove the control pipe's file: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the folder is given, read back from the descriptor itself: `control_windows.rs` reads it back from
    /// the folder, which Windows keeps but Wine does not (Wine 8 accepts a folder's access list and forgets it).
    #[test]
    fn the_folder_is_given_a_protected_access_list_of_this_user_only_passed_on_to_its_files() {
        use windows_sys::Win32::Security::Authorization::ConvertSecurityDescriptorToStringSecurityDescriptorW;
        let user = User::current().unwrap();
        let descriptor = Descriptor::folder(&user).unwrap();
        let mut text: *mut u16 = null_mut();
        // SAFETY: the descriptor is valid; `text` receives a string the call allocates, freed by `Local`.
        let made = unsafe {
            ConvertSecurityDescriptorToStringSecurityDescriptorW(
                (descriptor.0).0,
                SDDL_REVISION_1,
                DACL_SECURITY_INFORMATION,
                &mut text,
                null_mut(),
            )
        };
        assert_ne!(made, 0, "{}", last_error("reading the descriptor back"));
        let _free = Local(text.cast());
        // SAFETY: the call returned a NUL-terminated string.
        let sddl = unsafe { wide_string(text) };
        assert_eq!(sddl, format!("D:P(A;OICI;FA;;;{})", user.text));
    }

    #[test]
    fn only_pid_files_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["12.pipe", "7.pipe", "0042.pipe", "x.pipe", "12.binding", "notes.txt", "-1.pipe"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let listed = registry_files(dir.path()).unwrap();
        assert_eq!(listed, [(7, dir.path().join("7.pipe")), (12, dir.path().join("12.pipe"))]);
        assert!(registry_files(&dir.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn a_file_naming_something_else_than_a_control_pipe_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.pipe");
        for text in [r"\\.\pipe\other", r"\\server\pipe\gatehouse-x", "C:\\file", "", "\\\\.\\pipe\\gatehouse-a\nb"] {
            std::fs::write(&path, text).unwrap();
            assert_eq!(read_registry(&path).unwrap_err().kind(), ErrorKind::InvalidData, "{text:?}");
        }
        std::fs::write(&path, "\\\\.\\pipe\\gatehouse-ab-1-cd\r\n").unwrap();
        assert_eq!(read_registry(&path).unwrap(), r"\\.\pipe\gatehouse-ab-1-cd");
    }

    #[test]
    fn pipe_names_differ_by_home_and_by_server() {
        let user = User::current().unwrap();
        let a = pipe_name(&user, Path::new(r"C:\a\control"), 7);
        let b = pipe_name(&user, Path::new(r"C:\b\control"), 7);
        assert!(a.starts_with(PIPE_PREFIX) && a.len() <= MAX_PIPE_NAME, "{a}");
        assert!(a.contains("-7-"), "{a}");
        assert_ne!(a[..PIPE_PREFIX.len() + 16], b[..PIPE_PREFIX.len() + 16], "the home key differs");
        assert_ne!(a, pipe_name(&user, Path::new(r"C:\a\control"), 7), "the random part differs");
    }
}
