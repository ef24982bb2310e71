//! What a command answers when it can't do what was asked: one error type every command returns, sent to the
//! page as its plain message (a JSON string, what `invoke` rejects with), so the page shows the same words
//! whatever went wrong. Modelled on tauri-apps/plugins-workspace's `plugins/store/src/error.rs`.
//!
//! A command written with `Result<T, String>` adopts it by returning [`Result<T>`](Result): its
//! `Err(String)`s and `?`s convert as they are.

use gatehouse_core::approval::store::StoreError;
use gatehouse_core::ops::OpsError;
use gatehouse_core::settings::SettingsError;
use serde::{Serialize, Serializer};

use crate::settings::permissions::NO_STORE;

/// Why a command did not do what was asked, in words for the person.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The words are already written for the page.
    #[error("{0}")]
    Said(String),
    /// Gatehouse runs without its approvals database.
    #[error("{}", NO_STORE)]
    NoStore,
    /// The approvals database failed: the core's sentence, then what to do.
    #[error("{0} Try again; if it keeps failing, quit Gatehouse from the tray and open it again.")]
    Store(StoreError),
    /// A setting can't be read or changed as asked; the core's sentence says why.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// What a command returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<String> for Error {
    fn from(words: String) -> Self {
        Error::Said(words)
    }
}

impl From<&str> for Error {
    fn from(words: &str) -> Self {
        Error::Said(words.to_owned())
    }
}

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Self {
        tracing::warn!("the settings window could not use the approvals database: {error}");
        Error::Store(error)
    }
}

impl From<OpsError> for Error {
    fn from(error: OpsError) -> Self {
        match error {
            OpsError::NoStore => Error::NoStore,
            OpsError::Store(error) => error.into(),
        }
    }
}

impl Serialize for Error {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reaches_the_page_as_its_plain_words() {
        let said = Error::from("There is no standing approval g1.".to_owned());
        assert_eq!(serde_json::to_value(&said).unwrap(), serde_json::json!("There is no standing approval g1."));
        assert_eq!(serde_json::to_value(Error::NoStore).unwrap(), serde_json::json!(NO_STORE));
    }
}
