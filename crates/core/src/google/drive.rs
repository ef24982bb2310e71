//! Placeholder: filled in by the drive tools.
