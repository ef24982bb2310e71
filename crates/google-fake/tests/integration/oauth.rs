//! Sign-in against the emulator over HTTP, as Gatehouse meets it: the installed-app code flow with PKCE,
//! refresh, expiry, revocation, tokeninfo / userinfo, the JWT bearer grant and the GCE metadata server.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use google_fake::{Account, ConsentMode, FakeGoogle, Identity, OAuthClient, ServiceAccountKey, World};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CLIENT_ID: &str = "1234567890-gatehouse.apps.googleusercontent.com";
const CLIENT_SECRET: &str = "GOCSPX-fake-secret";
const ADA: &str = "ada@example.com";
const GRACE: &str = "grace@example.com";
const REDIRECT: &str = "http://127.0.0.1:49152/";
const SCOPES: &str = "openid email profile https://www.googleapis.com/auth/drive.file";
const EMAIL_SCOPE: &str = "https://www.googleapis.com/auth/userinfo.email";

/// Form fields or query parameters of a test case.
type Pairs = Vec<(&'static str, &'static str)>;
type Extra = &'static [(&'static str, &'static str)];

struct Env {
    google: FakeGoogle,
    http: reqwest::Client,
}

struct Pkce {
    verifier: String,
    challenge: String,
}

fn pkce() -> Pkce {
    let verifier = format!("{}{}", World::new_id(40), World::new_id(24)).replace('_', "~");
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    Pkce { verifier, challenge }
}

/// The query parameters of a URL, first value of each.
fn query_of(url: &str) -> Vec<(String, String)> {
    url::Url::parse(url).expect("a URL").query_pairs().into_owned().collect()
}

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

impl Env {
    /// An emulator with Gatehouse's installed client, two accounts, and Ada consenting at once.
    async fn new() -> Self {
        let world = World {
            oauth_clients: vec![OAuthClient::installed(CLIENT_ID, CLIENT_SECRET)],
            accounts: vec![Account::user(ADA, "Ada Lovelace"), Account::user(GRACE, "Grace Hopper")],
            consent: ConsentMode::Approve(Identity::user(ADA)),
            ..World::default()
        };
        let google = FakeGoogle::start_with(world).await.expect("emulator starts");
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
        Self { google, http }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.google.url())
    }

    /// The authorization URL Gatehouse builds, with `extra` parameters added or replacing the usual ones.
    fn authorize_url(&self, pkce: &Pkce, extra: &[(&str, &str)]) -> String {
        let mut params = vec![
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("scope", SCOPES),
            ("state", "st4te/+ü"),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("access_type", "offline"),
        ];
        for (name, value) in extra {
            params.retain(|(key, _)| key != name);
            params.push((name, value));
        }
        let mut url = url::Url::parse(&self.url("/o/oauth2/v2/auth")).expect("url");
        url.query_pairs_mut().extend_pairs(params.into_iter().filter(|(_, value)| !value.is_empty()));
        url.to_string()
    }

    /// Follows an authorization URL; returns the status, the redirect's `Location` (if any) and the body.
    async fn visit(&self, url: &str) -> (StatusCode, Option<String>, String) {
        let response = self.http.get(url).send().await.expect("authorize answers");
        let status = response.status();
        let location = response.headers().get("location").map(|value| value.to_str().expect("ascii").to_owned());
        (status, location, response.text().await.expect("body"))
    }

    /// Runs the authorization request and returns the redirect's query.
    async fn authorize(&self, pkce: &Pkce, extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let (status, location, body) = self.visit(&self.authorize_url(pkce, extra)).await;
        assert_eq!(status, StatusCode::FOUND, "{body}");
        let location = location.expect("a redirect");
        assert!(location.starts_with(REDIRECT), "{location}");
        query_of(&location)
    }

    async fn post_token(&self, form: &[(&str, &str)]) -> (StatusCode, Value) {
        let response = self.http.post(self.url("/token")).form(form).send().await.expect("token answers");
        (response.status(), response.json().await.expect("JSON"))
    }

    async fn exchange(&self, code: &str, verifier: &str) -> (StatusCode, Value) {
        self.post_token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
        ])
        .await
    }

    async fn refresh(&self, refresh_token: &str) -> (StatusCode, Value) {
        self.post_token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
        ])
        .await
    }

    /// The whole flow as Ada: the token response.
    async fn sign_in(&self, extra: &[(&str, &str)]) -> Value {
        let pkce = pkce();
        let redirect = self.authorize(&pkce, extra).await;
        let (status, tokens) = self.exchange(param(&redirect, "code").expect("a code"), &pkce.verifier).await;
        assert_eq!(status, StatusCode::OK, "{tokens}");
        tokens
    }

    /// `GET /drive/v3/about?fields=user` with `token`: a Drive call as the client makes them.
    async fn about(&self, token: &str) -> (StatusCode, Value) {
        let response =
            self.http.get(self.url("/drive/v3/about?fields=user")).bearer_auth(token).send().await.expect("drive");
        (response.status(), response.json().await.expect("JSON"))
    }

    async fn get_json(&self, path: &str, bearer: Option<&str>) -> (StatusCode, Value) {
        let mut request = self.http.get(self.url(path));
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("answers");
        (response.status(), response.json().await.expect("JSON"))
    }

    fn assert_no_discovery_violations(&self) {
        let violations = self.google.discovery_violations();
        assert!(violations.is_empty(), "sign-in endpoints are not discovery routes: {violations:#?}");
    }
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_code_flow_with_pkce_issues_tokens_the_apis_accept() {
    let env = Env::new().await;
    let pkce = pkce();
    let redirect = env.authorize(&pkce, &[]).await;
    assert_eq!(param(&redirect, "state"), Some("st4te/+ü"), "state passes through");
    assert_eq!(
        param(&redirect, "scope"),
        Some(
            "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile \
             https://www.googleapis.com/auth/drive.file"
        ),
        "scopes come back normalized"
    );
    let code = param(&redirect, "code").expect("a code").to_owned();
    assert!(code.starts_with("4/0A"), "{code}");

    let (status, tokens) = env.exchange(&code, &pkce.verifier).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let keys: Vec<&str> = tokens.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["access_token", "expires_in", "refresh_token", "scope", "token_type", "id_token"]);
    assert_eq!(tokens["expires_in"], json!(3599));
    assert_eq!(tokens["token_type"], json!("Bearer"));
    assert!(text(&tokens, "refresh_token").starts_with("1//"));
    assert_eq!(tokens["scope"].as_str(), param(&redirect, "scope"));

    let (status, about) = env.about(&text(&tokens, "access_token")).await;
    assert_eq!(status, StatusCode::OK, "{about}");
    assert_eq!(about["user"]["emailAddress"], json!(ADA));

    // The ID token verifies (tokeninfo checks the signature against the emulator's keys) and names Ada.
    let id_token = text(&tokens, "id_token");
    let (status, claims) = env.get_json(&format!("/tokeninfo?id_token={id_token}"), None).await;
    assert_eq!(status, StatusCode::OK, "{claims}");
    assert_eq!((text(&claims, "iss"), text(&claims, "aud")), ("https://accounts.google.com".into(), CLIENT_ID.into()));
    assert_eq!((text(&claims, "email"), text(&claims, "email_verified")), (ADA.into(), "true".into()));
    assert_eq!(text(&claims, "name"), "Ada Lovelace");
    let (_, certs) = env.get_json("/oauth2/v3/certs", None).await;
    assert_eq!(certs["keys"][0]["kid"].as_str(), Some(text(&claims, "kid").as_str()));

    // A code is single-use.
    let (status, again) = env.exchange(&code, &pkce.verifier).await;
    assert_eq!(
        (status, again),
        (StatusCode::BAD_REQUEST, json!({"error": "invalid_grant", "error_description": "Bad Request"}))
    );

    let asked = env.google.world().oauth.authorize_requests.last().cloned().expect("recorded");
    assert_eq!(param(&asked, "code_challenge_method"), Some("S256"));
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn a_refusal_redirects_with_access_denied_and_the_state() {
    let env = Env::new().await;
    env.google.world().consent = ConsentMode::Deny;
    let redirect = env.authorize(&pkce(), &[("state", "xyz")]).await;
    assert_eq!(redirect, [("error".to_owned(), "access_denied".to_owned()), ("state".to_owned(), "xyz".to_owned())]);
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn the_token_endpoint_checks_verifier_redirect_and_code() {
    let env = Env::new().await;
    let pkce = pkce();
    let code = param(&env.authorize(&pkce, &[]).await, "code").expect("code").to_owned();
    let error = |description: &str| json!({ "error": "invalid_grant", "error_description": description });

    let (status, body) = env.exchange(&code, &self::pkce().verifier).await;
    assert_eq!((status, body), (StatusCode::BAD_REQUEST, error("Invalid code verifier.")));
    let (status, body) = env
        .post_token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
        ])
        .await;
    assert_eq!((status, body), (StatusCode::BAD_REQUEST, error("Missing code verifier.")));
    let (status, body) = env
        .post_token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", &pkce.verifier),
            ("redirect_uri", "http://127.0.0.1:49153/"),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
        ])
        .await;
    assert_eq!(
        (status, body),
        (StatusCode::BAD_REQUEST, json!({"error": "redirect_uri_mismatch", "error_description": "Bad Request"}))
    );
    let (status, body) = env.exchange("not-a-code", &pkce.verifier).await;
    assert_eq!((status, body), (StatusCode::BAD_REQUEST, error("Malformed auth code.")));

    // Failed attempts leave the code usable; HTTP Basic authenticates the client as well as form fields.
    let basic = STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"));
    let response = env
        .http
        .post(env.url("/token"))
        .header("authorization", format!("Basic {basic}"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", &pkce.verifier),
            ("redirect_uri", REDIRECT),
        ])
        .send()
        .await
        .expect("token");
    assert_eq!(response.status(), StatusCode::OK);
    let (status, body) = env.exchange(&code, &pkce.verifier).await;
    assert_eq!((status, body), (StatusCode::BAD_REQUEST, error("Bad Request")));

    // A code expires after 10 minutes.
    let code = param(&env.authorize(&pkce, &[]).await, "code").expect("code").to_owned();
    let ago = std::time::SystemTime::now() - Duration::from_secs(601);
    env.google.world().oauth.codes.get_mut(&code).expect("stored").issued_at = ago;
    let (status, body) = env.exchange(&code, &pkce.verifier).await;
    assert_eq!((status, body), (StatusCode::BAD_REQUEST, error("Bad Request")));
}

#[tokio::test]
async fn the_token_endpoint_authenticates_the_client_and_names_bad_grants() {
    let env = Env::new().await;
    let grant = |extra: Extra| {
        let mut form = vec![("grant_type", "refresh_token"), ("refresh_token", "1//0nothing")];
        form.extend_from_slice(extra);
        form
    };
    let cases: [(Pairs, u16, &str, &str); 7] = [
        (
            grant(&[("client_id", "nobody"), ("client_secret", "x")]),
            401,
            "invalid_client",
            "The OAuth client was not found.",
        ),
        (grant(&[("client_id", CLIENT_ID), ("client_secret", "wrong")]), 401, "invalid_client", "Unauthorized"),
        (grant(&[("client_id", CLIENT_ID)]), 400, "invalid_request", "client_secret is missing."),
        (grant(&[]), 400, "invalid_request", "Could not determine client ID from request."),
        (
            grant(&[("client_id", CLIENT_ID), ("client_secret", CLIENT_SECRET)]),
            400,
            "invalid_grant",
            "Token has been expired or revoked.",
        ),
        (vec![("grant_type", "password")], 400, "unsupported_grant_type", "Invalid grant_type: password"),
        (vec![("grant_type", "authorization_code")], 400, "invalid_request", "Missing required parameter: code"),
    ];
    for (form, status, error, description) in cases {
        let (got, body) = env.post_token(&form).await;
        assert_eq!(got.as_u16(), status, "{form:?}: {body}");
        assert_eq!(body, json!({ "error": error, "error_description": description }), "{form:?}");
    }
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn the_authorize_endpoint_refuses_bad_requests_on_error_pages() {
    let env = Env::new().await;
    let pkce = pkce();
    let cases: [(Extra, u16, &str); 10] = [
        (&[("client_id", "nobody.apps.googleusercontent.com")], 401, "Error 401: invalid_client"),
        (&[("redirect_uri", "https://evil.example/cb")], 400, "Error 400: redirect_uri_mismatch"),
        (&[("redirect_uri", "http://192.168.1.2:8080/")], 400, "Error 400: redirect_uri_mismatch"),
        (&[("redirect_uri", "urn:ietf:wg:oauth:2.0:oob")], 400, "out-of-band (OOB) flow has been blocked"),
        (&[("response_type", "token")], 400, "Error 400: unsupported_response_type"),
        (&[("scope", "")], 400, "Missing required parameter: scope"),
        (&[("scope", "email https://www.googleapis.com/auth/drive.everything")], 400, "Error 400: invalid_scope"),
        (&[("code_challenge", ""), ("code_challenge_method", "")], 400, "Missing required parameter: code_challenge"),
        (&[("code_challenge_method", "plain")], 400, "Invalid code_challenge_method value: plain"),
        (&[("access_type", "forever")], 400, "Invalid access_type: forever"),
    ];
    for (extra, status, expected) in cases {
        let (got, location, page) = env.visit(&env.authorize_url(&pkce, extra)).await;
        assert_eq!((got.as_u16(), location), (status, None), "{extra:?}: {page}");
        assert!(page.contains(expected), "{extra:?}: {page}");
    }
    // Loopback redirects of any port and path, and `localhost`, are an installed app's.
    for redirect in ["http://127.0.0.1:1/callback", "http://localhost:65535", "http://[::1]:8080/x"] {
        let (status, location, _) = env.visit(&env.authorize_url(&pkce, &[("redirect_uri", redirect)])).await;
        assert_eq!(status, StatusCode::FOUND);
        assert!(location.is_some_and(|location| location.starts_with(redirect)));
    }
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn refresh_keeps_the_refresh_token_and_online_access_gets_none() {
    let env = Env::new().await;
    let tokens = env.sign_in(&[]).await;
    let refresh_token = text(&tokens, "refresh_token");
    let (status, refreshed) = env.refresh(&refresh_token).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    let keys: Vec<&str> = refreshed.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["access_token", "expires_in", "scope", "token_type", "id_token"]);
    assert_ne!(refreshed["access_token"], tokens["access_token"]);
    assert_eq!(refreshed["scope"], tokens["scope"]);
    assert_eq!(env.about(&text(&refreshed, "access_token")).await.0, StatusCode::OK);
    // The refresh token stays valid, and a narrower scope may be asked.
    let (status, narrow) = env
        .post_token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh_token),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
            ("scope", "email"),
        ])
        .await;
    assert_eq!((status, text(&narrow, "scope")), (StatusCode::OK, EMAIL_SCOPE.to_owned()));
    assert!(narrow.get("id_token").is_none());

    let online = env.sign_in(&[("access_type", "online"), ("scope", "https://www.googleapis.com/auth/drive")]).await;
    let keys: Vec<&str> = online.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["access_token", "expires_in", "scope", "token_type"], "no refresh token, no ID token");
    let (_, info) = env.get_json(&format!("/tokeninfo?access_token={}", text(&online, "access_token")), None).await;
    assert_eq!(info["access_type"], json!("online"));
}

#[tokio::test]
async fn expired_access_tokens_get_googles_401_and_refresh_recovers() {
    let env = Env::new().await;
    env.google.world().token_lifetime_secs = 1;
    let tokens = env.sign_in(&[]).await;
    assert_eq!(tokens["expires_in"], json!(1));
    let access_token = text(&tokens, "access_token");
    assert_eq!(env.about(&access_token).await.0, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = env.about(&access_token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"]["errors"][0]["reason"], json!("authError"));
    assert!(text(&body["error"], "message").starts_with("Request had invalid authentication credentials."));
    let (status, info) = env.get_json(&format!("/tokeninfo?access_token={access_token}"), None).await;
    assert_eq!(
        (status, info),
        (StatusCode::BAD_REQUEST, json!({"error": "invalid_token", "error_description": "Invalid Value"}))
    );

    env.google.world().token_lifetime_secs = 0;
    let (status, refreshed) = env.refresh(&text(&tokens, "refresh_token")).await;
    assert_eq!((status, refreshed["expires_in"].clone()), (StatusCode::OK, json!(3599)));
    assert_eq!(env.about(&text(&refreshed, "access_token")).await.0, StatusCode::OK);

    // Tests can expire every token at once, fixtures included.
    let fixture = env.google.issue_token(Identity::user(ADA));
    assert_eq!(env.about(&fixture).await.0, StatusCode::OK);
    env.google.world().expire_access_tokens();
    assert_eq!(env.about(&fixture).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(env.about(&text(&refreshed, "access_token")).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn revocation_ends_the_refresh_token_and_its_access_tokens() {
    let env = Env::new().await;
    let revoke = |token: String| {
        let request = env.http.post(env.url("/revoke")).form(&[("token", token)]);
        async move {
            let response = request.send().await.expect("revoke answers");
            (response.status(), response.json::<Value>().await.expect("JSON"))
        }
    };
    let invalid_token = json!({"error": "invalid_token", "error_description": "Token expired or revoked"});

    let tokens = env.sign_in(&[]).await;
    let refresh_token = text(&tokens, "refresh_token");
    assert_eq!(revoke(refresh_token.clone()).await, (StatusCode::OK, json!({})));
    assert_eq!(env.about(&text(&tokens, "access_token")).await.0, StatusCode::UNAUTHORIZED);
    let (status, body) = env.refresh(&refresh_token).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
        )
    );
    assert_eq!(revoke(refresh_token).await, (StatusCode::BAD_REQUEST, invalid_token.clone()));

    // Revoking an access token revokes its refresh token too; `?token=` works as well as the form.
    let tokens = env.sign_in(&[]).await;
    let url = format!("{}?token={}", env.url("/revoke"), text(&tokens, "access_token"));
    let response = env.http.post(url).header("content-type", "application/x-www-form-urlencoded").send().await;
    assert_eq!(response.expect("revoke").status(), StatusCode::OK);
    assert_eq!(env.refresh(&text(&tokens, "refresh_token")).await.0, StatusCode::BAD_REQUEST);
    assert_eq!(revoke("ya29.unknown".to_owned()).await, (StatusCode::BAD_REQUEST, invalid_token));
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn out_of_band_revocation_answers_invalid_grant() {
    let env = Env::new().await;
    let tokens = env.sign_in(&[]).await;
    // Google expires the refresh tokens of an app in testing after 7 days.
    assert_eq!(env.google.world().revoke_refresh_tokens_of(ADA), 1);
    let (status, body) = env.refresh(&text(&tokens, "refresh_token")).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
        )
    );
    // The access token already issued lives on until it expires; removing all access ends it too.
    assert_eq!(env.about(&text(&tokens, "access_token")).await.0, StatusCode::OK);
    env.google.world().revoke_all_tokens_of(ADA);
    assert_eq!(env.about(&text(&tokens, "access_token")).await.0, StatusCode::UNAUTHORIZED);
    // Signing in again recovers.
    let again = env.sign_in(&[]).await;
    assert_eq!(env.refresh(&text(&again, "refresh_token")).await.0, StatusCode::OK);
}

#[tokio::test]
async fn tokeninfo_and_userinfo_describe_the_account() {
    let env = Env::new().await;
    let tokens = env.sign_in(&[]).await;
    let access_token = text(&tokens, "access_token");
    let (status, info) = env.get_json(&format!("/tokeninfo?access_token={access_token}"), None).await;
    assert_eq!(status, StatusCode::OK, "{info}");
    let keys: Vec<&str> = info.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["azp", "aud", "sub", "scope", "exp", "expires_in", "email", "email_verified", "access_type"]);
    assert_eq!((text(&info, "azp"), text(&info, "aud")), (CLIENT_ID.to_owned(), CLIENT_ID.to_owned()));
    assert_eq!(info["scope"], tokens["scope"]);
    assert_eq!((info["email"].clone(), info["email_verified"].clone()), (json!(ADA), json!("true")));
    assert_eq!(info["access_type"], json!("offline"));
    let expires_in: u64 = text(&info, "expires_in").parse().expect("a number as a string");
    assert!((3590..=3599).contains(&expires_in), "{info}");
    let sub = text(&info, "sub");
    assert!(sub.len() == 21 && sub.chars().all(|ch| ch.is_ascii_digit()), "{sub}");

    for path in ["/v1/userinfo", "/oauth2/v3/userinfo"] {
        let (status, user) = env.get_json(path, Some(&access_token)).await;
        assert_eq!(status, StatusCode::OK, "{user}");
        assert_eq!(user["sub"].as_str(), Some(sub.as_str()));
        assert_eq!((user["email"].clone(), user["email_verified"].clone()), (json!(ADA), json!(true)));
        assert_eq!((text(&user, "name"), text(&user, "given_name")), ("Ada Lovelace".into(), "Ada".into()));
        assert!(text(&user, "picture").starts_with("https://lh3.googleusercontent.com/"));
        let (status, body) = env.get_json(path, Some("ya29.nothing")).await;
        assert_eq!(
            (status, body),
            (StatusCode::UNAUTHORIZED, json!({"error": "invalid_request", "error_description": "Invalid Credentials"}))
        );
    }
    // Without the profile scope, userinfo has no name; without email, no address.
    let narrow = env.sign_in(&[("scope", "email")]).await;
    let (_, user) = env.get_json("/oauth2/v3/userinfo", Some(&text(&narrow, "access_token"))).await;
    assert_eq!(user, json!({ "sub": sub, "email": ADA, "email_verified": true }));
    let (status, _) = env.get_json("/tokeninfo?access_token=ya29.nothing", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn granted_scopes_accumulate_and_prompt_none_needs_a_prior_grant() {
    let env = Env::new().await;
    let pkce = pkce();
    let first = env.authorize(&pkce, &[("scope", "email")]).await;
    assert_eq!(param(&first, "prompt"), Some("consent"));
    let drive = "https://www.googleapis.com/auth/drive";
    let silent = env.authorize(&pkce, &[("scope", drive), ("prompt", "none")]).await;
    assert_eq!(param(&silent, "error"), Some("consent_required"));
    let more = env.authorize(&pkce, &[("scope", drive), ("include_granted_scopes", "true")]).await;
    assert_eq!(param(&more, "scope"), Some(format!("{EMAIL_SCOPE} {drive}").as_str()));
    let silent = env.authorize(&pkce, &[("scope", drive), ("prompt", "none")]).await;
    assert_eq!((param(&silent, "prompt"), param(&silent, "scope")), (Some("none"), Some(drive)));
}

/// A loopback listener standing in for Gatehouse's: answers one request and hands back its path and query.
async fn loopback() -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
    let redirect = format!("http://{}/callback", listener.local_addr().expect("addr"));
    let served = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.expect("the browser comes back");
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).await.expect("read");
            assert!(read > 0, "request ended early");
            request.extend_from_slice(&buffer[..read]);
        }
        let page = "You can close this tab.";
        let answer = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}", page.len());
        stream.write_all(answer.as_bytes()).await.expect("write");
        let request = String::from_utf8_lossy(&request).into_owned();
        request.split_whitespace().nth(1).expect("a request line").to_owned()
    });
    (redirect, served)
}

/// The value of `name="…" value="…"` in the page's form.
fn hidden(page: &str, name: &str) -> String {
    let start = page.find(&format!("name=\"{name}\" value=\"")).expect("the field") + name.len() + 15;
    page[start..].split('"').next().expect("a value").to_owned()
}

#[tokio::test]
async fn a_test_plays_the_browser_through_the_consent_page() {
    let env = Env::new().await;
    env.google.world().consent = ConsentMode::Page;
    let (redirect, served) = loopback().await;
    let pkce = pkce();
    let url = env.authorize_url(&pkce, &[("redirect_uri", &redirect), ("login_hint", GRACE)]);

    // The browser opens the authorization URL: a page with an account chooser and Allow / Cancel.
    let (status, location, page) = env.visit(&url).await;
    assert_eq!((status, location), (StatusCode::OK, None), "{page}");
    assert!(page.contains("Grace Hopper") && page.contains("Ada Lovelace"), "{page}");
    assert!(page.contains(&format!("value=\"{GRACE}\" checked")), "login_hint preselects: {page}");
    let action = page.split("action=\"").nth(1).and_then(|rest| rest.split('"').next()).expect("a form");
    let request = hidden(&page, "request");

    // The person picks Grace and allows; Google redirects to the loopback listener.
    let response = env
        .http
        .post(env.url(action))
        .form(&[("request", request.as_str()), ("account", GRACE), ("decision", "approve")])
        .send()
        .await
        .expect("consent answers");
    assert_eq!(response.status(), StatusCode::FOUND);
    let location = response.headers()["location"].to_str().expect("ascii").to_owned();
    assert!(location.starts_with(&redirect), "{location}");
    let closing = env.http.get(&location).send().await.expect("the loopback listener answers");
    assert_eq!(closing.text().await.expect("page"), "You can close this tab.");
    let callback = served.await.expect("served");
    let query = query_of(&format!("http://127.0.0.1{callback}"));
    assert_eq!(param(&query, "state"), Some("st4te/+ü"));

    let form = [
        ("grant_type", "authorization_code"),
        ("code", param(&query, "code").expect("code")),
        ("code_verifier", pkce.verifier.as_str()),
        ("redirect_uri", redirect.as_str()),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ];
    let (status, tokens) = env.post_token(&form).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let (_, about) = env.about(&text(&tokens, "access_token")).await;
    assert_eq!(about["user"]["emailAddress"], json!(GRACE));

    // A page answered once cannot be answered again; Cancel redirects with access_denied.
    let again = env.http.post(env.url(action)).form(&[("request", request.as_str()), ("decision", "approve")]);
    assert_eq!(again.send().await.expect("answers").status(), StatusCode::BAD_REQUEST);
    let (_, _, page) = env.visit(&url).await;
    let response = env
        .http
        .post(env.url(action))
        .form(&[("request", hidden(&page, "request").as_str()), ("decision", "deny")])
        .send()
        .await
        .expect("consent answers");
    let location = response.headers()["location"].to_str().expect("ascii").to_owned();
    assert_eq!(param(&query_of(&location), "error"), Some("access_denied"));
    env.assert_no_discovery_violations();
}

#[tokio::test]
async fn the_jwt_bearer_grant_still_issues_expiring_service_account_tokens() {
    let env = Env::new().await;
    let email = "robot@project.iam.gserviceaccount.com";
    env.google.world().service_accounts.push(ServiceAccountKey {
        email: email.to_owned(),
        public_key_pem: include_str!("../../../../tests/data/test-service-account.pub.pem").to_owned(),
    });
    let now = chrono::Utc::now().timestamp();
    let claims = json!({
        "iss": email,
        "scope": "https://www.googleapis.com/auth/drive",
        "aud": "https://oauth2.googleapis.com/token",
        "iat": now,
        "exp": now + 3600,
    });
    let key =
        jsonwebtoken::EncodingKey::from_rsa_pem(include_bytes!("../../../../tests/data/test-service-account.pem"))
            .expect("the test key");
    let assertion =
        jsonwebtoken::encode(&jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256), &claims, &key).expect("jwt");
    let (status, body) = env
        .post_token(&[("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", &assertion)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let keys: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["access_token", "expires_in", "token_type"]);
    let token = text(&body, "access_token");
    let access = env.google.world().tokens[&token].clone();
    assert!(access.identity.is_service_account() && access.expires_at.is_some());
    assert_eq!(access.scopes, ["https://www.googleapis.com/auth/drive"]);
    assert_eq!(env.about(&token).await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_metadata_server_answers_only_with_the_flavor_header() {
    let env = Env::new().await;
    let robot = "123456-compute@developer.gserviceaccount.com";
    env.google.world().metadata.service_account = Some(robot.to_owned());
    let metadata = env.google.start_metadata_server().expect("metadata server starts");
    assert!(metadata.url().ends_with(&metadata.host()));
    let token_path = "/computeMetadata/v1/instance/service-accounts/default/token";
    let get = |path: &str, flavored: bool| {
        let mut request = env.http.get(format!("{}{path}", metadata.url()));
        if flavored {
            request = request.header("Metadata-Flavor", "Google");
        }
        async move { request.send().await.expect("metadata answers") }
    };

    // Detection: the root answers with the flavor header, header or not.
    let root = get("/", false).await;
    assert_eq!(root.status(), StatusCode::OK);
    assert_eq!(root.headers()["metadata-flavor"], "Google");

    let refused = get(token_path, false).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(refused.text().await.expect("page").contains("Missing Metadata-Flavor:Google header."));

    let response = get(token_path, true).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["metadata-flavor"], "Google");
    let body: Value = response.json().await.expect("JSON");
    let keys: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["access_token", "expires_in", "token_type"]);
    let token = text(&body, "access_token");
    assert!(env.google.world().tokens[&token].identity.is_service_account());
    // The VM's default access scope, cloud-platform, opens no Workspace API, as at Google.
    let (status, refused) = env.about(&token).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["error"]["details"][0]["reason"], "ACCESS_TOKEN_SCOPE_INSUFFICIENT");

    let email = get("/computeMetadata/v1/instance/service-accounts/default/email", true).await;
    assert_eq!(email.text().await.expect("text"), robot);
    let info = get("/computeMetadata/v1/instance/service-accounts/default/?recursive=true", true).await;
    let info: Value = info.json().await.expect("JSON");
    assert_eq!(
        info,
        json!({ "aliases": ["default"], "email": robot, "scopes": ["https://www.googleapis.com/auth/cloud-platform"] })
    );
    let project = get("/computeMetadata/v1/project/project-id", true).await;
    assert_eq!(project.text().await.expect("text"), "gatehouse-test");
    let scoped = get(&format!("{token_path}?scopes=https://www.googleapis.com/auth/drive"), true).await;
    let scoped = text(&scoped.json::<Value>().await.expect("JSON"), "access_token");
    assert_eq!(env.google.world().tokens[&scoped].scopes, ["https://www.googleapis.com/auth/drive"]);
    let (status, about) = env.about(&scoped).await;
    assert_eq!(status, StatusCode::OK, "{about}");
    assert_eq!(about["user"]["emailAddress"], json!(robot));

    // A VM without a service account has no token to give.
    env.google.world().metadata.service_account = None;
    assert_eq!(get(token_path, true).await.status(), StatusCode::NOT_FOUND);
    drop(metadata);
}
