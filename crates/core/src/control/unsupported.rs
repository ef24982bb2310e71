//! Platforms with neither Unix sockets nor Windows named pipes: there is no control channel, so both sides
//! say so instead of failing obscurely.

use std::convert::Infallible;
use std::path::Path;
use std::sync::Arc;

use tokio::io::AsyncWrite;
use tokio_util::sync::CancellationToken;

use super::ControlError;
use super::protocol::{AssistantRevoked, NeverRemoved, Request, Response, Revoked, ServerInfo, Verification};
use crate::Engine;
use crate::approval::broker::PendingCard;
use crate::approval::card::RawAnswer;
use crate::approval::model::{Constraint, Grant};
use crate::approval::store::{Assistant, AuditQuery, AuditRecord, NeverAllow, NewAssistant};

/// Never made on this platform.
pub struct ControlHandle {
    never: Infallible,
}

impl ControlHandle {
    pub fn path(&self) -> &Path {
        match self.never {}
    }

    pub async fn shutdown(self) {
        match self.never {}
    }

    pub fn serving_http(&self, _addr: std::net::SocketAddr) {
        match self.never {}
    }
}

/// Always [`ControlError::Unsupported`] on this platform.
pub async fn serve(
    _engine: Arc<Engine>,
    _home: &Path,
    _cancel: CancellationToken,
) -> Result<ControlHandle, ControlError> {
    Err(ControlError::Unsupported)
}

/// Never made on this platform.
pub struct Client {
    never: Infallible,
}

impl Client {
    /// Always [`ControlError::Unsupported`] on this platform.
    pub async fn connect_all(_home: &Path) -> Result<Vec<Client>, ControlError> {
        Err(ControlError::Unsupported)
    }

    pub fn pid(&self) -> u32 {
        match self.never {}
    }

    pub async fn info(&mut self) -> Result<ServerInfo, ControlError> {
        match self.never {}
    }

    pub async fn pending(&mut self) -> Result<Vec<PendingCard>, ControlError> {
        match self.never {}
    }

    pub async fn answer(&mut self, _id: u64, _answer: RawAnswer) -> Result<(), ControlError> {
        match self.never {}
    }

    pub async fn grants(&mut self) -> Result<Vec<Grant>, ControlError> {
        match self.never {}
    }

    pub async fn revoke(&mut self, _id: &str) -> Result<Revoked, ControlError> {
        match self.never {}
    }

    pub async fn never_list(&mut self) -> Result<Vec<NeverAllow>, ControlError> {
        match self.never {}
    }

    pub async fn never_add(
        &mut self,
        _tool: &str,
        _agent: Option<&str>,
        _days: u32,
        _constraint: Option<Constraint>,
    ) -> Result<NeverAllow, ControlError> {
        match self.never {}
    }

    pub async fn never_remove(&mut self, _id: &str) -> Result<NeverRemoved, ControlError> {
        match self.never {}
    }

    pub async fn assistants(&mut self) -> Result<Vec<Assistant>, ControlError> {
        match self.never {}
    }

    pub async fn assistant_add(&mut self, _name: &str, _interactive: bool) -> Result<NewAssistant, ControlError> {
        match self.never {}
    }

    pub async fn assistant_revoke(&mut self, _id: &str) -> Result<AssistantRevoked, ControlError> {
        match self.never {}
    }

    pub async fn refresh(&mut self) -> Result<(), ControlError> {
        match self.never {}
    }

    pub async fn audit(&mut self, _query: &AuditQuery) -> Result<Vec<AuditRecord>, ControlError> {
        match self.never {}
    }

    pub async fn verify(&mut self) -> Result<Verification, ControlError> {
        match self.never {}
    }

    pub async fn export<W: AsyncWrite + Unpin>(&mut self, _out: &mut W) -> Result<u64, ControlError> {
        match self.never {}
    }

    pub async fn request(&mut self, _request: &Request) -> Result<Response, ControlError> {
        match self.never {}
    }

    pub async fn ask<T: super::protocol::Answer>(&mut self, _request: &Request) -> Result<T, ControlError> {
        match self.never {}
    }
}
