//! Windows' answers to [`super`]'s questions: a process's parent from a Toolhelp snapshot, its executable from
//! `QueryFullProcessImageNameW`, and a loopback connection's client from the TCP table with owning pids.
//!
//! Windows keeps a process's parent pid after the parent exits, and pids are reused, so a recorded parent
//! counts only while a process with that pid runs and started before the child did; otherwise the child is
//! treated as an orphan (parent 0), as Linux reparents one to init.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::SystemTime;

use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_ACCESS_DENIED, ERROR_INSUFFICIENT_BUFFER, FILETIME, GetLastError, HANDLE, INVALID_HANDLE_VALUE,
    STILL_ACTIVE,
};
use windows_sys::Win32::NetworkManagement::IpHelper::{
    GetExtendedTcpTable, MIB_TCP6ROW_OWNER_PID, MIB_TCPROW_OWNER_PID, TCP_TABLE_OWNER_PID_ALL,
};
use windows_sys::Win32::Networking::WinSock::{AF_INET, AF_INET6};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
    QueryFullProcessImageNameW,
};

/// A handle closed when dropped.
struct Owned(HANDLE);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by this module and is closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// The parent of `pid`: `Some(0)` when the recorded parent is gone (or its pid now names a younger process),
/// `None` when `pid` itself is not in the snapshot.
pub(super) fn parent_of(pid: u32) -> Option<u32> {
    let parent = recorded_parent(pid)?;
    match (started_at(pid), started_at(parent)) {
        (Some(child), Some(parent_start)) if parent_start <= child => Some(parent),
        // The recorded parent is not running, or its pid was reused by a process younger than the child.
        (Some(_), _) => Some(0),
        // The child ended while it was looked at.
        (None, _) => None,
    }
}

/// The parent pid Windows recorded when `pid` was created.
fn recorded_parent(pid: u32) -> Option<u32> {
    // SAFETY: a snapshot of all processes; an invalid handle is checked.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return None;
    }
    let snapshot = Owned(snapshot);
    let mut entry = PROCESSENTRY32W { dwSize: size_of::<PROCESSENTRY32W>() as u32, ..Default::default() };
    // SAFETY: `entry` is sized as the call requires and lives for both calls.
    let mut more = unsafe { Process32FirstW(snapshot.0, &mut entry) } != 0;
    while more {
        if entry.th32ProcessID == pid {
            return Some(entry.th32ParentProcessID);
        }
        // SAFETY: as above.
        more = unsafe { Process32NextW(snapshot.0, &mut entry) } != 0;
    }
    None
}

/// When `pid` started, in FILETIME units; `None` when it can't be opened (ended, or not this user's to ask).
fn started_at(pid: u32) -> Option<u64> {
    created(&open(pid)?)
}

/// When the open `process` started, in FILETIME units; `None` when Windows doesn't say.
fn created(process: &Owned) -> Option<u64> {
    let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: `process` is open with the right to ask its times; the four are places for them.
    if unsafe { GetProcessTimes(process.0, &mut created, &mut exited, &mut kernel, &mut user) } == 0 {
        return None;
    }
    Some((u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
}

/// Whether process `pid` exists, has not exited, and (when `since` is given) started no later than `since`.
pub(crate) fn runs_since(pid: u32, since: Option<SystemTime>) -> bool {
    let Some(process) = open(pid) else {
        // SAFETY: reads this thread's last error, which the failed OpenProcess in `open` just set.
        return unsafe { GetLastError() } == ERROR_ACCESS_DENIED;
    };
    let mut code = 0u32;
    // SAFETY: `process` is open with the right to ask its exit code.
    if unsafe { GetExitCodeProcess(process.0, &mut code) } == 0 || code != STILL_ACTIVE as u32 {
        return false;
    }
    let Some(since) = since else { return true };
    // A start time Windows doesn't give can't prove the process younger: it is taken to be the one.
    created(&process).is_none_or(|created| filetime(since).is_none_or(|since| created <= since))
}

/// `time` in a FILETIME's units: 100 ns since 1601.
fn filetime(time: SystemTime) -> Option<u64> {
    const UNIX_EPOCH_AS_FILETIME: u64 = 116_444_736_000_000_000;
    let since_1970 = time.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    u64::try_from(since_1970.as_nanos() / 100).ok()?.checked_add(UNIX_EPOCH_AS_FILETIME)
}

fn open(pid: u32) -> Option<Owned> {
    // SAFETY: opening a process by pid; a null handle is checked.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    (!process.is_null()).then_some(Owned(process))
}

/// The path of the file `pid` runs.
pub(super) fn executable_of(pid: u32) -> Option<String> {
    let process = open(pid)?;
    let mut path = vec![0u16; 32_768];
    let mut len = path.len() as u32;
    // SAFETY: `path` holds `len` UTF-16 units; the call writes at most that many and sets `len`.
    if unsafe { QueryFullProcessImageNameW(process.0, PROCESS_NAME_WIN32, path.as_mut_ptr(), &mut len) } == 0 {
        return None;
    }
    path.truncate(len as usize);
    Some(String::from_utf16_lossy(&path))
}

/// The process holding the client end of the TCP connection from `peer` to this machine's `server_port`.
pub(super) fn tcp_owner(peer: SocketAddr, server_port: u16) -> Option<u32> {
    let rows: Vec<(SocketAddr, u16, u32)> = match peer.ip() {
        IpAddr::V4(_) => tcp_table::<MIB_TCPROW_OWNER_PID>(AF_INET.into())?
            .iter()
            .map(|row| (v4(row.dwLocalAddr, row.dwLocalPort), port(row.dwRemotePort), row.dwOwningPid))
            .collect(),
        IpAddr::V6(_) => tcp_table::<MIB_TCP6ROW_OWNER_PID>(AF_INET6.into())?
            .iter()
            .map(|row| (v6(row.ucLocalAddr, row.dwLocalPort), port(row.dwRemotePort), row.dwOwningPid))
            .collect(),
    };
    owner_in(&rows, peer, server_port)
}

/// The owner of the row (local address, remote port, owning pid) whose local end is `peer` and whose remote
/// port is `server_port`: the client's side of the connection. Pid 0 is the idle process, never a client: a
/// table that says 0 does not know (Wine's says 0 for every row), and not knowing is `None`.
fn owner_in(rows: &[(SocketAddr, u16, u32)], peer: SocketAddr, server_port: u16) -> Option<u32> {
    rows.iter()
        .find(|(local, remote_port, _)| *local == peer && *remote_port == server_port)
        .map(|(_, _, pid)| *pid)
        .filter(|pid| *pid != 0)
}

/// Every row of the TCP table of address family `family`, with owning pids. The table is a count followed by
/// the rows; its size changes between calls, so it is asked again while the buffer is too small.
fn tcp_table<Row: Copy>(family: u32) -> Option<Vec<Row>> {
    let mut size = 0u32;
    for _ in 0..4 {
        // u32 words keep the count aligned; the rows' fields are u32 or bytes.
        let mut buffer = vec![0u32; (size as usize).div_ceil(4).max(1)];
        size = (buffer.len() * 4) as u32;
        // SAFETY: `buffer` holds `size` bytes; the call writes at most that many and sets `size`.
        let status = unsafe {
            GetExtendedTcpTable(buffer.as_mut_ptr().cast(), &mut size, 0, family, TCP_TABLE_OWNER_PID_ALL, 0)
        };
        if status == ERROR_INSUFFICIENT_BUFFER {
            continue;
        }
        if status != 0 {
            return None;
        }
        let count = *buffer.first()? as usize;
        let rows_bytes = count.checked_mul(size_of::<Row>())?;
        if 4 + rows_bytes > buffer.len() * 4 {
            return None;
        }
        // SAFETY: the call wrote `count` rows right after the count, inside `buffer` (checked above); they
        // are read unaligned, as a row's alignment is not the buffer's concern.
        let rows = (0..count)
            .map(|i| unsafe {
                buffer.as_ptr().cast::<u8>().add(4 + i * size_of::<Row>()).cast::<Row>().read_unaligned()
            })
            .collect();
        return Some(rows);
    }
    None
}

/// A port as the TCP table holds it: network byte order in the low two bytes of the field's memory.
fn port(field: u32) -> u16 {
    let [high, low, ..] = field.to_ne_bytes();
    u16::from_be_bytes([high, low])
}

/// An IPv4 address (network byte order, as in memory) and port from a TCP table row.
fn v4(address: u32, port_field: u32) -> SocketAddr {
    SocketAddr::new(Ipv4Addr::from(address.to_ne_bytes()).into(), port(port_field))
}

/// An IPv6 address and port from a TCP table row; a v4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
fn v6(address: [u8; 16], port_field: u32) -> SocketAddr {
    let ip = Ipv6Addr::from(address);
    SocketAddr::new(ip.to_ipv4_mapped().map_or(ip.into(), Into::into), port(port_field))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn ports_and_addresses_read_as_the_table_holds_them() {
        // Port 8080 (0x1F90) in network order in the field's first two bytes of memory.
        assert_eq!(port(u32::from_ne_bytes([0x1F, 0x90, 0, 0])), 8080);
        assert_eq!(
            v4(u32::from_ne_bytes([127, 0, 0, 1]), u32::from_ne_bytes([0, 80, 0, 0])),
            "127.0.0.1:80".parse().unwrap()
        );
        let mut mapped = [0u8; 16];
        mapped[10..].copy_from_slice(&[0xff, 0xff, 127, 0, 0, 1]);
        assert_eq!(v6(mapped, u32::from_ne_bytes([0, 80, 0, 0])), "127.0.0.1:80".parse().unwrap());
    }

    /// A child that runs until its input closes: `cmd.exe` reading commands from a pipe.
    fn waiting_child() -> std::process::Child {
        std::process::Command::new("cmd.exe")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_child_is_traced_to_this_process_and_not_the_other_way() {
        let me = std::process::id();
        let mut child = waiting_child();
        assert_eq!(parent_of(child.id()), Some(me));
        assert_eq!(super::super::descends_from(child.id(), me), Some(true));
        assert_eq!(super::super::descends_from(me, child.id()), Some(false));
        let exe = executable_of(child.id()).unwrap();
        assert!(exe.to_ascii_lowercase().ends_with("cmd.exe"), "{exe}");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn the_client_side_of_a_connection_names_its_owner_and_an_unknown_owner_is_none() {
        let client: SocketAddr = "127.0.0.1:50000".parse().unwrap();
        let server: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        let rows = [(server, client.port(), 10), (client, server.port(), 42)];
        assert_eq!(owner_in(&rows, client, server.port()), Some(42));
        assert_eq!(owner_in(&rows, server, 1), None, "no such connection");
        assert_eq!(owner_in(&[(client, server.port(), 0)], client, server.port()), None, "pid 0 is not knowing");
    }

    /// On a real Windows only: Wine 8's table gives every connection the owner 0 (scripts/test-windows.sh).
    #[test]
    fn the_holder_of_a_loopback_connection_is_found() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server_port = listener.local_addr().unwrap().port();
        let client = std::net::TcpStream::connect(("127.0.0.1", server_port)).unwrap();
        let (_accepted, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert_eq!(tcp_owner(peer, server_port), Some(std::process::id()));
        // No connection from that address: nobody to name.
        assert_eq!(tcp_owner("127.0.0.1:1".parse().unwrap(), server_port), None);
    }

    #[test]
    fn this_process_runs_and_an_impossible_one_does_not() {
        assert!(super::super::runs(std::process::id()));
        assert!(!super::super::runs(u32::MAX));
        assert!(!super::super::runs(0x3fff_fff0));
    }

    #[test]
    fn a_process_that_started_after_a_file_is_not_the_one_that_wrote_it() {
        let me = std::process::id();
        assert!(runs_since(me, Some(SystemTime::now())));
        assert!(!runs_since(me, Some(SystemTime::UNIX_EPOCH + Duration::from_secs(86_400))));
        assert_eq!(filetime(SystemTime::UNIX_EPOCH), Some(116_444_736_000_000_000));
    }
}
