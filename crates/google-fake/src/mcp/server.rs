//! One MCP server (a product at one endpoint): `tools/list`, and `tools/call` with Google's approval forms.
//!
//! A call Google would ask about ([`Gate`]) answers, on `/mcp/v1`, an `InputRequiredResult` whose
//! `inputRequests` hold one `elicitation/create` form under the key [`APPROVAL`] (a message naming the action
//! and its target; an empty `requestedSchema`: accepting is *Allow once*, declining *Don't allow*), with a
//! sealed `requestState` ([`super::approval`]). The client repeats the same call with `inputResponses` and the
//! `requestState`: `accept` runs it; `decline` and `cancel` leave everything as it was and answer a tool error
//! in words; a `requestState` for other arguments, another tool or another account is refused (JSON-RPC
//! `-32602`), and so is one answered before. A client that did not declare form elicitation gets
//! `MissingRequiredClientCapability` (`-32021`), a 2025-11-25 client a tool error (the form needs
//! 2026-07-28). On `/mcp/v1self` such calls are refused with a tool error, and the tools that always ask are
//! not listed.

use std::borrow::Cow;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, ElicitationCapability,
    FormElicitationCapability, Implementation, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use super::approval::binding;
use super::guard::Caller;
use super::tools::{self, Gate, ToolDef};
use super::{Endpoint, Product};
use crate::Shared;
use crate::drive::{DOCUMENT, FOLDER, SPREADSHEET};
use crate::state::Identity;

/// The key of the approval form in `inputRequests` / `inputResponses`.
pub(crate) const APPROVAL: &str = "approval";

/// What the emulator's servers speak: 2026-07-28, and 2025-11-25 for older clients (Google: "backward
/// compatible with 2025-11-25").
const VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25];

/// The REST fields the Drive server's `File` is made from ([`mcp_file`]).
const FILE_FIELDS: &str = "id,name,mimeType,parents,size,description,fileExtension,webViewLink,sharedWithMeTime,createdTime,modifiedTime,viewedByMeTime,owners";

/// Path segments and query values are percent-encoded as Google's client libraries do.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// What a read asked to include comments answers: the emulator keeps comments in Drive only.
const NO_COMMENTS: &str =
    "The emulator does not include comments in reads of a file's content; leave commentsIncluded out.";

const MIME_PRESENTATION: &str = "application/vnd.google-apps.presentation";

/// One product's server at one endpoint.
#[derive(Clone)]
pub(super) struct GoogleMcp {
    shared: Shared,
    product: Product,
    endpoint: Endpoint,
    /// The emulator's REST router: each tool runs as the REST request it corresponds to.
    rest: Router,
}

/// A tool call's outcome before it becomes MCP: Google's answer, or a refusal in words.
type Outcome = Result<CallToolResult, String>;

impl GoogleMcp {
    pub(super) fn new(shared: Shared, product: Product, endpoint: Endpoint, rest: Router) -> Self {
        Self { shared, product, endpoint, rest }
    }

    /// Whether `endpoint` lists `tool`: `/mcp/v1self` leaves out the tools that always ask.
    fn offers(&self, tool: &ToolDef) -> bool {
        self.endpoint == Endpoint::Full || tool.gate != Gate::Always
    }

    /// The caller the guard let through (rmcp hands the handler the request's parts).
    fn caller(context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("The request did not pass the emulator's guard.", None))
    }

    /// Whether the item a call reads is owned by someone other than `who` (reading it asks first): a Drive
    /// item's owner (shared-drive items have none and count as the account's), a calendar other than the
    /// account's own.
    fn owned_outside(&self, args: &Map<String, Value>, who: &Identity) -> bool {
        if self.product == Product::Calendar {
            return calendar_id(args).is_ok_and(|id| id != "primary" && !id.eq_ignore_ascii_case(&who.email));
        }
        let Some(id) = self.target(args) else { return false };
        let world = self.shared.lock();
        world.drive.get(&id).and_then(|file| file.owner()).is_some_and(|owner| !owner.eq_ignore_ascii_case(&who.email))
    }

    /// The name of the Drive item `id`, for the form's message.
    fn item_name(&self, id: &str) -> String {
        let world = self.shared.lock();
        world.drive.get(id).map(|file| file.name.clone()).unwrap_or_else(|| id.to_owned())
    }

    /// Sends a REST request as the caller through the emulator's router, as Google's MCP server calls its API.
    async fn rest(&self, token: &HeaderValue, method: Method, uri: String, body: Option<(String, Vec<u8>)>) -> Rest {
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::HOST, self.product.host())
            .header(header::AUTHORIZATION, token.clone());
        let body = match body {
            Some((content_type, bytes)) => {
                request = request.header(header::CONTENT_TYPE, content_type);
                Body::from(bytes)
            }
            None => Body::empty(),
        };
        let Ok(request) = request.body(body) else {
            return Rest::failed("The emulator could not build the REST request for this call.");
        };
        let Ok(response) = self.rest.clone().oneshot(request).await;
        let status = response.status();
        match to_bytes(response.into_body(), usize::MAX).await {
            Ok(bytes) => Rest { status, bytes: bytes.to_vec() },
            Err(_) => Rest::failed("The emulator's REST answer could not be read."),
        }
    }

    async fn rest_json(
        &self,
        token: &HeaderValue,
        method: Method,
        uri: String,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let body = body.map(|value| ("application/json".to_owned(), value.to_string().into_bytes()));
        self.rest(token, method, uri, body).await.json()
    }

    /// Runs `tool` with `args` as `who` (no approval asked here).
    async fn perform(&self, tool: &ToolDef, args: &Map<String, Value>, token: &HeaderValue, who: &Identity) -> Outcome {
        let id = |key: &str| required(args, key).map(|value| utf8_percent_encode(&value, SEGMENT).to_string());
        let structured = |value: Result<Value, String>| value.map(CallToolResult::structured);
        match (self.product, tool.name) {
            (Product::Sheets, "get_values") => {
                let uri = format!("/v4/spreadsheets/{}/values/{}", id("spreadsheetId")?, id("range")?);
                structured(self.rest_json(token, Method::GET, uri, None).await)
            }
            (Product::Sheets, "get_spreadsheet") => {
                // The serializer is not `Send`: it ends before the request is awaited.
                let query = {
                    let mut query = url::form_urlencoded::Serializer::new(String::new());
                    for range in strings(args, "ranges")? {
                        query.append_pair("ranges", &range);
                    }
                    if boolean(args, "includeGridData")? {
                        query.append_pair("includeGridData", "true");
                    }
                    let fields = strings(args, "fields")?;
                    if !fields.is_empty() {
                        query.append_pair("fields", &fields.join(","));
                    }
                    query.finish()
                };
                if boolean(args, "commentsIncluded")? {
                    return Err(NO_COMMENTS.to_owned());
                }
                let uri = format!("/v4/spreadsheets/{}?{query}", id("spreadsheetId")?);
                structured(self.rest_json(token, Method::GET, uri, None).await)
            }
            (Product::Sheets, "update_values") => {
                let values = field(args, "values").cloned().ok_or_else(|| missing("values"))?;
                let uri =
                    format!("/v4/spreadsheets/{}/values/{}?valueInputOption=RAW", id("spreadsheetId")?, id("range")?);
                structured(self.rest_json(token, Method::PUT, uri, Some(json!({ "values": values }))).await)
            }
            (Product::Sheets, "update_formulas") => {
                let formulas = field(args, "formulas").cloned().ok_or_else(|| missing("formulas"))?;
                let uri = format!(
                    "/v4/spreadsheets/{}/values/{}?valueInputOption=USER_ENTERED",
                    id("spreadsheetId")?,
                    id("range")?
                );
                structured(self.rest_json(token, Method::PUT, uri, Some(json!({ "values": formulas }))).await)
            }
            (Product::Sheets, "append_values") => {
                let values = field(args, "values").cloned().ok_or_else(|| missing("values"))?;
                let uri = format!(
                    "/v4/spreadsheets/{}/values/{}:append?valueInputOption=RAW",
                    id("spreadsheetId")?,
                    id("range")?
                );
                structured(self.rest_json(token, Method::POST, uri, Some(json!({ "values": values }))).await)
            }
            (Product::Sheets, "batch_clear_values") => {
                let ranges = strings(args, "ranges")?;
                if ranges.is_empty() {
                    return Err("ranges must name at least one range to clear.".to_owned());
                }
                let uri = format!("/v4/spreadsheets/{}/values:batchClear", id("spreadsheetId")?);
                let mut content = self.rest_json(token, Method::POST, uri, Some(json!({ "ranges": ranges }))).await?;
                content["status"] = json!("OK");
                Ok(CallToolResult::structured(json!({ "content": content })))
            }
            (Product::Sheets, "insert_dimension") => {
                let sheet =
                    field(args, "sheetId").and_then(Value::as_i64).ok_or_else(|| missing("sheetId (an integer)"))?;
                let dimension = required(args, "dimension")?;
                if !matches!(dimension.as_str(), "ROWS" | "COLUMNS") {
                    return Err(format!("dimension must be ROWS or COLUMNS, not {dimension:?}."));
                }
                let index = |key: &str| {
                    field(args, key).and_then(Value::as_u64).ok_or_else(|| missing(&format!("{key} (a whole number)")))
                };
                let mut insert = json!({
                    "range": { "sheetId": sheet, "dimension": dimension, "startIndex": index("startIndex")?, "endIndex": index("endIndex")? }
                });
                if let Some(inherit) = field(args, "inheritFromBefore") {
                    insert["inheritFromBefore"] = inherit.clone();
                }
                let body = json!({ "requests": [{ "insertDimension": insert }] });
                let uri = format!("/v4/spreadsheets/{}:batchUpdate", id("spreadsheetId")?);
                structured(self.rest_json(token, Method::POST, uri, Some(body)).await)
            }
            (Product::Sheets, "update_spreadsheet") => {
                let body = json!({ "requests": requests(args)? });
                let uri = format!("/v4/spreadsheets/{}:batchUpdate", id("spreadsheetId")?);
                structured(self.rest_json(token, Method::POST, uri, Some(body)).await)
            }
            (Product::Docs, "read_doc") => {
                if boolean(args, "commentsIncluded")? {
                    return Err(NO_COMMENTS.to_owned());
                }
                let uri = format!("/v1/documents/{}", id("documentId")?);
                let document = self.rest_json(token, Method::GET, uri, None).await?;
                Ok(CallToolResult::structured(json!({ "content": document })))
            }
            (Product::Docs, "update_doc") => {
                let body = json!({ "requests": requests(args)? });
                let uri = format!("/v1/documents/{}:batchUpdate", id("documentId")?);
                structured(self.rest_json(token, Method::POST, uri, Some(body)).await)
            }
            (Product::Slides, "read_presentation" | "read_slide_page") => {
                if boolean(args, "commentsIncluded")? {
                    return Err("The emulator does not include comments in Slides reads; leave commentsIncluded out."
                        .to_owned());
                }
                let fields = strings(args, "fields")?.join(",");
                let query = if fields.is_empty() { String::new() } else { format!("?fields={}", encode(&fields)) };
                let uri = match tool.name {
                    "read_slide_page" => {
                        format!("/v1/presentations/{}/pages/{}{query}", id("presentationId")?, id("pageId")?)
                    }
                    _ => format!("/v1/presentations/{}{query}", id("presentationId")?),
                };
                let content = self.rest_json(token, Method::GET, uri, None).await?;
                Ok(CallToolResult::structured(json!({ "content": content })))
            }
            (Product::Slides, "update_presentation") => {
                let mut body = json!({ "requests": requests(args)? });
                if let Some(control) = field(args, "writeControl") {
                    body["writeControl"] = control.clone();
                }
                let uri = format!("/v1/presentations/{}:batchUpdate", id("presentationId")?);
                structured(self.rest_json(token, Method::POST, uri, Some(body)).await)
            }
            (Product::Drive, "search_files") => {
                let query = optional(args, "query")?.unwrap_or_default();
                let q = drive_query(query.trim())?;
                structured(self.list_files(token, &q, None, args).await)
            }
            (Product::Drive, "list_recent_files") => {
                let order = match optional(args, "orderBy")?.as_deref() {
                    None | Some("recency") => "recency desc",
                    Some("lastModified") => "modifiedTime desc",
                    Some("lastModifiedByMe") => "modifiedByMeTime desc",
                    Some(other) => {
                        return Err(format!(
                            "orderBy must be recency, lastModified or lastModifiedByMe, not {other:?}."
                        ));
                    }
                };
                structured(self.list_files(token, "trashed = false", Some(order), args).await)
            }
            (Product::Drive, "get_file_metadata") => {
                let uri = format!("/drive/v3/files/{}?fields={}", id("fileId")?, encode(FILE_FIELDS));
                structured(self.rest_json(token, Method::GET, uri, None).await.map(|file| mcp_file(&file)))
            }
            (Product::Drive, "read_file_content") => {
                if boolean(args, "includeComments")? {
                    return Err(NO_COMMENTS.to_owned());
                }
                self.read_file_content(token, &id("fileId")?).await
            }
            (Product::Drive, "create_file") => self.create_file(token, args).await,
            (Product::Drive, "copy_file") => {
                let mut body = json!({});
                if let Some(title) = optional(args, "title")?.filter(|title| !title.is_empty()) {
                    body["name"] = json!(title);
                }
                if let Some(parent) = optional(args, "parentId")?.filter(|parent| !parent.is_empty()) {
                    body["parents"] = json!([parent]);
                }
                let uri = format!("/drive/v3/files/{}/copy?fields={}", id("fileId")?, encode(FILE_FIELDS));
                structured(self.rest_json(token, Method::POST, uri, Some(body)).await.map(|file| mcp_file(&file)))
            }
            (Product::Gmail, name) => self.gmail(token, name, args).await,
            (Product::Calendar, name) => self.calendar(token, name, args, who).await,
            _ => Err(format!("The emulator does not implement {} of {}.", tool.name, self.product.host())),
        }
    }

    /// The Gmail tools, on the caller's own mailbox, as the `threads`, `messages`, `drafts` and `labels`
    /// requests they correspond to; messages answered as Google's MCP `Message` ([`mcp_message`]).
    async fn gmail(&self, token: &HeaderValue, name: &str, args: &Map<String, Value>) -> Outcome {
        const MAILBOX: &str = "/gmail/v1/users/me";
        let answer = match name {
            "search_threads" => {
                let query = {
                    let mut query = url::form_urlencoded::Serializer::new(String::new());
                    if let Some(q) = optional(args, "query")?.filter(|q| !q.trim().is_empty()) {
                        query.append_pair("q", &q);
                    }
                    query.append_pair("maxResults", &page_size(args, 20, 50)?.to_string());
                    if let Some(page) = optional(args, "pageToken")? {
                        query.append_pair("pageToken", &page);
                    }
                    if boolean(args, "includeTrash")? {
                        query.append_pair("includeSpamTrash", "true");
                    }
                    query.finish()
                };
                let listed = self.rest_json(token, Method::GET, format!("{MAILBOX}/threads?{query}"), None).await?;
                let mut threads = Vec::new();
                for summary in listed["threads"].as_array().into_iter().flatten() {
                    let id = encode(summary["id"].as_str().unwrap_or_default());
                    let uri = format!("{MAILBOX}/threads/{id}?format=metadata");
                    threads.push(mcp_thread(&self.rest_json(token, Method::GET, uri, None).await?, false));
                }
                let mut answer = json!({ "threads": threads });
                if let Some(next) = listed.get("nextPageToken") {
                    answer["nextPageToken"] = next.clone();
                }
                Ok(answer)
            }
            "get_thread" => {
                let full = match optional(args, "messageFormat")?.as_deref() {
                    None | Some("MESSAGE_FORMAT_UNSPECIFIED" | "FULL_CONTENT") => true,
                    Some("MINIMAL") => false,
                    Some(other) => {
                        return Err(format!("messageFormat must be MINIMAL or FULL_CONTENT, not {other:?}."));
                    }
                };
                let format = if full { "full" } else { "metadata" };
                let uri = format!("{MAILBOX}/threads/{}?format={format}", encode(&required(args, "threadId")?));
                self.rest_json(token, Method::GET, uri, None).await.map(|thread| mcp_thread(&thread, full))
            }
            "create_draft" => {
                let to = strings(args, "to")?;
                if to.is_empty() {
                    return Err("to must name at least one recipient.".to_owned());
                }
                let (cc, bcc) = (strings(args, "cc")?, strings(args, "bcc")?);
                for address in to.iter().chain(&cc).chain(&bcc) {
                    if address.contains(['<', '>', ',', '\r', '\n']) || !address.contains('@') {
                        return Err(format!(
                            "{address:?} is not a plain email address (\"Name <email>\" is not supported)."
                        ));
                    }
                }
                let subject = optional(args, "subject")?.unwrap_or_default();
                if subject.contains(['\r', '\n']) {
                    return Err("subject must not contain line breaks.".to_owned());
                }
                let mut headers = format!("To: {}\r\n", to.join(", "));
                for (name, list) in [("Cc", &cc), ("Bcc", &bcc)] {
                    if !list.is_empty() {
                        headers.push_str(&format!("{name}: {}\r\n", list.join(", ")));
                    }
                }
                headers.push_str(&format!("Subject: {subject}\r\n"));
                let mut draft = json!({});
                if let Some(replied) = optional(args, "replyToMessageId")? {
                    let uri = format!("{MAILBOX}/messages/{}?format=metadata", encode(&replied));
                    let original = self.rest_json(token, Method::GET, uri, None).await?;
                    if let Some(id) = header(&original["payload"], "Message-ID") {
                        headers.push_str(&format!("In-Reply-To: {id}\r\nReferences: {id}\r\n"));
                    }
                    draft["threadId"] = original["threadId"].clone();
                }
                let text = optional(args, "body")?.unwrap_or_default();
                let mime = match optional(args, "htmlBody")? {
                    None => format!("{headers}Content-Type: text/plain; charset=UTF-8\r\n\r\n{text}"),
                    Some(html) => {
                        let boundary = format!("alt-{}", crate::World::new_id(16));
                        format!(
                            "{headers}Content-Type: multipart/alternative; boundary={boundary}\r\n\r\n--{boundary}\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n{text}\r\n--{boundary}\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n{html}\r\n--{boundary}--\r\n"
                        )
                    }
                };
                draft["raw"] = json!(base64::engine::general_purpose::URL_SAFE.encode(mime.as_bytes()));
                let made = self
                    .rest_json(token, Method::POST, format!("{MAILBOX}/drafts"), Some(json!({ "message": draft })))
                    .await?;
                let id = made["id"].as_str().unwrap_or_default().to_owned();
                let got = self
                    .rest_json(token, Method::GET, format!("{MAILBOX}/drafts/{}?format=full", encode(&id)), None)
                    .await?;
                let message = mcp_message(&got["message"], true);
                let mut answer = json!({
                    "id": id,
                    "subject": subject,
                    "threadId": got["message"]["threadId"],
                    "toRecipients": to,
                    "ccRecipients": cc,
                    "bccRecipients": bcc,
                    "plaintextBody": text,
                });
                if let Some(date) = message.get("date") {
                    answer["date"] = date.clone();
                }
                Ok(without_nulls(answer))
            }
            "list_labels" => {
                let listed = self.rest_json(token, Method::GET, format!("{MAILBOX}/labels"), None).await?;
                let labels: Vec<Value> = listed["labels"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|label| label["type"] == "user")
                    .map(|label| json!({ "labelId": label["id"], "name": label["name"] }))
                    .collect();
                Ok(json!({ "labels": labels }))
            }
            "label_thread" | "unlabel_thread" | "label_message" | "unlabel_message" => {
                let (kind, key) =
                    if name.ends_with("thread") { ("threads", "threadId") } else { ("messages", "messageId") };
                let label_ids = strings(args, "labelIds")?;
                if label_ids.is_empty() {
                    return Err("labelIds must name at least one label.".to_owned());
                }
                let change = if name.starts_with("un") { "removeLabelIds" } else { "addLabelIds" };
                let uri = format!("{MAILBOX}/{kind}/{}/modify", encode(&required(args, key)?));
                self.rest_json(token, Method::POST, uri, Some(json!({ change: label_ids }))).await.map(|_| json!({}))
            }
            other => Err(format!("The emulator does not implement {other} of {}.", self.product.host())),
        };
        answer.map(CallToolResult::structured)
    }

    /// The Calendar tools, on `calendarId` (default `primary`), as the `events` and `calendarList` requests
    /// they correspond to; events are answered as Google's MCP `Event` ([`mcp_event`]).
    async fn calendar(&self, token: &HeaderValue, name: &str, args: &Map<String, Value>, who: &Identity) -> Outcome {
        let calendar = encode(&calendar_id(args)?);
        let events = format!("/calendar/v3/calendars/{calendar}/events");
        let event_uri = || required(args, "eventId").map(|id| format!("{events}/{}", encode(&id)));
        let notify = || send_updates(args);
        let answer = match name {
            "list_events" | "search_events" => {
                let search = name == "search_events";
                let (query, reverse) = {
                    let mut query = url::form_urlencoded::Serializer::new(String::new());
                    let mut reverse = false;
                    if search {
                        query.append_pair("q", &required(args, "query")?);
                    } else {
                        let (start, end) = (optional(args, "startTime")?, optional(args, "endTime")?);
                        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                        let start = if start.is_none() && end.is_none() { Some(now) } else { start };
                        for (parameter, value) in [("timeMin", start), ("timeMax", end)] {
                            if let Some(value) = value {
                                query.append_pair(parameter, &value);
                            }
                        }
                        for (arg, parameter) in [("timeZone", "timeZone"), ("fullText", "q")] {
                            if let Some(value) = optional(args, arg)? {
                                query.append_pair(parameter, &value);
                            }
                        }
                        match optional(args, "orderBy")?.as_deref() {
                            None | Some("default") => {}
                            Some("startTime") => {
                                query.append_pair("singleEvents", "true").append_pair("orderBy", "startTime");
                            }
                            Some("startTimeDesc") => {
                                query.append_pair("singleEvents", "true").append_pair("orderBy", "startTime");
                                reverse = true;
                            }
                            Some("lastModified") => {
                                query.append_pair("orderBy", "updated");
                            }
                            Some(other) => {
                                return Err(format!(
                                    "orderBy must be default, startTime, startTimeDesc or lastModified, not {other:?}."
                                ));
                            }
                        }
                        for kind in strings(args, "eventTypeFilter")? {
                            query.append_pair("eventTypes", &kind);
                        }
                    }
                    if let Some(page) = optional(args, "pageToken")? {
                        query.append_pair("pageToken", &page);
                    }
                    query.append_pair("maxResults", &page_size(args, 250, 2500)?.to_string());
                    (query.finish(), reverse)
                };
                let uri = if search {
                    format!("/calendar/v3/calendars/primary/events?{query}")
                } else {
                    format!("{events}?{query}")
                };
                let listed = self.rest_json(token, Method::GET, uri, None).await?;
                let mut found: Vec<Value> = listed["items"].as_array().into_iter().flatten().map(mcp_event).collect();
                if reverse {
                    found.reverse();
                }
                let mut answer = json!({ "events": found });
                let kept: &[&str] = if search {
                    &["nextPageToken"]
                } else {
                    &[
                        "summary",
                        "description",
                        "updated",
                        "timeZone",
                        "accessRole",
                        "defaultReminders",
                        "nextPageToken",
                    ]
                };
                for key in kept {
                    if let Some(value) = listed.get(*key) {
                        answer[*key] = value.clone();
                    }
                }
                Ok(answer)
            }
            "get_event" => self.rest_json(token, Method::GET, event_uri()?, None).await.map(|event| mcp_event(&event)),
            "list_calendars" => {
                let query = {
                    let mut query = url::form_urlencoded::Serializer::new(String::new());
                    query.append_pair("maxResults", &page_size(args, 100, 250)?.to_string());
                    if let Some(page) = optional(args, "pageToken")? {
                        query.append_pair("pageToken", &page);
                    }
                    query.finish()
                };
                let listed = self
                    .rest_json(token, Method::GET, format!("/calendar/v3/users/me/calendarList?{query}"), None)
                    .await?;
                let calendars: Vec<Value> = listed["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|entry| {
                        let summary = entry.get("summaryOverride").or(entry.get("summary"));
                        json!({ "id": entry["id"], "summary": summary, "description": entry.get("description"), "timeZone": entry.get("timeZone") })
                    })
                    .map(without_nulls)
                    .collect();
                let mut answer = json!({ "calendars": calendars });
                if let Some(next) = listed.get("nextPageToken") {
                    answer["nextPageToken"] = next.clone();
                }
                Ok(answer)
            }
            "create_event" => {
                if boolean(args, "addGoogleMeetUrl")? {
                    return Err("The emulator does not make Google Meet links; leave addGoogleMeetUrl out.".to_owned());
                }
                let all_day = boolean(args, "allDay")?;
                let zone = optional(args, "timeZone")?;
                let mut body = json!({
                    "summary": required(args, "summary")?,
                    "start": event_time(&required(args, "startTime")?, all_day, zone.as_deref()),
                    "end": event_time(&required(args, "endTime")?, all_day, zone.as_deref()),
                });
                for key in ["description", "location", "visibility", "colorId"] {
                    if let Some(value) = optional(args, key)? {
                        body[key] = json!(value);
                    }
                }
                let guests = strings(args, "attendeeEmails")?;
                if !guests.is_empty() {
                    body["attendees"] = guests.iter().map(|email| json!({ "email": email })).collect();
                }
                let recurrence = strings(args, "recurrenceData")?;
                if !recurrence.is_empty() {
                    body["recurrence"] = json!(recurrence);
                }
                let uri = format!("{events}?sendUpdates={}", notify()?);
                self.rest_json(token, Method::POST, uri, Some(body)).await.map(|event| mcp_event(&event))
            }
            "update_event" => {
                let current = self.rest_json(token, Method::GET, event_uri()?, None).await?;
                let patch = event_patch(&current, args)?;
                let uri = format!("{}?sendUpdates={}", event_uri()?, notify()?);
                self.rest_json(token, Method::PATCH, uri, Some(patch)).await.map(|event| mcp_event(&event))
            }
            "delete_event" => {
                let current = self.rest_json(token, Method::GET, event_uri()?, None).await?;
                let uri = format!("{}?sendUpdates={}", event_uri()?, notify()?);
                self.rest(token, Method::DELETE, uri, None).await.bytes_ok().map(|_| mcp_event(&current))
            }
            "respond_to_event" => {
                let status = required(args, "responseStatus")?;
                if !matches!(status.as_str(), "declined" | "tentative" | "accepted") {
                    return Err(format!("responseStatus must be declined, tentative or accepted, not {status:?}."));
                }
                let current = self.rest_json(token, Method::GET, event_uri()?, None).await?;
                let mut attendees = current["attendees"].as_array().cloned().unwrap_or_default();
                let me = attendees.iter_mut().find(|guest| {
                    guest["self"] == json!(true)
                        || guest["email"].as_str().is_some_and(|email| email.eq_ignore_ascii_case(&who.email))
                });
                let Some(me) = me else {
                    return Err("You are not a guest of this event, so there is no invitation to answer.".to_owned());
                };
                me["responseStatus"] = json!(status);
                if let Some(comment) = optional(args, "responseComment")? {
                    me["comment"] = json!(comment);
                }
                let uri = format!("{}?sendUpdates={}", event_uri()?, notify()?);
                let patch = json!({ "attendees": attendees });
                self.rest_json(token, Method::PATCH, uri, Some(patch)).await.map(|event| mcp_event(&event))
            }
            other => Err(format!("The emulator does not implement {other} of {}.", self.product.host())),
        };
        answer.map(CallToolResult::structured)
    }

    /// `files.list` with `q`, as the endpoint allows: on `/mcp/v1self` only the account's own files (reading
    /// anyone else's would need approval).
    async fn list_files(
        &self,
        token: &HeaderValue,
        q: &str,
        order_by: Option<&str>,
        args: &Map<String, Value>,
    ) -> Result<Value, String> {
        let q = match (self.endpoint, q.is_empty()) {
            (Endpoint::Full, _) => q.to_owned(),
            (Endpoint::SelfService, true) => "'me' in owners".to_owned(),
            (Endpoint::SelfService, false) => format!("({q}) and 'me' in owners"),
        };
        let query = {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            if !q.is_empty() {
                query.append_pair("q", &q);
            }
            if let Some(order) = order_by {
                query.append_pair("orderBy", order);
            }
            let page_size = integer(args, "pageSize")?.unwrap_or(10);
            query.append_pair("pageSize", &page_size.to_string());
            if let Some(page) = optional(args, "pageToken")? {
                query.append_pair("pageToken", &page);
            }
            query.append_pair("fields", &format!("nextPageToken,files({FILE_FIELDS})"));
            query.finish()
        };
        let listed = self.rest_json(token, Method::GET, format!("/drive/v3/files?{query}"), None).await?;
        let files: Vec<Value> = listed["files"].as_array().into_iter().flatten().map(mcp_file).collect();
        let mut answer = json!({ "files": files });
        if let Some(next) = listed.get("nextPageToken") {
            answer["nextPageToken"] = next.clone();
        }
        Ok(answer)
    }

    async fn read_file_content(&self, token: &HeaderValue, file_id: &str) -> Outcome {
        let uri = format!("/drive/v3/files/{file_id}?fields=id,name,mimeType");
        let file = self.rest_json(token, Method::GET, uri, None).await?;
        let mime = file["mimeType"].as_str().unwrap_or_default().to_owned();
        let uri = match mime.as_str() {
            DOCUMENT | MIME_PRESENTATION => format!("/drive/v3/files/{file_id}/export?mimeType=text%2Fplain"),
            SPREADSHEET => format!("/drive/v3/files/{file_id}/export?mimeType=text%2Fcsv"),
            text if text.starts_with("text/") || text == "application/json" => {
                format!("/drive/v3/files/{file_id}?alt=media")
            }
            other => {
                return Err(format!(
                    "The file {:?} ({other}) has no natural-language representation.",
                    file["name"].as_str().unwrap_or(file_id)
                ));
            }
        };
        let answer = self.rest(token, Method::GET, uri, None).await;
        let bytes = answer.bytes_ok()?;
        let content = String::from_utf8_lossy(&bytes).into_owned();
        Ok(CallToolResult::structured(json!({ "fileContent": content })))
    }

    /// `create_file`: the content from `textContent`, `base64Content` or the deprecated `content` (base64), its
    /// type from `contentMimeType` or the deprecated `mimeType`.
    async fn create_file(&self, token: &HeaderValue, args: &Map<String, Value>) -> Outcome {
        let title = optional(args, "title")?.filter(|title| !title.is_empty()).unwrap_or_else(|| "Untitled".to_owned());
        let mime = optional(args, "contentMimeType")?
            .or(optional(args, "mimeType")?)
            .filter(|mime| !mime.is_empty())
            .ok_or_else(|| {
            "contentMimeType is required: the MIME type of the file or of its content.".to_owned()
        })?;
        let bytes = match (optional(args, "textContent")?, optional(args, "base64Content")?, optional(args, "content")?)
        {
            (Some(_), Some(_), _) => return Err("Set textContent or base64Content, not both.".to_owned()),
            (Some(text), None, _) => Some(text.into_bytes()),
            (None, Some(encoded), _) | (None, None, Some(encoded)) => {
                Some(STANDARD.decode(encoded.trim()).map_err(|_| "base64Content is not valid base64.".to_owned())?)
            }
            (None, None, None) => None,
        };
        let mut metadata = json!({ "name": title, "mimeType": mime });
        if let Some(parent) = optional(args, "parentId")?.filter(|parent| !parent.is_empty()) {
            metadata["parents"] = json!([parent]);
        }
        let fields = encode(FILE_FIELDS);
        let Some(bytes) = bytes else {
            let uri = format!("/drive/v3/files?fields={fields}");
            let file = self.rest_json(token, Method::POST, uri, Some(metadata)).await?;
            return Ok(CallToolResult::structured(mcp_file(&file)));
        };
        if mime == FOLDER {
            return Err("A folder has no content: leave the content out.".to_owned());
        }
        if !boolean(args, "disableConversionToGoogleType")? {
            match mime.as_str() {
                "text/plain" => metadata["mimeType"] = json!(DOCUMENT),
                "text/csv" => metadata["mimeType"] = json!(SPREADSHEET),
                _ => {}
            }
        }
        let boundary = format!("mcp-{}", crate::World::new_id(24));
        let mut body = format!(
            "--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{metadata}\r\n--{boundary}\r\nContent-Type: {mime}\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(&bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let uri = format!("/upload/drive/v3/files?uploadType=multipart&fields={fields}");
        let content_type = format!("multipart/related; boundary={boundary}");
        let file = self.rest(token, Method::POST, uri, Some((content_type, body))).await.json()?;
        Ok(CallToolResult::structured(mcp_file(&file)))
    }

    /// The Drive item a call reads, for [`Gate::OutsideAccount`].
    fn target(&self, args: &Map<String, Value>) -> Option<String> {
        let key = match self.product {
            Product::Sheets => "spreadsheetId",
            Product::Docs => "documentId",
            Product::Slides => "presentationId",
            Product::Drive => "fileId",
            Product::Gmail | Product::Calendar => return None,
        };
        required(args, key).ok()
    }

    /// The form's message: the action in words, with its target by name.
    fn message(&self, tool: &ToolDef, args: &Map<String, Value>, who: &Identity) -> String {
        let target = self.target(args).map(|id| self.item_name(&id)).unwrap_or_default();
        let range = optional(args, "range").ok().flatten().map(|range| format!(" ({range})")).unwrap_or_default();
        let action = match tool.name {
            "update_values" => format!("update values in the spreadsheet “{target}”{range}"),
            "update_spreadsheet" | "insert_dimension" | "append_values" => format!("change the spreadsheet “{target}”"),
            "update_formulas" => format!("set formulas in the spreadsheet “{target}”{range}"),
            "batch_clear_values" => format!("clear values in the spreadsheet “{target}”"),
            "update_doc" => format!("edit the document “{target}”"),
            "get_values" | "get_spreadsheet" => {
                format!("read the spreadsheet “{target}”{range}, owned by someone else")
            }
            "read_doc" => format!("read the document “{target}”, owned by someone else"),
            "update_presentation" => format!("change the presentation “{target}”"),
            "read_presentation" | "read_slide_page" => {
                format!("read the presentation “{target}”, owned by someone else")
            }
            "update_event" | "delete_event" | "respond_to_event" => {
                let verb = match tool.name {
                    "update_event" => "change",
                    "delete_event" => "delete",
                    _ => "answer the invitation to",
                };
                let event = optional(args, "eventId").ok().flatten().unwrap_or_default();
                let calendar = calendar_id(args).unwrap_or_default();
                format!("{verb} the event {event} of the calendar {calendar}")
            }
            "list_events" | "get_event" => {
                format!("read the calendar {}, owned by someone else", calendar_id(args).unwrap_or_default())
            }
            _ => format!("use {} on “{target}”, owned by someone else", tool.name),
        };
        format!("Allow an AI agent to {action}, as {}?", who.email)
    }

    /// The approval form for this call, with a fresh state bound to it.
    fn ask(&self, tool: &ToolDef, args: &Map<String, Value>, who: &Identity, bound: &str) -> CallToolResponse {
        let state = self.shared.lock().mcp.issue(bound);
        let requests = json!({
            APPROVAL: {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": self.message(tool, args, who),
                    "requestedSchema": { "type": "object", "properties": {} }
                }
            }
        });
        match serde_json::from_value(requests) {
            Ok(requests) => CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state))),
            Err(error) => CallToolResponse::Complete(refusal(format!("The emulator built an invalid form: {error}"))),
        }
    }

    /// `/mcp/P/v1` or `/mcp/P/v1self` on Google's host, what a form's state is bound to besides the call.
    fn server_id(&self) -> String {
        format!("{}/mcp/{}", self.product.host(), self.endpoint.segment())
    }
}

/// A REST answer as the tools read it.
struct Rest {
    status: StatusCode,
    bytes: Vec<u8>,
}

impl Rest {
    fn failed(message: &str) -> Self {
        let body = json!({ "error": { "code": 500, "message": message } });
        Self { status: StatusCode::INTERNAL_SERVER_ERROR, bytes: body.to_string().into_bytes() }
    }

    /// The body, or Google's error in words.
    fn bytes_ok(self) -> Result<Vec<u8>, String> {
        if self.status.is_success() {
            return Ok(self.bytes);
        }
        let body: Value = serde_json::from_slice(&self.bytes).unwrap_or(Value::Null);
        let message = body["error"]["message"].as_str().unwrap_or("no message").to_owned();
        Err(format!("Google answered {}: {message}", self.status.as_u16()))
    }

    fn json(self) -> Result<Value, String> {
        let bytes = self.bytes_ok()?;
        serde_json::from_slice(&bytes).map_err(|_| "Google's answer was not JSON.".to_owned())
    }
}

fn refusal(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn encode(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

/// An argument by its camelCase name, or its snake_case spelling (proto3 JSON accepts both).
fn field<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).or_else(|| args.get(&snake(key))).filter(|value| !value.is_null())
}

fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for ch in camel.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

fn missing(key: &str) -> String {
    format!("{key} is required.")
}

fn optional(args: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match field(args, key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("{key} must be a string.")),
    }
}

fn required(args: &Map<String, Value>, key: &str) -> Result<String, String> {
    optional(args, key)?.filter(|text| !text.is_empty()).ok_or_else(|| missing(key))
}

fn boolean(args: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match field(args, key) {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(_) => Err(format!("{key} must be true or false.")),
    }
}

fn integer(args: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match field(args, key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .filter(|n| (1..=100).contains(n))
            .map(Some)
            .ok_or_else(|| format!("{key} must be a whole number from 1 to 100.")),
    }
}

fn strings(args: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match field(args, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(|| format!("{key} must hold strings only.")))
            .collect(),
        Some(_) => Err(format!("{key} must be an array of strings.")),
    }
}

/// The calendar a Calendar tool works on: `calendarId`, or the account's own (`primary`).
fn calendar_id(args: &Map<String, Value>) -> Result<String, String> {
    Ok(optional(args, "calendarId")?.filter(|id| !id.is_empty()).unwrap_or_else(|| "primary".to_owned()))
}

fn requests(args: &Map<String, Value>) -> Result<Value, String> {
    match field(args, "requests") {
        Some(Value::Array(items)) if !items.is_empty() => Ok(Value::Array(items.clone())),
        _ => Err("requests must be a non-empty array of batch update requests.".to_owned()),
    }
}

/// Whether the request's client can show a form: a 2026-07-28 request declares it in its `_meta`.
fn can_show_forms(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.elicitation.as_ref())
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

impl ServerHandler for GoogleMcp {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new(self.product.host(), env!("CARGO_PKG_VERSION"))
            .with_title(format!("Google {} MCP server (emulated)", self.product.name()));
        info.instructions = Some(match self.endpoint {
            Endpoint::Full => "Consequential actions ask the person for approval with a form.".to_owned(),
            Endpoint::SelfService => {
                "This endpoint cannot ask the person: tools that always need approval are not offered, and calls that would need it are refused.".to_owned()
            }
        });
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let world = self.shared.lock();
        let changes = &world.mcp.changes;
        let tools = tools::catalogue(self.product)
            .iter()
            .filter(|tool| self.offers(tool) && !changes.is_hidden(self.product, tool.name))
            .map(|tool| {
                let mut shown = tool.tool.clone();
                if let Some(description) = changes.description(self.product, tool.name) {
                    shown.description = Some(description.to_owned().into());
                }
                shown
            });
        let mut list = ListToolsResult::with_all_items(tools.collect());
        list.ttl_ms = changes.list_ttl_ms();
        Ok(list)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let hidden = self.shared.lock().mcp.changes.is_hidden(self.product, &request.name);
        let Some(tool) = tools::find(self.product, &request.name).filter(|_| !hidden) else {
            return Err(ErrorData::invalid_params(format!("Unknown tool: {}", request.name), None));
        };
        if !self.offers(tool) {
            return Ok(refusal(format!(
                "{} always needs the person's approval, which {} cannot ask for: call it on {} instead.",
                tool.name,
                super::path(self.product, Endpoint::SelfService),
                super::path(self.product, Endpoint::Full),
            ))
            .into());
        }
        let Caller { identity: who, authorization: token } = Self::caller(&context)?;
        let args = request.arguments.clone().unwrap_or_default();
        let asks = match tool.gate {
            Gate::Never => false,
            Gate::Always => true,
            Gate::OutsideAccount => self.owned_outside(&args, &who),
        } && !self.shared.lock().mcp.changes.asks_no_more(self.product, tool.name);
        if asks {
            if self.endpoint == Endpoint::SelfService {
                return Ok(refusal(format!(
                    "This call needs the person's approval (the item belongs to someone else), which {} cannot ask for: call it on {} instead.",
                    super::path(self.product, Endpoint::SelfService),
                    super::path(self.product, Endpoint::Full),
                ))
                .into());
            }
            // rmcp moves the request's `_meta` into the context (and falls back to the session's handshake).
            let modern = context
                .protocol_version()
                .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
            if !modern {
                return Ok(refusal(format!(
                    "{} needs the person's approval by a form, which Google's servers ask for in MCP 2026-07-28 only: connect with that revision.",
                    tool.name
                ))
                .into());
            }
            let bound = binding(&who.email, &self.server_id(), tool.name, &Value::Object(args.clone()));
            let Some(state) = request.request_state.as_deref() else {
                if !can_show_forms(context.client_capabilities().as_ref()) {
                    let mut form = ElicitationCapability::default();
                    form.form = Some(FormElicitationCapability::default());
                    let mut required = ClientCapabilities::default();
                    required.elicitation = Some(form);
                    return Err(ErrorData::missing_required_client_capability(required));
                }
                return Ok(self.ask(tool, &args, &who, &bound));
            };
            let redeemed = self.shared.lock().mcp.redeem(state, &bound);
            if let Err(refused) = redeemed {
                return Err(ErrorData::invalid_params(refused.0, None));
            }
            let answer = request.input_responses.as_ref().and_then(|responses| responses.get(APPROVAL));
            match answer.and_then(|answer| answer.get("action")).and_then(Value::as_str) {
                Some("accept") => {}
                Some("decline") => {
                    return Ok(refusal(format!(
                        "The person declined {} (Don't allow): nothing was changed or read. Do not retry unless they ask.",
                        tool.name
                    ))
                    .into());
                }
                Some("cancel") => {
                    return Ok(refusal(format!(
                        "The person dismissed the approval form for {} without answering: nothing was changed or read.",
                        tool.name
                    ))
                    .into());
                }
                // No answer to the form: ask again (MRTR: re-request missing input rather than fail).
                _ => return Ok(self.ask(tool, &args, &who, &bound)),
            }
        }
        Ok(self.perform(tool, &args, &token, &who).await.unwrap_or_else(refusal).into())
    }
}

/// Google's Drive MCP `File` of a REST `File` (fields of [`FILE_FIELDS`]): `title` for `name`, the first
/// parent as `parentId`, `viewUrl`, and the owner's address as `owner`. `contentSnippet` is not emulated.
fn mcp_file(rest: &Value) -> Value {
    let mut file = Map::new();
    let mut copy = |to: &str, value: Option<&Value>| {
        if let Some(value) = value.filter(|value| !value.is_null()) {
            file.insert(to.to_owned(), value.clone());
        }
    };
    copy("id", rest.get("id"));
    copy("title", rest.get("name"));
    copy("parentId", rest.pointer("/parents/0"));
    copy("mimeType", rest.get("mimeType"));
    copy("fileSize", rest.get("size"));
    copy("description", rest.get("description"));
    copy("fileExtension", rest.get("fileExtension"));
    copy("viewUrl", rest.get("webViewLink"));
    for time in ["sharedWithMeTime", "createdTime", "modifiedTime", "viewedByMeTime"] {
        copy(time, rest.get(time));
    }
    copy("owner", rest.pointer("/owners/0/emailAddress"));
    Value::Object(file)
}

/// The Drive `q` of a `search_files` query in the language Google's tool documents (`title`, `fullText`,
/// `mimeType`, the three times, `parentId`, `owner`, `sharedWithMe`), with trashed files left out (assumed:
/// Google's tool says nothing of the trash). A term outside that language is refused in words.
fn drive_query(query: &str) -> Result<String, String> {
    const TERMS: [&str; 9] = [
        "title",
        "fullText",
        "mimeType",
        "modifiedTime",
        "viewedByMeTime",
        "createdTime",
        "parentId",
        "owner",
        "sharedWithMe",
    ];
    let tokens = query_tokens(query)?;
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let is_word = token.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if !is_word || matches!(token.as_str(), "and" | "or" | "not" | "in" | "has" | "true" | "false") {
            out.push(token.clone());
            i += 1;
            continue;
        }
        let (Some(operator), Some(value)) = (tokens.get(i + 1), tokens.get(i + 2)) else {
            return Err(format!("The query ends after {token:?}: a term is query_term operator value."));
        };
        let rewritten = match (token.as_str(), operator.as_str()) {
            ("title", "contains" | "=" | "!=") => format!("name {operator} {value}"),
            ("fullText", "contains") => format!("fullText contains {value}"),
            ("mimeType", "contains" | "=" | "!=") => format!("mimeType {operator} {value}"),
            ("modifiedTime" | "viewedByMeTime" | "createdTime", "<=" | "<" | "=" | "!=" | ">" | ">=") => {
                format!("{token} {operator} {value}")
            }
            ("parentId", "=") => format!("{value} in parents"),
            ("parentId", "!=") => format!("not {value} in parents"),
            ("owner", "=") => format!("{value} in owners"),
            ("owner", "!=") => format!("not {value} in owners"),
            ("sharedWithMe", "=" | "!=") => match (operator.as_str(), value.as_str()) {
                ("=", "true") | ("!=", "false") => "sharedWithMe".to_owned(),
                ("=", "false") | ("!=", "true") => "not sharedWithMe".to_owned(),
                _ => return Err(format!("sharedWithMe is compared with true or false, not {value}.")),
            },
            (term, operator) if TERMS.contains(&term) => {
                return Err(format!("The query term {term} does not take the operator {operator}."));
            }
            (term, _) => return Err(format!("{term:?} is not a query term; the terms are {}.", TERMS.join(", "))),
        };
        out.push(rewritten);
        i += 3;
    }
    let translated = out.join(" ");
    Ok(if translated.is_empty() { "trashed = false".to_owned() } else { format!("({translated}) and trashed = false") })
}

/// The tokens of a query: quoted strings (kept quoted, `\'` escapes inside), parentheses, comparison
/// operators and words.
fn query_tokens(query: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut chars = query.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '\'' {
            let mut literal = String::from(chars.next().unwrap_or('\''));
            loop {
                match chars.next() {
                    Some('\\') => {
                        literal.push('\\');
                        literal.extend(chars.next());
                    }
                    Some('\'') => {
                        literal.push('\'');
                        break;
                    }
                    Some(other) => literal.push(other),
                    None => return Err("A quoted value in the query is not closed with '.".to_owned()),
                }
            }
            tokens.push(literal);
        } else if c == '(' || c == ')' {
            tokens.push(c.to_string());
            chars.next();
        } else if matches!(c, '<' | '>' | '=' | '!') {
            let mut operator = String::from(c);
            chars.next();
            if chars.peek() == Some(&'=') {
                operator.push('=');
                chars.next();
            }
            tokens.push(operator);
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || matches!(c, '(' | ')' | '\'' | '<' | '>' | '=' | '!') {
                    break;
                }
                word.push(c);
                chars.next();
            }
            tokens.push(word);
        }
    }
    Ok(tokens)
}

/// Google's Calendar MCP `Event` of a REST `Event`: `DateOrDateTime` times (an all-day date as midnight UTC),
/// `optionalAttendee` for `optional`, `conferenceUrl` for the Meet link.
fn mcp_event(rest: &Value) -> Value {
    let mut event = Map::new();
    let keys = [
        "id",
        "status",
        "htmlLink",
        "created",
        "updated",
        "summary",
        "description",
        "location",
        "creator",
        "organizer",
        "recurrence",
        "recurringEventId",
        "transparency",
        "visibility",
        "eventType",
        "colorId",
    ];
    for key in keys {
        if let Some(value) = rest.get(key).filter(|value| !value.is_null()) {
            event.insert(key.to_owned(), value.clone());
        }
    }
    for key in ["start", "end", "originalStartTime"] {
        if let Some(time) = rest.get(key).and_then(Value::as_object) {
            let mut time = time.clone();
            if let Some(Value::String(date)) = time.get("date").cloned() {
                time.insert("date".to_owned(), json!(format!("{date}T00:00:00Z")));
            }
            event.insert(key.to_owned(), Value::Object(time));
        }
    }
    if let Some(attendees) = rest.get("attendees").and_then(Value::as_array) {
        let attendees: Vec<Value> = attendees
            .iter()
            .map(|guest| {
                let mut guest = guest.as_object().cloned().unwrap_or_default();
                if let Some(optional) = guest.remove("optional") {
                    guest.insert("optionalAttendee".to_owned(), optional);
                }
                Value::Object(guest)
            })
            .collect();
        event.insert("attendees".to_owned(), Value::Array(attendees));
    }
    if let Some(link) = rest.get("hangoutLink").filter(|link| !link.is_null()) {
        event.insert("conferenceUrl".to_owned(), link.clone());
    }
    Value::Object(event)
}

/// A REST event time of an MCP `startTime` / `endTime`: a date for an all-day event, else a date-time in
/// `zone` when given.
fn event_time(time: &str, all_day: bool, zone: Option<&str>) -> Value {
    if all_day {
        return json!({ "date": time.get(..10).unwrap_or(time) });
    }
    match zone {
        Some(zone) => json!({ "dateTime": time, "timeZone": zone }),
        None => json!({ "dateTime": time }),
    }
}

/// The `events.patch` body of an `update_event` call on `current`: the fields given, the guest list with
/// `addedAttendeeEmails` and without `removedAttendeeEmails`, and a new start alone moving the end with it.
fn event_patch(current: &Value, args: &Map<String, Value>) -> Result<Value, String> {
    let mut patch = json!({});
    for key in ["summary", "description", "location", "visibility", "colorId"] {
        if let Some(value) = optional(args, key)? {
            patch[key] = json!(value);
        }
    }
    let all_day = boolean(args, "allDay")?;
    let zone = optional(args, "timeZone")?;
    let (start, end) = (optional(args, "startTime")?, optional(args, "endTime")?);
    if all_day && (start.is_none() || end.is_none()) {
        return Err("allDay needs startTime and endTime too.".to_owned());
    }
    let parse = |text: &str| chrono::DateTime::parse_from_rfc3339(text).ok();
    let end = match (&start, end) {
        (Some(start), None) => {
            let old = |key: &str| current[key]["dateTime"].as_str().and_then(parse);
            let (Some(old_start), Some(old_end), Some(new_start)) = (old("start"), old("end"), parse(start)) else {
                return Err("Give endTime too: the event's old times or the new start could not be read.".to_owned());
            };
            Some((new_start + (old_end - old_start)).to_rfc3339())
        }
        (_, end) => end,
    };
    if let Some(start) = start {
        patch["start"] = event_time(&start, all_day, zone.as_deref());
    }
    if let Some(end) = end {
        patch["end"] = event_time(&end, all_day, zone.as_deref());
    }
    let (added, removed) = (strings(args, "addedAttendeeEmails")?, strings(args, "removedAttendeeEmails")?);
    if !added.is_empty() || !removed.is_empty() {
        let mut guests: Vec<Value> = current["attendees"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|guest| {
                !guest["email"]
                    .as_str()
                    .is_some_and(|email| removed.iter().any(|gone| gone.eq_ignore_ascii_case(email)))
            })
            .cloned()
            .collect();
        for email in added {
            if !guests
                .iter()
                .any(|guest| guest["email"].as_str().is_some_and(|known| known.eq_ignore_ascii_case(&email)))
            {
                guests.push(json!({ "email": email }));
            }
        }
        patch["attendees"] = Value::Array(guests);
    }
    Ok(patch)
}

/// `sendUpdates` of a call's `notificationLevel` (none by default, as Google's tools document).
fn send_updates(args: &Map<String, Value>) -> Result<&'static str, String> {
    match optional(args, "notificationLevel")?.as_deref() {
        None | Some("NOTIFICATION_LEVEL_UNSPECIFIED" | "NONE") => Ok("none"),
        Some("EXTERNAL_ONLY") => Ok("externalOnly"),
        Some("ALL") => Ok("all"),
        Some(other) => Err(format!("notificationLevel must be NONE, EXTERNAL_ONLY or ALL, not {other:?}.")),
    }
}

/// A page size argument: `default` when absent, 1 to `max`.
fn page_size(args: &Map<String, Value>, default: u64, max: u64) -> Result<u64, String> {
    match field(args, "pageSize") {
        None => Ok(default),
        Some(value) => value
            .as_u64()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| format!("pageSize must be a whole number from 1 to {max}.")),
    }
}

/// `value` without its `null` members.
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(object.into_iter().filter(|(_, v)| !v.is_null()).collect()),
        other => other,
    }
}

/// Google's Gmail MCP `Thread` of a REST thread: its id and its messages in order.
fn mcp_thread(rest: &Value, full: bool) -> Value {
    let messages: Vec<Value> =
        rest["messages"].as_array().into_iter().flatten().map(|m| mcp_message(m, full)).collect();
    json!({ "id": rest["id"], "messages": messages })
}

/// Google's Gmail MCP `Message` of a REST message: the key headers read out, the date as `YYYY-MM-DD` (from
/// `internalDate`), and with `full` the plain-text body and the attachments' IDs.
fn mcp_message(rest: &Value, full: bool) -> Value {
    let payload = &rest["payload"];
    let split = |name: &str| -> Vec<String> {
        header(payload, name)
            .map(|value| value.split(',').map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let mut message = json!({
        "id": rest["id"],
        "snippet": rest.get("snippet"),
        "subject": header(payload, "Subject"),
        "sender": header(payload, "From"),
        "toRecipients": split("To"),
        "ccRecipients": split("Cc"),
    });
    let millis = rest["internalDate"].as_str().and_then(|ms| ms.parse::<i64>().ok());
    if let Some(date) = millis.and_then(chrono::DateTime::from_timestamp_millis) {
        message["date"] = json!(date.format("%Y-%m-%d").to_string());
    }
    if full {
        let (mut text, mut attachments) = (None, Vec::new());
        walk_parts(payload, &mut text, &mut attachments);
        message["plaintextBody"] = json!(text.unwrap_or_default());
        message["attachmentIds"] = json!(attachments);
    }
    without_nulls(message)
}

/// The first `text/plain` body and every attachment's ID under `part`.
fn walk_parts(part: &Value, text: &mut Option<String>, attachments: &mut Vec<String>) {
    if let Some(id) = part["body"]["attachmentId"].as_str() {
        attachments.push(id.to_owned());
    } else if text.is_none() && part["mimeType"].as_str().is_some_and(|mime| mime.starts_with("text/plain")) {
        let data = part["body"]["data"].as_str().unwrap_or_default();
        let decoded = base64::engine::general_purpose::URL_SAFE.decode(data).unwrap_or_default();
        *text = Some(String::from_utf8_lossy(&decoded).into_owned());
    }
    for child in part["parts"].as_array().into_iter().flatten() {
        walk_parts(child, text, attachments);
    }
}

/// A header's value in a REST message part (names compared without case).
fn header<'a>(part: &'a Value, name: &str) -> Option<&'a str> {
    part["headers"].as_array()?.iter().find_map(|header| {
        header["name"].as_str().filter(|found| found.eq_ignore_ascii_case(name)).and(header["value"].as_str())
    })
}
