//! Token revocation (`POST https://oauth2.googleapis.com/revoke`, RFC 7009).
//!
//! The token comes as the `token` form field or query parameter, access or refresh token alike. Revoking a
//! refresh token revokes the access tokens minted from it; revoking an access token minted from a refresh
//! token revokes that refresh token too (and so its other access tokens), as Google documents.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::oauth_error;
use crate::Shared;

pub(super) async fn revoke(
    State(shared): State<Shared>,
    Query(query): Query<Vec<(String, String)>>,
    body: Bytes,
) -> Response {
    let from_body = url::form_urlencoded::parse(&body).into_owned().find(|(key, _)| key == "token");
    let token = from_body.or_else(|| query.into_iter().find(|(key, _)| key == "token")).map(|(_, token)| token);
    let Some(token) = token.filter(|token| !token.is_empty()) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "Missing required parameter: token");
    };
    let mut world = shared.lock();
    let revoked = if world.oauth.refresh_tokens.contains_key(&token) {
        world.revoke_refresh_token(&token)
    } else {
        match world.live_access(&token).map(|access| access.refresh_token.clone()) {
            Some(Some(refresh_token)) => {
                world.tokens.remove(&token);
                world.revoke_refresh_token(&refresh_token);
                true
            }
            Some(None) => world.tokens.remove(&token).is_some(),
            None => false,
        }
    };
    if revoked {
        Json(json!({})).into_response()
    } else {
        oauth_error(StatusCode::BAD_REQUEST, "invalid_token", "Token expired or revoked")
    }
}
