//! The approval form's `requestState`: what binds a repeated `tools/call` to the form the person answered.
//!
//! The state is sealed with rmcp's `RequestStateCodec` (HMAC-SHA256, a per-emulator random key) with
//! associated data that names the account, the server, the endpoint, the tool and a digest of the call's
//! arguments, and a ten-minute TTL: a state presented by another account, for another tool, or with other
//! arguments does not open. Its payload is a nonce the emulator keeps until the form is answered, so a state
//! is redeemed at most once (MRTR §"Server Requirements": integrity, principal, expiry, request binding, and
//! single use enforced server-side).

use std::collections::HashSet;
use std::time::Duration;

use rand::Rng;
use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::state::World;

/// How long a form may wait for its answer.
const TTL: Duration = Duration::from_secs(600);

/// The forms waiting for an answer, and the key their states are sealed with.
pub struct Store {
    key: [u8; 32],
    pending: HashSet<String>,
    /// The tool lists' changes while the emulator runs (see `changes`).
    pub changes: super::Changes,
    /// Every HTTP request each product's MCP endpoints received, refused or not (`/v1` and `/v1self`
    /// together): tests read how often a client came back to a server that refused it.
    pub http_requests: std::collections::HashMap<super::Product, usize>,
}

impl Default for Store {
    fn default() -> Self {
        Self {
            key: rand::rng().random(),
            pending: HashSet::new(),
            changes: super::Changes::default(),
            http_requests: Default::default(),
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("mcp::Store").field("pending", &self.pending.len()).finish()
    }
}

/// Why a presented `requestState` is refused, in words for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused(pub(crate) String);

impl Store {
    /// The key is 32 random bytes, `RequestStateCodec::MIN_KEY_LENGTH`, so the unchecked constructor is safe.
    fn codec(&self) -> RequestStateCodec {
        RequestStateCodec::new_unchecked(self.key.to_vec())
    }

    /// A fresh state for a form about the call `binding` describes.
    pub(crate) fn issue(&mut self, binding: &str) -> String {
        let nonce = World::new_id(32);
        self.pending.insert(nonce.clone());
        self.codec().seal_with(nonce.as_bytes(), &SealOptions::new().associated_data(binding.as_bytes()).ttl(TTL))
    }

    /// Redeems `state` for the call `binding` describes: it must have been issued for exactly that call, be
    /// unexpired, and not be redeemed before.
    pub(crate) fn redeem(&mut self, state: &str, binding: &str) -> Result<(), Refused> {
        let nonce = self.codec().open_with(state, binding.as_bytes()).map_err(|error| match error {
            RequestStateError::Expired => Refused(
                "The approval form of this call has expired: call the tool again (without requestState) to ask again."
                    .to_owned(),
            ),
            _ => Refused(
                "This requestState was not issued for this call: the tool, its arguments or the account differ from those the approval form was for. Repeat the call exactly as it was, or call again without requestState to ask again."
                    .to_owned(),
            ),
        })?;
        let nonce = String::from_utf8(nonce).unwrap_or_default();
        if !self.pending.remove(&nonce) {
            return Err(Refused(
                "This approval form was answered already: call the tool again (without requestState) to ask again."
                    .to_owned(),
            ));
        }
        Ok(())
    }
}

/// What a form is bound to: the account, the server and endpoint, the tool, and a digest of the arguments
/// (canonical JSON, so the order of object members does not matter).
pub(crate) fn binding(email: &str, server: &str, tool: &str, arguments: &Value) -> String {
    let mut canonical = String::new();
    write_canonical(arguments, &mut canonical);
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{}|{server}|{tool}|{hex}", email.to_ascii_lowercase())
}

/// JSON with object members sorted by key, recursively.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&members[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_state_opens_once_and_only_for_its_call() {
        let mut store = Store::default();
        let call =
            binding("Ada@example.com", "sheetsmcp.googleapis.com/v1", "update_values", &json!({"a": 1, "b": [2]}));
        let same =
            binding("ada@example.com", "sheetsmcp.googleapis.com/v1", "update_values", &json!({"b": [2], "a": 1}));
        assert_eq!(call, same, "member order and address case do not matter");
        let other =
            binding("ada@example.com", "sheetsmcp.googleapis.com/v1", "update_values", &json!({"a": 2, "b": [2]}));
        let state = store.issue(&call);
        assert!(store.redeem(&state, &other).is_err(), "other arguments");
        assert!(store.redeem(&format!("{state}x"), &call).is_err(), "tampered");
        assert_eq!(store.redeem(&state, &call), Ok(()));
        assert!(store.redeem(&state, &call).is_err(), "single use");
    }
}
