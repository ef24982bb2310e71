//! The OAuth 2.0 requests of sign-in. The flow itself — the authorization URL (PKCE S256 and `state`), the
//! code exchange and the refresh of an installed app's tokens — is the `oauth2` crate's, sent through
//! Gatehouse's own reqwest client by the adapter [`Http`] (the crate's reqwest feature would build a second
//! reqwest, with its own TLS stack and pool). Two requests stay plain: revocation (RFC 7009; the crate refuses
//! a revocation URL that is not HTTPS, which the emulator's is) and the userinfo read.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet,
    HttpClientError, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError, Scope,
    TokenResponse, TokenUrl,
};
use serde::Deserialize;

use super::Secret;

/// Google's authorization endpoint (the consent page).
pub const AUTHORIZE_URL: &str = "https://accounts.google.com/o/oauth2/v2/auth";
/// Google's revocation endpoint.
pub const REVOKE_URL: &str = "https://oauth2.googleapis.com/revoke";
/// Google's OpenID Connect userinfo endpoint (the signed-in account's email).
pub const USERINFO_URL: &str = "https://openidconnect.googleapis.com/v1/userinfo";

/// A successful token answer (RFC 6749 §5.1), as Gatehouse keeps it.
pub(crate) struct TokenAnswer {
    pub access_token: String,
    pub expires_in: Option<u64>,
    pub refresh_token: Option<String>,
    /// The scopes granted, space-separated, when the answer names them.
    pub scope: Option<String>,
}

impl TokenAnswer {
    pub fn lifetime(&self) -> Duration {
        Duration::from_secs(self.expires_in.unwrap_or(3600))
    }

    fn from_response(answer: &BasicTokenResponse) -> Self {
        Self {
            access_token: answer.access_token().secret().clone(),
            expires_in: answer.expires_in().map(|lifetime| lifetime.as_secs()),
            refresh_token: answer.refresh_token().map(|token| token.secret().clone()),
            scope: answer
                .scopes()
                .map(|scopes| scopes.iter().map(|scope| scope.as_str()).collect::<Vec<_>>().join(" ")),
        }
    }
}

/// Why a token request failed.
#[derive(Debug)]
pub(crate) enum OAuthFailure {
    /// Google answered with an OAuth error (RFC 6749 §5.2), e.g. `invalid_grant`, or with something that is
    /// not a token answer.
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

/// Gatehouse's reqwest client as the `oauth2` crate's HTTP client. An answer that did not come from the URL
/// asked (reqwest followed a redirect) is refused: Google's token endpoint does not redirect, and a token
/// answer from anywhere else is not taken.
pub(crate) struct Http<'a>(pub &'a reqwest::Client);

impl<'c> oauth2::AsyncHttpClient<'c> for Http<'_> {
    type Error = HttpClientError<reqwest::Error>;
    type Future = Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let request = reqwest::Request::try_from(request).map_err(Box::new)?;
            let asked = request.url().clone();
            let response = self.0.execute(request).await.map_err(Box::new)?;
            if response.url() != &asked {
                return Err(HttpClientError::Other(format!(
                    "the token endpoint {asked} sent the request on to {}, which Gatehouse does not follow",
                    response.url()
                )));
            }
            let mut answer = oauth2::http::Response::builder().status(response.status().as_u16());
            for (name, value) in response.headers() {
                answer = answer.header(name.as_str(), value.as_bytes());
            }
            let body = response.bytes().await.map_err(Box::new)?;
            answer.body(body.to_vec()).map_err(HttpClientError::Http)
        })
    }
}

/// The client as the token endpoint knows it: its id, its secret when it has one, sent in the request body
/// (as Google's own libraries do).
fn token_client(
    client_id: &str,
    client_secret: Option<&Secret>,
    token_url: &str,
) -> Result<BasicClient<EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>, OAuthFailure> {
    let token_url = TokenUrl::new(token_url.to_owned()).map_err(|e| OAuthFailure::Refused {
        error: "invalid token endpoint".into(),
        description: format!("{token_url} is not a URL ({e})"),
    })?;
    let mut client = BasicClient::new(ClientId::new(client_id.to_owned()))
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(token_url);
    if let Some(secret) = client_secret {
        client = client.set_client_secret(ClientSecret::new(secret.expose().to_owned()));
    }
    Ok(client)
}

/// Reads the crate's failure as Gatehouse tells it: Google's OAuth error, or what went wrong on the way.
fn failure(error: RequestTokenError<HttpClientError<reqwest::Error>, BasicErrorResponse>) -> OAuthFailure {
    match error {
        RequestTokenError::ServerResponse(answer) => OAuthFailure::Refused {
            error: answer.error().to_string(),
            description: answer.error_description().cloned().unwrap_or_default(),
        },
        RequestTokenError::Request(HttpClientError::Reqwest(error)) => OAuthFailure::Network(error.to_string()),
        RequestTokenError::Request(other) => OAuthFailure::Network(other.to_string()),
        RequestTokenError::Parse(error, body) => OAuthFailure::Refused {
            error: "unreadable answer".into(),
            description: format!(
                "the token endpoint's answer could not be read ({error}): {}",
                String::from_utf8_lossy(&body).chars().take(200).collect::<String>()
            ),
        },
        RequestTokenError::Other(detail) => {
            OAuthFailure::Refused { error: "unexpected answer".into(), description: detail }
        }
    }
}

/// A sign-in's authorization URL, with its `state` and PKCE verifier (RFC 7636, S256).
pub(crate) struct Authorization {
    pub url: String,
    pub state: String,
    pub verifier: Secret,
}

/// Builds the authorization URL of a sign-in of `client_id` at `authorize_url` (Google's, or rerouted), for
/// `scopes`, coming back to `redirect_uri`, with Google's extra parameters `extra`.
pub(crate) fn authorization(
    client_id: &str,
    authorize_url: &str,
    redirect_uri: &str,
    scopes: &[String],
    extra: &[(&str, &str)],
) -> Result<Authorization, String> {
    let auth_url = AuthUrl::new(authorize_url.to_owned())
        .map_err(|e| format!("the authorize URL {authorize_url} is not valid: {e}"))?;
    let redirect = RedirectUrl::new(redirect_uri.to_owned())
        .map_err(|e| format!("the redirect URL {redirect_uri} is not valid: {e}"))?;
    let client =
        BasicClient::new(ClientId::new(client_id.to_owned())).set_auth_uri(auth_url).set_redirect_uri(redirect);
    // 32 random bytes → a 43-character verifier, the shortest RFC 7636 allows, with 256 bits of entropy.
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client
        .authorize_url(CsrfToken::new_random)
        .add_scopes(scopes.iter().cloned().map(Scope::new))
        .set_pkce_challenge(challenge);
    for (name, value) in extra {
        request = request.add_extra_param(*name, *value);
    }
    let (url, state) = request.url();
    Ok(Authorization {
        url: url.to_string(),
        state: state.secret().clone(),
        verifier: Secret::new(verifier.into_secret()),
    })
}

/// Exchanges a sign-in's authorization code at `token_url` (RFC 6749 §4.1.3, with the PKCE verifier).
pub(crate) async fn exchange_code(
    http: &reqwest::Client,
    client: &super::ClientConfig,
    token_url: &str,
    code: &str,
    redirect_uri: &str,
    verifier: &Secret,
) -> Result<TokenAnswer, OAuthFailure> {
    let redirect = RedirectUrl::new(redirect_uri.to_owned()).map_err(|e| OAuthFailure::Refused {
        error: "invalid redirect URL".into(),
        description: format!("{redirect_uri} ({e})"),
    })?;
    let oauth = token_client(&client.client_id, client.client_secret.as_ref(), token_url)?.set_redirect_uri(redirect);
    let answer = oauth
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .set_pkce_verifier(PkceCodeVerifier::new(verifier.expose().to_owned()))
        .request_async(&Http(http))
        .await
        .map_err(failure)?;
    Ok(TokenAnswer::from_response(&answer))
}

/// Exchanges a refresh token for a fresh access token at `token_url` (RFC 6749 §6).
pub(crate) async fn refresh(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: Option<&Secret>,
    token_url: &str,
    refresh_token: &Secret,
) -> Result<TokenAnswer, OAuthFailure> {
    let oauth = token_client(client_id, client_secret, token_url)?;
    let refresh_token = RefreshToken::new(refresh_token.expose().to_owned());
    let answer = oauth.exchange_refresh_token(&refresh_token).request_async(&Http(http)).await.map_err(failure)?;
    Ok(TokenAnswer::from_response(&answer))
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
