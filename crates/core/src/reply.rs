//! What a finished call returns to the assistant, whichever way it ended: the engine's answer, kept by the
//! re-send memory ([`crate::resend`]) and carried over the control socket by a relay.

use crate::catalog::Passed;

/// A finished call: the text to return, and whether it reports a failure.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
    /// For a result carrying other people's content, [`crate::screening`]'s note, which follows the text.
    pub notice: Option<String>,
    /// What one of Google's tools offered as it is gave besides its text ([`Passed`]: `structuredContent`,
    /// resource links), for the MCP clients that take them.
    pub google: Option<Box<Passed>>,
}

impl Reply {
    /// A failure or refusal, in words for the assistant.
    pub fn error(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), is_error: true, ..Reply::default() }
    }
}
