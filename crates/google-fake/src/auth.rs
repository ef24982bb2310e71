//! Google's OAuth 2.0 token endpoint (`https://oauth2.googleapis.com/token`), as far as the emulator's
//! clients need it: the JWT bearer grant of service accounts (RFC 7523), with the signature, issuer,
//! audience and expiry checked as Google checks them.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::Shared;
use crate::state::Identity;

pub fn routes() -> Router<Shared> {
    Router::new().route("/token", post(token))
}

#[derive(Deserialize)]
struct TokenForm {
    grant_type: String,
    assertion: Option<String>,
}

#[derive(Deserialize)]
struct AssertionClaims {
    iss: String,
    #[allow(dead_code)]
    scope: Option<String>,
}

/// OAuth errors use RFC 6749's body, not the APIs' error shapes.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (status, Json(json!({ "error": error, "error_description": description }))).into_response()
}

async fn token(State(shared): State<Shared>, headers: HeaderMap, Form(form): Form<TokenForm>) -> Response {
    if form.grant_type != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "Invalid grant_type: ");
    }
    let Some(assertion) = form.assertion else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "Missing required parameter: assertion");
    };
    let mut world = shared.lock();
    // Google checks `aud` names its token endpoint: Google's own URL (a key whose token_uri is Google's,
    // with the client rerouted here) or the address the assertion was sent to.
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or_default();
    let here = format!("http://{host}/token");
    let audience = [here.as_str(), "https://oauth2.googleapis.com/token"];
    let verified = world.service_accounts.iter().find_map(|key| {
        let decoding = jsonwebtoken::DecodingKey::from_rsa_pem(key.public_key_pem.as_bytes()).ok()?;
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
        validation.set_audience(&audience);
        validation.set_issuer(&[key.email.as_str()]);
        validation.set_required_spec_claims(&["exp", "iat", "aud", "iss"]);
        jsonwebtoken::decode::<AssertionClaims>(&assertion, &decoding, &validation).ok()
    });
    let Some(claims) = verified else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Invalid JWT Signature.");
    };
    let lifetime = if world.token_lifetime_secs == 0 { 3599 } else { world.token_lifetime_secs };
    let access_token = world.issue_token(Identity::service_account(&claims.claims.iss));
    Json(json!({ "access_token": access_token, "expires_in": lifetime, "token_type": "Bearer" })).into_response()
}
