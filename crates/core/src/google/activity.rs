//! Placeholder: filled in by the activity tools.
