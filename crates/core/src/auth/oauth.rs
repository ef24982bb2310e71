//! The few OAuth 2.0 requests sign-in makes, hand-written: the `oauth2` crate would bring a second
//! `reqwest`, and refuses the plain-HTTP revocation URL the emulator has.

use std::time::Duration;

use serde::Deserialize;

use super::Secret;

/// Google's authorization endpoint (the consent page).
pub const AUTHORIZE_URL: &str = "https://accounts.google.com/o/oauth2/v2/auth";
/// Google's revocation endpoint.
pub const REVOKE_URL: &str = "https://oauth2.googleapis.com/revoke";
/// Google's OpenID Connect userinfo endpoint (the signed-in account's email).
pub const USERINFO_URL: &str = "https://openidconnect.googleapis.com/v1/userinfo";

/// A successful token answer (RFC 6749 §5.1).
#[derive(Deserialize)]
pub(crate) struct TokenAnswer {
    pub access_token: String,
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

impl TokenAnswer {
    pub fn lifetime(&self) -> Duration {
        Duration::from_secs(self.expires_in.unwrap_or(3600))
    }
}

/// Why a token request failed.
#[derive(Debug)]
pub(crate) enum OAuthFailure {
    /// Google answered with an OAuth error (RFC 6749 §5.2), e.g. `invalid_grant`.
    Refused {
        error: String,
        description: String,
    },
    Network(String),
}

impl std::fmt::Display for OAuthFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OAuthFailure::Refused { error, description } if description.is_empty() => f.write_str(error),
            OAuthFailure::Refused { error, description } => write!(f, "{error}: {description}"),
            OAuthFailure::Network(detail) => f.write_str(detail),
        }
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
    #[serde(default)]
    error_description: String,
}

/// Reads an OAuth error body; anything else (a proxy's HTML page) keeps the status and a short excerpt.
fn refusal(status: reqwest::StatusCode, body: &[u8]) -> OAuthFailure {
    match serde_json::from_slice::<ErrorBody>(body) {
        Ok(body) => OAuthFailure::Refused { error: body.error, description: body.error_description },
        Err(_) => OAuthFailure::Refused {
            error: format!("HTTP {}", status.as_u16()),
            description: String::from_utf8_lossy(body).chars().take(200).collect(),
        },
    }
}

/// POSTs a form to the token endpoint.
pub(crate) async fn post_token(
    http: &reqwest::Client,
    url: &str,
    form: &[(&str, &str)],
) -> Result<TokenAnswer, OAuthFailure> {
    let response = http.post(url).form(form).send().await.map_err(|e| OAuthFailure::Network(e.to_string()))?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| OAuthFailure::Network(e.to_string()))?;
    if !status.is_success() {
        return Err(refusal(status, &body));
    }
    serde_json::from_slice(&body).map_err(|e| OAuthFailure::Refused {
        error: "unreadable answer".into(),
        description: format!("the token endpoint's answer could not be read ({e})"),
    })
}

/// Adds the client's id and, when it has one, its secret to a token request.
pub(crate) fn with_client<'a>(
    mut form: Vec<(&'a str, &'a str)>,
    client: &'a super::ClientConfig,
) -> Vec<(&'a str, &'a str)> {
    form.push(("client_id", client.client_id.as_str()));
    if let Some(secret) = &client.client_secret {
        form.push(("client_secret", secret.expose()));
    }
    form
}

/// Revokes a token at Google (RFC 7009). Revoking a refresh token also ends the access tokens issued from it.
/// The error is a sentence for the person.
pub(crate) async fn revoke(http: &reqwest::Client, url: &str, token: &Secret) -> Result<(), String> {
    let response = http
        .post(url)
        .form(&[("token", token.expose())])
        .send()
        .await
        .map_err(|e| format!("Google's sign-in service could not be reached to revoke the token ({e})"))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let body = response.bytes().await.unwrap_or_default();
    match refusal(status, &body) {
        OAuthFailure::Refused { error, .. } if error == "invalid_token" => {
            Err("Google says the token was already revoked or expired".into())
        }
        failure => Err(format!("Google did not confirm the revocation ({failure})")),
    }
}

#[derive(Deserialize)]
struct UserInfo {
    #[serde(default)]
    email: Option<String>,
}

/// The email of the account an access token belongs to. The error is a short reason.
pub(crate) async fn userinfo_email(http: &reqwest::Client, url: &str, access_token: &str) -> Result<String, String> {
    let response = http.get(url).bearer_auth(access_token).send().await.map_err(|e| e.to_string())?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!(
            "HTTP {}: {}",
            status.as_u16(),
            String::from_utf8_lossy(&body).chars().take(200).collect::<String>()
        ));
    }
    let info: UserInfo = serde_json::from_slice(&body).map_err(|e| format!("unreadable answer ({e})"))?;
    info.email.filter(|email| !email.is_empty()).ok_or_else(|| "the answer has no email".to_owned())
}
