//! Where each Google API lives, and the one switch that moves them all.
//!
//! `GATEHOUSE_GOOGLE_ENDPOINT` replaces the scheme and host of every Google host with one root and keeps
//! Google's paths below it. Google's paths don't collide across APIs (`/v4/spreadsheets`, `/v1/documents`,
//! `/drive/v3`, `/v2/activity:query`, `/token`), so one emulator can answer them all.

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

    /// The full URL of `path` (already percent-encoded where needed) under `api`.
    pub fn url(&self, api: Api, path: &str) -> String {
        self.reroute(&format!("{}{}", api.google_base(), path.trim_start_matches('/')))
    }

    /// Maps any Google URL onto the root when one is set; other URLs pass unchanged (a service account's
    /// `token_uri` pointing elsewhere is honoured as written).
    pub fn reroute(&self, url: &str) -> String {
        let Some(root) = &self.root else { return url.to_owned() };
        let Ok(parsed) = Url::parse(url) else { return url.to_owned() };
        let is_google = parsed.host_str().is_some_and(|host| {
            GOOGLE_HOST_SUFFIXES.iter().any(|suffix| host.ends_with(suffix) || host == &suffix[1..])
        });
        if !is_google {
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
}
