//! The sign-in state the server reports (`server://auth-status`), with change notification.
//!
//! The shell sets it when it resolves a credential; a token source that falls into the signed-out state (or
//! recovers from it) sets it again. MCP subscribers of `server://auth-status` hear about every change.

use tokio::sync::watch;

use super::identity::{AuthMethod, IdentityClass};

/// What is known about the sign-in right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSnapshot {
    pub method: AuthMethod,
    /// The identity class of the credential actually resolved (`None` when signed out or not yet known).
    pub class: Option<IdentityClass>,
    pub account: Option<String>,
    /// The OAuth scopes granted, when known.
    pub granted_scopes: Option<Vec<String>>,
}

impl AuthSnapshot {
    /// No credential.
    pub fn signed_out() -> Self {
        Self { method: AuthMethod::None, class: None, account: None, granted_scopes: None }
    }
}

/// Shared handle on the current [`AuthSnapshot`]; cheap to clone.
#[derive(Debug, Clone)]
pub struct AuthState {
    sender: std::sync::Arc<watch::Sender<AuthSnapshot>>,
}

impl AuthState {
    pub fn new(snapshot: AuthSnapshot) -> Self {
        Self { sender: std::sync::Arc::new(watch::Sender::new(snapshot)) }
    }

    /// The current state.
    pub fn current(&self) -> AuthSnapshot {
        self.sender.borrow().clone()
    }

    /// Replaces the state; subscribers are told only when it actually changed.
    pub fn set(&self, snapshot: AuthSnapshot) {
        self.sender.send_if_modified(|current| {
            let changed = *current != snapshot;
            *current = snapshot;
            changed
        });
    }

    /// A receiver that wakes on every change.
    pub fn subscribe(&self) -> watch::Receiver<AuthSnapshot> {
        self.sender.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn subscribers_hear_changes_but_not_repeats() {
        let state = AuthState::new(AuthSnapshot::signed_out());
        let mut changes = state.subscribe();
        state.set(AuthSnapshot::signed_out());
        assert!(!changes.has_changed().unwrap());
        let user = AuthSnapshot {
            method: AuthMethod::OAuth,
            class: Some(IdentityClass::User),
            account: Some("ada@example.com".into()),
            granted_scopes: None,
        };
        state.set(user.clone());
        changes.changed().await.unwrap();
        assert_eq!(*changes.borrow_and_update(), user);
        assert_eq!(state.current(), user);
    }
}
