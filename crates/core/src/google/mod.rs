//! The Google client: hand-written `reqwest` + `serde` calls shaped exactly as Google's discovery
//! documents define them. Answer types carry `#[serde(default)]` on the whole struct: proto3 JSON leaves
//! out zero, false and empty members, so any of them may be absent.

pub mod activity;
pub mod auth;
pub mod calendar;
pub mod client;
pub mod comments;
pub mod docs;
pub mod drive;
pub mod endpoint;
pub mod error;
pub mod gmail;
pub mod mcp;
pub mod retry;
pub mod sheets;
pub mod token_cache;

pub use auth::{AuthError, TokenSource};
pub use client::{Call, GoogleClient, Reply, segment};
pub use endpoint::{Api, Endpoints};
pub use error::{ErrorKind, GoogleError};
pub use retry::{Idempotency, RetryPolicy};
