//! Approvals: the one decision every tool call that changes something passes through (docs/approvals.md).
//!
//! - [`model`]: the words of the rules as types;
//! - [`decide`]: the decision, rule by rule, as a pure function;
//! - [`evaluator`]: per-tool judgement of arguments (constraints, vetoes); [`fingerprint`]: a tool's definition;
//! - [`policy`]: the administrator's policy file; [`card`]: what a card offers and the strict answer parser;
//! - [`form`]: Google's approval forms as cards, and the strict reading of their answers;
//! - [`broker`]: the pending cards; [`store`]: grants, the audit log and settings in SQLite;
//! - [`rounds`]: a call to Google's MCP servers run in rounds, its forms asked on cards;
//! - [`gate`]: the orchestration the engine calls for every tool call, on a tool as it knows it ([`gated_tool`]);
//! - [`redact`]: arguments as shown and logged;
//! - [`preview`]: what a card shows of the change, read from Google before it shows;
//! - [`sentence`]: what a card says a call will do, in the person's words;
//! - [`words`]: grants, rules and audit records in plain words, for every shell.

pub mod broker;
pub mod card;
pub mod decide;
pub mod evaluator;
pub mod fingerprint;
pub mod form;
pub mod gate;
pub mod gated_tool;
pub mod model;
pub mod policy;
pub mod preview;
pub mod redact;
pub mod rounds;
pub mod sentence;
pub mod store;
pub mod words;

pub use gate::{Approvals, CallMeta, Permit};
pub use gated_tool::GatedTool;
