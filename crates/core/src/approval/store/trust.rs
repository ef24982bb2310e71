//! Which grant rows of the database the store honours. The database is a file of this OS user, so any of
//! their programs can write to it (an assistant's shell with `sqlite3`, say): a row is a claim, not a fact.
//! The rules here are the one place that decides which claims count; every way a grant reaches the index
//! (opening, [`Store::sync_index`](super::Store::sync_index), [`Store::insert_grant`](super::Store::insert_grant))
//! goes through [`refusal`], and a row it refuses is left out, logged once and reported by
//! `gatehouse grants`, `gatehouse status` and `gatehouse audit verify`.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::seal::Seal;
use crate::approval::model::{Grant, Owner};
use crate::approval::words::one_line;

/// A grant row the store holds but does not honour, and why, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoredGrant {
    pub id: String,
    pub tool: String,
    /// Why it is ignored ("it claims to come from the administrator's policy file…").
    pub reason: String,
}

impl std::fmt::Display for IgnoredGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The id and tool are the row's own text, which anything could have written.
        let (id, tool) = (one_line(&self.id, 40), one_line(&self.tool, 64));
        write!(f, "The grant {id} for {tool} in the approvals database is ignored: {}.", self.reason)
    }
}

/// Why the store must not honour `grant` (a row it read, or one it is asked to write), or `None` when it
/// may. `max_days` is the policy's longest grant; `seal` what the row's seal says (see `seal`; a grant about
/// to be written is [`Seal::Verified`] when there is a key to seal it with).
///
/// - A platform grant comes only from the administrator's policy file, which the engine reads itself
///   ([`Policy::platform_grants`](crate::approval::policy::Policy::platform_grants)); the database never
///   holds one, so a `platform` row was put there by something else.
/// - A grant lasts at most `max_days` from its creation, as the card offers; a longer one was not made on a
///   card. A creation time in the future counts as now, or claiming one would stretch the limit.
/// - A row whose seal is missing or wrong was not written by Gatehouse with this person's key; one that
///   can't be checked (no keychain) is not honoured either: fail closed.
pub fn refusal(grant: &Grant, max_days: u32, seal: &Seal, now: DateTime<Utc>) -> Option<String> {
    if grant.owner == Owner::Platform {
        return Some(
            "it claims to come from the administrator's policy file, but such grants are read from the policy file only, never from the database, so something other than Gatehouse wrote it into the file".to_owned(),
        );
    }
    // A grant that never ends never applies either: that is the decision's rule (`decide`, tested by
    // `approval_rules::a_grant_without_expiry_never_applies`), kept there alone.
    if let Some(expires) = grant.expires {
        let longest = TimeDelta::days(i64::from(max_days));
        let from = grant.created.min(now);
        if expires - from > longest {
            let days = (expires - from).num_days();
            return Some(format!(
                "it lasts {days} days, longer than the {max_days} days the policy allows: no card offers that, so something other than Gatehouse wrote it into the file, or the administrator lowered max_days since it was made"
            ));
        }
    }
    seal.problem()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn grant(owner: Owner, days: i64) -> Grant {
        let created = Utc.timestamp_opt(1_800_000_000, 0).unwrap();
        Grant {
            id: "g".into(),
            owner,
            tool: "update_cells".into(),
            agent: None,
            constraint: None,
            target_name: None,
            unattended: false,
            created,
            expires: Some(created + TimeDelta::days(days)),
            revoked: None,
            last_used: None,
            use_count: 0,
            fingerprint: "f".into(),
        }
    }

    #[test]
    fn platform_rows_long_rows_future_rows_and_unsealed_rows_are_refused() {
        let now = Utc.timestamp_opt(1_800_000_100, 0).unwrap();
        let user = || Owner::User("ada@example.com".into());
        let ok = Seal::Verified;
        assert_eq!(refusal(&grant(user(), 90), 90, &ok, now), None, "a card's longest grant is honoured");
        assert!(refusal(&grant(Owner::Platform, 1), 90, &ok, now).unwrap().contains("policy file"));
        assert!(refusal(&grant(user(), 91), 90, &ok, now).unwrap().contains("91 days"));
        assert!(refusal(&grant(user(), 1), 90, &Seal::Wrong, now).unwrap().contains("seal is missing or wrong"));
        let unchecked = Seal::Unchecked("the keychain is locked".into());
        assert!(refusal(&grant(user(), 1), 90, &unchecked, now).unwrap().contains("the keychain is locked"));
        // Made "in the future" to stretch the limit: counted from now.
        let mut future = grant(user(), 30);
        future.created = now + TimeDelta::days(365);
        future.expires = Some(future.created + TimeDelta::days(30));
        assert!(refusal(&future, 90, &ok, now).unwrap().contains("395 days"));
    }
}
