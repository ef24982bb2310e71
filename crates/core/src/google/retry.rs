//! The one retry policy for every Google call.
//!
//! Reads are retried on rate limits (429, or a 403 whose reason is `rateLimitExceeded` or
//! `userRateLimitExceeded`, as Drive and Calendar answer them), 408 and 5xx-unavailable answers and on network
//! failures, with exponential backoff and full jitter, honouring `Retry-After`, bounded in attempts and in
//! total time. Writes are retried only on rate limits and 408: Google guarantees a rate-limited request had no
//! effect, and a 408 request was never received whole, while a 5xx write may have happened. Every other 4xx
//! (a bad argument, a missing file, a refused permission, a daily quota) is answered at once: no retry can
//! fix it.

use std::time::Duration;

use rand::Rng;

/// Whether repeating a request could change anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idempotency {
    /// A read, or a write Google treats as idempotent: safe to repeat.
    Read,
    /// A write: repeated only when Google guarantees the first attempt had no effect.
    Write,
}

/// Backoff parameters. [`RetryPolicy::default`] is what production uses.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// No retry starts after this much time has passed since the first attempt.
    pub total_budget: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(16),
            total_budget: Duration::from_secs(60),
        }
    }
}

/// What the last attempt ended with, as far as retrying is concerned.
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    /// Google answered with this HTTP status.
    Status(u16),
    /// Google answered that the caller goes too fast, with a status other than 429 (a 403 with a rate-limit
    /// reason: see [`super::error::ApiError::is_short_rate_limit`]).
    RateLimited,
    /// The request never got an answer (connection refused, reset, timed out).
    Network,
}

impl RetryPolicy {
    /// Whether this outcome may be retried for a request of this idempotency.
    pub fn is_retryable(outcome: Outcome, idempotency: Idempotency) -> bool {
        matches!(
            (outcome, idempotency),
            (Outcome::Status(408 | 429) | Outcome::RateLimited, _)
                | (Outcome::Status(500 | 502 | 503 | 504) | Outcome::Network, Idempotency::Read)
        )
    }

    /// How long to wait before attempt `attempt + 1` (attempt counts from 1), or `None` to give up.
    /// `elapsed` is the time since the first attempt started.
    pub fn next_delay(&self, attempt: u32, elapsed: Duration, retry_after: Option<Duration>) -> Option<Duration> {
        if attempt >= self.max_attempts {
            return None;
        }
        let delay = match retry_after {
            Some(wait) => wait.min(self.max_delay),
            None => {
                let ceiling = self.base_delay.saturating_mul(1u32 << (attempt - 1).min(16)).min(self.max_delay);
                // Full jitter: spreads retries of many clients across the window.
                let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
                Duration::from_millis(rand::rng().random_range(millis / 2..=millis.max(1)))
            }
        };
        (elapsed + delay <= self.total_budget).then_some(delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_retry_on_unavailable_but_writes_do_not() {
        for status in [500, 502, 503, 504] {
            assert!(RetryPolicy::is_retryable(Outcome::Status(status), Idempotency::Read));
            assert!(!RetryPolicy::is_retryable(Outcome::Status(status), Idempotency::Write));
        }
        assert!(!RetryPolicy::is_retryable(Outcome::Network, Idempotency::Write));
    }

    #[test]
    fn rate_limits_retry_for_both() {
        assert!(RetryPolicy::is_retryable(Outcome::Status(429), Idempotency::Read));
        assert!(RetryPolicy::is_retryable(Outcome::Status(429), Idempotency::Write));
        assert!(!RetryPolicy::is_retryable(Outcome::Status(404), Idempotency::Read));
        assert!(!RetryPolicy::is_retryable(Outcome::Status(400), Idempotency::Read));
    }

    #[test]
    fn short_rate_limits_and_408_retry_for_both_and_no_other_4xx_does() {
        for idempotency in [Idempotency::Read, Idempotency::Write] {
            assert!(RetryPolicy::is_retryable(Outcome::RateLimited, idempotency));
            assert!(RetryPolicy::is_retryable(Outcome::Status(408), idempotency));
            for status in [400, 401, 403, 404, 409, 410, 412, 413, 414, 422] {
                assert!(!RetryPolicy::is_retryable(Outcome::Status(status), idempotency), "{status}");
            }
        }
    }

    #[test]
    fn attempts_are_bounded() {
        let policy = RetryPolicy::default();
        assert!(policy.next_delay(1, Duration::ZERO, None).is_some());
        assert!(policy.next_delay(policy.max_attempts, Duration::ZERO, None).is_none());
    }

    #[test]
    fn total_time_is_bounded() {
        let policy = RetryPolicy::default();
        assert!(policy.next_delay(1, policy.total_budget, Some(Duration::from_secs(1))).is_none());
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.next_delay(1, Duration::ZERO, Some(Duration::from_secs(3))), Some(Duration::from_secs(3)));
        assert_eq!(policy.next_delay(1, Duration::ZERO, Some(Duration::from_secs(600))), Some(policy.max_delay));
    }

    #[test]
    fn backoff_grows_within_jitter_bounds() {
        let policy = RetryPolicy::default();
        for attempt in 1..policy.max_attempts {
            let delay = policy.next_delay(attempt, Duration::ZERO, None).unwrap();
            let ceiling = policy.base_delay.saturating_mul(1 << (attempt - 1)).min(policy.max_delay);
            assert!(delay <= ceiling && delay >= ceiling / 2, "attempt {attempt}: {delay:?} vs {ceiling:?}");
        }
    }
}
