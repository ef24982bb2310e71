//! The Sheets v4 HTTP surface: Google's paths below the root, custom verbs (`:batchUpdate`, `:clear`,
//! …) split off the last path segment, ranges percent-decoded.

use axum::body::Bytes;
use axum::http::{Method, Uri};
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::MIME_TYPE;
use super::a1::Span;
use super::batch::{self, Effects};
use super::eval::Eval;
use super::model::{Sheet, Spreadsheet, Target, as_i64, default_properties};
use super::schema::{Api, Query, check_query, parse_body};
use super::values::{self, ReadOptions, Write};
use crate::call::Reply;
use crate::drive::Access;
use crate::errors::ApiError;
use crate::rpc::{Call, apply_requests, body_object, checked_body, decode, respond, unknown_path};
use crate::state::{Identity, World};

impl World {
    /// The spreadsheet `id`, once `who` passed the access check for `access` (the one way handlers reach
    /// a spreadsheet).
    fn book_for(&self, id: &str, who: &Identity, access: Access) -> Result<&Spreadsheet, ApiError> {
        self.require_native_access(id, who, access)?;
        self.sheets.books.get(id).ok_or_else(ApiError::not_found)
    }

    /// The spreadsheet `id` to write, once `who` passed the access check for writing.
    fn book_for_mut(&mut self, id: &str, who: &Identity) -> Result<&mut Spreadsheet, ApiError> {
        self.require_native_access(id, who, Access::Write)?;
        self.sheets.books.get_mut(id).ok_or_else(ApiError::not_found)
    }
}

/// `POST /v4/spreadsheets` (`spreadsheets.create`).
pub(super) async fn create(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| {
        let body = checked_body(Api::Sheets, &["spreadsheets", "create"], query, "Spreadsheet", &body)?;
        // The new file lands in the caller's My Drive, where a service account has no storage.
        if who.is_service_account() {
            return Err(ApiError::rpc(403, "The user's Drive storage quota has been exceeded."));
        }
        let book = from_create_body(&format!("1{}", World::new_id(43)), body_object(&body))?;
        let value = book.json(None, false);
        let (id, title) = (book.id.clone(), book.title().to_owned());
        world.sheets.books.insert(id.clone(), book);
        world.native_created(&id, &title, MIME_TYPE, &who);
        respond(value, query)
    })
}

/// A spreadsheet from a `Spreadsheet` body: its properties, sheets and grid data.
fn from_create_body(id: &str, body: &Map<String, Value>) -> Result<Spreadsheet, ApiError> {
    let mut book = Spreadsheet::new(id, "Untitled spreadsheet");
    if let Some(props) = body.get("properties").and_then(Value::as_object) {
        let mut properties = default_properties("Untitled spreadsheet");
        for (key, value) in props {
            if !value.is_null() {
                properties.insert(key.clone(), value.clone());
            }
        }
        if properties.get("title").and_then(Value::as_str).is_none_or(|t| t.is_empty()) {
            properties.insert("title".into(), json!("Untitled spreadsheet"));
        }
        book.properties = properties;
    }
    let given = body.get("sheets").and_then(Value::as_array).cloned().unwrap_or_default();
    if !given.is_empty() {
        book.sheets.clear();
        let mut ordered: Vec<(i64, Sheet)> = Vec::new();
        for (i, item) in given.iter().enumerate() {
            let mut props = item.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            if as_i64(props.get("sheetId")).is_none() && book.sheet_by_id(0).is_none() && i == 0 {
                props.insert("sheetId".into(), json!(0));
            }
            let fail = |m: String| ApiError::invalid(format!("Invalid sheets[{i}]: {m}"));
            let mut sheet = batch::sheet_from_properties(&book, &props).map_err(fail)?;
            if let Some(data) = item.get("data").and_then(Value::as_array) {
                batch::load_grid_data(&mut sheet, data).map_err(fail)?;
            }
            let index = as_i64(props.get("index")).unwrap_or(i as i64);
            // Keep the sheet visible to later title/id checks.
            book.sheets.push(sheet.clone());
            ordered.push((index, sheet));
        }
        ordered.sort_by_key(|(index, _)| *index);
        book.sheets = ordered.into_iter().map(|(_, s)| s).collect();
    }
    book.check_limit().map_err(ApiError::invalid)?;
    Ok(book)
}

fn split_verb(segment: &str) -> (&str, Option<&str>) {
    match segment.rsplit_once(':') {
        Some((head, verb)) => (head, Some(verb)),
        None => (segment, None),
    }
}

/// Every other `/v4/spreadsheets/…` path.
pub(super) async fn dispatch(method: Method, uri: Uri, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| {
        let (reply, modified) = route(world, &who, &method, uri.path(), query, &body)?;
        if let Some(id) = modified {
            world.native_edited(&id, &who);
        }
        Ok(reply)
    })
}

/// Runs the method a path names; also returns the spreadsheet it modified, if any.
fn route(
    world: &mut World,
    who: &Identity,
    method: &Method,
    path: &str,
    query: &Query,
    body: &[u8],
) -> Result<(Response, Option<String>), ApiError> {
    let modified = |reply: Reply, id: &str| reply.map(|r| (r, Some(id.to_owned())));
    let read = |reply: Reply| reply.map(|r| (r, None));
    let rest = path.strip_prefix("/v4/spreadsheets/").unwrap_or_default();
    let segments: Vec<&str> = rest.split('/').collect();
    let get = *method == Method::GET;
    let post = *method == Method::POST;
    match segments.as_slice() {
        [head] => {
            let (id, verb) = split_verb(head);
            let id = decode(id)?;
            match (verb, get, post) {
                (None, true, _) => read(get_spreadsheet(world, who, &id, query)),
                (Some("batchUpdate"), _, true) => modified(batch_update(world, who, &id, query, body), &id),
                (Some("getByDataFilter"), _, true) => read(get_by_data_filter(world, who, &id, query, body)),
                _ => Err(unknown_path(path)),
            }
        }
        [id, second] => {
            let id = decode(id)?;
            match (decode(second)?.as_str(), get, post) {
                ("values:batchGet", true, _) => read(batch_get(world, who, &id, query)),
                ("values:batchUpdate", _, true) => modified(batch_update_values(world, who, &id, query, body), &id),
                ("values:batchClear", _, true) => modified(batch_clear(world, who, &id, query, body), &id),
                (
                    "values:batchGetByDataFilter" | "values:batchUpdateByDataFilter" | "values:batchClearByDataFilter",
                    _,
                    true,
                ) => Err(ApiError::rpc(501, "The Google emulator does not implement data filters on values.")),
                _ => Err(unknown_path(path)),
            }
        }
        [id, "sheets", sheet] if post => {
            let id = decode(id)?;
            match split_verb(sheet) {
                (sheet_id, Some("copyTo")) => {
                    let destination = parse_body(body)?
                        .get("destinationSpreadsheetId")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_default();
                    modified(copy_to(world, who, &id, &decode(sheet_id)?, query, body), &destination)
                }
                _ => Err(unknown_path(path)),
            }
        }
        [id, "developerMetadata", ..] => {
            world.book_for(&decode(id)?, who, Access::Read)?;
            Err(ApiError::rpc(501, "The Google emulator does not implement developer metadata."))
        }
        [id, "values", range @ ..] if !range.is_empty() => {
            let id = decode(id)?;
            let raw = range.join("/");
            if *method == Method::GET {
                read(values_get(world, who, &id, &decode(&raw)?, query))
            } else if *method == Method::PUT {
                modified(values_update(world, who, &id, &decode(&raw)?, query, body), &id)
            } else if post {
                match split_verb(&raw) {
                    (range, Some("clear")) => {
                        modified(values_clear(world, who, &id, &decode(range)?, query, body), &id)
                    }
                    (range, Some("append")) => {
                        modified(values_append(world, who, &id, &decode(range)?, query, body), &id)
                    }
                    _ => Err(unknown_path(path)),
                }
            } else {
                Err(unknown_path(path))
            }
        }
        _ => Err(unknown_path(path)),
    }
}

/// Every range of `ranges`, resolved on `book`.
fn resolve_all(book: &Spreadsheet, ranges: &[&str]) -> Result<Vec<Target>, ApiError> {
    ranges.iter().map(|range| book.resolve(range)).collect()
}

/// The strings of the array `key` in a request body.
fn strings<'a>(body: &'a Value, key: &str) -> Vec<&'a str> {
    body.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// A `Spreadsheet` resource, with the grid data of `targets` (of every sheet when there are none) when
/// `include_grid`.
fn book_json(book: &Spreadsheet, targets: &[Target], include_grid: bool) -> Value {
    book.json((!targets.is_empty()).then_some(targets), include_grid)
}

fn get_spreadsheet(world: &mut World, who: &Identity, id: &str, query: &Query) -> Reply {
    check_query(Api::Sheets, &["spreadsheets", "get"], query)?;
    let book = world.book_for(id, who, Access::Read)?;
    let targets = resolve_all(book, &query.all("ranges"))?;
    respond(book_json(book, &targets, query.flag("includeGridData")), query)
}

fn get_by_data_filter(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    let body = checked_body(
        Api::Sheets,
        &["spreadsheets", "getByDataFilter"],
        query,
        "GetSpreadsheetByDataFilterRequest",
        body,
    )?;
    let book = world.book_for(id, who, Access::Read)?;
    let mut targets = Vec::new();
    for (i, filter) in body.get("dataFilters").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if let Some(range) = filter.get("a1Range").and_then(Value::as_str) {
            targets.push(book.resolve(range)?);
        } else if let Some(grid) = filter.get("gridRange").and_then(Value::as_object) {
            let sheet_id = as_i64(grid.get("sheetId")).unwrap_or(0);
            let sheet = book
                .sheet_by_id(sheet_id)
                .ok_or_else(|| ApiError::invalid(format!("Invalid dataFilters[{i}]: No grid with id: {sheet_id}")))?;
            let n = |key: &str| as_i64(grid.get(key)).and_then(|v| u32::try_from(v).ok());
            let span = Span {
                start_row: n("startRowIndex").unwrap_or(0),
                start_col: n("startColumnIndex").unwrap_or(0),
                end_row: n("endRowIndex"),
                end_col: n("endColumnIndex"),
            };
            targets.push(Target { sheet, span });
        } else {
            return Err(ApiError::rpc(501, "The Google emulator supports only a1Range and gridRange data filters."));
        }
    }
    let include = body.get("includeGridData").and_then(Value::as_bool).unwrap_or(false);
    respond(book_json(book, &targets, include), query)
}

fn read_options(query: &Query) -> ReadOptions {
    ReadOptions::new(query.get("majorDimension"), query.get("valueRenderOption"), query.get("dateTimeRenderOption"))
}

fn values_get(world: &mut World, who: &Identity, id: &str, range: &str, query: &Query) -> Reply {
    check_query(Api::Sheets, &["spreadsheets", "values", "get"], query)?;
    let book = world.book_for(id, who, Access::Read)?;
    let target = book.resolve(range)?;
    let mut eval = Eval::new(book);
    respond(values::value_range(book, &mut eval, target, read_options(query)), query)
}

fn batch_get(world: &mut World, who: &Identity, id: &str, query: &Query) -> Reply {
    check_query(Api::Sheets, &["spreadsheets", "values", "batchGet"], query)?;
    let book = world.book_for(id, who, Access::Read)?;
    let targets = resolve_all(book, &query.all("ranges"))?;
    let options = read_options(query);
    let mut eval = Eval::new(book);
    let ranges: Vec<Value> = targets.into_iter().map(|t| values::value_range(book, &mut eval, t, options)).collect();
    let mut out = json!({ "spreadsheetId": id });
    if !ranges.is_empty() {
        out["valueRanges"] = Value::Array(ranges);
    }
    respond(out, query)
}

/// `valueInputOption` from a query parameter: required, and not `INPUT_VALUE_OPTION_UNSPECIFIED`.
fn input_option(value: Option<&str>) -> Result<bool, ApiError> {
    match value {
        None => Err(ApiError::invalid("'valueInputOption' is required but not specified")),
        Some("RAW") => Ok(false),
        Some("USER_ENTERED") => Ok(true),
        Some(other) => Err(ApiError::invalid(format!("Invalid valueInputOption: {other}"))),
    }
}

fn response_options(include: bool, render: Option<&str>, date_time: Option<&str>) -> Option<ReadOptions> {
    include.then(|| ReadOptions::new(None, render, date_time))
}

/// The values a write's reply shows, as the query asks (`includeValuesInResponse` …).
fn query_response_options(query: &Query) -> Option<ReadOptions> {
    response_options(
        query.flag("includeValuesInResponse"),
        query.get("responseValueRenderOption"),
        query.get("responseDateTimeRenderOption"),
    )
}

fn values_update(world: &mut World, who: &Identity, id: &str, range: &str, query: &Query, body: &[u8]) -> Reply {
    let body = checked_body(Api::Sheets, &["spreadsheets", "values", "update"], query, "ValueRange", body)?;
    let book = world.book_for_mut(id, who)?;
    let user_entered = input_option(query.get("valueInputOption"))?;
    let write = values::parse_write(book, range, body_object(&body), user_entered, "")?;
    values::check_bounds(range, &write)?;
    values::expand_for(book, std::slice::from_ref(&write))?;
    let written = values::apply_write(book, write);
    let include = query_response_options(query);
    respond(values::update_response(book, &written, include), query)
}

fn batch_update_values(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    let body =
        checked_body(Api::Sheets, &["spreadsheets", "values", "batchUpdate"], query, "BatchUpdateValuesRequest", body)?;
    let book = world.book_for_mut(id, who)?;
    let body = body_object(&body);
    let user_entered = match body.get("valueInputOption").and_then(Value::as_str) {
        Some("RAW") => false,
        Some("USER_ENTERED") => true,
        other => {
            let shown = other.unwrap_or("INPUT_VALUE_OPTION_UNSPECIFIED");
            return Err(ApiError::invalid(format!("Invalid valueInputOption: {shown}")));
        }
    };
    let data = body.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut writes: Vec<Write> = Vec::with_capacity(data.len());
    for (i, item) in data.iter().enumerate() {
        let item = body_object(item);
        let range = item
            .get("range")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::invalid(format!("Invalid data[{i}]: range is required")))?;
        let write = values::parse_write(book, range, item, user_entered, &format!("data[{i}]."))?;
        values::check_bounds(range, &write)?;
        writes.push(write);
    }
    values::expand_for(book, &writes)?;
    let include = response_options(
        body.get("includeValuesInResponse").and_then(Value::as_bool).unwrap_or(false),
        body.get("responseValueRenderOption").and_then(Value::as_str),
        body.get("responseDateTimeRenderOption").and_then(Value::as_str),
    );
    let mut responses = Vec::new();
    let (mut rows, mut cols, mut cells) = (0u64, 0u64, 0u64);
    let mut sheets = std::collections::BTreeSet::new();
    let written: Vec<_> = writes.into_iter().map(|w| values::apply_write(book, w)).collect();
    for w in &written {
        rows += u64::from(w.rows);
        cols += u64::from(w.cols);
        cells += u64::from(w.cells);
        if w.cells > 0 {
            sheets.insert(w.sheet);
        }
        responses.push(values::update_response(book, w, include));
    }
    let mut out = json!({
        "spreadsheetId": id,
        "totalUpdatedRows": rows,
        "totalUpdatedColumns": cols,
        "totalUpdatedCells": cells,
        "totalUpdatedSheets": sheets.len(),
        "responses": responses,
    });
    super::model::prune(&mut out);
    out["spreadsheetId"] = json!(id);
    respond(out, query)
}

fn values_clear(world: &mut World, who: &Identity, id: &str, range: &str, query: &Query, body: &[u8]) -> Reply {
    checked_body(Api::Sheets, &["spreadsheets", "values", "clear"], query, "ClearValuesRequest", body)?;
    let book = world.book_for_mut(id, who)?;
    let target = book.resolve(range)?;
    let cleared = values::clear(book, target);
    respond(json!({ "spreadsheetId": id, "clearedRange": cleared }), query)
}

fn batch_clear(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    let body =
        checked_body(Api::Sheets, &["spreadsheets", "values", "batchClear"], query, "BatchClearValuesRequest", body)?;
    let book = world.book_for_mut(id, who)?;
    let targets = resolve_all(book, &strings(&body, "ranges"))?;
    let cleared: Vec<String> = targets.into_iter().map(|t| values::clear(book, t)).collect();
    let mut out = json!({ "spreadsheetId": id });
    if !cleared.is_empty() {
        out["clearedRanges"] = json!(cleared);
    }
    respond(out, query)
}

fn values_append(world: &mut World, who: &Identity, id: &str, range: &str, query: &Query, body: &[u8]) -> Reply {
    let body = checked_body(Api::Sheets, &["spreadsheets", "values", "append"], query, "ValueRange", body)?;
    let book = world.book_for_mut(id, who)?;
    let user_entered = input_option(query.get("valueInputOption"))?;
    let mut write = values::parse_write(book, range, body_object(&body), user_entered, "")?;
    let (row, table) = values::find_table(book, write.target);
    let height = write.grid.len() as u32;
    write.target.span = Span { start_row: row, start_col: write.target.span.start_col, end_row: None, end_col: None };
    if query.get("insertDataOption") == Some("INSERT_ROWS") && height > 0 {
        let sheet = &mut book.sheets[write.target.sheet];
        if row < sheet.rows {
            sheet.insert_rows(row, height);
        }
        book.check_limit().map_err(ApiError::invalid)?;
    }
    values::expand_for(book, std::slice::from_ref(&write))?;
    let sheet = write.target.sheet;
    let written = values::apply_write(book, write);
    let include = query_response_options(query);
    let mut out = json!({ "spreadsheetId": id, "updates": values::update_response(book, &written, include) });
    if let Some(table) = table {
        out["tableRange"] = json!(book.a1(sheet, table));
    }
    respond(out, query)
}

fn copy_to(world: &mut World, who: &Identity, id: &str, sheet_id: &str, query: &Query, body: &[u8]) -> Reply {
    let body = checked_body(
        Api::Sheets,
        &["spreadsheets", "sheets", "copyTo"],
        query,
        "CopySheetToAnotherSpreadsheetRequest",
        body,
    )?;
    let sheet_id: i64 = sheet_id
        .parse()
        .map_err(|_| ApiError::invalid(format!("Invalid value at 'sheet_id' (TYPE_INT32), \"{sheet_id}\"")))?;
    let book = world.book_for(id, who, Access::Read)?;
    let source = book.sheet_by_id(sheet_id).ok_or_else(|| ApiError::invalid(format!("No grid with id: {sheet_id}")))?;
    let mut sheet = book.sheets[source].clone();
    let destination = body.get("destinationSpreadsheetId").and_then(Value::as_str).unwrap_or_default().to_owned();
    if destination.is_empty() {
        return Err(ApiError::invalid("Invalid destinationSpreadsheetId: must be specified."));
    }
    let target = world.book_for_mut(&destination, who)?;
    sheet.id = target.new_sheet_id();
    sheet.title = target.unique_title(&format!("Copy of {}", sheet.title));
    sheet.charts.clear();
    target.sheets.push(sheet);
    if let Err(message) = target.check_limit() {
        target.sheets.pop();
        return Err(ApiError::invalid(message));
    }
    let index = target.sheets.len() - 1;
    respond(target.sheets[index].properties(index), query)
}

fn batch_update(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    let body =
        checked_body(Api::Sheets, &["spreadsheets", "batchUpdate"], query, "BatchUpdateSpreadsheetRequest", body)?;
    let original = world.book_for(id, who, Access::Write)?;
    let requests = body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default();
    if requests.is_empty() {
        return Err(ApiError::invalid("Must specify at least one request."));
    }
    let mut book = original.clone();
    let mut effects = Effects::default();
    let replies = apply_requests(&requests, "kind", "spreadsheets.batchUpdate", |kind, inner| {
        batch::apply(&mut book, kind, inner, &mut effects)
    })?;
    let mut out = json!({ "spreadsheetId": id, "replies": replies });
    if body.get("includeSpreadsheetInResponse").and_then(Value::as_bool) == Some(true) {
        let targets = resolve_all(&book, &strings(&body, "responseRanges"))?;
        let include = body.get("responseIncludeGridData").and_then(Value::as_bool).unwrap_or(false);
        out["updatedSpreadsheet"] = book_json(&book, &targets, include);
    }
    world.sheets.books.insert(id.to_owned(), book);
    if let Some(title) = effects.renamed {
        world.native_renamed(id, &title, who);
    }
    respond(out, query)
}
