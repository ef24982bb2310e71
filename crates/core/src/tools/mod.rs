//! The tools: declared once each ([`registry`]), grouped by Google product.

pub mod catalogue_doc;
pub mod context;
pub mod docs;
pub mod drive;
pub mod error;
pub mod registry;
pub mod sheets;

pub use context::ToolContext;
pub use error::ToolError;
pub use registry::{Access, Cap, Output, Service, ToolDef, ToolMeta, all_tools};
