//! Approvals: the one decision every tool call that changes something passes through (APPROVALS.md).

pub mod model;
