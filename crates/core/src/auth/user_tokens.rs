//! Access tokens for the signed-in person: the active account's refresh token (from the [`TokenStore`]) is
//! exchanged for access tokens, which live only in memory.
//!
//! - Refresh happens before expiry (a minute early, or halfway for short-lived tokens), and one at a time:
//!   the state lock is held across the refresh, so however many calls wait, Google sees one request.
//! - A 401 makes the client call [`invalidate_token`](TokenSource::invalidate_token) and retry once: the retry
//!   refreshes, once however many calls saw the same stale token.
//! - `invalid_grant` (revoked, or expired — Google expires refresh tokens of apps in testing after 7 days)
//!   switches to a signed-out state in which every call fails with words an assistant can relay. The server
//!   keeps running; the store is read again on the next call (at most once per recheck interval), so a new
//!   sign-in — in this process or by `gatehouse login` in another — is picked up without a restart. Each
//!   refresh also reads the store first, so a new active account or a new sign-in of the same one is used from
//!   the next refresh on.
//! - The refresh uses the OAuth client kept with the account (the one the refresh token was issued to), so
//!   serving needs no client settings.
//! - A sign-in is only ever sent where it was made ([`Endpoints::credential_url`]): with
//!   `GATEHOUSE_GOOGLE_ENDPOINT` set, a sign-in made with Google counts as absent here (so other methods get
//!   their turn) and its refresh token and client secret are never sent.

use std::sync::Mutex as SyncMutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::sync::Mutex;

use super::identity::{AuthMethod, IdentityClass};
use super::oauth::{self, OAuthFailure};
use super::state::{AuthSnapshot, AuthState};
use super::{Secret, StoredAccount, TokenStore};
use crate::google::Endpoints;
use crate::google::auth::{AuthError, TokenSource};
use crate::google::endpoint::CredentialRefused;

/// How often a signed-out source looks in the store for a new sign-in, by default.
pub const DEFAULT_RECHECK: Duration = Duration::from_secs(2);

struct Cached {
    token: String,
    refresh_after: Instant,
}

enum State {
    /// Nothing read yet, or [`UserTokens::reload`] asked for a fresh look.
    Unloaded,
    Active {
        account: StoredAccount,
        cached: Option<Cached>,
    },
    /// No usable sign-in. `dead` is the refresh token Google refused, so it is not tried again; `elsewhere`
    /// says why the stored sign-in belongs to another place than the one requests go to.
    SignedOut {
        dead: Option<(String, Secret)>,
        elsewhere: Option<CredentialRefused>,
        checked: Instant,
    },
}

/// The [`TokenSource`] of the signed-in person.
pub struct UserTokens {
    store: TokenStore,
    endpoints: Endpoints,
    http: reqwest::Client,
    recheck: Duration,
    state: Mutex<State>,
    /// What is known about the sign-in now: the account for the synchronous [`TokenSource::account`], and
    /// what `server://auth-status` shows.
    snapshot: SyncMutex<AuthSnapshot>,
    /// Where to report changes of [`Self::snapshot`] (the engine's auth state), once the shell connects it.
    reporter: SyncMutex<Option<AuthState>>,
}

impl UserTokens {
    /// Tokens for the store's active account, refreshed at its client's token endpoint (through `endpoints`).
    pub fn new(store: TokenStore, endpoints: Endpoints, http: reqwest::Client) -> Self {
        Self {
            store,
            endpoints,
            http,
            recheck: DEFAULT_RECHECK,
            state: Mutex::new(State::Unloaded),
            snapshot: SyncMutex::new(AuthSnapshot::signed_out()),
            reporter: SyncMutex::new(None),
        }
    }

    /// How often a signed-out source looks for a new sign-in (tests use zero).
    pub fn with_recheck_interval(mut self, interval: Duration) -> Self {
        self.recheck = interval;
        self
    }

    /// Reads the active account now: `Ok(None)` when nobody is signed in. Lets a shell decide at start whether a
    /// user sign-in exists, and fills in [`TokenSource::account`].
    pub async fn load(&self) -> Result<Option<String>, AuthError> {
        let mut state = self.state.lock().await;
        *state = State::Unloaded;
        self.ensure_loaded(&mut state).await?;
        Ok(self.current_account())
    }

    /// Reads the store again now (and reports what it found): call it after a sign-in, a sign-out or a change
    /// of active account. A store that cannot be read leaves the next call to report why.
    pub async fn reload(&self) {
        let mut state = self.state.lock().await;
        *state = State::Unloaded;
        if let Err(error) = self.ensure_loaded(&mut state).await {
            tracing::debug!("reading the sign-in again failed: {error}");
        }
    }

    /// The store this source reads.
    pub fn store(&self) -> &TokenStore {
        &self.store
    }

    /// Keeps `state` (what `server://auth-status` shows) in step with this source from now on: signed in as
    /// whom, signed out when Google refuses the sign-in, and signed in again after a new sign-in.
    pub fn report_to(&self, state: AuthState) {
        state.set(self.snapshot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone());
        *self.reporter.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(state);
    }

    fn current_account(&self) -> Option<String> {
        self.snapshot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).account.clone()
    }

    /// Records the signed-in account (`Some`) or the signed-out state (`None`, naming the account that must sign
    /// in again when there is one), and tells the reporter.
    fn set_signed_in(&self, account: Option<&StoredAccount>, signed_out: Option<&str>) {
        let snapshot = match account {
            Some(account) => AuthSnapshot {
                method: AuthMethod::OAuth,
                class: Some(IdentityClass::User),
                account: Some(account.email.clone()),
                granted_scopes: Some(account.scopes.clone()),
            },
            None => AuthSnapshot { account: signed_out.map(str::to_owned), ..AuthSnapshot::signed_out() },
        };
        *self.snapshot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = snapshot.clone();
        if let Some(reporter) = self.reporter.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).as_ref() {
            reporter.set(snapshot);
        }
    }

    /// Reads the store when nothing is loaded, or when signed out and the recheck interval has passed.
    async fn ensure_loaded(&self, state: &mut State) -> Result<(), AuthError> {
        let dead = match state {
            State::Active { .. } => return Ok(()),
            State::SignedOut { checked, .. } if checked.elapsed() < self.recheck => return Ok(()),
            State::SignedOut { dead, .. } => dead.take(),
            State::Unloaded => None,
        };
        let loaded = match self.store.active().await {
            Ok(loaded) => loaded,
            Err(error) => {
                *state = State::SignedOut { dead, elsewhere: None, checked: Instant::now() };
                return Err(AuthError::TokenStore(error.to_string()));
            }
        };
        let loaded = match loaded.map(|account| self.token_url(&account).map(|_| account)) {
            Some(Err(refused)) => {
                tracing::warn!("{refused}");
                self.set_signed_in(None, None);
                *state = State::SignedOut { dead: None, elsewhere: Some(refused), checked: Instant::now() };
                return Ok(());
            }
            Some(Ok(account)) => Some(account),
            None => None,
        };
        *state = match loaded {
            // The same refresh token Google already refused: still signed out.
            Some(account)
                if dead
                    .as_ref()
                    .is_some_and(|(email, token)| *email == account.email && *token == account.refresh_token) =>
            {
                State::SignedOut { dead, elsewhere: None, checked: Instant::now() }
            }
            Some(account) => {
                self.set_signed_in(Some(&account), None);
                State::Active { account, cached: None }
            }
            None => {
                self.set_signed_in(None, None);
                State::SignedOut { dead: None, elsewhere: None, checked: Instant::now() }
            }
        };
        Ok(())
    }

    /// Where `account`'s refresh token may be sent: only where the sign-in was made.
    fn token_url(&self, account: &StoredAccount) -> Result<String, CredentialRefused> {
        let what = format!("The Google sign-in of {}", account.email);
        self.endpoints.credential_url(&account.token_uri, account.endpoint.as_deref(), &what)
    }

    async fn refresh(&self, account: &StoredAccount, token_url: &str) -> Result<oauth::TokenAnswer, OAuthFailure> {
        oauth::refresh(
            &self.http,
            &account.client_id,
            account.client_secret.as_ref(),
            token_url,
            &account.refresh_token,
        )
        .await
    }

    async fn token_locked(&self) -> Result<String, AuthError> {
        let mut state = self.state.lock().await;
        self.ensure_loaded(&mut state).await?;
        let (account, cached) = match &mut *state {
            State::Active { account, cached } => (account, cached),
            State::SignedOut { dead: Some((email, _)), .. } => {
                return Err(AuthError::SignInAgain { account: email.clone() });
            }
            State::SignedOut { elsewhere: Some(refused), .. } => return Err(AuthError::Rerouted(refused.to_string())),
            State::SignedOut { dead: None, .. } | State::Unloaded => return Err(AuthError::NotSignedIn),
        };
        if let Some(fresh) = cached.as_ref().filter(|c| Instant::now() < c.refresh_after) {
            return Ok(fresh.token.clone());
        }
        // Once an hour or so: pick up a change of active account, or a new sign-in, made by another process.
        match self.store.active().await {
            Ok(Some(latest)) if latest != *account => {
                *account = latest;
                self.set_signed_in(Some(account), None);
            }
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "could not re-read the token store; refreshing the known account"),
        }
        // Checked at the one place the refresh token leaves: an account read again may be another one.
        let token_url = self.token_url(account).map_err(|refused| AuthError::Rerouted(refused.to_string()))?;
        match self.refresh(account, &token_url).await {
            Ok(answer) => {
                let lifetime = answer.lifetime();
                let margin = Duration::from_secs(60).min(lifetime / 2);
                let token = answer.access_token.clone();
                *cached =
                    Some(Cached { token: answer.access_token, refresh_after: Instant::now() + lifetime - margin });
                // Google may rotate the refresh token; keep the new one (best effort: the old one still works).
                if let Some(rotated) = answer.refresh_token.filter(|rt| rt != account.refresh_token.expose()) {
                    account.refresh_token = Secret::new(rotated);
                    if let Err(error) = self.store.save(account.clone()).await {
                        tracing::warn!(%error, "could not keep Google's new refresh token");
                    }
                }
                Ok(token)
            }
            Err(OAuthFailure::Refused { error, .. }) if error == "invalid_grant" => {
                let email = account.email.clone();
                tracing::warn!(account = %email, "Google refused the refresh token (invalid_grant): signed out");
                self.set_signed_in(None, Some(&email));
                *state = State::SignedOut {
                    dead: Some((email.clone(), account.refresh_token.clone())),
                    elsewhere: None,
                    checked: Instant::now(),
                };
                Err(AuthError::SignInAgain { account: email })
            }
            Err(OAuthFailure::Refused { error, description }) => Err(AuthError::Refused { error, description }),
            Err(OAuthFailure::Network(detail)) => Err(AuthError::Network(detail)),
        }
    }
}

impl TokenSource for UserTokens {
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(self.token_locked())
    }

    fn invalidate(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let State::Active { cached, .. } = &mut *self.state.lock().await {
                *cached = None;
            }
        })
    }

    fn invalidate_token<'a>(&'a self, token: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let State::Active { cached, .. } = &mut *self.state.lock().await
                && cached.as_ref().is_some_and(|c| c.token == token)
            {
                *cached = None;
            }
        })
    }

    fn account(&self) -> Option<String> {
        self.current_account()
    }

    fn reload(&self) -> BoxFuture<'_, ()> {
        Box::pin(UserTokens::reload(self))
    }
}
