//! The browser sign-in of an installed app (RFC 8252): a one-shot HTTP listener on `127.0.0.1` with a random
//! free port receives Google's redirect; PKCE (S256) binds the code to this process and a random `state` binds
//! the answer to this sign-in. Only a complete sign-in stores anything: cancelling, `access_denied`, a wrong
//! `state` and a timeout all end with nothing stored.
//!
//! Two steps, so a shell can show the URL between them:
//! ```no_run
//! # async fn demo(options: gatehouse_core::auth::LoginOptions, store: gatehouse_core::auth::TokenStore)
//! # -> Result<(), gatehouse_core::auth::LoginError> {
//! let pending = gatehouse_core::auth::PendingLogin::start(options, &store).await?;
//! let _ = gatehouse_core::auth::open_browser(pending.authorize_url());
//! let signed_in = pending.finish(tokio_util::sync::CancellationToken::new()).await?;
//! println!("signed in as {}", signed_in.email);
//! # Ok(()) }
//! ```

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::oauth::{self, AUTHORIZE_URL, USERINFO_URL};
use super::{ClientConfig, Secret, StoreError, StoredAccount, TokenStore};
use crate::catalog::{ToolMeta, scopes};
use crate::google::Endpoints;

/// How long the person has to finish in the browser, unless the caller says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// How long one connection to the listener may take to send its request line and headers.
const REQUEST_READ_TIMEOUT: Duration = Duration::from_secs(30);
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// Why the sign-in ended without an account. Every message says that nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("Gatehouse could not open a local port to receive Google's answer ({0}). Nothing was stored.")]
    Listen(String),
    #[error("The sign-in was cancelled. Nothing was stored.")]
    Cancelled,
    #[error(
        "Access was not granted on Google's consent page, so Gatehouse is not signed in. Nothing was stored. To sign in, start again and choose Allow."
    )]
    Denied,
    #[error(
        "Google's sign-in page answered with an error ({error}{}). Nothing was stored. Start the sign-in again; if it keeps failing, check the OAuth client in Google Cloud › APIs & Services › Credentials.",
        if .description.is_empty() { String::new() } else { format!(": {}", .description) }
    )]
    Refused { error: String, description: String },
    #[error(
        "An answer reached Gatehouse that does not belong to this sign-in (its `state` did not match), so it was refused. Nothing was stored. Start the sign-in again and finish it in the browser tab it opens."
    )]
    WrongState,
    #[error("The sign-in was not finished within {}. Nothing was stored. Start it again and complete it in the browser.", duration_words(*.0))]
    TimedOut(Duration),
    #[error("Google did not complete the sign-in ({0}). Nothing was stored. Start the sign-in again.")]
    Exchange(String),
    #[error(
        "Google completed the sign-in but sent no refresh token, so Gatehouse could not stay signed in. Nothing was stored. Remove Gatehouse at https://myaccount.google.com/permissions, then sign in again."
    )]
    NoRefreshToken,
    #[error(
        "Gatehouse could not find out which Google account signed in ({0}). Nothing was stored. Start the sign-in again."
    )]
    UserInfo(String),
    #[error("{0} Nothing was stored.")]
    Store(#[from] StoreError),
    #[error("{0} Nothing was sent or stored.")]
    Rerouted(#[from] crate::google::endpoint::CredentialRefused),
}

fn duration_words(duration: Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        60 => "1 minute".into(),
        s if s >= 60 && s % 60 == 0 => format!("{} minutes", s / 60),
        1 => "1 second".into(),
        s if s >= 1 => format!("{s} seconds"),
        _ => format!("{} ms", duration.as_millis()),
    }
}

/// What a sign-in needs to know.
#[derive(Clone)]
pub struct LoginOptions {
    pub client: ClientConfig,
    /// Moves Google's hosts (tests, sandbox): the authorize, token and userinfo URLs go through it.
    pub endpoints: Endpoints,
    pub http: reqwest::Client,
    /// The tools the sign-in is for: it asks for the fewest scopes they need ([`scopes::needed`]), and when
    /// the account is already signed in, only those it was not yet granted (incremental consent, with
    /// `include_granted_scopes` so the new token carries the old scopes too).
    pub tools: Vec<ToolMeta>,
    /// How long the person has to finish in the browser.
    pub timeout: Duration,
    /// Suggests an account on Google's page (signing in a second account).
    pub login_hint: Option<String>,
}

impl LoginOptions {
    /// A sign-in for `tools` (the enabled ones).
    pub fn new<T: AsRef<ToolMeta>>(
        client: ClientConfig,
        endpoints: Endpoints,
        http: reqwest::Client,
        tools: &[T],
    ) -> Self {
        let tools = tools.iter().map(|tool| *tool.as_ref()).collect();
        Self { client, endpoints, http, tools, timeout: DEFAULT_TIMEOUT, login_hint: None }
    }

    /// Where the code is exchanged (with the client's secret): the client's token endpoint, when the client
    /// belongs where requests go ([`Endpoints::credential_url`]).
    fn token_url(&self) -> Result<String, crate::google::endpoint::CredentialRefused> {
        let what = format!("The OAuth client {} from {}", self.client.client_id, self.client.source);
        self.endpoints.credential_url(&self.client.token_uri, self.client.obtained_from(&self.endpoints), &what)
    }

    /// The scopes to ask for when the account signing in already holds `granted` (empty for a new account):
    /// `openid email` for its address, and the tools' scopes not yet granted — all of them again when nothing
    /// is missing (a plain new sign-in).
    pub fn scopes_to_ask(&self, granted: &[String]) -> Vec<String> {
        let missing = scopes::fewest(self.tools.iter().filter(|meta| !meta.scope_granted(granted)));
        let api = if missing.is_empty() { scopes::fewest(self.tools.iter()) } else { missing };
        ["openid", "email"].into_iter().chain(api).map(str::to_owned).collect()
    }
}

/// A finished sign-in.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub email: String,
    /// The scopes Google granted (the person may untick some on the consent page).
    pub scopes: Vec<String>,
    /// Scopes asked for but not granted: the tools that need them will fail until the person signs in again.
    pub missing_scopes: Vec<String>,
}

/// A sign-in waiting for the person to finish in the browser.
pub struct PendingLogin {
    listener: TcpListener,
    store: TokenStore,
    options: LoginOptions,
    authorize_url: String,
    redirect_uri: String,
    state: String,
    verifier: Secret,
    /// The scopes asked for (kept for a token answer that omits `scope`).
    scopes: Vec<String>,
}

impl PendingLogin {
    /// Checks `store` can be used (so a locked or missing keychain is reported before the person goes through
    /// the browser), opens the loopback listener and builds Google's authorize URL.
    pub async fn start(options: LoginOptions, store: &TokenStore) -> Result<Self, LoginError> {
        // Before the browser opens: a client secret that belongs to Google is not sent to an emulator.
        options.token_url()?;
        let accounts = store.accounts().await?;
        let target = options.login_hint.clone().or(accounts.active);
        let granted = match &target {
            Some(email) => store.get(email).await?.map(|account| account.scopes).unwrap_or_default(),
            None => Vec::new(),
        };
        let scopes = options.scopes_to_ask(&granted);
        // Port 0: the OS picks a free port, so any number of Gatehouse instances can sign in at once.
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| LoginError::Listen(e.to_string()))?;
        let port = listener.local_addr().map_err(|e| LoginError::Listen(e.to_string()))?.port();
        let redirect_uri = format!("http://127.0.0.1:{port}/");
        let mut extra = vec![("access_type", "offline"), ("include_granted_scopes", "true"), ("prompt", "consent")];
        if let Some(hint) = &options.login_hint {
            extra.push(("login_hint", hint.as_str()));
        }
        let base = options.endpoints.reroute(AUTHORIZE_URL);
        let oauth::Authorization { url: authorize_url, state, verifier } =
            oauth::authorization(&options.client.client_id, &base, &redirect_uri, &scopes, &extra)
                .map_err(LoginError::Listen)?;
        Ok(Self { listener, store: store.clone(), options, authorize_url, redirect_uri, state, verifier, scopes })
    }

    /// The URL to open in the browser.
    pub fn authorize_url(&self) -> &str {
        &self.authorize_url
    }

    /// Where Google sends the browser back to (`http://127.0.0.1:<port>/`).
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits for Google's redirect, then exchanges the code, learns the account's email and stores the refresh
    /// token. The browser tab gets a short page saying how it ended.
    pub async fn finish(self, cancel: CancellationToken) -> Result<SignedIn, LoginError> {
        let deadline = Instant::now() + self.options.timeout;
        let (tx, mut rx) = mpsc::channel::<(Callback, TcpStream)>(8);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Err(LoginError::Cancelled),
                _ = tokio::time::sleep_until(deadline) => return Err(LoginError::TimedOut(self.options.timeout)),
                accepted = self.listener.accept() => {
                    // Each connection is read on its own task: a browser's idle preconnect must not hold up the
                    // real redirect.
                    if let Ok((stream, _)) = accepted {
                        tokio::spawn(read_callback(stream, tx.clone()));
                    }
                }
                Some((callback, mut stream)) = rx.recv() => {
                    let outcome = self.complete(callback).await;
                    let (status, title, body) = match &outcome {
                        Ok(signed_in) => (
                            "200 OK",
                            "Signed in",
                            format!("Gatehouse is signed in to Google as {}. You can close this tab.", signed_in.email),
                        ),
                        Err(error) => ("400 Bad Request", "Not signed in", error.to_string()),
                    };
                    respond(&mut stream, status, &page(title, &body)).await;
                    return outcome;
                }
            }
        }
    }

    async fn complete(&self, callback: Callback) -> Result<SignedIn, LoginError> {
        if callback.state.as_deref() != Some(self.state.as_str()) {
            return Err(LoginError::WrongState);
        }
        if let Some(error) = callback.error {
            return Err(match error.as_str() {
                "access_denied" => LoginError::Denied,
                _ => LoginError::Refused { error, description: callback.error_description.unwrap_or_default() },
            });
        }
        let code = callback.code.unwrap_or_default();
        let token_url = self.options.token_url()?;
        let answer = oauth::exchange_code(
            &self.options.http,
            &self.options.client,
            &token_url,
            &code,
            &self.redirect_uri,
            &self.verifier,
        )
        .await
        .map_err(|e| LoginError::Exchange(e.to_string()))?;
        let refresh_token = Secret::new(answer.refresh_token.clone().ok_or(LoginError::NoRefreshToken)?);
        let stored = self.remember(&answer, &refresh_token).await;
        if stored.is_err() {
            // Don't leave a grant at Google that nothing on this machine can use or revoke later.
            let revoke_url = self.options.endpoints.reroute(oauth::REVOKE_URL);
            let _ = oauth::revoke(&self.options.http, &revoke_url, &refresh_token).await;
        }
        stored
    }

    async fn remember(&self, answer: &oauth::TokenAnswer, refresh_token: &Secret) -> Result<SignedIn, LoginError> {
        let userinfo_url = self.options.endpoints.reroute(USERINFO_URL);
        let email = oauth::userinfo_email(&self.options.http, &userinfo_url, &answer.access_token)
            .await
            .map_err(LoginError::UserInfo)?;
        let scopes: Vec<String> = match &answer.scope {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => self.scopes.clone(),
        };
        // What the enabled tools still lack (the person may untick a permission on the consent page).
        let missing_scopes = scopes::fewest(self.options.tools.iter().filter(|meta| !meta.scope_granted(&scopes)))
            .into_iter()
            .map(str::to_owned)
            .collect();
        self.store
            .save(StoredAccount {
                email: email.clone(),
                refresh_token: refresh_token.clone(),
                client_id: self.options.client.client_id.clone(),
                client_secret: self.options.client.client_secret.clone(),
                token_uri: self.options.client.token_uri.clone(),
                scopes: scopes.clone(),
                endpoint: self.options.endpoints.root().map(|root| root.to_string()),
            })
            .await?;
        Ok(SignedIn { email, scopes, missing_scopes })
    }
}

/// The query of a request that reached the redirect path with an OAuth answer in it.
#[derive(Debug, Default)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Reads one request. Requests that are not an OAuth answer (a favicon, someone opening the bare URL) get a
/// short answer here and never reach the sign-in.
async fn read_callback(mut stream: TcpStream, tx: mpsc::Sender<(Callback, TcpStream)>) {
    let Ok(Some(target)) = tokio::time::timeout(REQUEST_READ_TIMEOUT, read_request_target(&mut stream)).await else {
        return;
    };
    let parsed = url::Url::parse("http://127.0.0.1").and_then(|base| base.join(&target));
    let Ok(parsed) = parsed else {
        respond(&mut stream, "400 Bad Request", &page("Gatehouse", "This is not a request Gatehouse expects.")).await;
        return;
    };
    let mut callback = Callback::default();
    for (name, value) in parsed.query_pairs() {
        let value = Some(value.into_owned());
        match name.as_ref() {
            "code" => callback.code = value,
            "state" => callback.state = value,
            "error" => callback.error = value,
            "error_description" => callback.error_description = value,
            _ => {}
        }
    }
    if parsed.path() != "/" || (callback.code.is_none() && callback.error.is_none()) {
        let body = page("Gatehouse", "Gatehouse is waiting for Google's sign-in page to send you back here.");
        respond(&mut stream, "404 Not Found", &body).await;
        return;
    }
    let _ = tx.send((callback, stream)).await;
}

/// The request target of `GET <target> HTTP/1.1`, once the whole head has arrived.
async fn read_request_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 || head.len() + read > MAX_REQUEST_HEAD {
            return None;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut parts = text.lines().next()?.split_whitespace();
    let method = parts.next()?;
    let target = parts.next()?;
    (method == "GET").then(|| target.to_owned())
}

async fn respond(stream: &mut TcpStream, status: &str, html: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{html}",
        html.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn page(title: &str, message: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title} · Gatehouse</title></head>\
         <body style=\"font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;line-height:1.5\">\
         <h1>{title}</h1><p>{message}</p></body></html>",
        title = escape(title),
        message = escape(message)
    )
}

/// Opens `url` in the person's default browser. An error means none could be started: show the URL instead.
pub fn open_browser(url: &str) -> std::io::Result<()> {
    #[cfg(target_os = "macos")]
    let mut command = {
        let mut command = std::process::Command::new("open");
        command.arg(url);
        command
    };
    // `cmd /C start` would read the `&` of the query string as a command separator; the URL handler would not.
    #[cfg(target_os = "windows")]
    let mut command = {
        let mut command = std::process::Command::new("rundll32");
        command.args(["url.dll,FileProtocolHandler", url]);
        command
    };
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    let mut command = {
        let mut command = std::process::Command::new("xdg-open");
        command.arg(url);
        command
    };
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reap the opener when it exits so it does not linger as a zombie.
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorize_url_binds_the_code_to_this_sign_in_with_pkce_s256_and_a_fresh_state() {
        use base64::Engine as _;
        use sha2::Digest as _;
        let scopes = vec!["openid".to_owned(), "email".to_owned()];
        let extra = [("access_type", "offline"), ("prompt", "consent")];
        let made = oauth::authorization("id-1", AUTHORIZE_URL, "http://127.0.0.1:4711/", &scopes, &extra).unwrap();
        let url = url::Url::parse(&made.url).unwrap();
        let query: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
        assert_eq!(query["client_id"], "id-1");
        assert_eq!(query["redirect_uri"], "http://127.0.0.1:4711/");
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["scope"], "openid email");
        assert_eq!(query["access_type"], "offline");
        assert_eq!(query["code_challenge_method"], "S256");
        // RFC 7636 §4.2: the challenge is the verifier's SHA-256, base64url without padding.
        let expected = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(made.verifier.expose().as_bytes()));
        assert_eq!(query["code_challenge"], expected);
        assert!(made.verifier.expose().len() >= 43, "RFC 7636's shortest verifier or longer");
        assert_eq!(query["state"], made.state);
        let again = oauth::authorization("id-1", AUTHORIZE_URL, "http://127.0.0.1:4711/", &scopes, &extra).unwrap();
        assert_ne!(again.state, made.state, "each sign-in has its own state");
        assert_ne!(again.verifier.expose(), made.verifier.expose(), "and its own verifier");
    }

    #[test]
    fn messages_say_nothing_was_stored() {
        for error in [
            LoginError::Cancelled,
            LoginError::Denied,
            LoginError::WrongState,
            LoginError::TimedOut(DEFAULT_TIMEOUT),
            LoginError::Refused { error: "invalid_scope".into(), description: String::new() },
        ] {
            assert!(error.to_string().contains("Nothing was stored"), "{error}");
        }
        assert!(LoginError::TimedOut(DEFAULT_TIMEOUT).to_string().contains("5 minutes"));
    }

    #[test]
    fn pages_escape_what_they_show() {
        assert!(page("t", "<script>").contains("&lt;script&gt;"));
    }
}
