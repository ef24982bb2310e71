//! The one cache every token source shares: an access token kept until shortly before it expires, with
//! single-flight refresh (the lock is held across the fetch, so concurrent callers wait for one refresh and
//! then share its token).

use std::future::Future;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::sync::Mutex;

use super::auth::{AuthError, TokenSource};

struct Cached {
    token: String,
    refresh_after: Instant,
}

#[derive(Default)]
pub struct TokenCache(Mutex<Option<Cached>>);

impl TokenCache {
    /// The cached token, or a fresh one from `fetch` (which returns the token and its lifetime).
    pub(crate) async fn get<F, Fut>(&self, fetch: F) -> Result<String, AuthError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(String, Duration), AuthError>>,
    {
        let mut slot = self.0.lock().await;
        if let Some(cached) = slot.as_ref().filter(|c| Instant::now() < c.refresh_after) {
            return Ok(cached.token.clone());
        }
        let (token, lifetime) = fetch().await?;
        // Refresh a minute early (or halfway, for short-lived test tokens) so no call carries a stale token.
        let margin = Duration::from_secs(60).min(lifetime / 2);
        *slot = Some(Cached { token: token.clone(), refresh_after: Instant::now() + lifetime - margin });
        Ok(token)
    }

    pub(crate) async fn clear(&self) {
        *self.0.lock().await = None;
    }

    /// Forgets `token` unless a newer one already replaced it.
    pub(crate) async fn clear_if(&self, token: &str) {
        let mut slot = self.0.lock().await;
        if slot.as_ref().is_some_and(|cached| cached.token == token) {
            *slot = None;
        }
    }
}

/// A token source that fetches tokens one way and keeps them in a [`TokenCache`]: implementing this is
/// enough to be a [`TokenSource`], so the caching and invalidation rules stay in one place.
pub trait CachedTokens: Send + Sync {
    /// The cache the tokens live in.
    fn token_cache(&self) -> &TokenCache;
    /// A fresh token and its lifetime.
    fn fetch_token(&self) -> BoxFuture<'_, Result<(String, Duration), AuthError>>;
    /// The account the tokens act as, when known.
    fn cached_account(&self) -> Option<String>;
}

impl<T: CachedTokens> TokenSource for T {
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(self.token_cache().get(|| self.fetch_token()))
    }

    fn invalidate(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.token_cache().clear())
    }

    fn invalidate_token<'a>(&'a self, token: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(self.token_cache().clear_if(token))
    }

    fn account(&self) -> Option<String> {
        self.cached_account()
    }
}
