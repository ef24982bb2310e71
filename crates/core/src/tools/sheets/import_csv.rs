//! `import_csv_to_sheet`: a CSV file on this computer becomes a new spreadsheet, written in chunks of
//! bounded size, and resumable after a failure.
//!
//! How resuming works, and why it never duplicates a row:
//! - Every chunk is written with `values.update` to its own fixed rows (`A1001:F2000`), never appended,
//!   so writing a chunk twice leaves the sheet exactly as writing it once.
//! - The spreadsheet is created by Drive's `files.create` together with a marker in its `appProperties`
//!   (private to Gatehouse's OAuth client): the job (a hash of the file's path and the title), the hash of
//!   the file's content, the rows confirmed written, and the state (`writing`, then `done`). Creating and
//!   marking are one call, so no spreadsheet exists unmarked.
//! - A call with the same `local_path` and `title` first looks for a spreadsheet marked `writing` for that
//!   job and continues in it. The recorded row is checked against the sheet's actual contents (the last
//!   row said to be written must hold that CSV row's values); if the check fails, or the file changed
//!   since, every row is written again into the same spreadsheet (harmless: the writes are positional) and
//!   the grid is cut to the file's size. Once all rows are written the marker says `done`, so a later
//!   call imports the file again as a new spreadsheet, like the first time.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{find_sheet, sheets_of};
use crate::a1::{column_letters, quote_sheet};
use crate::csv;
use crate::drive_query::Query;
use crate::google::drive::{Corpora, File, ListRequest, mime};
use crate::google::sheets::{Reply, ValueRender};
use crate::limits::local_files::LocalPathError;
use crate::tools::{ToolContext, ToolError};

/// A chunk's share of one `values.update` body: at most this many bytes of cell text…
const CHUNK_BYTES: usize = 512 * 1024;
/// …and at most this many cells.
const CHUNK_CELLS: usize = 10_000;
/// The largest file read (Google's spreadsheets stop at 10 million cells anyway).
const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
const CELL_LIMIT: u64 = 10_000_000;

/// The marker's `appProperties` keys.
const JOB: &str = "gatehouseImportJob";
const SHA: &str = "gatehouseImportSha256";
const ROWS: &str = "gatehouseImportRows";
const STATE: &str = "gatehouseImportState";

const FILE_FIELDS: &str = "id,name,parents,webViewLink,appProperties";

fn sheet1() -> String {
    "Sheet1".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportCsvArgs {
    /// The CSV file on this computer (relative paths are inside the export folder); .tsv files are tab-separated.
    pub local_path: String,
    /// The new spreadsheet's title. Calling again with the same local_path and title finishes an import that failed midway.
    pub title: String,
    /// The Drive folder to put it in; omit for the configured default folder (DRIVE_FOLDER_ID) or My Drive.
    #[serde(default)]
    pub folder_id: Option<String>,
    /// The name of the sheet (tab) that receives the rows.
    #[serde(default = "sheet1")]
    pub sheet_name: String,
}

/// The file, read and checked.
struct Source {
    rows: Vec<Vec<String>>,
    width: usize,
    sha: String,
    job: String,
}

pub(super) async fn import_csv_to_sheet(ctx: ToolContext, args: ImportCsvArgs) -> Result<Value, ToolError> {
    let title = args.title.trim();
    if title.is_empty() {
        return Err(ToolError::invalid("title is empty: give the new spreadsheet a title."));
    }
    let sheet_name = args.sheet_name.trim();
    if sheet_name.is_empty() {
        return Err(ToolError::invalid("sheet_name is empty: give the sheet a name, like Sheet1."));
    }
    let path = ctx.local.allowed(&args.local_path)?;
    let source = read_source(&path, title).await?;
    let total = source.rows.len();

    let (file, mut start, mut notes) = match find_unfinished(&ctx, &source.job).await? {
        Some(file) => {
            let marker = file.app_properties.clone().unwrap_or_default();
            let recorded = marker.get(ROWS).and_then(|n| n.parse::<usize>().ok()).unwrap_or(0).min(total);
            if marker.get(SHA) == Some(&source.sha) {
                (file, recorded, vec![format!("Continued the unfinished import from row {}.", recorded + 1)])
            } else {
                let note = "The file changed since the unfinished import; all rows were written again into the same spreadsheet.";
                (file, 0, vec![note.to_owned()])
            }
        }
        None => (create(&ctx, title, args.folder_id.as_deref(), &source).await?, 0, Vec::new()),
    };
    let resumed = !notes.is_empty();
    let id = file.id.clone();
    let url = file.web_view_link.clone().unwrap_or_else(|| format!("https://docs.google.com/spreadsheets/d/{id}/edit"));
    let described = format!("spreadsheet {title:?} (id {id}, {url})");

    let (sheet_id, found_by_name) = prepare_sheet(&ctx, &id, sheet_name, total, source.width)
        .await
        .map_err(|e| ToolError::invalid(format!("Could not prepare the sheet of {described}: {e} {}", again())))?;
    if !found_by_name && start > 0 {
        start = 0;
        notes.push(format!("The sheet {sheet_name:?} was not found, so every row was written again."));
    }
    if start > 0 && !last_row_holds(&ctx, &id, sheet_name, &source, start).await {
        start = 0;
        notes.push("The rows recorded as written did not match the sheet, so every row was written again.".to_owned());
    }

    let last_col = column_letters(u32::try_from(source.width.saturating_sub(1)).unwrap_or(0));
    let range_of = |from: usize, to: usize| format!("{}!A{}:{last_col}{to}", quote_sheet(sheet_name), from + 1);
    let mut chunks = 0;
    let mut at = start;
    while at < total {
        let end = chunk_end(&source.rows, at);
        let values: Vec<Vec<Value>> = source.rows[at..end]
            .iter()
            .map(|row| {
                // Padded to the full width so a rewrite also clears what a changed file no longer has.
                let mut cells: Vec<Value> = row.iter().map(|f| Value::String(f.clone())).collect();
                cells.resize(source.width, Value::String(String::new()));
                cells
            })
            .collect();
        let range = range_of(at, end);
        if let Err(error) = ctx.google.sheets().values_update(&id, &range, &values).await {
            let rest = if end < total {
                format!(" Rows {}-{total} ({}) were not attempted.", end + 1, range_of(end, total))
            } else {
                String::new()
            };
            let written = if at == 0 {
                "No rows are in the spreadsheet yet.".to_owned()
            } else {
                format!("Rows 1-{at} of {total} are in the spreadsheet.")
            };
            return Err(ToolError::invalid(format!(
                "The import into {described} stopped: rows {}-{end} ({range}) could not be written: {error}{rest} {written} {}",
                at + 1,
                again(),
            )));
        }
        chunks += 1;
        at = end;
        if let Err(error) = set_marker(&ctx, &id, &[(ROWS, at.to_string())]).await {
            // The rows are written; a stale marker only makes a later resume rewrite them (harmlessly).
            tracing::warn!(spreadsheet = %id, %error, "import_csv_to_sheet: could not record progress");
        }
    }
    if let Err(error) = set_marker(&ctx, &id, &[(ROWS, total.to_string()), (STATE, "done".to_owned())]).await {
        tracing::warn!(spreadsheet = %id, %error, "import_csv_to_sheet: could not mark the import done");
        notes.push(format!(
            "Every row is written, but the spreadsheet could not be marked finished ({error}); calling again with the same local_path and title marks it, changing no cell."
        ));
    }
    Ok(json!({
        "spreadsheet_id": id,
        "title": title,
        "url": url,
        "sheet": sheet_name,
        "sheet_id": sheet_id,
        "rows": total,
        "columns": source.width,
        "range": range_of(0, total.max(1)),
        "rows_written_now": total - start,
        "chunks": chunks,
        "resumed": resumed,
        "folder_id": file.parents.first(),
        "local_path": path.display().to_string(),
        "notes": notes,
    }))
}

fn again() -> &'static str {
    "Call import_csv_to_sheet again with the same local_path and title to finish: it continues in the same spreadsheet where it stopped, without duplicating rows."
}

async fn read_source(path: &Path, title: &str) -> Result<Source, ToolError> {
    let io = |e: std::io::Error| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() };
    let metadata = tokio::fs::metadata(path).await.map_err(io)?;
    if !metadata.is_file() {
        return Err(ToolError::invalid(format!("{} is not a file. Give the path of one CSV file.", path.display())));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(ToolError::invalid(format!(
            "{} is {} MB; Gatehouse imports CSV files up to {} MB. Split it into smaller files.",
            path.display(),
            metadata.len() / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024),
        )));
    }
    let bytes = tokio::fs::read(path).await.map_err(io)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        ToolError::invalid(format!(
            "{} is not UTF-8 text. Save it as \"CSV UTF-8\" and import it again.",
            path.display()
        ))
    })?;
    let tab = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"));
    let rows = csv::parse(text, if tab { '\t' } else { ',' })
        .map_err(|e| ToolError::invalid(format!("{} could not be read as CSV: {e}.", path.display())))?;
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if rows.is_empty() || width == 0 {
        return Err(ToolError::invalid(format!("{} has no rows to import.", path.display())));
    }
    let cells = rows.len() as u64 * width as u64;
    if cells > CELL_LIMIT {
        return Err(ToolError::invalid(format!(
            "{} has {} rows x {width} columns = {cells} cells; a Google spreadsheet holds at most {CELL_LIMIT}. Split the file.",
            path.display(),
            rows.len(),
        )));
    }
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let job = hex(&Sha256::digest(format!("{}\n{title}", canonical.display()).as_bytes()));
    Ok(Source { rows, width, sha: hex(&Sha256::digest(&bytes)), job: job[..40].to_owned() })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The row after the last of the chunk starting at `start`: as many rows as fit the byte and cell budget,
/// and always at least one.
fn chunk_end(rows: &[Vec<String>], start: usize) -> usize {
    let width = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let (mut bytes, mut end) = (0, start);
    while end < rows.len() {
        // Each cell costs its text plus JSON quoting and separators.
        let row_bytes: usize = rows[end].iter().map(|f| f.len() + 3).sum::<usize>() + 3 * (width - rows[end].len()) + 2;
        let cells = (end - start + 1) * width;
        if end > start && (bytes + row_bytes > CHUNK_BYTES || cells > CHUNK_CELLS) {
            break;
        }
        bytes += row_bytes;
        end += 1;
    }
    end
}

/// The spreadsheet of an unfinished import of this job, if there is one.
async fn find_unfinished(ctx: &ToolContext, job: &str) -> Result<Option<File>, ToolError> {
    let q = Query::new()
        .and_raw(format!("appProperties has {{ key='{JOB}' and value='{job}' }}"))
        .and_raw(format!("appProperties has {{ key='{STATE}' and value='writing' }}"))
        .and_mime_type(mime::SPREADSHEET)
        .and_not_trashed()
        .render();
    let fields = format!("files({FILE_FIELDS})");
    let request = ListRequest {
        q: &q,
        fields: &fields,
        page_size: 1,
        page_token: None,
        order_by: None,
        corpora: Corpora::AllDrives,
    };
    Ok(ctx.google.drive().list(&request).await?.files.into_iter().next())
}

/// Creates the spreadsheet with its marker in one Drive call, in the folder asked for (else the configured
/// default folder, else My Drive).
async fn create(ctx: &ToolContext, title: &str, folder: Option<&str>, source: &Source) -> Result<File, ToolError> {
    let folder = folder
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .or_else(|| ctx.config.drive_folder_id.clone());
    let mut metadata = json!({
        "name": title,
        "mimeType": mime::SPREADSHEET,
        "appProperties": { JOB: source.job, SHA: source.sha, ROWS: "0", STATE: "writing" },
    });
    if let Some(folder) = &folder {
        metadata["parents"] = json!([folder]);
    }
    Ok(ctx.google.drive().create(&metadata, FILE_FIELDS).await?)
}

async fn set_marker(ctx: &ToolContext, id: &str, entries: &[(&str, String)]) -> Result<(), ToolError> {
    let properties: serde_json::Map<String, Value> =
        entries.iter().map(|(k, v)| ((*k).to_owned(), Value::String(v.clone()))).collect();
    ctx.google.drive().update(id, &json!({ "appProperties": properties }), "id").await?;
    Ok(())
}

/// Names the receiving sheet and sizes its grid to the file (cutting what a changed file no longer has).
/// Answers the sheet's id and whether it already had the name (else the first sheet was taken).
async fn prepare_sheet(
    ctx: &ToolContext,
    id: &str,
    name: &str,
    rows: usize,
    columns: usize,
) -> Result<(i64, bool), ToolError> {
    let sheets = sheets_of(ctx, id).await?;
    let (sheet, found) = match find_sheet(&sheets, name) {
        Some(sheet) => (sheet, true),
        None => (sheets.first().ok_or_else(|| ToolError::invalid("The spreadsheet has no sheet."))?, false),
    };
    let request = json!({ "updateSheetProperties": {
        "properties": {
            "sheetId": sheet.sheet_id,
            "title": name,
            "gridProperties": { "rowCount": rows.max(1), "columnCount": columns.max(1) },
        },
        "fields": "title,gridProperties.rowCount,gridProperties.columnCount",
    } });
    ctx.google.sheets().batch_update::<Reply>(id, &[request]).await?;
    Ok((sheet.sheet_id, found))
}

/// Whether the last row recorded as written (1-based `done`) holds that CSV row: a value in exactly the
/// columns where the CSV row has one. Presence, not equality: Sheets shows numbers and dates its own way
/// (`1.50` as `1.5`).
async fn last_row_holds(ctx: &ToolContext, id: &str, sheet: &str, source: &Source, done: usize) -> bool {
    let range = format!("{}!{done}:{done}", quote_sheet(sheet));
    let Ok(read) = ctx.google.sheets().values_get::<Value>(id, &range, ValueRender::Formatted).await else {
        return false;
    };
    let shown: Vec<String> = read
        .values
        .into_iter()
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string()))
        .collect();
    let expected = &source.rows[done - 1];
    (0..source.width).all(|i| {
        let want = expected.get(i).map(|s| s.trim()).unwrap_or("");
        let got = shown.get(i).map(|s| s.trim()).unwrap_or("");
        want.is_empty() == got.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_stay_within_their_budget_and_cover_every_row() {
        let rows: Vec<Vec<String>> = (0..25_000).map(|i| vec![format!("row {i}"), "x".repeat(10)]).collect();
        let mut start = 0;
        let mut sizes = Vec::new();
        while start < rows.len() {
            let end = chunk_end(&rows, start);
            assert!(end > start);
            sizes.push(end - start);
            start = end;
        }
        assert_eq!(sizes.iter().sum::<usize>(), 25_000);
        assert!(sizes.iter().all(|n| n * 2 <= CHUNK_CELLS), "{sizes:?}");
        // One huge row still makes a chunk of its own.
        let big = vec![vec!["y".repeat(CHUNK_BYTES * 2)], vec!["z".to_owned()]];
        assert_eq!(chunk_end(&big, 0), 1);
    }
}
