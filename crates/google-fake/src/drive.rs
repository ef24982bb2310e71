//! Placeholder until the drive emulator lands.

use axum::Router;

use crate::Shared;

#[derive(Debug, Default)]
pub struct Store {}

pub fn routes() -> Router<Shared> {
    Router::new()
}
