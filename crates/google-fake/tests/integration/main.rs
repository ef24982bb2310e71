//! The emulator's tests, as one test program: each file here is a module, as it would be its own program
//! under `tests/`. One program links the emulator once instead of once per file.
//!
//! Run one file's tests with its module name: `cargo test -p google-fake --test integration sheets::`.

mod common;

mod activity;
mod calendar;
mod discovery;
mod docs;
mod drive;
mod drive_revisions;
mod gmail;
mod mcp;
mod oauth;
mod scopes;
mod sheets;
mod slides;
