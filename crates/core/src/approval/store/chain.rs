//! The audit chain's arithmetic: each record's hash covers its position, the previous record's hash and its
//! entry, so changing, removing or moving any record breaks the chain from there on.
//!
//! The hashed bytes are spelled out here rather than left to `Serialize` on the model types, so that a new
//! field, a renamed variant or a serde upgrade can never silently change the hash of records already written.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::approval::model::{AnswerChannel, AuditEntry, CallOutcome, Verdict};

/// The `prev_hash` of record 1.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hashed form of a record: one JSON object whose fields are always in this order.
#[derive(Serialize)]
struct Canonical<'a> {
    seq: i64,
    prev_hash: &'a str,
    time: String,
    agent: Option<&'a str>,
    /// Written only when set, so the records written before it existed keep their hashes.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    agent_self_reported: bool,
    tool: &'a str,
    arguments: Value,
    target: Option<&'a str>,
    verdict: &'static str,
    source: String,
    outcome: &'static str,
    outcome_detail: Option<&'a str>,
    duration_ms: u64,
    /// Left out when unset, so records from before the column hash as they always did.
    #[serde(skip_serializing_if = "Option::is_none")]
    answered_via: Option<String>,
}

/// SHA-256, as 64 lowercase hex digits, of the canonical JSON of (`seq`, `prev_hash`, `entry`).
pub fn record_hash(seq: i64, prev_hash: &str, entry: &AuditEntry) -> Result<String, serde_json::Error> {
    let (outcome, outcome_detail) = outcome_columns(&entry.outcome);
    let canonical = Canonical {
        seq,
        prev_hash,
        time: time_text(&entry.time),
        agent: entry.agent.as_ref().map(|agent| agent.name.as_str()),
        agent_self_reported: entry.agent.as_ref().is_some_and(|agent| agent.self_reported),
        tool: &entry.tool,
        arguments: canonical_value(&entry.arguments),
        target: entry.target.as_deref(),
        verdict: verdict_text(entry.verdict),
        source: entry.source.to_string(),
        outcome,
        outcome_detail,
        duration_ms: entry.duration_ms,
        answered_via: entry.answered_via.as_ref().map(AnswerChannel::to_column),
    };
    let mut hasher = HashWriter(Sha256::new());
    serde_json::to_writer(&mut hasher, &canonical)?;
    Ok(hasher.0.finalize().iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The arguments with every object's keys in byte order, at every depth, so the same arguments always
/// serialize to the same text (the workspace's `serde_json` keeps insertion order).
pub fn canonical_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(entries.into_iter().map(|(key, value)| (key.clone(), canonical_value(value))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_value).collect()),
        other => other.clone(),
    }
}

/// A time as stored and hashed: UTC, nine fractional digits, so text order is time order and the exact
/// instant survives the round trip.
pub fn time_text(time: &DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

pub fn parse_time(text: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    DateTime::parse_from_rfc3339(text).map(|time| time.with_timezone(&Utc))
}

pub fn verdict_text(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allowed => "allowed",
        Verdict::Denied => "denied",
    }
}

pub fn parse_verdict(text: &str) -> Option<Verdict> {
    match text {
        "allowed" => Some(Verdict::Allowed),
        "denied" => Some(Verdict::Denied),
        _ => None,
    }
}

/// The outcome as its kind and, for an error, the message.
pub fn outcome_columns(outcome: &CallOutcome) -> (&'static str, Option<&str>) {
    match outcome {
        CallOutcome::Ok => ("ok", None),
        CallOutcome::Error(message) => ("error", Some(message)),
        CallOutcome::Refused => ("refused", None),
        CallOutcome::Pending => ("pending", None),
        CallOutcome::Interrupted => ("interrupted", None),
    }
}

pub fn parse_outcome(kind: &str, detail: Option<String>) -> Option<CallOutcome> {
    match (kind, detail) {
        ("ok", None) => Some(CallOutcome::Ok),
        ("error", Some(message)) => Some(CallOutcome::Error(message)),
        ("refused", None) => Some(CallOutcome::Refused),
        ("pending", None) => Some(CallOutcome::Pending),
        ("interrupted", None) => Some(CallOutcome::Interrupted),
        _ => None,
    }
}

/// Feeds serialized bytes straight into the hash, so no copy of the record is built.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;
    use crate::approval::model::DecisionSource;

    fn entry(arguments: Value) -> AuditEntry {
        AuditEntry {
            time: Utc.timestamp_opt(1_800_000_000, 123_456_789).unwrap(),
            agent: Some(crate::approval::model::Agent::registered("claude")),
            tool: "update_cells".into(),
            arguments,
            target: Some("Budget".into()),
            verdict: Verdict::Allowed,
            source: DecisionSource::Grant("g1".into()),
            outcome: CallOutcome::Ok,
            duration_ms: 12,
            answered_via: None,
        }
    }

    #[test]
    fn key_order_does_not_change_the_hash_but_any_value_does() {
        let a = entry(json!({"b": 1, "a": {"y": [1, {"q": 1, "p": 2}], "x": null}}));
        let b = entry(json!({"a": {"x": null, "y": [1, {"p": 2, "q": 1}]}, "b": 1}));
        let hash = record_hash(1, GENESIS, &a).unwrap();
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, record_hash(1, GENESIS, &b).unwrap());
        assert_ne!(hash, record_hash(2, GENESIS, &a).unwrap());
        assert_ne!(hash, record_hash(1, &"1".repeat(64), &a).unwrap());
        assert_ne!(hash, record_hash(1, GENESIS, &entry(json!({"b": 2, "a": {}}))).unwrap());
        let mut refused = a.clone();
        refused.outcome = CallOutcome::Refused;
        assert_ne!(hash, record_hash(1, GENESIS, &refused).unwrap());
        let mut says_it_is = a.clone();
        says_it_is.agent = Some(crate::approval::model::Agent::self_reported("claude"));
        assert_ne!(hash, record_hash(1, GENESIS, &says_it_is).unwrap(), "who the agent is is part of the record");
        let mut on_terminal = a.clone();
        on_terminal.answered_via = Some(AnswerChannel::Terminal { pid: Some(7), exe: None });
        assert_ne!(hash, record_hash(1, GENESIS, &on_terminal).unwrap(), "the answer's channel is covered");
    }

    #[test]
    fn the_hash_of_a_known_record_never_changes() {
        // Pinned: if this changes, every audit log already written would stop verifying.
        let canonical = r#"{"seq":1,"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","time":"2027-01-15T08:00:00.123456789Z","agent":"claude","tool":"update_cells","arguments":{"a":1,"b":[true]},"target":"Budget","verdict":"allowed","source":"grant:g1","outcome":"ok","outcome_detail":null,"duration_ms":12}"#;
        let expected: String = Sha256::digest(canonical.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(record_hash(1, GENESIS, &entry(json!({"b": [true], "a": 1}))).unwrap(), expected);
    }

    #[test]
    fn columns_round_trip() {
        let time = Utc.timestamp_opt(1_800_000_000, 5).unwrap();
        assert_eq!(parse_time(&time_text(&time)).unwrap(), time);
        for outcome in [
            CallOutcome::Ok,
            CallOutcome::Refused,
            CallOutcome::Error("quota".into()),
            CallOutcome::Pending,
            CallOutcome::Interrupted,
        ] {
            let (kind, detail) = outcome_columns(&outcome);
            assert_eq!(parse_outcome(kind, detail.map(str::to_owned)), Some(outcome.clone()));
        }
        assert_eq!(parse_outcome("ok", Some("x".into())), None);
        assert_eq!(parse_verdict(verdict_text(Verdict::Denied)), Some(Verdict::Denied));
        assert_eq!(parse_verdict("maybe"), None);
    }
}
