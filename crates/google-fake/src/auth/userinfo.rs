//! Who a token belongs to:
//!
//! - `GET|POST /tokeninfo?access_token=…|id_token=…` (oauth2.googleapis.com, also `/oauth2/v3/tokeninfo` at
//!   www.googleapis.com): the token's client, account, scopes and expiry, every value a string as Google
//!   sends them;
//! - `GET /v1/userinfo` (openidconnect.googleapis.com) and `GET /oauth2/v3/userinfo` (www.googleapis.com):
//!   the signed-in account's OpenID claims, with the bearer token, as far as its scopes allow.

use std::time::SystemTime;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{EMAIL_SCOPE, FIXTURE_CLIENT_ID, PROFILE_SCOPE, has_scope, id_token, oauth_error, subject, unix};
use crate::Shared;
use crate::state::AccessToken;

fn invalid_value() -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_token", "Invalid Value")
}

pub(super) async fn tokeninfo(
    State(shared): State<Shared>,
    Query(query): Query<Vec<(String, String)>>,
    body: Bytes,
) -> Response {
    let params: Vec<(String, String)> =
        query.into_iter().chain(url::form_urlencoded::parse(&body).into_owned()).collect();
    let param = |name: &str| params.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    if let Some(token) = param("id_token") {
        return id_token_info(token);
    }
    let Some(token) = param("access_token") else { return invalid_value() };
    let world = shared.lock();
    let Some(access) = world.live_access(token) else { return invalid_value() };
    let expires_at =
        access.expires_at.unwrap_or_else(|| SystemTime::now() + std::time::Duration::from_secs(world.token_lifetime()));
    let expires_in = expires_at.duration_since(SystemTime::now()).map(|left| left.as_secs()).unwrap_or_default();
    let client_id = match (&access.client_id, access.identity.is_service_account()) {
        (Some(client_id), _) => client_id.clone(),
        (None, true) => subject(&access.identity.email),
        (None, false) => FIXTURE_CLIENT_ID.to_owned(),
    };
    let mut body = json!({
        "azp": client_id,
        "aud": client_id,
        "sub": subject(&access.identity.email),
        "scope": access.scopes.join(" "),
        "exp": unix(expires_at).to_string(),
        "expires_in": expires_in.to_string(),
    });
    if has_scope(&access.scopes, EMAIL_SCOPE) {
        body["email"] = json!(access.identity.email);
        body["email_verified"] = json!("true");
    }
    if !access.identity.is_service_account() {
        body["access_type"] = json!(if access.refresh_token.is_some() { "offline" } else { "online" });
    }
    Json(body).into_response()
}

/// An ID token's claims, each value a string, with the header's `alg`, `kid` and `typ`.
fn id_token_info(token: &str) -> Response {
    let Some((claims, header)) = id_token::verify(token) else { return invalid_value() };
    let mut body: Map<String, Value> = claims
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (key.clone(), Value::String(text))
        })
        .collect();
    body.insert("alg".to_owned(), json!("RS256"));
    body.insert("kid".to_owned(), json!(header.kid.unwrap_or_default()));
    body.insert("typ".to_owned(), json!("JWT"));
    Json(Value::Object(body)).into_response()
}

pub(super) async fn userinfo(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let bearer = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .or_else(|| query.iter().find(|(key, _)| key == "access_token").map(|(_, token)| token.as_str()));
    let world = shared.lock();
    let Some(access) = bearer.and_then(|token| world.live_access(token)).cloned() else {
        let mut response = oauth_error(StatusCode::UNAUTHORIZED, "invalid_request", "Invalid Credentials");
        let challenge = "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\"";
        response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static(challenge));
        return response;
    };
    let name = world.display_name(&access.identity);
    drop(world);
    Json(claims(&access, &name)).into_response()
}

/// `sub`, the profile claims with `…/userinfo.profile`, the address with `…/userinfo.email`.
fn claims(access: &AccessToken, name: &str) -> Value {
    let mut body = json!({ "sub": subject(&access.identity.email) });
    if has_scope(&access.scopes, PROFILE_SCOPE) && !access.identity.is_service_account() {
        id_token::profile_claims(&mut body, name);
    } else if has_scope(&access.scopes, PROFILE_SCOPE) {
        body["picture"] = json!(id_token::DEFAULT_PICTURE);
    }
    if has_scope(&access.scopes, EMAIL_SCOPE) {
        body["email"] = json!(access.identity.email);
        body["email_verified"] = json!(true);
    }
    body
}
