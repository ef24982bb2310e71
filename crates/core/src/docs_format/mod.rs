//! Converting between the person's text formats (Markdown, plain text) and Google Docs structure.

mod inline;
pub mod markdown;
mod render;
pub mod to_markdown;
pub mod utf16;

#[cfg(test)]
mod roundtrip_tests;
