//! The tools each MCP server offers: names, descriptions, input and output schemas and annotations, with the
//! REST method(s) each runs and when it asks the person first ([`Gate`]).
//!
//! Sources (Google's MCP reference, read in its translations where the English copy was not at hand; the
//! descriptions below are ours, in the sense of Google's):
//!
//! - Sheets: <https://developers.google.com/workspace/sheets/api/reference/mcp> and its tool pages
//!   `tools_list/get_values` (input `spreadsheetId`, `range`; output `ValueRange` `range`, `values`),
//!   `tools_list/get_spreadsheet` (also `fields`, `commentsIncluded`), `tools_list/update_values` (input
//!   `spreadsheetId`, `range`, `values`: bool, string and double cells, null skipped),
//!   `tools_list/update_formulas` (`formulas`), `tools_list/insert_dimension` (`sheetId`, `dimension`,
//!   `startIndex`, `endIndex`, `inheritFromBefore`), `tools_list/append_values` and
//!   `tools_list/batch_clear_values` (`ranges`; output `content`).
//! - Docs: <https://developers.google.com/workspace/docs/api/reference/mcp> (`read_doc` is `documents.get`,
//!   `update_doc` takes a `documents.batchUpdate` request).
//! - Slides: <https://developers.google.com/workspace/slides/api/reference/mcp> and its tool pages
//!   `tools_list/read_presentation` (input `presentationId`, `fields`, `commentsIncluded`; output `content`,
//!   an object; annotations: read-only, idempotent, open world) and `tools_list/read_slide_page` (input
//!   `presentationId`, `pageId`, `fields`, `commentsIncluded`; output `content`). `update_presentation`'s
//!   page lists its request kinds but was cut before its schema: its input field names are assumed.
//! - Drive: <https://developers.google.com/workspace/drive/api/reference/mcp> and its tool pages (April 2026
//!   copies of `search_files`, `list_recent_files`, `get_file_metadata`, `read_file_content`, `create_file`),
//!   with the later fields of a July 2026 `tools/list` (`create_file`'s `textContent`, `base64Content`,
//!   `contentMimeType`; `read_file_content`'s `includeComments`; `copy_file`). Their `File` is Google's own
//!   ([`mcp_file`]), not the REST resource, and `search_files` takes Google's query language.
//! - Gmail: <https://developers.google.com/workspace/gmail/api/reference/mcp> and its tool pages (April–May
//!   2026 copies of `search_threads`, `get_thread`, `create_draft`, `list_labels` and the label tools), with
//!   Google's own `Thread`, `Message` and `Draft`.
//! - Calendar: <https://developers.google.com/workspace/calendar/api/v3/reference/mcp> and its tool pages
//!   (`list_events`, `list_calendars`, `create_event`, `delete_event`), with the inputs of a later
//!   `tools/list` capture for `get_event`, `update_event`, `respond_to_event`, `search_events`.
//!
//! **Unknown** (not published where we could read it; the emulator's choice is marked "assumed" in
//! `crates/google-fake/MCP.md`): the output schemas of most writes; the annotations of the Sheets tools, of
//! `read_slide_page`, `update_presentation` and of the Calendar tools known from the capture; whether
//! Drive's search leaves out the trash; which tools Google leaves out of `/mcp/v1self`. Where nothing is
//! published, field names follow the REST method each tool corresponds to, in camelCase as
//! Google's published JSON representations are; snake_case spellings are accepted too, as proto3 JSON
//! parsers accept them.

use std::sync::LazyLock;

use rmcp::model::Tool;
use serde_json::{Value, json};

use super::Product;
use crate::errors::ApiError;

/// When a call asks the person first (on `/mcp/v1`) or is refused (on `/mcp/v1self`). Google names the actions
/// it asks about: "sending an email, modifying a calendar event, updating or trashing a file, or reading data
/// and metadata" owned outside the account (the MCP form elicitation guide).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Never asks (reads of the account's own items, creating a new file).
    Never,
    /// Always asks: the tool updates an existing file. Left out of `/mcp/v1self`.
    Always,
    /// Asks when the item the call reads is owned by someone else ("owned outside the account").
    OutsideAccount,
}

/// One tool of one server.
pub(crate) struct ToolDef {
    pub(crate) name: &'static str,
    pub(crate) gate: Gate,
    /// The discovery ids of the REST methods the tool runs: a token needs a scope each of them accepts.
    pub(crate) methods: &'static [&'static str],
    /// The definition `tools/list` shows.
    pub(crate) tool: Tool,
}

impl ToolDef {
    fn new(name: &'static str, gate: Gate, methods: &'static [&'static str], definition: Value) -> Self {
        let mut definition = definition;
        definition["name"] = json!(name);
        // The catalogue is static and checked by the unit test below; a broken entry is a programming error.
        let tool = serde_json::from_value(definition).unwrap_or_else(|error| panic!("tool {name}: {error}"));
        Self { name, gate, methods, tool }
    }

    /// Google's 403 `insufficient_scope` unless `granted` holds a scope each of the tool's REST methods accepts.
    pub(crate) fn require_scopes(&self, granted: &[String], product: Product) -> Result<(), ApiError> {
        let Ok(model) = crate::discovery::model() else { return Ok(()) };
        for id in self.methods {
            let Some(method) = model.method(id) else { continue };
            let accepted = &method.scopes;
            if !accepted.is_empty() && !accepted.iter().any(|scope| granted.contains(scope)) {
                return Err(ApiError::insufficient_scopes(&product.host(), self.name, accepted));
            }
        }
        Ok(())
    }
}

/// The tools of `product`'s server, in `tools/list` order.
pub(crate) fn catalogue(product: Product) -> &'static [ToolDef] {
    static SHEETS: LazyLock<Vec<ToolDef>> = LazyLock::new(sheets);
    static DOCS: LazyLock<Vec<ToolDef>> = LazyLock::new(docs);
    static SLIDES: LazyLock<Vec<ToolDef>> = LazyLock::new(slides);
    static DRIVE: LazyLock<Vec<ToolDef>> = LazyLock::new(drive);
    static GMAIL: LazyLock<Vec<ToolDef>> = LazyLock::new(gmail);
    static CALENDAR: LazyLock<Vec<ToolDef>> = LazyLock::new(calendar);
    match product {
        Product::Sheets => &SHEETS,
        Product::Docs => &DOCS,
        Product::Slides => &SLIDES,
        Product::Drive => &DRIVE,
        Product::Gmail => &GMAIL,
        Product::Calendar => &CALENDAR,
    }
}

/// The tool `name` of `product`'s server.
pub(crate) fn find(product: Product, name: &str) -> Option<&'static ToolDef> {
    catalogue(product).iter().find(|tool| tool.name == name)
}

fn annotations(read_only: bool, idempotent: bool, title: &str) -> Value {
    if read_only {
        json!({ "title": title, "readOnlyHint": true, "openWorldHint": false })
    } else {
        json!({
            "title": title, "readOnlyHint": false, "destructiveHint": true,
            "idempotentHint": idempotent, "openWorldHint": false
        })
    }
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn requests(of: &str) -> Value {
    json!({
        "type": "array",
        "description": format!("The requests of a {of} body, applied in order; each sets exactly one kind."),
        "items": { "type": "object" },
        "minItems": 1
    })
}

fn sheets() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "get_values",
            Gate::OutsideAccount,
            &["sheets.spreadsheets.values.get"],
            json!({
                "description": "Returns a range of values from a spreadsheet. Corresponds to spreadsheets.values.get in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet to retrieve data from."),
                        "range": string("Required. The A1 or R1C1 notation of the range to retrieve values from.")
                    },
                    "required": ["spreadsheetId", "range"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "range": string("The range the values cover, in A1 notation."),
                        "majorDimension": { "type": "string" },
                        "values": { "type": "array", "items": { "type": "array" },
                            "description": "The data read: one inner array per row; trailing empty rows and columns are left out." }
                    }
                },
                "annotations": annotations(true, true, "Get values")
            }),
        ),
        ToolDef::new(
            "get_spreadsheet",
            Gate::OutsideAccount,
            &["sheets.spreadsheets.get"],
            json!({
                "description": "Returns the spreadsheet with the given ID: its title, sheet names, grid properties and other metadata, and the full grid data when asked. Corresponds to spreadsheets.get in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet."),
                        "ranges": { "type": "array", "items": { "type": "string" }, "description": "Optional. The ranges to return grid data of (A1 notation)." },
                        "includeGridData": { "type": "boolean", "description": "Optional. Whether to return grid data." },
                        "fields": { "type": "array", "items": { "type": "string" }, "description": "Optional. A field mask: the Spreadsheet properties to return (e.g. [\"sheets.properties.sheetId\", \"sheets.properties.title\"])." },
                        "commentsIncluded": { "type": "boolean", "description": "Optional. If true, comments are included in the response. Defaults to false." }
                    },
                    "required": ["spreadsheetId"]
                },
                "outputSchema": { "type": "object", "description": "A Spreadsheet resource, as spreadsheets.get answers." },
                "annotations": annotations(true, true, "Get spreadsheet")
            }),
        ),
        ToolDef::new(
            "update_values",
            Gate::Always,
            &["sheets.spreadsheets.values.update"],
            json!({
                "description": "Sets values in a range of a spreadsheet. Corresponds to spreadsheets.values.update in the REST API. Cells take booleans, strings and numbers, stored as given (not parsed as formulas); null cells are skipped, an empty string empties a cell.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet to update."),
                        "range": string("Required. The A1 notation of the values to update, e.g. \"Sheet1!A1:B2\"."),
                        "values": { "type": "array", "description": "Required. One inner array per row, one item per cell.",
                            "items": { "type": "array", "items": { "type": ["string", "number", "boolean", "null"] } } }
                    },
                    "required": ["spreadsheetId", "range", "values"]
                },
                "outputSchema": { "type": "object", "description": "An UpdateValuesResponse, as spreadsheets.values.update answers." },
                "annotations": annotations(false, true, "Update values")
            }),
        ),
        ToolDef::new(
            "update_formulas",
            Gate::Always,
            &["sheets.spreadsheets.values.update"],
            json!({
                "description": "Sets formulas in a range of a spreadsheet. Corresponds to spreadsheets.values.update in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet to update."),
                        "range": string("Required. The A1 notation of the range to update formulas in, e.g. \"Sheet1!C1:C2\"."),
                        "formulas": { "type": "array", "description": "Required. One inner array per row of formula strings, e.g. [[\"=A1+B1\"], [\"=A2+B2\"]].",
                            "items": { "type": "array", "items": { "type": ["string", "number", "boolean", "null"] } } }
                    },
                    "required": ["spreadsheetId", "range", "formulas"]
                },
                "outputSchema": { "type": "object", "description": "An UpdateValuesResponse, as spreadsheets.values.update answers." },
                "annotations": annotations(false, true, "Update formulas")
            }),
        ),
        ToolDef::new(
            "update_spreadsheet",
            Gate::Always,
            &["sheets.spreadsheets.batchUpdate"],
            json!({
                "description": "Applies one or more updates to a spreadsheet. Corresponds to spreadsheets.batchUpdate in the REST API; takes its requests (updateSpreadsheetProperties, updateSheetProperties, repeatCell, updateCells, updateBorders, mergeCells, addNamedRange, addFilterView, findReplace, insertDimension, deleteDimension, pasteData, addConditionalFormatRule, …).",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet to update."),
                        "requests": requests("spreadsheets.batchUpdate")
                    },
                    "required": ["spreadsheetId", "requests"]
                },
                "outputSchema": { "type": "object", "description": "A BatchUpdateSpreadsheetResponse." },
                "annotations": annotations(false, false, "Update spreadsheet")
            }),
        ),
        ToolDef::new(
            "insert_dimension",
            Gate::Always,
            &["sheets.spreadsheets.batchUpdate"],
            json!({
                "description": "Inserts rows or columns in a sheet at a particular index. Corresponds to InsertDimensionRequest in the spreadsheets.batchUpdate REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet."),
                        "sheetId": { "type": "integer", "description": "Required. The ID of the sheet to insert into." },
                        "dimension": { "type": "string", "enum": ["DIMENSION_UNSPECIFIED", "ROWS", "COLUMNS"], "description": "Required. The dimension to insert: ROWS or COLUMNS." },
                        "startIndex": { "type": "integer", "description": "Required. The start (inclusive) of the span to insert, 0-based." },
                        "endIndex": { "type": "integer", "description": "Required. The end (exclusive) of the span to insert, 0-based." },
                        "inheritFromBefore": { "type": "boolean", "description": "Optional. Whether the new rows or columns take their properties from the ones before them (true; the start index must then be above 0) or after them (false)." }
                    },
                    "required": ["spreadsheetId", "sheetId", "dimension", "startIndex", "endIndex"]
                },
                "outputSchema": { "type": "object", "description": "The spreadsheets.batchUpdate response." },
                "annotations": annotations(false, false, "Insert rows or columns")
            }),
        ),
        ToolDef::new(
            "append_values",
            Gate::Always,
            &["sheets.spreadsheets.values.append"],
            json!({
                "description": "Appends values to a spreadsheet: after the last row of the table of data the range finds. Corresponds to spreadsheets.values.append in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet."),
                        "range": string("Required. The A1 or R1C1 notation of a range to search for a table of data; the values are appended after its last row, e.g. \"Sheet1!A1\"."),
                        "values": { "type": "array", "description": "Required. One inner array per row, one item per cell.",
                            "items": { "type": "array", "items": { "type": ["string", "number", "boolean", "null"] } } }
                    },
                    "required": ["spreadsheetId", "range", "values"]
                },
                "outputSchema": { "type": "object", "description": "An AppendValuesResponse, as spreadsheets.values.append answers." },
                "annotations": { "title": "Append values", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false }
            }),
        ),
        ToolDef::new(
            "batch_clear_values",
            Gate::Always,
            &["sheets.spreadsheets.values.batchClear"],
            json!({
                "description": "Clears one or more ranges of values from a spreadsheet. Corresponds to spreadsheets.values.batchClear in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "spreadsheetId": string("Required. The ID of the spreadsheet."),
                        "ranges": { "type": "array", "items": { "type": "string" }, "description": "Required. The ranges to clear, in A1 or R1C1 notation, e.g. [\"Sheet1!A1:B10\", \"Sheet1!D1:E10\"]." }
                    },
                    "required": ["spreadsheetId", "ranges"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": { "content": { "type": "object", "description": "The spreadsheets.values.batchClear response, with a status field." } }
                },
                "annotations": annotations(false, true, "Clear values")
            }),
        ),
    ]
}

fn docs() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "read_doc",
            Gate::OutsideAccount,
            &["docs.documents.get"],
            json!({
                "description": "Retrieves a JSON representation of the Google Doc with the given document ID: its text and its structure. Corresponds to documents.get in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "documentId": string("Required. The ID of the document to read. Same as file_id in Drive tools."),
                        "commentsIncluded": { "type": "boolean", "description": "Optional. If true, comments are included in the response; by default they are not." }
                    },
                    "required": ["documentId"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": { "content": { "type": "object", "description": "The document, as documents.get answers it." } }
                },
                "annotations": { "title": "Read document", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true }
            }),
        ),
        ToolDef::new(
            "update_doc",
            Gate::Always,
            &["docs.documents.batchUpdate"],
            json!({
                "description": "Updates a document with batch update requests: takes a documents.batchUpdate request (replaceAllText, insertText, updateTextStyle, createParagraphBullets, createNamedRange, updateParagraphStyle, deleteContentRange, insertInlineImage, insertTable, insertPageBreak, updateDocumentStyle, createHeader, createFooter, …). Corresponds to documents.batchUpdate in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "documentId": string("Required. The ID of the document to update."),
                        "requests": requests("documents.batchUpdate")
                    },
                    "required": ["documentId", "requests"]
                },
                "outputSchema": { "type": "object", "description": "A BatchUpdateDocumentResponse." },
                "annotations": annotations(false, false, "Update document")
            }),
        ),
    ]
}

/// `fields` and `commentsIncluded`, as Google's Slides read tools take them.
fn slides_read_options() -> (Value, Value) {
    (
        json!({
            "type": "array",
            "items": { "type": "string" },
            "description": "Optional. A field mask: the properties to return, in the Slides REST API's JSON structure (e.g. \"slides.pageElements(objectId,shape.text)\"). Ask only for what you need."
        }),
        json!({ "type": "boolean", "description": "Optional. If true, comments are included in the response; by default they are not." }),
    )
}

fn slides() -> Vec<ToolDef> {
    let (fields, comments) = slides_read_options();
    let content = |what: &str| {
        json!({
            "type": "object",
            "properties": { "content": { "type": "object", "description": format!("The JSON representation of the {what}.") } }
        })
    };
    let read = |title: &str| json!({ "title": title, "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true });
    vec![
        ToolDef::new(
            "read_presentation",
            Gate::OutsideAccount,
            &["slides.presentations.get"],
            json!({
                "description": "Reads a JSON representation of a Google Slides presentation. Corresponds to presentations.get in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "presentationId": string("Required. The ID of the presentation to read content from."),
                        "fields": fields,
                        "commentsIncluded": comments
                    },
                    "required": ["presentationId"]
                },
                "outputSchema": content("Google Slides presentation"),
                "annotations": read("Read presentation")
            }),
        ),
        ToolDef::new(
            "read_slide_page",
            Gate::OutsideAccount,
            &["slides.presentations.pages.get"],
            json!({
                "description": "Reads a JSON representation of a single slide/page from a Google Slides presentation. Corresponds to presentations.pages.get in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "presentationId": string("Required. The ID of the presentation containing the page."),
                        "pageId": string("Required. The ID of the slide page to retrieve."),
                        "fields": fields,
                        "commentsIncluded": comments
                    },
                    "required": ["presentationId", "pageId"]
                },
                "outputSchema": content("slide page"),
                "annotations": read("Read slide page")
            }),
        ),
        ToolDef::new(
            "update_presentation",
            Gate::Always,
            &["slides.presentations.batchUpdate"],
            json!({
                "description": "Updates a presentation with a set of batchUpdate requests (createSlide, createShape, createTable, insertText, replaceAllText, deleteObject, updateSlidesPosition, deleteText, updateTextStyle, duplicateObject, …). Corresponds to presentations.batchUpdate in the REST API.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "presentationId": string("Required. The ID of the presentation to update."),
                        "requests": requests("presentations.batchUpdate"),
                        "writeControl": {
                            "type": "object",
                            "description": "Optional. requiredRevisionId: apply only if the presentation is still at this revision.",
                            "properties": { "requiredRevisionId": { "type": "string" } }
                        }
                    },
                    "required": ["presentationId", "requests"]
                },
                "outputSchema": { "type": "object", "description": "A BatchUpdatePresentationResponse: presentationId, replies, writeControl." },
                "annotations": { "title": "Update presentation", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true }
            }),
        ),
    ]
}

/// Google's `File` of the Drive MCP server: not the REST resource (`title`, `parentId`, `viewUrl`, `owner`).
fn mcp_file() -> Value {
    let text = |description: &str| json!({ "type": "string", "description": description });
    json!({
        "type": "object",
        "description": "A file in Google Drive.",
        "properties": {
            "id": text("The id of the file."),
            "title": text("The title of the file."),
            "parentId": text("The id of the file's parent folder, if any."),
            "mimeType": text("The MIME type of the file."),
            "fileSize": { "type": "string", "format": "int64", "description": "The size of the file in bytes." },
            "description": text("The file's description."),
            "fileExtension": text("The file's extension; only for files whose content is stored in Drive."),
            "contentSnippet": text("A snippet of the file's content."),
            "viewUrl": text("The URL to view the file."),
            "sharedWithMeTime": { "type": "string", "format": "date-time" },
            "createdTime": { "type": "string", "format": "date-time" },
            "modifiedTime": { "type": "string", "format": "date-time" },
            "viewedByMeTime": { "type": "string", "format": "date-time" },
            "owner": text("The email address of the file's owner.")
        }
    })
}

/// The annotations Google publishes for the Drive server's reads: not destructive, idempotent, read-only,
/// not open world.
fn drive_read(title: &str) -> Value {
    json!({ "title": title, "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false })
}

fn drive() -> Vec<ToolDef> {
    let file = mcp_file();
    let files = json!({
        "type": "object",
        "properties": {
            "files": { "type": "array", "items": file, "description": "The list of files." },
            "nextPageToken": { "type": "string", "description": "The token of the next page; absent on the last one." }
        }
    });
    let snippets = json!({ "type": "boolean", "description": "Optional. If true, the content snippet is left out of the response." });
    let page_size = json!({ "type": "integer", "format": "int32", "description": "Optional. The most files to return in a page (default 10)." });
    vec![
        ToolDef::new(
            "search_files",
            Gate::Never,
            &["drive.files.list"],
            json!({
                "description": "Searches for Drive files with a structured query: query_term operator values, joined with and, or, not. Query terms: title (contains, =, !=), fullText (contains), mimeType (contains, =, !=), modifiedTime, viewedByMeTime and createdTime (<=, <, =, !=, >, >=; RFC 3339, UTC by default), parentId (=, !=; 'root' is My Drive), owner (=, !=; 'me' for the user) and sharedWithMe (=, != true or false). Strings are quoted with single quotes, e.g. title contains 'budget' and mimeType = 'application/vnd.google-apps.spreadsheet'. Use nextPageToken to page through the results; an empty response means there are no (more) results.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": string("The search query."),
                        "pageToken": string("The page token to use for pagination."),
                        "pageSize": page_size,
                        "excludeContentSnippets": snippets
                    }
                },
                "outputSchema": files,
                "annotations": drive_read("Search files")
            }),
        ),
        ToolDef::new(
            "list_recent_files",
            Gate::Never,
            &["drive.files.list"],
            json!({
                "description": "Finds the user's recent files in a sort order: recency (the default), lastModified or lastModifiedByMe. The default page size is 10; use nextPageToken to page through the results.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "orderBy": string("The sort order for the files: recency, lastModified or lastModifiedByMe."),
                        "pageToken": string("The page token to use for pagination."),
                        "pageSize": page_size,
                        "excludeContentSnippets": snippets
                    }
                },
                "outputSchema": files,
                "annotations": drive_read("List recent files")
            }),
        ),
        ToolDef::new(
            "get_file_metadata",
            Gate::OutsideAccount,
            &["drive.files.get"],
            json!({
                "description": "Finds the general metadata of a user's Drive file. If the file is not found, try another tool such as search_files.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "fileId": string("Required. The ID of the file to retrieve."), "excludeContentSnippets": snippets },
                    "required": ["fileId"]
                },
                "outputSchema": file,
                "annotations": drive_read("Get file metadata")
            }),
        ),
        ToolDef::new(
            "read_file_content",
            Gate::OutsideAccount,
            &["drive.files.get", "drive.files.export"],
            json!({
                "description": "Fetches a natural-language representation of a Drive file, and optionally its comments. The content may be incomplete for very large files.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "fileId": string("Required. The ID of the file to retrieve."),
                        "includeComments": { "type": "boolean", "description": "Optional. Whether to include comments, inlined in the text." }
                    },
                    "required": ["fileId"]
                },
                "outputSchema": { "type": "object", "properties": { "fileContent": { "type": "string", "description": "The file's content as text." } } },
                "annotations": drive_read("Read file content")
            }),
        ),
        ToolDef::new(
            "create_file",
            Gate::Never,
            &["drive.files.create"],
            json!({
                "description": "Creates or uploads a file to Google Drive. Give text in textContent, other bytes base64-encoded in base64Content, with contentMimeType. Docs, Sheets and Slides can be created without content; text/plain is converted to a Doc and text/csv to a Sheet unless disableConversionToGoogleType is true; the MIME type application/vnd.google-apps.folder creates a folder.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "title": string("The title of the file."),
                        "mimeType": string("DEPRECATED: set contentMimeType instead. The MIME type of the file."),
                        "content": string("DEPRECATED: use base64Content or textContent instead. The content, base64-encoded."),
                        "textContent": string("Optional. The (UTF-8) text content of the file."),
                        "base64Content": string("Optional. The content, base64-encoded; an error together with textContent."),
                        "contentMimeType": string("The MIME type of the content; required when any content is given."),
                        "parentId": string("Optional. The id of the folder to create the file in."),
                        "disableConversionToGoogleType": { "type": "boolean", "description": "If true, the file is not converted to a Google type. No effect for types without a Google equivalent." }
                    }
                },
                "outputSchema": file,
                "annotations": { "title": "Create file", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true }
            }),
        ),
        ToolDef::new(
            "copy_file",
            Gate::Never,
            &["drive.files.copy"],
            json!({
                "description": "Copies an existing file in Google Drive, optionally under a new title and into another folder. Without a title the copy is called 'Copy of {original title}'; without a folder it goes next to the original. Returns the new file.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "fileId": string("Required. The ID of the file to copy."),
                        "parentId": string("Optional. The folder of the copy; the original's when empty."),
                        "title": string("Optional. The copy's title; 'Copy of [original file title]' when empty.")
                    },
                    "required": ["fileId"]
                },
                "outputSchema": file,
                "annotations": { "title": "Copy file", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true }
            }),
        ),
    ]
}

/// Google's Gmail MCP `Message`: not the REST resource (`subject`, `sender`, recipients and the plain-text
/// body read out of the headers and parts; `date` as `YYYY-MM-DD`).
fn mcp_message() -> Value {
    let addresses = json!({ "type": "array", "items": { "type": "string" } });
    json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" }, "snippet": { "type": "string" }, "subject": { "type": "string" },
            "sender": { "type": "string" }, "toRecipients": addresses, "ccRecipients": addresses,
            "date": { "type": "string", "description": "The date, ISO 8601 (YYYY-MM-DD)." },
            "plaintextBody": { "type": "string", "description": "Only with messageFormat FULL_CONTENT." },
            "attachmentIds": { "type": "array", "items": { "type": "string" }, "description": "Only with messageFormat FULL_CONTENT." }
        }
    })
}

/// The annotations Google publishes for the Gmail server's tools: never open world.
fn gmail_hints(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({ "title": title, "readOnlyHint": read_only, "destructiveHint": destructive, "idempotentHint": idempotent, "openWorldHint": false })
}

/// Gmail: the tools of Google's reference (April–May 2026 pages) that the REST emulator can run:
/// `search_threads`, `get_thread`, `create_draft`, `list_labels` and the four label tools, with their
/// schemas and annotations. `list_drafts` and `create_label` are not offered (the REST emulator has no
/// `drafts.list` or `labels.create`), nor are the sending tools (their schemas are not published where we
/// could read them).
fn gmail() -> Vec<ToolDef> {
    let message = mcp_message();
    let thread = json!({ "type": "object", "properties": { "id": { "type": "string" }, "messages": { "type": "array", "items": message } } });
    let addresses =
        |description: &str| json!({ "type": "array", "items": { "type": "string" }, "description": description });
    let labels = addresses(
        "Required. Label IDs: a system label (INBOX, TRASH, SPAM, STARRED, UNREAD, IMPORTANT) or one list_labels shows.",
    );
    let labelled = |name: &'static str, what: &str, key: &str, method: &'static str, adds: bool| {
        let verb = if adds { "Adds labels to" } else { "Removes labels from" };
        ToolDef::new(
            name,
            Gate::Never,
            if method == "threads" { &["gmail.users.threads.modify"] } else { &["gmail.users.messages.modify"] },
            json!({
                "description": format!("{verb} {what}. Find it with search_threads, and a label's ID with list_labels, first."),
                "inputSchema": {
                    "type": "object",
                    "properties": { key: string(&format!("Required. The ID of the {}.", if method == "threads" { "thread" } else { "message" })), "labelIds": labels.clone() },
                    "required": [key, "labelIds"]
                },
                "outputSchema": { "type": "object", "properties": {} },
                "annotations": gmail_hints(if adds { "Add labels" } else { "Remove labels" }, false, !adds, true)
            }),
        )
    };
    vec![
        ToolDef::new(
            "search_threads",
            Gate::Never,
            &["gmail.users.threads.list", "gmail.users.threads.get"],
            json!({
                "description": "Lists email threads from the user's Gmail account, filtered by a query in the Gmail search bar's syntax, with paging. Full message bodies are not returned: use get_thread for a thread's messages.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "pageSize": { "type": "integer", "description": "Optional. The most threads to return (default 20, at most 50)." },
                        "pageToken": string("Optional. The token of the page to return."),
                        "query": string("Optional. A Gmail search query, e.g. \"from:ada is:unread\"."),
                        "includeTrash": { "type": "boolean", "description": "Optional. Include threads in TRASH. Defaults to false." }
                    }
                },
                "outputSchema": { "type": "object", "properties": { "threads": { "type": "array", "items": thread, "description": "Thread summaries." }, "nextPageToken": { "type": "string" } } },
                "annotations": gmail_hints("Search threads", true, false, true)
            }),
        ),
        ToolDef::new(
            "get_thread",
            Gate::Never,
            &["gmail.users.threads.get"],
            json!({
                "description": "Retrieves an email thread from the user's Gmail account, with its messages.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "threadId": string("Required. The thread's ID."),
                        "messageFormat": { "type": "string", "enum": ["MESSAGE_FORMAT_UNSPECIFIED", "MINIMAL", "FULL_CONTENT"],
                            "description": "Optional. MINIMAL: snippets and key headers; FULL_CONTENT (the default): also the plain-text body and attachment IDs." }
                    },
                    "required": ["threadId"]
                },
                "outputSchema": thread,
                "annotations": gmail_hints("Get thread", true, false, true)
            }),
        ),
        ToolDef::new(
            "create_draft",
            Gate::Never,
            &["gmail.users.drafts.create"],
            json!({
                "description": "Creates a new draft email in the user's Gmail account from recipient addresses, a subject and a body; returns the draft. A reply's draft names the message it answers in replyToMessageId. Attachments are not supported.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "to": addresses("Required. The recipients: each a plain email address (\"Name <email>\" is not supported)."),
                        "cc": addresses("Optional. Cc recipients."),
                        "bcc": addresses("Optional. Bcc recipients."),
                        "subject": string("Optional. The subject; empty by default."),
                        "body": string("Optional. The plain-text body (the alternative to htmlBody when both are given)."),
                        "htmlBody": string("The HTML body."),
                        "replyToMessageId": string("Optional. The message this draft replies to.")
                    },
                    "required": ["to"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "string" }, "subject": { "type": "string" }, "threadId": { "type": "string" },
                        "toRecipients": { "type": "array", "items": { "type": "string" } },
                        "ccRecipients": { "type": "array", "items": { "type": "string" } },
                        "bccRecipients": { "type": "array", "items": { "type": "string" } },
                        "plaintextBody": { "type": "string" }, "date": { "type": "string" }
                    }
                },
                "annotations": gmail_hints("Create draft", false, false, false)
            }),
        ),
        ToolDef::new(
            "list_labels",
            Gate::Never,
            &["gmail.users.labels.list"],
            json!({
                "description": "Lists the user-defined labels of the user's Gmail account, to find a label's ID for label_thread, unlabel_thread, label_message or unlabel_message. System labels are not listed but can be used by their IDs: INBOX, TRASH, SPAM, STARRED, UNREAD, IMPORTANT, CHAT, DRAFT, SENT.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "pageSize": { "type": "integer", "description": "Optional. The most labels to return." },
                        "pageToken": string("Optional. The token of the page to return.")
                    }
                },
                "outputSchema": { "type": "object", "properties": {
                    "labels": { "type": "array", "items": { "type": "object", "properties": { "labelId": { "type": "string" }, "name": { "type": "string" } } } },
                    "nextPageToken": { "type": "string" } } },
                "annotations": gmail_hints("List labels", true, false, true)
            }),
        ),
        labelled("label_thread", "an entire thread: every message in it now and later", "threadId", "threads", true),
        labelled("unlabel_thread", "an entire thread", "threadId", "threads", false),
        labelled("label_message", "a message", "messageId", "messages", true),
        labelled("unlabel_message", "a message", "messageId", "messages", false),
    ]
}

/// Google's `Event` of the Calendar MCP server: close to the REST resource, with `DateOrDateTime` times (a
/// date as midnight UTC), `optionalAttendee` and `conferenceUrl`.
fn mcp_event() -> Value {
    let principal = json!({ "type": "object", "properties": { "email": { "type": "string" }, "displayName": { "type": "string" }, "self": { "type": "boolean" } } });
    let time = json!({ "type": "object", "properties": { "date": { "type": "string" }, "dateTime": { "type": "string" }, "timeZone": { "type": "string" } } });
    json!({
        "type": "object",
        "description": "An event on a calendar.",
        "properties": {
            "id": { "type": "string" }, "status": { "type": "string" }, "htmlLink": { "type": "string" },
            "created": { "type": "string" }, "updated": { "type": "string" }, "summary": { "type": "string" },
            "description": { "type": "string" }, "location": { "type": "string" },
            "creator": principal, "organizer": principal, "start": time, "end": time,
            "recurrence": { "type": "array", "items": { "type": "string" } }, "recurringEventId": { "type": "string" },
            "originalStartTime": time, "transparency": { "type": "string" }, "visibility": { "type": "string" },
            "attendees": { "type": "array", "items": { "type": "object", "properties": {
                "id": { "type": "string" }, "email": { "type": "string" }, "displayName": { "type": "string" },
                "organizer": { "type": "boolean" }, "self": { "type": "boolean" }, "resource": { "type": "boolean" },
                "optionalAttendee": { "type": "boolean" },
                "responseStatus": { "type": "string", "enum": ["needsAction", "declined", "tentative", "accepted"] },
                "comment": { "type": "string" }, "additionalGuests": { "type": "integer" } } } },
            "eventType": { "type": "string" }, "conferenceUrl": { "type": "string" }, "colorId": { "type": "string" }
        }
    })
}

/// The annotations Google publishes for the Calendar server's tools: never open world.
fn calendar_hints(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({ "title": title, "readOnlyHint": read_only, "destructiveHint": destructive, "idempotentHint": idempotent, "openWorldHint": false })
}

/// Calendar: the tools of Google's reference (April–May 2026 pages: `list_events`, `list_calendars`,
/// `create_event`, `delete_event`, with their schemas and annotations) and of a later `tools/list` capture
/// (`get_event`, `update_event`, `respond_to_event`, `search_events`: inputs only). Changing, deleting or
/// answering an event asks ("modifying a calendar event"); reading a calendar other than the account's own
/// asks too (owned outside the account). `suggest_time` is not offered (see MCP.md).
fn calendar() -> Vec<ToolDef> {
    let calendar_id = string("Optional. The calendar's ID; the primary calendar when absent.");
    let event = mcp_event();
    let notification = json!({ "type": "string", "enum": ["NOTIFICATION_LEVEL_UNSPECIFIED", "NONE", "EXTERNAL_ONLY", "ALL"],
        "description": "Optional. Whom Google emails about the change: NONE (the default), EXTERNAL_ONLY or ALL." });
    let emails =
        |description: &str| json!({ "type": "array", "items": { "type": "string" }, "description": description });
    let time = |description: &str| json!({ "type": "string", "description": description });
    vec![
        ToolDef::new(
            "list_events",
            Gate::OutsideAccount,
            &["calendar.events.list"],
            json!({
                "description": "Returns events on the given calendar matching all the constraints given. Time constraints should not be set unless the user asks for them; for an open keyword search of the primary calendar use search_events.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "calendarId": calendar_id,
                        "pageSize": { "type": "integer", "description": "Optional. The most events to return (default 250, at most 2500)." },
                        "pageToken": string("Optional. The token of the page to return."),
                        "startTime": time("Optional. Lower bound (exclusive) for an event's end time, an ISO 8601 timestamp. The current time when neither startTime nor endTime is given."),
                        "endTime": time("Optional. Upper bound (exclusive) for an event's start time, an ISO 8601 timestamp."),
                        "timeZone": string("Optional. The IANA time zone of the answer."),
                        "orderBy": { "type": "string", "enum": ["default", "startTime", "startTimeDesc", "lastModified"], "description": "Optional. The order of the events." },
                        "fullText": string("Optional. Free text to search for across title, description, location and attendees."),
                        "eventTypeFilter": emails("Optional. The event types to return (default, outOfOffice, focusTime, workingLocation, birthday, fromGmail).")
                    }
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "summary": { "type": "string" }, "description": { "type": "string" }, "updated": { "type": "string" },
                        "timeZone": { "type": "string" }, "accessRole": { "type": "string" },
                        "defaultReminders": { "type": "array", "items": { "type": "object" } },
                        "events": { "type": "array", "items": event }, "nextPageToken": { "type": "string" }
                    }
                },
                "annotations": calendar_hints("List events", true, false, true)
            }),
        ),
        ToolDef::new(
            "get_event",
            Gate::OutsideAccount,
            &["calendar.events.get"],
            json!({
                "description": "Returns a single event on the given calendar.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "eventId": string("Required. The event's ID; list_events or search_events find it."), "calendarId": calendar_id },
                    "required": ["eventId"]
                },
                "outputSchema": event,
                "annotations": calendar_hints("Get event", true, false, true)
            }),
        ),
        ToolDef::new(
            "list_calendars",
            Gate::Never,
            &["calendar.calendarList.list"],
            json!({
                "description": "Returns the calendars this user has access to (their calendar list): resolves a calendar's name (\"my family calendar\") into its calendarId.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "pageSize": { "type": "integer", "description": "Optional. The most calendars to return (default 100, at most 250)." },
                        "pageToken": string("Optional. The token of the page to return.")
                    }
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "calendars": { "type": "array", "items": { "type": "object", "properties": {
                            "id": { "type": "string" }, "summary": { "type": "string" }, "description": { "type": "string" }, "timeZone": { "type": "string" } } } },
                        "nextPageToken": { "type": "string" }
                    }
                },
                "annotations": calendar_hints("List calendars", true, false, true)
            }),
        ),
        ToolDef::new(
            "create_event",
            Gate::Never,
            &["calendar.events.insert"],
            json!({
                "description": "Creates an event on the given calendar.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "summary": string("Required. The event's title."),
                        "startTime": time("Required. The start, an ISO 8601 timestamp."),
                        "endTime": time("Required. The end, an ISO 8601 timestamp."),
                        "timeZone": string("Optional. The IANA time zone of the event; overrides the offsets in startTime and endTime."),
                        "attendeeEmails": emails("Optional. The guests' email addresses."),
                        "recurrenceData": emails("Optional. RRULE, RDATE and EXDATE lines."),
                        "calendarId": calendar_id,
                        "description": string("Optional. The description (HTML allowed)."),
                        "location": string("Optional. The location."),
                        "allDay": { "type": "boolean", "description": "Optional. An all-day event: start and end must be midnight UTC." },
                        "notificationLevel": notification,
                        "addGoogleMeetUrl": { "type": "boolean", "description": "Optional. Add a Google Meet link." },
                        "visibility": { "type": "string", "enum": ["default", "public", "private"], "description": "Optional. The event's visibility." },
                        "colorId": string("Optional. The event's colour, 1 to 11.")
                    },
                    "required": ["summary", "startTime", "endTime"]
                },
                "outputSchema": event,
                "annotations": calendar_hints("Create event", false, false, false)
            }),
        ),
        ToolDef::new(
            "update_event",
            Gate::Always,
            &["calendar.events.get", "calendar.events.patch"],
            json!({
                "description": "Updates an event on the given calendar: only the fields given change.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "eventId": string("Required. The event's ID."),
                        "calendarId": calendar_id,
                        "summary": string("Optional. The new title."),
                        "description": string("Optional. The new description."),
                        "location": string("Optional. The new location."),
                        "startTime": time("Optional. The new start; the duration is kept when only the start is given."),
                        "endTime": time("Optional. The new end."),
                        "allDay": { "type": "boolean", "description": "Optional. Make it an all-day event; startTime and endTime must be given too." },
                        "timeZone": string("Optional. The IANA time zone of the new times."),
                        "visibility": { "type": "string", "enum": ["default", "public", "private"] },
                        "colorId": string("Optional. The new colour, 1 to 11."),
                        "addedAttendeeEmails": emails("Optional. Guests to add."),
                        "removedAttendeeEmails": emails("Optional. Guests to remove."),
                        "notificationLevel": notification
                    },
                    "required": ["eventId"]
                },
                "outputSchema": event,
                "annotations": calendar_hints("Update event", false, false, true)
            }),
        ),
        ToolDef::new(
            "delete_event",
            Gate::Always,
            &["calendar.events.get", "calendar.events.delete"],
            json!({
                "description": "Deletes an event on the given calendar; answers the event as it was.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "eventId": string("Required. The event's ID."), "calendarId": calendar_id, "notificationLevel": notification },
                    "required": ["eventId"]
                },
                "outputSchema": event,
                "annotations": calendar_hints("Delete event", false, true, true)
            }),
        ),
        ToolDef::new(
            "respond_to_event",
            Gate::Always,
            &["calendar.events.get", "calendar.events.patch"],
            json!({
                "description": "Responds to an event on a calendar: the user's own answer to an invitation.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "eventId": string("Required. The event's ID."),
                        "responseStatus": { "type": "string", "enum": ["declined", "tentative", "accepted"], "description": "Required. The answer." },
                        "responseComment": string("Optional. A comment for the organizer."),
                        "calendarId": calendar_id,
                        "notificationLevel": notification
                    },
                    "required": ["eventId", "responseStatus"]
                },
                "outputSchema": event,
                "annotations": calendar_hints("Respond to event", false, false, true)
            }),
        ),
        ToolDef::new(
            "search_events",
            Gate::Never,
            &["calendar.events.list"],
            json!({
                "description": "Searches the events of the user's primary calendar.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": string("Required. What to search for (case-insensitive)."),
                        "pageSize": { "type": "integer", "description": "Optional. The most events to return." },
                        "pageToken": string("Optional. The token of the page to return.")
                    },
                    "required": ["query"]
                },
                "outputSchema": { "type": "object", "properties": { "events": { "type": "array", "items": event }, "nextPageToken": { "type": "string" } } },
                "annotations": calendar_hints("Search events", true, false, true)
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_parses_and_its_methods_exist_in_discovery() {
        let model = crate::discovery::model().expect("discovery loads");
        for product in Product::ALL {
            for tool in catalogue(product) {
                assert_eq!(tool.tool.name, tool.name);
                assert!(tool.tool.annotations.is_some(), "{} has annotations", tool.name);
                for id in tool.methods {
                    assert!(model.method(id).is_some(), "{}: {id} is a discovery method", tool.name);
                }
            }
        }
    }
}
