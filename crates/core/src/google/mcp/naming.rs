//! The naming rule for Google's MCP tools that no Gatehouse tool covers (see `tools::discovered`, which
//! offers them): Google's tool `T` of product `P` is offered as `google_P_T`. Kept with the Google client, below
//! the approval layer, so a policy file can name such a tool ([`parse_name`]) without knowing Google's lists.

use super::Product;

/// What every offered name starts with.
pub const PREFIX: &str = "google_";

/// The longest Google tool name Gatehouse offers.
pub const MAX_GOOGLE_NAME: usize = 64;

/// The name Google's tool `tool` of `product` is offered under.
pub fn offered_name(product: Product, tool: &str) -> String {
    format!("{PREFIX}{}_{tool}", product.name())
}

/// The product and Google's tool name of an offered name, when `name` follows the naming rule.
pub fn parse_name(name: &str) -> Option<(Product, &str)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (product, tool) = rest.split_once('_')?;
    let product = Product::ALL.into_iter().find(|candidate| candidate.name() == product)?;
    is_google_name(tool).then_some((product, tool))
}

/// Whether `name` is a tool name Gatehouse takes from Google: 1–[`MAX_GOOGLE_NAME`] characters of MCP's
/// tool-name alphabet (ASCII letters, digits, `_`, `-`, `.`), so the offered name stays within MCP's rule.
pub fn is_google_name(name: &str) -> bool {
    (1..=MAX_GOOGLE_NAME).contains(&name.len())
        && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'))
}
