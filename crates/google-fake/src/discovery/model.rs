//! The discovery model: every method of every resource of the four APIs, with its path templates, query
//! parameters and request/response schemas, read from Google's discovery documents.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

/// The embedded discovery documents, exactly as Google publishes them.
pub(super) const DOCUMENTS: &[(&str, &str)] = &[
    ("sheets.v4.json", include_str!("../../discovery/sheets.v4.json")),
    ("docs.v1.json", include_str!("../../discovery/docs.v1.json")),
    ("drive.v3.json", include_str!("../../discovery/drive.v3.json")),
    ("driveactivity.v2.json", include_str!("../../discovery/driveactivity.v2.json")),
    ("gmail.v1.json", include_str!("../../discovery/gmail.v1.json")),
    ("calendar.v3.json", include_str!("../../discovery/calendar.v3.json")),
    ("slides.v1.json", include_str!("../../discovery/slides.v1.json")),
];

/// Every API the emulator serves, as its discovery documents describe it.
#[derive(Debug)]
pub struct Discovery {
    apis: Vec<Api>,
}

/// One discovery document (`sheets:v4`, `docs:v1`, `drive:v3`, `driveactivity:v2`).
#[derive(Debug)]
pub struct Api {
    /// `sheets`, `docs`, `drive`, `driveactivity`.
    pub name: String,
    pub version: String,
    /// e.g. `https://www.googleapis.com/`.
    pub root_url: String,
    /// e.g. `drive/v3/`.
    pub service_path: String,
    /// The batch endpoint relative to `root_url` (`batch`, `batch/drive/v3`).
    pub batch_path: Option<String>,
    /// The parameters every method of the API accepts (`fields`, `alt`, `key`, `$.xgafv`, …).
    pub parameters: BTreeMap<String, Parameter>,
    pub schemas: HashMap<String, Schema>,
    pub methods: Vec<Method>,
}

/// One method of a resource, e.g. `sheets.spreadsheets.values.get`.
#[derive(Debug)]
pub struct Method {
    /// The discovery id, e.g. `drive.files.update`.
    pub id: String,
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`.
    pub http_method: String,
    /// The full URL template: `rootUrl + servicePath + path`.
    pub path: String,
    /// Media upload URL templates (`mediaUpload.protocols.*.path`), absolute on the root's host, e.g.
    /// `/upload/drive/v3/files`.
    pub upload_paths: Vec<String>,
    /// The method's own parameters (path and query); the API's common ones are in [`Api::parameters`].
    pub parameters: BTreeMap<String, Parameter>,
    /// The request body schema (`$ref` into the API's `schemas`).
    pub request: Option<String>,
    /// The response body schema (`$ref` into the API's `schemas`).
    pub response: Option<String>,
    pub supports_media_download: bool,
    pub supports_media_upload: bool,
    /// The OAuth scopes the method accepts: a token needs at least one of them (see [`crate::scopes`]).
    pub scopes: Vec<String>,
    templates: Vec<Template>,
}

/// A method or API parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Parameter {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub format: Option<String>,
    /// `query` or `path`.
    pub location: Option<String>,
    #[serde(default)]
    pub repeated: bool,
    #[serde(default)]
    pub required: bool,
    #[serde(default, rename = "enum")]
    pub enum_values: Vec<String>,
}

/// A JSON schema as discovery documents write them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schema {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub format: Option<String>,
    #[serde(rename = "$ref")]
    pub reference: Option<String>,
    #[serde(default)]
    pub properties: BTreeMap<String, Schema>,
    pub items: Option<Box<Schema>>,
    pub additional_properties: Option<Box<Schema>>,
    #[serde(default, rename = "enum")]
    pub enum_values: Vec<String>,
    #[serde(default)]
    pub read_only: bool,
}

/// A request path matched to a discovery method.
#[derive(Debug, Clone, Copy)]
pub struct Match<'a> {
    pub api: &'a Api,
    pub method: &'a Method,
    /// The path matched one of the method's media upload paths, not its plain path.
    pub upload: bool,
}

/// Why a request path has no discovery method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// No method has a path template matching the path.
    UnknownPath,
    /// Templates match the path, but for other HTTP methods (listed).
    UnknownMethod(Vec<String>),
}

#[derive(Debug, Clone)]
struct Template {
    segments: Vec<Segment>,
    upload: bool,
    /// How literal the template is (literal segments first, then fixed characters around parameters), to
    /// prefer `files/generateIds` over `files/{fileId}`.
    specificity: usize,
}

#[derive(Debug, Clone)]
enum Segment {
    /// A fixed segment, custom verbs included (`values:batchGet`, `activity:query`).
    Literal(String),
    /// `prefix{name}suffix` (`{spreadsheetId}:batchUpdate`); `{+name}` (`reserved`) may span segments.
    Param { prefix: String, suffix: String, reserved: bool },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDocument {
    name: String,
    version: String,
    root_url: String,
    #[serde(default)]
    service_path: String,
    batch_path: Option<String>,
    #[serde(default)]
    parameters: BTreeMap<String, Parameter>,
    #[serde(default)]
    schemas: HashMap<String, Schema>,
    #[serde(default)]
    resources: BTreeMap<String, RawResource>,
    #[serde(default)]
    methods: BTreeMap<String, RawMethod>,
}

#[derive(Deserialize)]
struct RawResource {
    #[serde(default)]
    resources: BTreeMap<String, RawResource>,
    #[serde(default)]
    methods: BTreeMap<String, RawMethod>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMethod {
    id: String,
    http_method: String,
    path: String,
    #[serde(default)]
    parameters: BTreeMap<String, Parameter>,
    request: Option<RawRef>,
    response: Option<RawRef>,
    #[serde(default)]
    supports_media_download: bool,
    #[serde(default)]
    supports_media_upload: bool,
    media_upload: Option<RawMediaUpload>,
    #[serde(default)]
    scopes: Vec<String>,
}

#[derive(Deserialize)]
struct RawRef {
    #[serde(rename = "$ref")]
    reference: String,
}

#[derive(Deserialize)]
struct RawMediaUpload {
    #[serde(default)]
    protocols: BTreeMap<String, RawProtocol>,
}

#[derive(Deserialize)]
struct RawProtocol {
    path: String,
}

impl Discovery {
    /// Parses the embedded discovery documents.
    pub(super) fn load() -> Result<Self, String> {
        let apis = DOCUMENTS
            .iter()
            .map(|(file, text)| Api::parse(text).map_err(|error| format!("{file}: {error}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { apis })
    }

    pub fn apis(&self) -> &[Api] {
        &self.apis
    }

    /// The API named `name` (`sheets`, `docs`, `drive`, `driveactivity`).
    pub fn api(&self, name: &str) -> Option<&Api> {
        self.apis.iter().find(|api| api.name == name)
    }

    /// Every method of every API.
    pub fn methods(&self) -> impl Iterator<Item = &Method> {
        self.apis.iter().flat_map(|api| api.methods.iter())
    }

    /// The method with discovery id `id`, e.g. `sheets.spreadsheets.values.batchGet`.
    pub fn method(&self, id: &str) -> Option<&Method> {
        self.methods().find(|method| method.id == id)
    }

    /// The method serving `http_method` on `path` (the URL path as sent, percent-encoded; every Google
    /// host maps onto one root). The most literal template wins, as in Google's routing
    /// (`files/generateIds` over `files/{fileId}`).
    pub fn find(&self, http_method: &str, path: &str) -> Result<Match<'_>, Miss> {
        let segments = split_path(path);
        let mut best: Option<(usize, Match<'_>)> = None;
        let mut other_methods = Vec::new();
        for api in &self.apis {
            for method in &api.methods {
                for template in &method.templates {
                    if !template.matches(&segments) {
                        continue;
                    }
                    if !method.http_method.eq_ignore_ascii_case(http_method) {
                        if !other_methods.contains(&method.http_method) {
                            other_methods.push(method.http_method.clone());
                        }
                        continue;
                    }
                    if best.as_ref().is_none_or(|(specificity, _)| template.specificity > *specificity) {
                        let found = Match { api, method, upload: template.upload };
                        best = Some((template.specificity, found));
                    }
                }
            }
        }
        match best {
            Some((_, found)) => Ok(found),
            None if other_methods.is_empty() => Err(Miss::UnknownPath),
            None => Err(Miss::UnknownMethod(other_methods)),
        }
    }

    /// The method a request belongs to, as [`Discovery::find`], except that the chunks of a resumable
    /// upload session (`PUT` with `upload_id` in the query) belong to the upload method whose URI the
    /// session was started on.
    pub fn find_request(&self, http_method: &str, path: &str, in_upload_session: bool) -> Result<Match<'_>, Miss> {
        match self.find(http_method, path) {
            Err(Miss::UnknownMethod(methods)) if in_upload_session && http_method.eq_ignore_ascii_case("PUT") => {
                methods
                    .iter()
                    .find_map(|method| self.find(method, path).ok().filter(|found| found.upload))
                    .ok_or(Miss::UnknownMethod(methods))
            }
            other => other,
        }
    }
}

impl Api {
    fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let raw: RawDocument = serde_json::from_str(text)?;
        let base = format!("{}{}", url_path(&raw.root_url), raw.service_path);
        let mut methods = Vec::new();
        collect_methods(&raw.methods, &raw.resources, &raw.root_url, &raw.service_path, &base, &mut methods);
        Ok(Self {
            name: raw.name,
            version: raw.version,
            root_url: raw.root_url,
            service_path: raw.service_path,
            batch_path: raw.batch_path,
            parameters: raw.parameters,
            schemas: raw.schemas,
            methods,
        })
    }

    /// The schema named `name`.
    pub fn schema(&self, name: &str) -> Option<&Schema> {
        self.schemas.get(name)
    }

    /// The host Google's front end names the API by in errors (`service` of an `ErrorInfo`):
    /// `drive.googleapis.com` although Drive's `rootUrl` is `www.googleapis.com`.
    pub fn service_name(&self) -> String {
        format!("{}.googleapis.com", self.name)
    }

    /// The absolute path of the API's batch endpoint, e.g. `/batch/drive/v3`.
    pub fn batch_url_path(&self) -> Option<String> {
        self.batch_path.as_ref().map(|batch| format!("{}{batch}", url_path(&self.root_url)))
    }
}

impl Method {
    /// The query parameter `name` of this method (its own, or one common to `api`).
    pub fn query_parameter<'a>(&'a self, api: &'a Api, name: &str) -> Option<&'a Parameter> {
        match self.parameters.get(name) {
            Some(parameter) if parameter.location.as_deref() != Some("path") => Some(parameter),
            Some(_) => None,
            None => api.parameters.get(name),
        }
    }
}

fn collect_methods(
    methods: &BTreeMap<String, RawMethod>,
    resources: &BTreeMap<String, RawResource>,
    root_url: &str,
    service_path: &str,
    base: &str,
    out: &mut Vec<Method>,
) {
    for raw in methods.values() {
        let mut templates = vec![Template::parse(&format!("{base}{}", raw.path), false)];
        let upload_paths: Vec<String> = raw
            .media_upload
            .iter()
            .flat_map(|upload| upload.protocols.values())
            .map(|protocol| protocol.path.clone())
            .collect();
        templates.extend(upload_paths.iter().map(|path| Template::parse(path, true)));
        out.push(Method {
            id: raw.id.clone(),
            http_method: raw.http_method.to_ascii_uppercase(),
            path: format!("{root_url}{service_path}{}", raw.path),
            upload_paths,
            parameters: raw.parameters.clone(),
            request: raw.request.as_ref().map(|r| r.reference.clone()),
            response: raw.response.as_ref().map(|r| r.reference.clone()),
            supports_media_download: raw.supports_media_download,
            supports_media_upload: raw.supports_media_upload,
            scopes: raw.scopes.clone(),
            templates,
        });
    }
    for resource in resources.values() {
        collect_methods(&resource.methods, &resource.resources, root_url, service_path, base, out);
    }
}

/// The path part of a root URL: `https://www.googleapis.com/` → `/`.
fn url_path(root_url: &str) -> &str {
    let after_scheme = root_url.split_once("://").map_or(root_url, |(_, rest)| rest);
    after_scheme.find('/').map_or("/", |slash| &after_scheme[slash..])
}

/// Splits a request path on `/` (so an encoded `%2F` stays inside its segment), then percent-decodes
/// each segment.
fn split_path(path: &str) -> Vec<String> {
    path.trim_start_matches('/')
        .split('/')
        .map(|segment| percent_encoding::percent_decode_str(segment).decode_utf8_lossy().into_owned())
        .collect()
}

impl Template {
    fn parse(path: &str, upload: bool) -> Self {
        let segments: Vec<Segment> = path
            .trim_start_matches('/')
            .split('/')
            .map(|segment| match (segment.find('{'), segment.find('}')) {
                (Some(open), Some(close)) if open < close => {
                    let name = &segment[open + 1..close];
                    Segment::Param {
                        prefix: segment[..open].to_owned(),
                        suffix: segment[close + 1..].to_owned(),
                        reserved: name.starts_with('+'),
                    }
                }
                _ => Segment::Literal(segment.to_owned()),
            })
            .collect();
        let specificity = segments
            .iter()
            .map(|segment| match segment {
                Segment::Literal(_) => 1000,
                Segment::Param { prefix, suffix, .. } => prefix.len() + suffix.len(),
            })
            .sum();
        Self { segments, upload, specificity }
    }

    fn matches(&self, path: &[String]) -> bool {
        match_segments(&self.segments, path)
    }
}

fn match_segments(template: &[Segment], path: &[String]) -> bool {
    let Some((first, rest)) = template.split_first() else {
        return path.is_empty();
    };
    match first {
        Segment::Literal(literal) => {
            path.first().is_some_and(|segment| segment == literal) && match_segments(rest, &path[1..])
        }
        Segment::Param { prefix, suffix, reserved: false } => {
            path.first().is_some_and(|segment| fills(segment, prefix, suffix)) && match_segments(rest, &path[1..])
        }
        Segment::Param { prefix, suffix, reserved: true } => {
            // `{+name}` expands to one or more segments, `/` included.
            (1..=path.len()).any(|take| {
                let joined = path[..take].join("/");
                fills(&joined, prefix, suffix) && match_segments(rest, &path[take..])
            })
        }
    }
}

/// Whether `segment` is `prefix`, a non-empty value, then `suffix`.
fn fills(segment: &str, prefix: &str, suffix: &str) -> bool {
    segment.len() > prefix.len() + suffix.len() && segment.starts_with(prefix) && segment.ends_with(suffix)
}

#[cfg(test)]
mod tests {
    use super::{Template, split_path};

    fn matches(template: &str, path: &str) -> bool {
        Template::parse(template, false).matches(&split_path(path))
    }

    #[test]
    fn reserved_expansion_spans_segments_and_keeps_its_verb() {
        assert!(matches("/v1/{+name}", "/v1/operations/abc"));
        assert!(matches("/v1/{+name}:cancel", "/v1/operations/abc:cancel"));
        assert!(!matches("/v1/{+name}:cancel", "/v1/operations/abc"));
        assert!(!matches("/v1/{name}", "/v1/operations/abc"));
        assert!(matches("/v1/{name}", "/v1/operations%2Fabc"));
        assert!(!matches("/v1/{name}:cancel", "/v1/:cancel"));
    }
}
