//! The authorization request of OAuth 2.0 for installed apps (`https://accounts.google.com/o/oauth2/v2/auth`).
//!
//! Google checks the client and the redirect URI first and answers a bad one with an error page (never a
//! redirect to an address it cannot trust); every other check also ends on an error page, as Google's do.
//! Then the person answers as [`ConsentMode`] says: at once, or through a consent page whose form posts to
//! [`CONSENT_PATH`], so a test can play the browser.

use std::time::SystemTime;

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::{AuthorizationCode, ConsentMode, KNOWN_SCOPES, OAuthClient, escape, parse_scopes};
use crate::Shared;
use crate::state::{Identity, World};

pub(super) const AUTHORIZE_PATH: &str = "/o/oauth2/v2/auth";
/// Where the consent page's form posts (Google's consent screen lives under `accounts.google.com/signin/oauth`).
pub(super) const CONSENT_PATH: &str = "/signin/oauth/consent";

/// A validated authorization request.
#[derive(Debug, Clone)]
pub struct AuthorizeRequest {
    pub client_id: String,
    pub redirect_uri: String,
    /// Normalized (`email` → `…/auth/userinfo.email`), as Google reports them back.
    pub scopes: Vec<String>,
    pub state: Option<String>,
    pub code_challenge: Option<(String, String)>,
    pub offline: bool,
    /// `prompt`'s space-separated values.
    pub prompt: Vec<String>,
    pub login_hint: Option<String>,
    pub include_granted_scopes: bool,
}

/// Google's error page: `Error 400: redirect_uri_mismatch` and the like.
struct ErrorPage(Box<(StatusCode, &'static str, String)>);

fn error_page(status: StatusCode, error: &'static str, description: &str) -> ErrorPage {
    ErrorPage(Box::new((status, error, description.to_owned())))
}

fn invalid_request(description: &str) -> ErrorPage {
    error_page(StatusCode::BAD_REQUEST, "invalid_request", description)
}

impl IntoResponse for ErrorPage {
    fn into_response(self) -> Response {
        let (status, error, description) = *self.0;
        let code = status.as_u16();
        let page = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Error {code}: {error}</title>\
             </head><body><h1>Access blocked: Authorization Error</h1><p id=\"error\">Error {code}: {error}</p>\
             <p id=\"description\">{}</p></body></html>",
            escape(&description)
        );
        (status, Html(page)).into_response()
    }
}

/// `redirect_uri` with `params` added to its query, as a 302.
fn redirect(redirect_uri: &str, params: &[(&str, &str)]) -> Response {
    let mut url = match url::Url::parse(redirect_uri) {
        Ok(url) => url,
        Err(_) => return invalid_request("Invalid parameter value for redirect_uri").into_response(),
    };
    url.query_pairs_mut().extend_pairs(params);
    (StatusCode::FOUND, [(header::LOCATION, url.to_string())]).into_response()
}

fn refuse(request: &AuthorizeRequest, error: &str) -> Response {
    let mut params = vec![("error", error)];
    if let Some(state) = &request.state {
        params.push(("state", state));
    }
    redirect(&request.redirect_uri, &params)
}

pub(super) async fn authorize(State(shared): State<Shared>, Query(query): Query<Vec<(String, String)>>) -> Response {
    let mut world = shared.lock();
    world.oauth.authorize_requests.push(query.clone());
    let param = |name: &str| query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    let request = match validate(&world, &param) {
        Ok(request) => request,
        Err(page) => return page.into_response(),
    };
    let silent = request.prompt.iter().any(|prompt| prompt == "none");
    match world.consent.clone() {
        ConsentMode::Deny => refuse(&request, "access_denied"),
        ConsentMode::Approve(identity) if silent && !already_granted(&world, &request, &identity) => {
            refuse(&request, "consent_required")
        }
        ConsentMode::Approve(identity) => approve(&mut world, &request, identity, !silent),
        ConsentMode::Page if silent => {
            let hinted = chosen_account(&world, &request, None);
            match hinted {
                Some(identity) if already_granted(&world, &request, &identity) => {
                    approve(&mut world, &request, identity, false)
                }
                Some(_) => refuse(&request, "consent_required"),
                None => refuse(&request, "interaction_required"),
            }
        }
        ConsentMode::Page => {
            let id = World::new_id(32);
            let page = consent_page(&world, &request, &id);
            world.oauth.pending.insert(id, request);
            (StatusCode::OK, Html(page)).into_response()
        }
    }
}

fn validate<'a>(world: &World, param: &impl Fn(&str) -> Option<&'a str>) -> Result<AuthorizeRequest, ErrorPage> {
    let Some(client_id) = param("client_id").filter(|id| !id.is_empty()) else {
        return Err(invalid_request("Missing required parameter: client_id"));
    };
    let Some(client) = world.oauth_clients.iter().find(|client| client.client_id == client_id) else {
        return Err(error_page(StatusCode::UNAUTHORIZED, "invalid_client", "The OAuth client was not found."));
    };
    let Some(redirect_uri) = param("redirect_uri").filter(|uri| !uri.is_empty()) else {
        return Err(invalid_request("Missing required parameter: redirect_uri"));
    };
    if redirect_uri.starts_with("urn:ietf:wg:oauth:2.0:oob") {
        return Err(invalid_request(
            "The out-of-band (OOB) flow has been blocked in order to keep users secure. Follow the Out-of-Band \
             (OOB) flow migration guide linked in the developer docs below to migrate your app to an alternative \
             method.",
        ));
    }
    if !client.accepts_redirect(redirect_uri) {
        return Err(error_page(
            StatusCode::BAD_REQUEST,
            "redirect_uri_mismatch",
            &format!(
                "You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy. If you're \
                 the app developer, register the redirect URI in the Google Cloud Console. Request details: \
                 redirect_uri={redirect_uri}"
            ),
        ));
    }
    match param("response_type") {
        None | Some("") => return Err(invalid_request("Required parameter is missing: response_type")),
        Some("code") => {}
        Some(other) => {
            let description = format!("Invalid response_type: {other}");
            return Err(error_page(StatusCode::BAD_REQUEST, "unsupported_response_type", &description));
        }
    }
    let scopes = parse_scopes(param("scope").unwrap_or_default());
    if scopes.is_empty() {
        return Err(invalid_request("Missing required parameter: scope"));
    }
    let unknown: Vec<&str> =
        param("scope").unwrap_or_default().split_whitespace().filter(|scope| !KNOWN_SCOPES.contains(scope)).collect();
    if !unknown.is_empty() {
        let description = format!("Some requested scopes were invalid. {{invalid=[{}]}}", unknown.join(", "));
        return Err(error_page(StatusCode::BAD_REQUEST, "invalid_scope", &description));
    }
    let code_challenge = pkce(client, param("code_challenge"), param("code_challenge_method"))?;
    let offline = match param("access_type") {
        None | Some("online") => false,
        Some("offline") => true,
        Some(other) => return Err(invalid_request(&format!("Invalid access_type: {other}"))),
    };
    let prompt: Vec<String> = param("prompt").unwrap_or_default().split_whitespace().map(str::to_owned).collect();
    let bad_prompt = prompt.iter().find(|value| !matches!(value.as_str(), "none" | "consent" | "select_account"));
    if let Some(value) = bad_prompt {
        return Err(invalid_request(&format!("Invalid parameter value for prompt: Invalid prompt: {value}")));
    }
    if prompt.len() > 1 && prompt.iter().any(|value| value == "none") {
        return Err(invalid_request("Invalid parameter value for prompt: Invalid prompt: none must be used alone"));
    }
    Ok(AuthorizeRequest {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        scopes,
        state: param("state").map(str::to_owned),
        code_challenge,
        offline,
        prompt,
        login_hint: param("login_hint").filter(|hint| !hint.is_empty()).map(str::to_owned),
        include_granted_scopes: param("include_granted_scopes") == Some("true"),
    })
}

/// The PKCE challenge (RFC 7636 §4.2: 43 to 128 unreserved characters) and its method.
fn pkce(
    client: &OAuthClient,
    challenge: Option<&str>,
    method: Option<&str>,
) -> Result<Option<(String, String)>, ErrorPage> {
    let Some(challenge) = challenge.filter(|challenge| !challenge.is_empty()) else {
        if method.is_some() {
            return Err(invalid_request("Missing required parameter: code_challenge"));
        }
        if client.require_pkce {
            return Err(invalid_request("Missing required parameter: code_challenge"));
        }
        return Ok(None);
    };
    let method = method.unwrap_or("plain");
    if !matches!(method, "S256" | "plain") || (client.require_pkce && method != "S256") {
        return Err(invalid_request(&format!("Invalid code_challenge_method value: {method}")));
    }
    let unreserved = |ch: char| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '.' | '_' | '~');
    if !(43..=128).contains(&challenge.len()) || !challenge.chars().all(unreserved) {
        return Err(invalid_request("Invalid code_challenge value."));
    }
    Ok(Some((challenge.to_owned(), method.to_owned())))
}

/// Whether `identity` already granted `request`'s client every scope asked for.
fn already_granted(world: &World, request: &AuthorizeRequest, identity: &Identity) -> bool {
    let key = (request.client_id.clone(), identity.email.clone());
    world.oauth.grants.get(&key).is_some_and(|granted| request.scopes.iter().all(|scope| granted.contains(scope)))
}

/// The account the person signs in with: the one picked on the page, else `login_hint`, else the only one.
fn chosen_account(world: &World, request: &AuthorizeRequest, picked: Option<&str>) -> Option<Identity> {
    let find = |email: &str| {
        world
            .accounts
            .iter()
            .find(|account| account.identity.email.eq_ignore_ascii_case(email))
            .map(|a| a.identity.clone())
    };
    match (picked, &request.login_hint) {
        (Some(email), _) => find(email),
        (None, Some(hint)) => find(hint).or_else(|| only_account(world)),
        (None, None) => only_account(world),
    }
}

fn only_account(world: &World) -> Option<Identity> {
    match world.accounts.as_slice() {
        [account] => Some(account.identity.clone()),
        _ => None,
    }
}

/// Issues a code for `identity` and redirects with it, as Google does: `state`, `code`, `scope`, `authuser`,
/// `prompt`.
fn approve(world: &mut World, request: &AuthorizeRequest, identity: Identity, shown_consent: bool) -> Response {
    let key = (request.client_id.clone(), identity.email.clone());
    let mut scopes = Vec::new();
    if request.include_granted_scopes {
        scopes.extend(world.oauth.grants.get(&key).into_iter().flatten().cloned());
    }
    for scope in &request.scopes {
        if !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
    world.oauth.grants.entry(key).or_default().extend(scopes.iter().cloned());
    let code = format!("4/0A{}", World::new_id(70));
    world.oauth.codes.insert(
        code.clone(),
        AuthorizationCode {
            client_id: request.client_id.clone(),
            redirect_uri: request.redirect_uri.clone(),
            identity,
            scopes: scopes.clone(),
            code_challenge: request.code_challenge.clone(),
            offline: request.offline,
            issued_at: SystemTime::now(),
        },
    );
    let scope = scopes.join(" ");
    let mut params = Vec::new();
    if let Some(state) = &request.state {
        params.push(("state", state.as_str()));
    }
    params.extend([
        ("code", code.as_str()),
        ("scope", scope.as_str()),
        ("authuser", "0"),
        ("prompt", if shown_consent { "consent" } else { "none" }),
    ]);
    redirect(&request.redirect_uri, &params)
}

/// The consent page: an account chooser and *Allow* / *Cancel*, in one form a test can post.
fn consent_page(world: &World, request: &AuthorizeRequest, id: &str) -> String {
    let preselected = chosen_account(world, request, None);
    let accounts: String = world
        .accounts
        .iter()
        .map(|account| {
            let email = escape(&account.identity.email);
            let checked = if preselected.as_ref() == Some(&account.identity) { " checked" } else { "" };
            format!(
                "<li><label><input type=\"radio\" name=\"account\" value=\"{email}\"{checked}> {} &lt;{email}&gt;\
                 </label></li>",
                escape(&account.name)
            )
        })
        .collect();
    let scopes: String = request.scopes.iter().map(|scope| format!("<li>{}</li>", escape(scope))).collect();
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign in - Google Accounts</title>\
         </head><body><h1>Choose an account</h1><p>to continue to <span id=\"client\">{client}</span></p>\
         <form method=\"post\" action=\"{CONSENT_PATH}\"><input type=\"hidden\" name=\"request\" value=\"{id}\">\
         <ul id=\"accounts\">{accounts}</ul><p>This app wants to:</p><ul id=\"scopes\">{scopes}</ul>\
         <button type=\"submit\" name=\"decision\" value=\"deny\">Cancel</button>\
         <button type=\"submit\" name=\"decision\" value=\"approve\">Allow</button></form></body></html>",
        client = escape(&request.client_id),
    )
}

#[derive(serde::Deserialize)]
pub(super) struct ConsentForm {
    request: String,
    account: Option<String>,
    decision: String,
}

/// The consent page's form: the person allows (as the chosen account) or cancels.
pub(super) async fn consent(State(shared): State<Shared>, Form(form): Form<ConsentForm>) -> Response {
    let mut world = shared.lock();
    let Some(request) = world.oauth.pending.remove(&form.request) else {
        return invalid_request("This consent request has expired or was already answered.").into_response();
    };
    if form.decision != "approve" {
        return refuse(&request, "access_denied");
    }
    let picked = form.account.as_deref().filter(|email| !email.is_empty());
    match chosen_account(&world, &request, picked) {
        Some(identity) => approve(&mut world, &request, identity, true),
        None => {
            // Let the person choose again.
            world.oauth.pending.insert(form.request, request);
            invalid_request("Choose an account to continue.").into_response()
        }
    }
}
