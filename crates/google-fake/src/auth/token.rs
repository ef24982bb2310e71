//! Google's OAuth 2.0 token endpoint (`https://oauth2.googleapis.com/token`): the `authorization_code` grant
//! with its PKCE check, the `refresh_token` grant, and the JWT bearer grant of service accounts (RFC 7523)
//! with the signature, issuer, audience and expiry checked as Google checks them.
//!
//! Parameters come form-encoded (Google also takes a JSON body); the client authenticates with
//! `client_id` / `client_secret` fields or HTTP Basic. Errors are RFC 6749 bodies with Google's descriptions.

use std::time::SystemTime;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{CODE_LIFETIME, OAuthClient, OAuthError, RefreshGrant, has_scope, id_token, oauth_error, parse_scopes};
use crate::Shared;
use crate::state::{Identity, World};

/// The request's parameters, first value of each.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(headers: &HeaderMap, body: &[u8]) -> Self {
        let json = headers
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        if json {
            let object: Map<String, Value> = serde_json::from_slice(body).unwrap_or_default();
            let pairs = object.into_iter().map(|(key, value)| match value {
                Value::String(text) => (key, text),
                other => (key, other.to_string()),
            });
            return Self(pairs.collect());
        }
        Self(url::form_urlencoded::parse(body).into_owned().collect())
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str()).filter(|value| !value.is_empty())
    }
}

fn missing(parameter: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_request", &format!("Missing required parameter: {parameter}"))
}

fn invalid_grant(description: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

pub(super) async fn token(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let params = Params::parse(&headers, &body);
    match params.get("grant_type").unwrap_or_default() {
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => jwt_bearer(&shared, &headers, &params),
        "authorization_code" => authorization_code(&shared, &headers, &params),
        "refresh_token" => refresh_token(&shared, &headers, &params),
        other => {
            oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", &format!("Invalid grant_type: {other}"))
        }
    }
}

/// The client the request authenticates as (form fields, else HTTP Basic), as Google checks it.
fn authenticate_client(world: &World, headers: &HeaderMap, params: &Params) -> Result<OAuthClient, OAuthError> {
    let basic = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
        .and_then(|decoded| String::from_utf8(decoded).ok())
        .and_then(|pair| {
            let (id, secret) = pair.split_once(':')?;
            let decode = |text: &str| percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned();
            Some((decode(id), decode(secret)))
        });
    let client_id = params.get("client_id").map(str::to_owned).or_else(|| basic.as_ref().map(|(id, _)| id.clone()));
    let Some(client_id) = client_id.filter(|id| !id.is_empty()) else {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Could not determine client ID from request.",
        ));
    };
    let Some(client) = world.oauth_clients.iter().find(|client| client.client_id == client_id) else {
        return Err(OAuthError::new(StatusCode::UNAUTHORIZED, "invalid_client", "The OAuth client was not found."));
    };
    let secret = params.get("client_secret").map(str::to_owned).or_else(|| basic.map(|(_, secret)| secret));
    match secret.filter(|secret| !secret.is_empty()) {
        None => Err(OAuthError::new(StatusCode::BAD_REQUEST, "invalid_request", "client_secret is missing.")),
        Some(secret) if secret != client.client_secret => {
            Err(OAuthError::new(StatusCode::UNAUTHORIZED, "invalid_client", "Unauthorized"))
        }
        Some(_) => Ok(client.clone()),
    }
}

/// RFC 7636 §4.6: the verifier is 43 to 128 unreserved characters and hashes (S256) or equals (plain) to
/// the challenge.
fn verifier_matches(verifier: &str, challenge: &str, method: &str) -> bool {
    let unreserved = |ch: char| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '.' | '_' | '~');
    if !(43..=128).contains(&verifier.len()) || !verifier.chars().all(unreserved) {
        return false;
    }
    match method {
        "S256" => URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge,
        _ => verifier == challenge,
    }
}

fn authorization_code(shared: &Shared, headers: &HeaderMap, params: &Params) -> Response {
    let Some(code) = params.get("code") else { return missing("code") };
    let mut world = shared.lock();
    let client = match authenticate_client(&world, headers, params) {
        Ok(client) => client,
        Err(error) => return error.into_response(),
    };
    if !code.starts_with("4/") {
        return invalid_grant("Malformed auth code.");
    }
    let Some(grant) = world.oauth.codes.get(code).cloned() else {
        // Unknown, already redeemed, or expired.
        return invalid_grant("Bad Request");
    };
    let expired = grant.issued_at.elapsed().map(|age| age >= CODE_LIFETIME).unwrap_or(true);
    if expired {
        world.oauth.codes.remove(code);
        return invalid_grant("Bad Request");
    }
    if grant.client_id != client.client_id {
        return oauth_error(StatusCode::UNAUTHORIZED, "unauthorized_client", "Unauthorized");
    }
    let Some(redirect_uri) = params.get("redirect_uri") else { return missing("redirect_uri") };
    if redirect_uri != grant.redirect_uri {
        return oauth_error(StatusCode::BAD_REQUEST, "redirect_uri_mismatch", "Bad Request");
    }
    if let Some((challenge, method)) = &grant.code_challenge {
        let Some(verifier) = params.get("code_verifier") else { return invalid_grant("Missing code verifier.") };
        if !verifier_matches(verifier, challenge, method) {
            return invalid_grant("Invalid code verifier.");
        }
    }
    world.oauth.codes.remove(code);
    let refresh_token = grant.offline.then(|| {
        let token = format!("1//0{}", World::new_id(100));
        let refresh = RefreshGrant {
            client_id: client.client_id.clone(),
            identity: grant.identity.clone(),
            scopes: grant.scopes.clone(),
        };
        world.oauth.refresh_tokens.insert(token.clone(), refresh);
        token
    });
    let access_token = world.issue_expiring(
        grant.identity.clone(),
        grant.scopes.clone(),
        Some(client.client_id.clone()),
        refresh_token.clone(),
    );
    let lifetime = world.token_lifetime();
    let name = world.display_name(&grant.identity);
    drop(world);
    let mut body = json!({ "access_token": access_token, "expires_in": lifetime });
    if let Some(refresh_token) = refresh_token {
        body["refresh_token"] = json!(refresh_token);
    }
    finish(body, &grant.identity, &name, &grant.scopes, &client.client_id, &access_token)
}

fn refresh_token(shared: &Shared, headers: &HeaderMap, params: &Params) -> Response {
    let Some(refresh_token) = params.get("refresh_token") else { return missing("refresh_token") };
    let mut world = shared.lock();
    let client = match authenticate_client(&world, headers, params) {
        Ok(client) => client,
        Err(error) => return error.into_response(),
    };
    let Some(grant) = world.oauth.refresh_tokens.get(refresh_token).cloned() else {
        return if refresh_token.starts_with("1//") {
            invalid_grant("Token has been expired or revoked.")
        } else {
            invalid_grant("Bad Request")
        };
    };
    if grant.client_id != client.client_id {
        return oauth_error(StatusCode::UNAUTHORIZED, "unauthorized_client", "Unauthorized");
    }
    // A narrower `scope` is allowed; a wider one is not.
    let scopes = match params.get("scope").map(parse_scopes) {
        None => grant.scopes.clone(),
        Some(asked) => {
            let wider: Vec<&String> = asked.iter().filter(|scope| !grant.scopes.contains(scope)).collect();
            if !wider.is_empty() || asked.is_empty() {
                let names: Vec<&str> = wider.iter().map(|scope| scope.as_str()).collect();
                let description = format!("Some requested scopes were invalid. {{invalid=[{}]}}", names.join(", "));
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_scope", &description);
            }
            asked
        }
    };
    let access_token = world.issue_expiring(
        grant.identity.clone(),
        scopes.clone(),
        Some(client.client_id.clone()),
        Some(refresh_token.to_owned()),
    );
    let lifetime = world.token_lifetime();
    let name = world.display_name(&grant.identity);
    drop(world);
    let body = json!({ "access_token": access_token, "expires_in": lifetime });
    finish(body, &grant.identity, &name, &scopes, &client.client_id, &access_token)
}

/// Completes a user token response: `scope`, `token_type`, and an `id_token` when `openid` was granted.
fn finish(
    mut body: Value,
    identity: &Identity,
    name: &str,
    scopes: &[String],
    client_id: &str,
    access_token: &str,
) -> Response {
    body["scope"] = json!(scopes.join(" "));
    body["token_type"] = json!("Bearer");
    if has_scope(scopes, "openid") {
        match id_token::sign(identity, name, scopes, client_id, access_token, SystemTime::now()) {
            Ok(token) => body["id_token"] = json!(token),
            Err(error) => tracing::error!(%error, "the emulator could not sign an ID token"),
        }
    }
    Json(body).into_response()
}

#[derive(Deserialize)]
struct AssertionClaims {
    iss: String,
    scope: Option<String>,
}

fn jwt_bearer(shared: &Shared, headers: &HeaderMap, params: &Params) -> Response {
    let Some(assertion) = params.get("assertion") else { return missing("assertion") };
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
        jsonwebtoken::decode::<AssertionClaims>(assertion, &decoding, &validation).ok()
    });
    let Some(claims) = verified else {
        return invalid_grant("Invalid JWT Signature.");
    };
    let scopes = parse_scopes(claims.claims.scope.as_deref().unwrap_or_default());
    let identity = Identity::service_account(&claims.claims.iss);
    let access_token = world.issue_expiring(identity, scopes, None, None);
    let lifetime = world.token_lifetime();
    Json(json!({ "access_token": access_token, "expires_in": lifetime, "token_type": "Bearer" })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_verifiers_match_their_challenges() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(verifier_matches(verifier, challenge, "S256"));
        assert!(!verifier_matches(verifier, verifier, "S256"));
        assert!(verifier_matches(verifier, verifier, "plain"));
        assert!(!verifier_matches("short", "short", "plain"));
    }
}
