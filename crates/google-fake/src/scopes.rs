//! OAuth scopes, enforced as Google's API front end enforces them: a request's bearer token must carry at
//! least one of the scopes its discovery method lists (`scopes` in `discovery/*.json`), else the front end
//! answers 403 `insufficientPermissions` / `ACCESS_TOKEN_SCOPE_INSUFFICIENT` before the API sees it.
//!
//! The discovery documents already encode Google's scope semantics: `drive` is listed by every Drive
//! method, `drive.readonly` only by the read ones; `spreadsheets.readonly` and `documents.readonly` only by
//! the read methods of Sheets and Docs, which also accept the Drive scopes. Media uploads
//! (`/upload/drive/v3/files`) and downloads (`alt=media`) are the `files.create` / `files.update` /
//! `files.get` methods they belong to; `files.export` is its own method.
//!
//! Known leniency: `drive.file` grants access only to the files the app created or the person opened with
//! it. The emulator accepts a `drive.file` token wherever discovery lists the scope, on every file.
//!
//! The one caller is `Call::run` (`call.rs`), right after the bearer token is authenticated: every API
//! handler goes through it, and an unknown or expired token is a 401 before any scope is looked at.

use crate::discovery;
use crate::errors::ApiError;

/// The query parameter of a resumable upload's session URI (see [`discovery::Discovery::find_request`]).
const UPLOAD_ID: &str = "upload_id";

/// Whether a token granted `granted` may call the method serving `http_method` on `path` (with the raw
/// `query`); Google's 403 otherwise. Requests no discovery method serves are left to their handler (which
/// answers 404), and so is everything when the discovery model did not load: without scope data there is
/// nothing to enforce.
pub(crate) fn require(granted: &[String], http_method: &str, path: &str, query: Option<&str>) -> Result<(), ApiError> {
    let Ok(model) = discovery::model() else { return Ok(()) };
    let in_session =
        query.is_some_and(|query| url::form_urlencoded::parse(query.as_bytes()).any(|(name, _)| name == UPLOAD_ID));
    let Ok(found) = model.find_request(http_method, path, in_session) else { return Ok(()) };
    let accepted = &found.method.scopes;
    if accepted.is_empty() || accepted.iter().any(|scope| granted.contains(scope)) {
        return Ok(());
    }
    Err(ApiError::insufficient_scopes(&found.api.service_name(), &found.method.id, accepted))
}

#[cfg(test)]
mod tests {
    use super::require;

    const DRIVE: &str = "https://www.googleapis.com/auth/drive";
    const DRIVE_READONLY: &str = "https://www.googleapis.com/auth/drive.readonly";
    const DRIVE_FILE: &str = "https://www.googleapis.com/auth/drive.file";
    const SHEETS_READONLY: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";

    fn allowed(granted: &[&str], method: &str, path: &str, query: Option<&str>) -> bool {
        let granted: Vec<String> = granted.iter().map(|scope| (*scope).to_owned()).collect();
        require(&granted, method, path, query).is_ok()
    }

    #[test]
    fn drive_covers_everything_and_readonly_only_reads() {
        for (method, path, query) in [
            ("GET", "/drive/v3/files", None),
            ("POST", "/drive/v3/files", None),
            ("POST", "/upload/drive/v3/files", Some("uploadType=multipart")),
            ("PATCH", "/upload/drive/v3/files/abc", Some("uploadType=media")),
            ("DELETE", "/drive/v3/files/abc", None),
            ("GET", "/v4/spreadsheets/abc/values/A1", None),
            ("POST", "/v1/documents/abc:batchUpdate", None),
        ] {
            assert!(allowed(&[DRIVE], method, path, query), "{method} {path}");
        }
        assert!(allowed(&[DRIVE_READONLY], "GET", "/drive/v3/files/abc", Some("alt=media")));
        assert!(allowed(&[DRIVE_READONLY], "GET", "/drive/v3/files/abc/export", Some("mimeType=text/plain")));
        assert!(!allowed(&[DRIVE_READONLY], "POST", "/upload/drive/v3/files", Some("uploadType=resumable")));
        assert!(!allowed(&[DRIVE_READONLY], "PATCH", "/drive/v3/files/abc", None));
        assert!(allowed(&[DRIVE_FILE], "POST", "/drive/v3/files", None), "drive.file is taken where listed");
    }

    #[test]
    fn the_403_names_the_service_and_the_accepted_scopes() {
        let granted = vec![SHEETS_READONLY.to_owned()];
        let error = require(&granted, "PUT", "/v4/spreadsheets/abc/values/Sheet1!A1", None).unwrap_err();
        let body = error.body();
        assert_eq!(body["error"]["details"][0]["metadata"]["service"], "sheets.googleapis.com");
        assert_eq!(body["error"]["details"][0]["metadata"]["method"], "sheets.spreadsheets.values.update");
        let challenge = &error.frontend.as_ref().unwrap().challenge;
        assert!(challenge.contains("scope=\"https://www.googleapis.com/auth/drive "), "{challenge}");
        assert!(!challenge.contains("readonly"), "{challenge}");
    }

    #[test]
    fn paths_outside_discovery_are_left_to_their_handler() {
        assert!(allowed(&[], "GET", "/v4/nowhere", None));
    }
}
