//! Management operations, each written once: every front door (the control socket that `gatehouse` commands
//! reach, the desktop app's pages) calls the function here, so no two of them can do an operation
//! differently. The layer sits above the engine and below the transports (issue 16).

pub mod never;
