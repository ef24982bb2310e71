//! Where each Google API lives, and the one switch that moves them all.
//!
//! `GATEHOUSE_GOOGLE_ENDPOINT` replaces the scheme and host of every Google host with one root and keeps
//! Google's paths below it. Google's paths don't collide across APIs (`/v4/spreadsheets`, `/v1/documents`,
//! `/drive/v3`, `/v2/activity:query`, `/token`), so one emulator can answer them all.
//!
//! Because a config file (a project's `.mcp.json`) can set that variable, two rules keep it from becoming a
//! way to collect the person's credentials, and both live here:
//! - [`check_root`]: the root may only be this computer (loopback), so nothing is sent across the network;
//! - [`Endpoints::credential_url`]: a credential kept on this machine (a refresh token and its client
//!   secret) goes only to the place it was obtained from, so a sign-in made with Google is never sent to an
//!   emulator, nor an emulator's to Google.

use url::Url;

/// A Google API, by the `rootUrl` + `servicePath` its discovery document gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Sheets,
    Docs,
    Drive,
    DriveUpload,
    DriveActivity,
    Calendar,
    OAuth,
    /// Gmail v1 (`gmail.googleapis.com/gmail/v1/…`).
    Gmail,
    /// docs.google.com: the export links Drive hands out for old revisions of Docs Editors files.
    DocsEditors,
}

impl Api {
    /// Google's own base URL for the API (discovery `rootUrl` + `servicePath`).
    pub const fn google_base(self) -> &'static str {
        match self {
            Api::Sheets => "https://sheets.googleapis.com/",
            Api::Docs => "https://docs.googleapis.com/",
            Api::Drive => "https://www.googleapis.com/drive/v3/",
            Api::DriveUpload => "https://www.googleapis.com/upload/drive/v3/",
            Api::DriveActivity => "https://driveactivity.googleapis.com/",
            Api::Calendar => "https://www.googleapis.com/calendar/v3/",
            Api::OAuth => "https://oauth2.googleapis.com/",
            Api::Gmail => "https://gmail.googleapis.com/",
            Api::DocsEditors => "https://docs.google.com/",
        }
    }

    /// Whether this API answers errors in Drive's legacy shape (affects nothing but diagnostics).
    pub const fn name(self) -> &'static str {
        match self {
            Api::Sheets => "Google Sheets",
            Api::Docs => "Google Docs",
            Api::Drive | Api::DriveUpload | Api::DocsEditors => "Google Drive",
            Api::DriveActivity => "Google Drive Activity",
            Api::Calendar => "Google Calendar",
            Api::OAuth => "Google sign-in",
            Api::Gmail => "Gmail",
        }
    }
}

/// A `GATEHOUSE_GOOGLE_ENDPOINT` root that is not allowed, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RootRefused {
    #[error("its scheme is {0:?}, not http or https")]
    Scheme(String),
    #[error("it has no host")]
    NoHost,
    #[error(
        "its host {0} is not this computer (only 127.0.0.0/8, ::1 and localhost are allowed, so a setting in a project's file can't send your Google requests and sign-in elsewhere)"
    )]
    NotLoopback(String),
}

/// Whether `root` may replace Google's hosts: http or https to a loopback address (127.0.0.0/8, `::1`) or
/// `localhost`. Everything else could carry every request — and the access tokens in them — off this computer.
pub fn check_root(root: &Url) -> Result<(), RootRefused> {
    if !matches!(root.scheme(), "http" | "https") {
        return Err(RootRefused::Scheme(root.scheme().to_owned()));
    }
    let host = root.host().ok_or(RootRefused::NoHost)?;
    if is_loopback_host(&host) { Ok(()) } else { Err(RootRefused::NotLoopback(host.to_string())) }
}

/// Whether `host` names this computer: 127.0.0.0/8, `::1` (or `::ffff:127.x`), or `localhost`.
pub fn is_loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
    }
}

/// A kept credential that was not sent, because it belongs to another place than the one requests go to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} was obtained from {from}, so Gatehouse does not send it to {to}. {remedy}")]
pub struct CredentialRefused {
    what: String,
    from: String,
    to: String,
    remedy: &'static str,
}

/// Builds request URLs, optionally rerouting every Google host to one root.
#[derive(Debug, Clone, Default)]
pub struct Endpoints {
    root: Option<Url>,
}

/// Hosts that belong to Google and move with `GATEHOUSE_GOOGLE_ENDPOINT`.
const GOOGLE_HOST_SUFFIXES: [&str; 2] = [".googleapis.com", ".google.com"];

impl Endpoints {
    /// `root` replaces the scheme and host of every Google URL; `None` talks to Google.
    pub fn new(root: Option<Url>) -> Self {
        Self { root }
    }

    /// Whether requests go somewhere other than Google.
    pub fn is_rerouted(&self) -> bool {
        self.root.is_some()
    }

    /// The root requests go to instead of Google, when one is set. A sign-in made now is recorded with it
    /// (see [`Endpoints::credential_url`]).
    pub fn root(&self) -> Option<&Url> {
        self.root.as_ref()
    }

    /// Where a credential kept on this machine may be sent: `url` (a Google token or revoke URL, or the
    /// credential's own non-Google `token_uri`) rerouted as usual — but only when the credential was obtained
    /// from where requests go now. `obtained_from` is the root in force when it was obtained (`None`: Google).
    ///
    /// This is the one rule for every kept credential: the person's sign-in (keychain or token file, refresh
    /// token and client secret), gcloud's `authorized_user` file, and the OAuth client secret a sign-in sends.
    /// A service-account key needs no such check: its private key never leaves this computer, and the assertion
    /// it signs names the URL it is sent to as its audience, so it is worth nothing anywhere else
    /// ([`ServiceAccount`](super::auth::ServiceAccount)).
    ///
    /// A URL that is not Google's is not moved by the root: it goes where the credential itself says.
    pub fn credential_url(
        &self,
        url: &str,
        obtained_from: Option<&str>,
        what: &str,
    ) -> Result<String, CredentialRefused> {
        if !is_google_url(url) {
            return Ok(url.to_owned());
        }
        let from = obtained_from.map(|from| Url::parse(from).map_err(|_| from.to_owned()));
        let same = match (&from, &self.root) {
            (None, None) => true,
            (Some(Ok(from)), Some(root)) => from == root,
            _ => false,
        };
        if same {
            return Ok(self.reroute(url));
        }
        let place = |root: Option<&str>| match root {
            None => "Google".to_owned(),
            Some(root) => format!("{root} (GATEHOUSE_GOOGLE_ENDPOINT)"),
        };
        let from_text = match &from {
            None => None,
            Some(Ok(url)) => Some(url.as_str().to_owned()),
            Some(Err(raw)) => Some(raw.clone()),
        };
        Err(CredentialRefused {
            what: what.to_owned(),
            from: place(from_text.as_deref()),
            to: place(self.root.as_ref().map(Url::as_str)),
            remedy: if self.root.is_some() {
                "Unset GATEHOUSE_GOOGLE_ENDPOINT to use it with Google; with an emulator, sign in while GATEHOUSE_GOOGLE_ENDPOINT names that emulator."
            } else {
                "Sign in to Google again (`gatehouse login`, or Sign in with Google in the app)."
            },
        })
    }

    /// The full URL of `path` (already percent-encoded where needed) under `api`.
    pub fn url(&self, api: Api, path: &str) -> String {
        self.reroute(&format!("{}{}", api.google_base(), path.trim_start_matches('/')))
    }

    /// The URL of a Workspace product's MCP server: Google's `https://<P>mcp.googleapis.com/mcp/v1` (or
    /// `/mcp/v1self`, for hosts that cannot show Google's approval forms). Under a root the rule the emulator
    /// keeps applies instead: `<root>/mcp/<P>/v1` (`crates/google-fake/MCP.md`), because Google's own path is the
    /// same for every product and the root replaces the host that tells them apart.
    pub fn mcp_url(&self, product: &str, self_service: bool) -> String {
        let segment = if self_service { "v1self" } else { "v1" };
        match &self.root {
            None => format!("https://{product}mcp.googleapis.com/mcp/{segment}"),
            Some(root) => format!("{}/mcp/{product}/{segment}", root.as_str().trim_end_matches('/')),
        }
    }

    /// Maps any Google URL onto the root when one is set; other URLs pass unchanged (a service account's
    /// `token_uri` pointing elsewhere is honoured as written).
    pub fn reroute(&self, url: &str) -> String {
        let Some(root) = &self.root else { return url.to_owned() };
        let Ok(parsed) = Url::parse(url) else { return url.to_owned() };
        if !is_google_host(&parsed) {
            return url.to_owned();
        }
        let mut out = root.as_str().trim_end_matches('/').to_owned();
        out.push_str(parsed.path());
        if let Some(query) = parsed.query() {
            out.push('?');
            out.push_str(query);
        }
        out
    }
}

/// Whether `url` is on one of Google's hosts (those the root moves).
fn is_google_url(url: &str) -> bool {
    Url::parse(url).is_ok_and(|parsed| is_google_host(&parsed))
}

fn is_google_host(url: &Url) -> bool {
    url.host_str()
        .is_some_and(|host| GOOGLE_HOST_SUFFIXES.iter().any(|suffix| host.ends_with(suffix) || host == &suffix[1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_paths_are_kept_below_the_root() {
        let endpoints = Endpoints::new(Some(Url::parse("http://127.0.0.1:9000").unwrap()));
        assert_eq!(endpoints.url(Api::Sheets, "v4/spreadsheets/abc"), "http://127.0.0.1:9000/v4/spreadsheets/abc");
        assert_eq!(endpoints.url(Api::Drive, "files"), "http://127.0.0.1:9000/drive/v3/files");
        assert_eq!(endpoints.url(Api::DriveUpload, "files"), "http://127.0.0.1:9000/upload/drive/v3/files");
        assert_eq!(endpoints.url(Api::OAuth, "token"), "http://127.0.0.1:9000/token");
        assert_eq!(endpoints.url(Api::DriveActivity, "v2/activity:query"), "http://127.0.0.1:9000/v2/activity:query");
    }

    #[test]
    fn mcp_servers_follow_the_emulator_rule_below_a_root() {
        let google = Endpoints::default();
        assert_eq!(google.mcp_url("sheets", false), "https://sheetsmcp.googleapis.com/mcp/v1");
        assert_eq!(google.mcp_url("drive", true), "https://drivemcp.googleapis.com/mcp/v1self");
        let rerouted = Endpoints::new(Some(Url::parse("http://127.0.0.1:9000/").unwrap()));
        assert_eq!(rerouted.mcp_url("docs", false), "http://127.0.0.1:9000/mcp/docs/v1");
        assert_eq!(rerouted.mcp_url("gmail", true), "http://127.0.0.1:9000/mcp/gmail/v1self");
    }

    #[test]
    fn without_a_root_requests_go_to_google() {
        let endpoints = Endpoints::default();
        assert_eq!(endpoints.url(Api::Docs, "v1/documents/x"), "https://docs.googleapis.com/v1/documents/x");
    }

    #[test]
    fn non_google_urls_are_honoured_as_written() {
        let endpoints = Endpoints::new(Some(Url::parse("http://127.0.0.1:9000/").unwrap()));
        assert_eq!(endpoints.reroute("https://oauth2.googleapis.com/token?x=1"), "http://127.0.0.1:9000/token?x=1");
        assert_eq!(endpoints.reroute("http://127.0.0.1:5555/token"), "http://127.0.0.1:5555/token");
        assert_eq!(endpoints.reroute("https://evilgoogleapis.com/token"), "https://evilgoogleapis.com/token");
    }

    #[test]
    fn only_loopback_roots_are_allowed() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.9.8.7/",
            "http://[::1]:9000",
            "https://localhost:1",
            "http://LOCALHOST",
        ] {
            assert_eq!(check_root(&Url::parse(ok).unwrap()), Ok(()), "{ok}");
        }
        for bad in [
            "http://attacker.example:8080",
            "https://10.0.0.1",
            "http://127.0.0.1.attacker.example",
            "http://localhost.attacker.example",
            "http://[::ffff:10.0.0.1]",
            "http://0.0.0.0:80",
        ] {
            let refused = check_root(&Url::parse(bad).unwrap());
            assert!(matches!(refused, Err(RootRefused::NotLoopback(_))), "{bad}: {refused:?}");
        }
        assert!(matches!(
            check_root(&Url::parse("file:///tmp/x").unwrap()),
            Err(RootRefused::Scheme(_) | RootRefused::NoHost)
        ));
    }

    #[test]
    fn a_kept_credential_goes_only_where_it_was_obtained() {
        let emulator = "http://127.0.0.1:9000/";
        let google = Endpoints::default();
        let rerouted = Endpoints::new(Some(Url::parse(emulator).unwrap()));
        let token = "https://oauth2.googleapis.com/token";
        // Obtained from Google: sent to Google, never to the emulator.
        assert_eq!(google.credential_url(token, None, "x").unwrap(), token);
        let refused = rerouted.credential_url(token, None, "The sign-in of ada@example.com").unwrap_err().to_string();
        assert!(refused.contains("ada@example.com was obtained from Google"), "{refused}");
        assert!(
            refused.contains("does not send it to http://127.0.0.1:9000/ (GATEHOUSE_GOOGLE_ENDPOINT)"),
            "{refused}"
        );
        // Obtained from the emulator: sent to that emulator only.
        assert_eq!(
            rerouted.credential_url(token, Some("http://127.0.0.1:9000"), "x").unwrap(),
            "http://127.0.0.1:9000/token"
        );
        assert!(rerouted.credential_url(token, Some("http://127.0.0.1:9001/"), "x").is_err());
        assert!(google.credential_url(token, Some(emulator), "x").is_err());
        assert!(rerouted.credential_url(token, Some("not a url"), "x").is_err());
        // A credential naming its own, non-Google token endpoint is sent there as written.
        assert_eq!(
            rerouted.credential_url("http://127.0.0.1:5555/token", None, "x").unwrap(),
            "http://127.0.0.1:5555/token"
        );
    }
}
