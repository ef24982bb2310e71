//! What can go wrong with the approvals database, said so the person knows which file and what to do.

use std::path::Path;

/// A failure of the approvals store. The decision treats every one of these as "no grant applies".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error(
        "The approvals database at {path} could not be opened: {detail}. Check the folder's permissions, or move GATEHOUSE_HOME."
    )]
    Open { path: String, detail: String },

    #[error(
        "The approvals database at {path} could not be brought up to date: {detail}. If it was made by a newer Gatehouse, update Gatehouse; otherwise move the file aside and restart to begin a new one."
    )]
    Migrate { path: String, detail: String },

    #[error(
        "The approvals database at {path} could not {action}: {detail}. Check the disk has space and the file is writable; if this keeps happening, move the file aside and restart Gatehouse."
    )]
    Query { path: String, action: &'static str, detail: String },

    #[error(
        "The approvals database at {path} holds {what} that Gatehouse cannot read: {detail}. The file was changed outside Gatehouse; run `gatehouse audit verify`, or move the file aside and restart."
    )]
    Unreadable { path: String, what: String, detail: String },

    #[error(
        "The grant {id} was not saved in the approvals database at {path}: {reason}. Standing approvals are made on an approval card; the administrator's come from the policy file."
    )]
    RefusedGrant { path: String, id: String, reason: String },

    #[error("A grant with id {id} is already in the approvals database at {path}: make the new grant with a new id.")]
    DuplicateGrant { path: String, id: String },

    #[error(
        "A never-allow rule with id {id} is already in the approvals database at {path}: make the new rule with a new id."
    )]
    DuplicateNeverAllow { path: String, id: String },

    #[error(
        "An assistant named {name:?} is already registered in the approvals database at {path}. Calls are told apart by the assistant's name, so pick another name, or revoke that assistant first."
    )]
    DuplicateAssistant { path: String, name: String },

    #[error(
        "{name:?} can't be an assistant's name: {reason}. Use a short name such as claude-desktop or nightly-report."
    )]
    AssistantName { name: String, reason: &'static str },

    #[error("The audit log could not be exported: {detail}. Check the destination can be written to and has space.")]
    Export { detail: String },

    #[error(
        "The approvals store stopped in the middle of a write to {path}: {detail}. The write may not have been saved; restart Gatehouse."
    )]
    Interrupted { path: String, detail: String },
}

impl StoreError {
    pub(super) fn query(path: &Path, action: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
        let path = path.display().to_string();
        move |e| StoreError::Query { path, action, detail: e.to_string() }
    }

    pub(super) fn unreadable(path: &Path, what: String, detail: impl ToString) -> StoreError {
        StoreError::Unreadable { path: path.display().to_string(), what, detail: detail.to_string() }
    }
}
