//! Converting between the person's text formats (Markdown, HTML, plain text) and Google Docs structure.

mod code;
pub mod hidden;
pub mod html;
mod inline;
mod layout;
pub mod markdown;
mod render;
mod table;
pub mod to_markdown;
pub mod utf16;

#[cfg(test)]
mod roundtrip_tests;
