//! What every API handler starts from: the shared world, the request's headers and its query string,
//! read as the API reads it; and the one way a handler reaches the world, as its authenticated caller
//! whose token carries a scope the method accepts.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;

use crate::Shared;
use crate::errors::{ApiError, Shape};
use crate::state::{Identity, World};

/// What a handler answers: a response, or an error in the API's shape.
pub(crate) type Reply = Result<Response, ApiError>;

/// A query string as one family of APIs reads it, and the error shape that family answers in.
pub(crate) trait Dialect: Sized {
    /// The shape of the 401 an unknown or missing bearer token gets.
    const SHAPE: Shape;

    fn parse(raw: Option<&str>) -> Self;
}

/// The parts of a request every handler needs, with the query parsed as `Q`.
pub(crate) struct Call<Q> {
    pub(crate) shared: Shared,
    pub(crate) headers: HeaderMap,
    pub(crate) query: Q,
    /// The request line, to find the discovery method whose scopes the token must carry.
    method: Method,
    uri: Uri,
}

impl<Q: Dialect + Send> FromRequestParts<Shared> for Call<Q> {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, shared: &Shared) -> Result<Self, Self::Rejection> {
        Ok(Self {
            shared: shared.clone(),
            headers: parts.headers.clone(),
            query: Q::parse(parts.uri.query()),
            method: parts.method.clone(),
            uri: parts.uri.clone(),
        })
    }
}

impl<Q: Dialect> Call<Q> {
    /// Locks the world, authenticates the bearer token (the API's 401 otherwise), checks that it carries
    /// a scope the method accepts (Google's 403 otherwise, see [`crate::scopes`]) and runs `handler` as
    /// that caller, the world locked throughout. This is the one place scopes are enforced, whatever
    /// [`World::skip_discovery_checks`] says.
    pub(crate) fn run<T>(
        &self,
        handler: impl FnOnce(&mut World, Identity, &Q) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut world = self.shared.lock();
        let access = world.bearer(&self.headers, Q::SHAPE)?;
        crate::scopes::require(&access.scopes, self.method.as_str(), self.uri.path(), self.uri.query())?;
        let who = access.identity.clone();
        handler(&mut world, who, &self.query)
    }
}
