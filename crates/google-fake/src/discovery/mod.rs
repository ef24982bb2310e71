//! The discovery check: every exchange the emulator serves is compared with Google's discovery documents
//! (`crates/google-fake/discovery/*.json`), so a test cannot pass against the emulator and then fail
//! against Google.
//!
//! [`model()`] is every method of every resource of Sheets v4, Docs v1, Drive v3, Drive Activity v2, Gmail
//! v1, Calendar v3 and Slides v1: HTTP method, path templates (plain and media upload), query parameters
//! (the method's and the API's common ones) and request/response schemas. [`Discovery::validate`] checks one
//! [`Exchange`] against it:
//!
//! - the path and HTTP method match a method (`{param}`, `{+param}`, custom verbs such as
//!   `values:batchGet` or `{range}:clear`, on percent-decoded segments);
//! - every query parameter is defined, of its type, within its `enum`; required ones are present;
//! - every request and response body field is defined by its schema (through objects, `items`,
//!   `additionalProperties` and `$ref`), of its JSON type and `format` (64-bit integers are JSON strings,
//!   32-bit ones numbers; timestamps RFC 3339; bytes base64) and within its `enum`; Google never answers
//!   `null`;
//! - error answers (status >= 400) are Google's envelope `{"error": {code, message, status?, errors?,
//!   details?}}`, with `code` the HTTP status and `status` a `google.rpc.Code` that goes with it.
//!
//! Request-side rules are reported only when the emulator accepted the request (status < 400): rejecting
//! such a request is exactly what Google does. Proto3 JSON leniencies Google's parsers accept in requests
//! (numbers for 64-bit integers and enums, numeric strings for numbers, `null` for unset) are allowed
//! there, never in answers. Not checked: media, export and multipart bodies (not JSON), whether the
//! `fields` mask names real fields, `readOnly` fields sent in requests, path parameter values, routes
//! outside discovery ([`non_discovery_route`]).
//!
//! The [`middleware`] runs the check on every request the emulator serves (it is layered in
//! [`router`](crate::router)) and records what it finds in
//! [`World::discovery_violations`](crate::World::discovery_violations), which
//! [`FakeGoogle::discovery_violations`](crate::FakeGoogle::discovery_violations) returns.

mod middleware;
mod model;
mod validate;

use std::sync::LazyLock;

pub use middleware::{MAX_BUFFERED_BYTES, middleware};
pub use model::{Api, Discovery, Match, Method, Miss, Parameter, Schema};
pub use validate::{Body, Exchange, Kind, Violation, Violations};

static MODEL: LazyLock<Result<Discovery, String>> = LazyLock::new(Discovery::load);

/// The discovery model, parsed once from the embedded documents.
pub fn model() -> Result<&'static Discovery, &'static str> {
    MODEL.as_ref().map_err(String::as_str)
}

/// Routes the emulator serves that no discovery method describes, by path, with why the check skips them.
const NON_DISCOVERY_ROUTES: [(&str, &str); 9] = [
    // Google's OAuth 2.0 token endpoint (`https://oauth2.googleapis.com/token`) is in no discovery
    // document: it takes a form-encoded grant and answers RFC 6749 bodies, not an API's JSON.
    ("/token", "OAuth 2.0 token endpoint (RFC 6749, not a discovery API)"),
    // The rest of sign-in (`crate::auth`) is in no discovery document either: the authorization request and
    // its consent form (accounts.google.com) answer HTML pages and redirects; revocation, tokeninfo,
    // userinfo and the ID-token keys answer OAuth / OpenID Connect JSON. (The GCE metadata server has a
    // listener of its own, without the discovery check.)
    ("/o/oauth2/v2/auth", "OAuth 2.0 authorization endpoint (RFC 6749, HTML and redirects)"),
    ("/signin/oauth/consent", "the consent page's form (HTML and redirects)"),
    ("/revoke", "OAuth 2.0 token revocation (RFC 7009)"),
    ("/tokeninfo", "OAuth 2.0 token information"),
    ("/oauth2/v3/tokeninfo", "OAuth 2.0 token information"),
    ("/v1/userinfo", "OpenID Connect userinfo endpoint"),
    ("/oauth2/v3/userinfo", "OpenID Connect userinfo endpoint"),
    ("/oauth2/v3/certs", "OpenID Connect signing keys (JWK set)"),
];

/// Why the check skips `path`, if it does: the routes in [`NON_DISCOVERY_ROUTES`], and the APIs' batch
/// endpoints (`batchPath`), whose `multipart/mixed` bodies wrap requests discovery does not see whole.
pub fn non_discovery_route(path: &str) -> Option<&'static str> {
    // Drive's revision export links live on docs.google.com, and its download link on drive.google.com,
    // outside the Drive API.
    if let Some((_, why)) = NON_DISCOVERY_ROUTES
        .iter()
        .chain(crate::drive::EXPORT_ROUTES.iter())
        .chain([crate::drive::LINK_ROUTE].iter())
        .find(|(route, _)| *route == path)
    {
        return Some(why);
    }
    if crate::mcp::is_endpoint(path) {
        return Some("a Workspace MCP server (JSON-RPC, not a discovery API)");
    }
    let batch = model().ok()?.apis().iter().any(|api| api.batch_url_path().is_some_and(|batch| batch == path));
    batch.then_some("batch endpoint (multipart/mixed)")
}
