//! Listings and searches: spreadsheets, folders, a folder's files, searches, recent and shared files.
//! Every piece of user text in a `q` goes through [`crate::drive_query`].

use chrono::{Duration, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::drive_query::{Query, quote};
use crate::google::drive::{Corpora, File, ListRequest, MAX_PAGE_SIZE, mime};

use rmcp::model::JsonObject;

use super::super::google_mcp::{McpRoute, object};
use super::super::registry::{Cap, Output, Scope, Service, ToolDef, ToolMeta, parse_args_ref};
use super::super::{ToolContext, ToolError};
use super::{FILE_FIELDS, file_json, folder_or_default, mime_type_arg};
use crate::google::mcp::Product;

const SPREADSHEET_FIELDS: &str = "id,name,modifiedTime,webViewLink,owners(emailAddress)";
const FOLDER_FIELDS: &str = "id,name,modifiedTime,parents,webViewLink";
const SHARED_FIELDS: &str =
    "id,name,mimeType,modifiedTime,size,webViewLink,owners(emailAddress),sharedWithMeTime,sharingUser(emailAddress)";

pub(super) fn sheets_tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "list_spreadsheets",
                "List spreadsheets",
                "List spreadsheets, most recently modified first (in folder_id, or DRIVE_FOLDER_ID when set).",
                Cap::Paging,
            )
            // A Drive listing: it needs Drive's scope, not Sheets'.
            .with_scope(Scope::Drive),
            list_spreadsheets,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "search_spreadsheets",
                "Search spreadsheets",
                "Find spreadsheets whose name contains the given text.",
                Cap::Paging,
            )
            // A Drive listing: it needs Drive's scope, not Sheets'.
            .with_scope(Scope::Drive),
            search_spreadsheets,
        ),
    ]
}

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "list_folders",
                "List folders",
                "List the folders inside a folder (the top of My Drive by default).",
                Cap::Paging,
            ),
            list_folders,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "list_files",
                "List files",
                "List the files in a folder, folders first.",
                Cap::Paging,
            ),
            list_files_tool,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "search_files",
                "Search files",
                "Find files whose name or content contains the given text.",
                Cap::Paging,
            ),
            search_files,
        )
        .on_google_mcp(McpRoute {
            product: Product::Drive,
            tool: "search_files",
            arguments: search_files_on_mcp,
            result: search_files_from_mcp,
        }),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "list_recent_files",
                "List recent files",
                "List recently modified files, newest first.",
                Cap::Paging,
            ),
            list_recent_files,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "list_shared_with_me",
                "List files shared with me",
                "List files others shared with this account, newest share first.",
                Cap::Paging,
            ),
            list_shared_with_me,
        ),
    ]
}

fn hundred() -> u32 {
    100
}

fn fifty() -> u32 {
    50
}

fn twenty() -> u32 {
    20
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSpreadsheetsArgs {
    /// Only spreadsheets directly in this folder (default: DRIVE_FOLDER_ID if set, else everywhere).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// How many spreadsheets to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "hundred")]
    pub max_results: u32,
}

fn spreadsheet_json(file: &File) -> Value {
    json!({
        "id": file.id,
        "name": file.name,
        "modified_time": file.modified_time,
        "owner": file.owner_email(),
        "url": file.web_view_link,
    })
}

async fn list_spreadsheets(ctx: ToolContext, args: ListSpreadsheetsArgs) -> Result<Value, ToolError> {
    let mut query = Query::new().and_mime_type(mime::SPREADSHEET).and_not_trashed();
    if let Some(folder) = folder_or_default(&ctx, args.folder_id) {
        query = query.and_in_parents(&folder);
    }
    spreadsheets(&ctx, query, args.max_results).await
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchSpreadsheetsArgs {
    /// Text the spreadsheet's name contains (Drive matches word prefixes, ignoring case).
    pub query: String,
    /// How many spreadsheets to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "twenty")]
    pub max_results: u32,
}

async fn search_spreadsheets(ctx: ToolContext, args: SearchSpreadsheetsArgs) -> Result<Value, ToolError> {
    let query = Query::new().and_mime_type(mime::SPREADSHEET).and_name_contains(&args.query).and_not_trashed();
    spreadsheets(&ctx, query, args.max_results).await
}

/// The spreadsheets matching `query`, most recently modified first.
async fn spreadsheets(ctx: &ToolContext, query: Query, max_results: u32) -> Result<Value, ToolError> {
    let spec = ListSpec::new(query, SPREADSHEET_FIELDS, max_results).order_by("modifiedTime desc");
    list(ctx, spec, "spreadsheets", spreadsheet_json).await
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFoldersArgs {
    /// The folder to look in (default: the top of My Drive, whatever DRIVE_FOLDER_ID says; a shared drive's id lists its top).
    #[serde(default)]
    pub parent_folder_id: Option<String>,
    /// How many folders to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "hundred")]
    pub max_results: u32,
}

async fn list_folders(ctx: ToolContext, args: ListFoldersArgs) -> Result<Value, ToolError> {
    // As in the reference server, no parent means the top of My Drive, not the configured default folder.
    let parent = args.parent_folder_id.filter(|id| !id.trim().is_empty()).unwrap_or_else(|| "root".to_owned());
    let query = Query::new().and_mime_type(mime::FOLDER).and_in_parents(&parent).and_not_trashed();
    let spec = ListSpec::new(query, FOLDER_FIELDS, args.max_results).order_by("name");
    let mut out = list(
        &ctx,
        spec,
        "folders",
        |f| json!({ "id": f.id, "name": f.name, "modified_time": f.modified_time, "url": f.web_view_link }),
    )
    .await?;
    out["parent_folder_id"] = json!(parent);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// The folder whose files to list (a shared drive's id lists its top).
    pub folder_id: String,
    /// Only files of this type: a MIME type, or folder, document, spreadsheet, presentation, pdf, text, csv.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// How many files to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "hundred")]
    pub max_results: u32,
}

async fn list_files_tool(ctx: ToolContext, args: ListFilesArgs) -> Result<Value, ToolError> {
    let query = Query::new().and_in_parents(&args.folder_id).and_not_trashed();
    let query = and_mime_type_arg(query, args.mime_type.as_deref())?;
    let spec = ListSpec::new(query, FILE_FIELDS, args.max_results).order_by("folder,name");
    let mut out = list(&ctx, spec, "files", file_json).await?;
    out["folder_id"] = json!(args.folder_id);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// Text to find in file names and contents (plain words, not Drive query syntax).
    pub query: String,
    /// Only files of this type: a MIME type, or folder, document, spreadsheet, presentation, pdf, text, csv.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// Only files directly in this folder (default: everywhere, whatever DRIVE_FOLDER_ID says).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// How many files to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "twenty")]
    pub max_results: u32,
}

async fn search_files(ctx: ToolContext, args: SearchFilesArgs) -> Result<Value, ToolError> {
    let query = search_query(&args)?;
    list(&ctx, ListSpec::new(query, FILE_FIELDS, args.max_results), "files", file_json).await
}

/// The Drive query `search_files` sends, on either surface.
fn search_query(args: &SearchFilesArgs) -> Result<Query, ToolError> {
    if args.query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query is empty: give the words to look for, or use list_files to see a folder.",
        ));
    }
    // fullText covers the name, description and content, so one term finds names and contents alike.
    let query = Query::new().and_full_text_contains(&args.query).and_not_trashed();
    let mut query = and_mime_type_arg(query, args.mime_type.as_deref())?;
    // As in the reference server, no folder means everywhere, not the configured default folder.
    if let Some(folder) = args.folder_id.as_ref().filter(|id| !id.trim().is_empty()) {
        query = query.and_in_parents(folder);
    }
    Ok(query)
}

/// The most files one page of Google's `search_files` holds.
const MCP_SEARCH_PAGE: u32 = 100;

/// `search_files` on Drive's MCP server, in one page (more than a page's worth: REST). Google's tool takes
/// its own query language, not Drive's `q`: the same search reads `fullText contains '…'`, `mimeType = '…'`
/// and `parentId = '…'` there (Google's tool leaves the trash out; its language has no `trashed` term).
fn search_files_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: SearchFilesArgs = parse_args_ref("search_files", args)?;
    if args.max_results == 0 {
        return Err(ToolError::invalid("max_results must be at least 1."));
    }
    if args.max_results > MCP_SEARCH_PAGE {
        return Ok(None);
    }
    // The same checks as the REST query, so both surfaces refuse the same arguments alike.
    search_query(&args)?;
    let mut terms = vec![format!("fullText contains {}", quote(&args.query))];
    if let Some(mime_type) = args.mime_type.as_deref() {
        terms.push(format!("mimeType = {}", quote(&mime_type_arg(mime_type)?)));
    }
    if let Some(folder) = args.folder_id.as_ref().filter(|id| !id.trim().is_empty()) {
        terms.push(format!("parentId = {}", quote(folder)));
    }
    Ok(Some(object(json!({ "query": terms.join(" and "), "pageSize": args.max_results }))))
}

/// Google's `{files, nextPageToken}` as `search_files` has always answered. Google's MCP `File` is not Drive's
/// REST resource: `title` is the name, `parentId` the folder, `viewUrl` the link, `owner` the owner's address.
fn search_files_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: SearchFilesArgs = parse_args_ref("search_files", args)?;
    let listed = answer.get("files").and_then(Value::as_array).cloned().unwrap_or_default();
    let files = listed.iter().map(rest_file).collect::<Result<Vec<File>, _>>().map_err(|error| {
        ToolError::invalid(format!("Drive's MCP server answered files Gatehouse can't read: {error}"))
    })?;
    let more = answer.get("nextPageToken").and_then(Value::as_str).is_some_and(|token| !token.is_empty());
    let listing = Listing { files, more, incomplete: false };
    Ok(Output::Json(listing_json("files", &listing, args.max_results, file_json)))
}

/// The Drive `File` of one of Google's MCP files (the fields `file_json` shows).
fn rest_file(mcp: &Value) -> Result<File, serde_json::Error> {
    let field = |name: &str| mcp.get(name).filter(|value| !value.is_null()).cloned();
    let mut rest = json!({
        "id": field("id").unwrap_or(json!("")),
        "name": field("title").unwrap_or(json!("")),
        "mimeType": field("mimeType").unwrap_or(json!("")),
    });
    let copies = [
        ("fileSize", "size"),
        ("modifiedTime", "modifiedTime"),
        ("createdTime", "createdTime"),
        ("viewUrl", "webViewLink"),
        ("description", "description"),
    ];
    for (from, to) in copies {
        if let Some(value) = field(from) {
            rest[to] = value;
        }
    }
    if let Some(parent) = field("parentId") {
        rest["parents"] = json!([parent]);
    }
    if let Some(owner) = field("owner") {
        rest["owners"] = json!([{ "emailAddress": owner }]);
    }
    serde_json::from_value(rest)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRecentFilesArgs {
    /// How many files to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "twenty")]
    pub max_results: u32,
    /// Only files modified in the last this many days (default: no limit).
    #[serde(default)]
    pub days: Option<u32>,
    /// Only files of this type: a MIME type, or document, spreadsheet, presentation, pdf, text, csv.
    #[serde(default)]
    pub mime_type: Option<String>,
}

async fn list_recent_files(ctx: ToolContext, args: ListRecentFilesArgs) -> Result<Value, ToolError> {
    let mut query = Query::new().and_not_trashed().and_raw(format!("mimeType != '{}'", mime::FOLDER));
    if let Some(days) = args.days {
        if days == 0 {
            return Err(ToolError::invalid("days must be at least 1 (or left out for no limit)."));
        }
        let since = (Utc::now() - Duration::days(i64::from(days))).to_rfc3339_opts(SecondsFormat::Secs, true);
        query = query.and_modified_after(&since).map_err(|e| ToolError::invalid(e.to_string()))?;
    }
    let query = and_mime_type_arg(query, args.mime_type.as_deref())?;
    let spec = ListSpec::new(query, FILE_FIELDS, args.max_results).order_by("modifiedTime desc");
    list(&ctx, spec, "files", file_json).await
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSharedWithMeArgs {
    /// Only files of this type: a MIME type, or folder, document, spreadsheet, presentation, pdf, text, csv.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// How many files to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "fifty")]
    pub max_results: u32,
}

async fn list_shared_with_me(ctx: ToolContext, args: ListSharedWithMeArgs) -> Result<Value, ToolError> {
    let query = Query::new().and_raw("sharedWithMe = true").and_not_trashed();
    let query = and_mime_type_arg(query, args.mime_type.as_deref())?;
    // "Shared with me" is a My Drive notion: shared-drive items never appear in it.
    let spec =
        ListSpec::new(query, SHARED_FIELDS, args.max_results).order_by("sharedWithMeTime desc").corpora(Corpora::User);
    list(&ctx, spec, "files", |file| {
        let mut out = file_json(file);
        out["shared_with_me_time"] = json!(file.shared_with_me_time);
        out["shared_by"] = json!(file.sharing_user.as_ref().and_then(|u| u.email_address.clone()));
        out
    })
    .await
}

/// A listing cut at `max_results`.
struct Listing {
    files: Vec<File>,
    /// Drive had more results than were asked for.
    more: bool,
    /// Drive did not search every drive (large shared-drive searches).
    incomplete: bool,
}

/// What one listing asks Drive for.
struct ListSpec<'a> {
    query: Query,
    /// The members of each file to fetch, e.g. [`FILE_FIELDS`].
    fields: &'a str,
    order_by: Option<&'a str>,
    corpora: Corpora,
    max_results: u32,
}

impl<'a> ListSpec<'a> {
    /// Up to `max_results` files matching `query`, in Drive's order, from every drive the account can see.
    fn new(query: Query, fields: &'a str, max_results: u32) -> Self {
        Self { query, fields, order_by: None, corpora: Corpora::AllDrives, max_results }
    }

    fn order_by(self, order_by: &'a str) -> Self {
        Self { order_by: Some(order_by), ..self }
    }

    fn corpora(self, corpora: Corpora) -> Self {
        Self { corpora, ..self }
    }
}

/// A listing tool's answer: runs `spec` and puts the files under `key`, each as `render` shows it.
async fn list(
    ctx: &ToolContext,
    spec: ListSpec<'_>,
    key: &str,
    render: impl Fn(&File) -> Value,
) -> Result<Value, ToolError> {
    let max_results = spec.max_results;
    let listing = list_files(ctx, spec).await?;
    Ok(listing_json(key, &listing, max_results, render))
}

/// Runs `files.list` until `max_results` files are in hand or Drive has no more, asking each page for only
/// as many as are still wanted (Drive pages hold at most 1000).
async fn list_files(ctx: &ToolContext, spec: ListSpec<'_>) -> Result<Listing, ToolError> {
    if spec.max_results == 0 {
        return Err(ToolError::invalid("max_results must be at least 1."));
    }
    let q = spec.query.render();
    let fields = format!("nextPageToken,incompleteSearch,files({})", spec.fields);
    let mut listing = Listing { files: Vec::new(), more: false, incomplete: false };
    let mut token: Option<String> = None;
    loop {
        let wanted = spec.max_results.saturating_sub(listing.files.len() as u32);
        let request = ListRequest {
            q: &q,
            fields: &fields,
            page_size: wanted.min(MAX_PAGE_SIZE),
            page_token: token.as_deref(),
            order_by: spec.order_by,
            corpora: spec.corpora,
        };
        let page = ctx.google.drive().list(&request).await?;
        listing.incomplete |= page.incomplete_search;
        listing.files.extend(page.files);
        let max = spec.max_results as usize;
        let next = page.next_page_token.filter(|t| !t.is_empty());
        if listing.files.len() >= max || next.is_none() {
            listing.more = next.is_some() || listing.files.len() > max;
            listing.files.truncate(max);
            return Ok(listing);
        }
        token = next;
    }
}

/// A listing's answer: the files under `key`, their count, and, when there is more, a note saying how to
/// see it (these tools take no page token, so the note is the only way to know).
fn listing_json(key: &str, listing: &Listing, max_results: u32, render: impl Fn(&File) -> Value) -> Value {
    let mut out = Map::new();
    out.insert(key.into(), Value::Array(listing.files.iter().map(render).collect()));
    out.insert("count".into(), json!(listing.files.len()));
    if listing.more {
        out.insert("more_results".into(), json!(true));
        out.insert(
            "note".into(),
            json!(format!(
                "Only the first {max_results} results are shown; more exist. Raise max_results or narrow the search to see the rest."
            )),
        );
    }
    if listing.incomplete {
        out.insert(
            "incomplete_search".into(),
            json!("Drive did not search every shared drive; some matches may be missing. Narrow the search (e.g. to a folder)."),
        );
    }
    Value::Object(out)
}

/// `query`, narrowed to the type a `mime_type` argument names, when there is one.
fn and_mime_type_arg(query: Query, mime_type: Option<&str>) -> Result<Query, ToolError> {
    match mime_type {
        Some(mime_type) => Ok(query.and_mime_type(&mime_type_arg(mime_type)?)),
        None => Ok(query),
    }
}
