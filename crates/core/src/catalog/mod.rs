//! What every tool is, before anything runs it: its product and OAuth scope, the static part of its
//! declaration ([`ToolMeta`]), the scopes a set of tools needs, and the shape of a result. No I/O, and nothing
//! here knows a handler: the layers below the tools read tools through this module instead of reaching up
//! into [`crate::tools`] (the sign-in, the cache, the response cap and the settings do; the approval gate
//! reads the handler-free part of a tool, [`crate::approval::GatedTool`]).
//!
//! A tool is declared once, next to its handler ([`crate::tools::ToolDef`]), and gives its [`ToolMeta`]
//! through `AsRef`: functions here and below take `&[T]` with `T: AsRef<ToolMeta>`, so they work on the
//! tools as the engine holds them without knowing their handlers.

mod declaration;
mod output;
mod parse;
mod product;
pub mod scopes;

pub use declaration::{Access, Cap, Effect, Limitation, ToolMeta};
pub use output::{Output, Passed};
pub use parse::{ArgumentsError, parse_args, parse_args_ref};
pub use product::{Scope, Service};
