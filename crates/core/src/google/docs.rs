//! Placeholder: filled in by the docs tools.
