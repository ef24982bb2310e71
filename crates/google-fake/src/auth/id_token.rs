//! OpenID Connect ID tokens, signed RS256 like Google's, with the public key served as a JWK set at
//! `GET /oauth2/v3/certs` (www.googleapis.com) so a client can verify them as it would Google's.
//!
//! The key pair is the emulator's own, generated for it and checked in: it signs nothing outside tests.

use std::time::SystemTime;

use axum::Json;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{EMAIL_SCOPE, PROFILE_SCOPE, has_scope, subject, unix};
use crate::state::Identity;

const PRIVATE_KEY_PEM: &str = include_str!("id-token-key.pem");
const KEY_ID: &str = "0a7d2b4c6e8f1031a5c7e9b2d4f6081a3c5e7f90";
/// The key's modulus (base64url), as the JWK set carries it.
const MODULUS: &str = "oOxWPRzfkyNmh2RTbFzEVEGMo2iXwMv6__6tPSChDTs7DqZ80ODUQ703nozCeX1W5f-IR_ngi-GzZ1dixjsiB5MKhyvbTBUPHNd9BojO_me0fkab0q2U8TgmnXTWs9H10HSA9ukd12LWn-dxlUXBqz3_wfaRBSt4jcIIkoP6SiuROeRs2P3QpxoNqU41q8uOt11abLnrxswLvW84__-dnx3qxQiH_NovhfKeQLWAfY95z_4H9J94rOYuayjHBWzk8zn3Sr7KWybTzwM6MInuHOxYhz9INfVpfz8_V9YgLgcyE4fsBxLFa-wYjWNYPL9_v16m9lMiPUBkOmApMoEYaQ";
const EXPONENT: &str = "AQAB";
pub(super) const ISSUER: &str = "https://accounts.google.com";
/// ID tokens live an hour at Google, whatever the access token's lifetime.
const LIFETIME_SECS: u64 = 3600;

/// The picture URL Google gives an account without a photo.
pub(super) const DEFAULT_PICTURE: &str = "https://lh3.googleusercontent.com/a/default-user=s96-c";

/// Signs the ID token of a token response: who signed in, for which client, with the claims the scopes allow.
pub(super) fn sign(
    identity: &Identity,
    name: &str,
    scopes: &[String],
    client_id: &str,
    access_token: &str,
    now: SystemTime,
) -> Result<String, jsonwebtoken::errors::Error> {
    let issued = unix(now);
    let digest = Sha256::digest(access_token.as_bytes());
    let mut claims = json!({
        "iss": ISSUER,
        "azp": client_id,
        "aud": client_id,
        "sub": subject(&identity.email),
    });
    if has_scope(scopes, EMAIL_SCOPE) {
        claims["email"] = json!(identity.email);
        claims["email_verified"] = json!(true);
    }
    claims["at_hash"] = json!(URL_SAFE_NO_PAD.encode(&digest[..16]));
    if has_scope(scopes, PROFILE_SCOPE) {
        profile_claims(&mut claims, name);
    }
    claims["iat"] = json!(issued);
    claims["exp"] = json!(issued + LIFETIME_SECS);
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some(KEY_ID.to_owned());
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(PRIVATE_KEY_PEM.as_bytes())?;
    jsonwebtoken::encode(&header, &claims, &key)
}

/// `name`, `picture`, `given_name`, `family_name`, as the profile scope gives them.
pub(super) fn profile_claims(claims: &mut Value, name: &str) {
    claims["name"] = json!(name);
    claims["picture"] = json!(DEFAULT_PICTURE);
    let mut words = name.splitn(2, ' ');
    if let Some(given) = words.next().filter(|given| !given.is_empty()) {
        claims["given_name"] = json!(given);
    }
    if let Some(family) = words.next() {
        claims["family_name"] = json!(family);
    }
}

/// The claims of an ID token the emulator signed, if its signature holds and it has not expired.
pub(super) fn verify(token: &str) -> Option<(Value, jsonwebtoken::Header)> {
    let key = jsonwebtoken::DecodingKey::from_rsa_components(MODULUS, EXPONENT).ok()?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_issuer(&[ISSUER]);
    validation.validate_aud = false;
    let data = jsonwebtoken::decode::<Value>(token, &key, &validation).ok()?;
    Some((data.claims, data.header))
}

/// `GET /oauth2/v3/certs`: the JWK set ID tokens verify against.
pub(super) async fn certs() -> Json<Value> {
    Json(json!({
        "keys": [{ "e": EXPONENT, "kty": "RSA", "use": "sig", "n": MODULUS, "alg": "RS256", "kid": KEY_ID }]
    }))
}
