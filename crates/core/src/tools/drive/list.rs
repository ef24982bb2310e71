//! Listings and searches: spreadsheets, folders, a folder's files, searches, recent and shared files.
//! Every piece of user text in a `q` goes through [`crate::drive_query`].

use chrono::{Duration, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::drive_query::Query;
use crate::google::drive::{Corpora, File, mime};

use super::super::registry::{Access, Cap, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::{FILE_FIELDS, ListSpec, file_json, folder_or_default, list_files, listing_json, mime_type_arg, read};

const SPREADSHEET_FIELDS: &str = "id,name,modifiedTime,webViewLink,owners(emailAddress)";
const FOLDER_FIELDS: &str = "id,name,modifiedTime,parents,webViewLink";
const SHARED_FIELDS: &str =
    "id,name,mimeType,modifiedTime,size,webViewLink,owners(emailAddress),sharedWithMeTime,sharingUser(emailAddress)";

const fn sheets_listing(name: &'static str, title: &'static str, description: &'static str) -> ToolMeta {
    ToolMeta {
        name,
        title,
        description,
        service: Service::Sheets,
        access: Access::Read,
        cap: Cap::Paging,
        local_path: false,
    }
}

pub(super) fn sheets_tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            sheets_listing(
                "list_spreadsheets",
                "List spreadsheets",
                "List spreadsheets, most recently modified first (in folder_id, or DRIVE_FOLDER_ID when set).",
            ),
            list_spreadsheets,
        ),
        ToolDef::new(
            sheets_listing(
                "search_spreadsheets",
                "Search spreadsheets",
                "Find spreadsheets whose name contains the given text.",
            ),
            search_spreadsheets,
        ),
    ]
}

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            read(
                "list_folders",
                "List folders",
                "List the folders inside a folder (the top of My Drive by default).",
                Cap::Paging,
            ),
            list_folders,
        ),
        ToolDef::new(
            read("list_files", "List files", "List the files in a folder, folders first.", Cap::Paging),
            list_files_tool,
        ),
        ToolDef::new(
            read(
                "search_files",
                "Search files",
                "Find files whose name or content contains the given text.",
                Cap::Paging,
            ),
            search_files,
        ),
        ToolDef::new(
            read("list_recent_files", "List recent files", "List recently modified files, newest first.", Cap::Paging),
            list_recent_files,
        ),
        ToolDef::new(
            read(
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
    let spec = ListSpec {
        query,
        fields: SPREADSHEET_FIELDS,
        order_by: Some("modifiedTime desc"),
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    Ok(listing_json("spreadsheets", &listing, args.max_results, spreadsheet_json))
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
    let spec = ListSpec {
        query,
        fields: SPREADSHEET_FIELDS,
        order_by: Some("modifiedTime desc"),
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    Ok(listing_json("spreadsheets", &listing, args.max_results, spreadsheet_json))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFoldersArgs {
    /// The folder to look in (default: DRIVE_FOLDER_ID if set, else the top of My Drive; a shared drive's id lists its top).
    #[serde(default)]
    pub parent_folder_id: Option<String>,
    /// How many folders to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "hundred")]
    pub max_results: u32,
}

async fn list_folders(ctx: ToolContext, args: ListFoldersArgs) -> Result<Value, ToolError> {
    let parent = folder_or_default(&ctx, args.parent_folder_id).unwrap_or_else(|| "root".to_owned());
    let query = Query::new().and_mime_type(mime::FOLDER).and_in_parents(&parent).and_not_trashed();
    let spec = ListSpec {
        query,
        fields: FOLDER_FIELDS,
        order_by: Some("name"),
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    let mut out = listing_json(
        "folders",
        &listing,
        args.max_results,
        |f| json!({ "id": f.id, "name": f.name, "modified_time": f.modified_time, "url": f.web_view_link }),
    );
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
    let mut query = Query::new().and_in_parents(&args.folder_id).and_not_trashed();
    if let Some(mime_type) = &args.mime_type {
        query = query.and_mime_type(&mime_type_arg(mime_type)?);
    }
    let spec = ListSpec {
        query,
        fields: FILE_FIELDS,
        order_by: Some("folder,name"),
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    let mut out = listing_json("files", &listing, args.max_results, file_json);
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
    /// Only files directly in this folder (default: DRIVE_FOLDER_ID if set, else everywhere).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// How many files to return at most.
    #[schemars(range(min = 1))]
    #[serde(default = "twenty")]
    pub max_results: u32,
}

async fn search_files(ctx: ToolContext, args: SearchFilesArgs) -> Result<Value, ToolError> {
    if args.query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query is empty: give the words to look for, or use list_files to see a folder.",
        ));
    }
    // fullText covers the name, description and content, so one term finds names and contents alike.
    let mut query = Query::new().and_full_text_contains(&args.query).and_not_trashed();
    if let Some(mime_type) = &args.mime_type {
        query = query.and_mime_type(&mime_type_arg(mime_type)?);
    }
    if let Some(folder) = folder_or_default(&ctx, args.folder_id) {
        query = query.and_in_parents(&folder);
    }
    let spec = ListSpec {
        query,
        fields: FILE_FIELDS,
        order_by: None,
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    Ok(listing_json("files", &listing, args.max_results, file_json))
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
    if let Some(mime_type) = &args.mime_type {
        query = query.and_mime_type(&mime_type_arg(mime_type)?);
    }
    let spec = ListSpec {
        query,
        fields: FILE_FIELDS,
        order_by: Some("modifiedTime desc"),
        corpora: Corpora::AllDrives,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    Ok(listing_json("files", &listing, args.max_results, file_json))
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
    let mut query = Query::new().and_raw("sharedWithMe = true").and_not_trashed();
    if let Some(mime_type) = &args.mime_type {
        query = query.and_mime_type(&mime_type_arg(mime_type)?);
    }
    // "Shared with me" is a My Drive notion: shared-drive items never appear in it.
    let spec = ListSpec {
        query,
        fields: SHARED_FIELDS,
        order_by: Some("sharedWithMeTime desc"),
        corpora: Corpora::User,
        max_results: args.max_results,
    };
    let listing = list_files(&ctx, spec).await?;
    Ok(listing_json("files", &listing, args.max_results, |file| {
        let mut out = file_json(file);
        out["shared_with_me_time"] = json!(file.shared_with_me_time);
        out["shared_by"] = json!(file.sharing_user.as_ref().and_then(|u| u.email_address.clone()));
        out
    }))
}
