//! Which process is at the other end, and whose child it is: what lets the host refuse a card's answer that
//! comes from the assistant the card is about (or a shell it started). Coding assistants run shell commands
//! as the person, so the OS user alone can't tell the person from the assistant; the process tree can, as
//! long as the assistant does not hand its commands to an unrelated process (see docs/security.md).
//!
//! Linux reads `/proc`; Windows asks the OS ([`windows`]: a process snapshot, the TCP table with owning pids).
//! On macOS nothing here can tell yet (each function answers `None`), and the callers say what that means for
//! them.

use std::net::SocketAddr;

#[cfg(windows)]
mod windows;

#[cfg(windows)]
pub(crate) use windows::runs_since;

/// Whether process `pid` still runs (one of another user counts: it runs, whatever it is). Where that can't be
/// known, it is taken to run: what depends on it (recording a crashed process's calls as interrupted, removing
/// a dead server's control socket) then waits, never guesses.
pub fn runs(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return false };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            Err(errno) => errno == rustix::io::Errno::PERM,
        }
    }
    #[cfg(windows)]
    {
        windows::runs_since(pid, None)
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = pid;
        true
    }
}

/// Where a call comes from, as the transport knows it; [`Origin::pid`] finds the assistant's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The assistant's process itself.
    Pid(u32),
    /// An MCP-over-HTTP connection from `peer` to this server's port `server_port`: the assistant is the
    /// process holding the connection's socket.
    Tcp { peer: SocketAddr, server_port: u16 },
}

impl Origin {
    /// The assistant of a stdio connection: the process that started this `gatehouse serve`.
    pub fn parent_of_this_process() -> Option<Origin> {
        #[cfg(unix)]
        {
            Origin::starter(std::os::unix::process::parent_id())
        }
        #[cfg(windows)]
        {
            parent_of(std::process::id()).and_then(Origin::starter)
        }
        #[cfg(not(any(unix, windows)))]
        {
            None
        }
    }

    /// The assistant of a relaying `gatehouse serve` whose process is `relay` (the control socket's peer):
    /// the relay's parent, read by the host from the OS, never from what the relay says.
    pub fn parent_of_relay(relay: u32) -> Option<Origin> {
        parent_of(relay).and_then(Origin::starter)
    }

    /// `parent`, the process that started a `gatehouse serve`, as the assistant. Parent 1 (or 0) means the
    /// assistant is gone and the serve was adopted: nothing to name (every process descends from 1, so
    /// naming it would refuse every answer).
    fn starter(parent: u32) -> Option<Origin> {
        (parent > 1).then_some(Origin::Pid(parent))
    }

    /// The assistant's process id, when it can be found.
    pub fn pid(&self) -> Option<u32> {
        match *self {
            Origin::Pid(pid) => Some(pid),
            Origin::Tcp { peer, server_port } => tcp_owner(peer, server_port),
        }
    }
}

/// The parent of process `pid`, from the OS.
pub fn parent_of(pid: u32) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parent_in_stat(&stat)
    }
    #[cfg(windows)]
    {
        windows::parent_of(pid)
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = pid;
        None
    }
}

/// The parent pid in the text of a `/proc/<pid>/stat`: `pid (comm) state ppid …`. The command name is the
/// process's own choice (`prctl`, or the name of the file it runs) and may hold spaces, parentheses and
/// newlines, so the fields are read after the *last* `)`, which the kernel writes right after it.
#[cfg(any(target_os = "linux", test))]
fn parent_in_stat(stat: &str) -> Option<u32> {
    let after = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = after.split_ascii_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

/// Whether `pid` is `ancestor` or one of its descendants; `None` when the OS does not say (macOS, or a
/// process on the way vanished).
pub fn descends_from(pid: u32, ancestor: u32) -> Option<bool> {
    let mut current = pid;
    // A process tree is far shallower than this; the bound only guards against a loop in what was read.
    for _ in 0..4096 {
        if current == ancestor {
            return Some(true);
        }
        if current <= 1 {
            return Some(false);
        }
        current = parent_of(current)?;
    }
    Some(false)
}

/// The executable of process `pid`, when the OS says.
pub fn executable_of(pid: u32) -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_link(format!("/proc/{pid}/exe")).ok().map(|path| path.display().to_string())
    }
    #[cfg(windows)]
    {
        windows::executable_of(pid)
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = pid;
        None
    }
}

/// The process holding the client end of the TCP connection from `peer` to this machine's `server_port`
/// (the HTTP server listens on loopback only, so the client is on this machine too).
pub fn tcp_owner(peer: SocketAddr, server_port: u16) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
            .iter()
            .filter_map(|table| std::fs::read_to_string(table).ok())
            .find_map(|table| socket_inode(&table, peer, server_port))?;
        socket_holder(inode)
    }
    #[cfg(windows)]
    {
        windows::tcp_owner(peer, server_port)
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = (peer, server_port);
        None
    }
}

/// The inode of the socket whose local address is `peer` and whose remote port is `server_port`, in a
/// `/proc/net/tcp` table (the client's side of the connection, as the client sees it).
#[cfg(any(target_os = "linux", test))]
fn socket_inode(table: &str, peer: SocketAddr, server_port: u16) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (from, to, inode) = (fields.get(1)?, fields.get(2)?, fields.get(9)?);
        (proc_address(from)? == peer && proc_address(to)?.port() == server_port).then(|| inode.parse().ok()).flatten()
    })
}

/// An address as `/proc/net/tcp{,6}` writes it: the IP as hex words in host byte order, `:`, the port in hex.
#[cfg(any(target_os = "linux", test))]
fn proc_address(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Vec<u32> = (0..ip.len() / 8)
        .map(|i| ip.get(i * 8..i * 8 + 8).and_then(|word| u32::from_str_radix(word, 16).ok()))
        .collect::<Option<_>>()?;
    let ip: std::net::IpAddr = match words.as_slice() {
        [word] => std::net::Ipv4Addr::from(word.to_ne_bytes()).into(),
        [a, b, c, d] => {
            let mut bytes = [0u8; 16];
            for (chunk, word) in bytes.chunks_mut(4).zip([a, b, c, d]) {
                chunk.copy_from_slice(&word.to_ne_bytes());
            }
            let v6 = std::net::Ipv6Addr::from(bytes);
            // A v4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
            v6.to_ipv4_mapped().map_or(v6.into(), Into::into)
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The process with an open descriptor on socket `inode` (the first found; this OS user's processes only,
/// as `/proc` shows no others' descriptors).
#[cfg(target_os = "linux")]
fn socket_holder(inode: u64) -> Option<u32> {
    let wanted = format!("socket:[{inode}]");
    let me = std::process::id();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        if pid == me {
            return None;
        }
        let fds = std::fs::read_dir(entry.path().join("fd")).ok()?;
        fds.flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.as_os_str() == wanted.as_str()))
            .then_some(pid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_is_read_whatever_the_command_name_holds() {
        assert_eq!(parent_in_stat("4242 (bash) S 77 4242 4242 0 -1 4194560 1 0"), Some(77));
        // A name written to look like other fields: only what follows the last `)` counts.
        assert_eq!(parent_in_stat("4242 (x) S 1 1 (y) R 99) S 77 4242 4242 0 -1"), Some(77));
        assert_eq!(parent_in_stat("4242 (two words\nand a line) S 77 1 1"), Some(77));
        assert_eq!(parent_in_stat("4242 (cut short) S"), None);
        assert_eq!(parent_in_stat("4242 no name S 77"), None);
        assert_eq!(parent_in_stat("4242 (x) S -5 1"), None);
    }

    #[test]
    fn proc_addresses_read_as_the_kernel_writes_them() {
        assert_eq!(proc_address("0100007F:1F90"), Some("127.0.0.1:8080".parse().unwrap()));
        assert_eq!(proc_address("00000000000000000000000001000000:0050"), Some("[::1]:80".parse().unwrap()));
        assert_eq!(proc_address("0000000000000000FFFF00000100007F:0050"), Some("127.0.0.1:80".parse().unwrap()));
        assert_eq!(proc_address("zz:1"), None);
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0 20 4 30 10 -1\n";
        let peer: SocketAddr = "127.0.0.1:54321".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!(socket_inode(table, peer, local.port()), Some(424242));
        assert_eq!(socket_inode(table, local, peer.port()), None, "the server's own side is not the client's");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_descends_from_its_parent_and_not_from_a_child() {
        let me = std::process::id();
        let parent = parent_of(me).unwrap();
        assert_eq!(descends_from(me, parent), Some(true));
        assert_eq!(descends_from(me, me), Some(true));
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        assert_eq!(descends_from(me, child.id()), Some(false));
        assert_eq!(descends_from(child.id(), me), Some(true));
        assert!(executable_of(child.id()).unwrap().ends_with("sleep"));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_named_to_look_like_init_s_is_still_traced_to_its_parent() {
        // The kernel names a process after the file it runs: a link whose name mimics the stat fields
        // ("… S 1 …", as though its parent were init) must not cut the walk short.
        let dir = tempfile::tempdir().unwrap();
        let sleep = which_sleep();
        let disguised = dir.path().join("x) S 1 1 (y");
        std::os::unix::fs::symlink(&sleep, &disguised).unwrap();
        let mut child = std::process::Command::new(&disguised).arg("5").spawn().unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        assert!(stat.contains("(x) S 1 1 (y)"), "the name is as planted: {stat}");
        assert_eq!(parent_of(child.id()), Some(std::process::id()));
        assert_eq!(descends_from(child.id(), std::process::id()), Some(true));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[cfg(target_os = "linux")]
    fn which_sleep() -> std::path::PathBuf {
        ["/usr/bin/sleep", "/bin/sleep"].iter().map(std::path::PathBuf::from).find(|path| path.exists()).unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_holder_of_a_loopback_connection_is_found() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        // The client end is held by a child (this process is skipped as the server's own).
        let mut child = std::process::Command::new("python3")
            .args([
                "-c",
                &format!(
                    "import socket,time; s=socket.create_connection(('127.0.0.1',{})); time.sleep(10)",
                    local.port()
                ),
            ])
            .spawn()
            .unwrap();
        let (_stream, peer) = listener.accept().unwrap();
        assert_eq!(tcp_owner(peer, local.port()), Some(child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn this_process_runs_and_an_impossible_one_does_not() {
        assert!(runs(std::process::id()));
        assert!(!runs(u32::MAX));
        assert!(!runs(0x3fff_fff0));
    }
}
