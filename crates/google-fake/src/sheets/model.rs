//! The spreadsheet model: sheets with their properties, a sparse grid of cells, row/column metadata,
//! merges and charts; formula evaluation over it; and its rendering as Google's JSON.

use serde_json::{Map, Value, json};

use super::a1::{self, Span};
use super::cell::{self, Cell, Input};
use super::eval::Eval;
use super::fields;
use crate::errors::ApiError;

/// Google's limit on cells per spreadsheet.
pub(crate) const CELL_LIMIT: u64 = 10_000_000;
pub(crate) const DEFAULT_ROWS: u32 = 1000;
pub(crate) const DEFAULT_COLUMNS: u32 = 26;
const ROW_PIXELS: u64 = 21;
const COLUMN_PIXELS: u64 = 100;

/// A bounded rectangle of a sheet, 0-based, exclusive ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rect {
    pub r0: u32,
    pub c0: u32,
    pub r1: u32,
    pub c1: u32,
}

impl Rect {
    pub(crate) fn rows(&self) -> u32 {
        self.r1.saturating_sub(self.r0)
    }

    pub(crate) fn cols(&self) -> u32 {
        self.c1.saturating_sub(self.c0)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows() == 0 || self.cols() == 0
    }

    pub(crate) fn intersects(&self, other: &Rect) -> bool {
        self.r0 < other.r1 && other.r0 < self.r1 && self.c0 < other.c1 && other.c0 < self.c1
    }

    pub(crate) fn contains(&self, other: &Rect) -> bool {
        self.r0 <= other.r0 && other.r1 <= self.r1 && self.c0 <= other.c0 && other.c1 <= self.c1
    }
}

/// Removes proto3 default values (false, 0, "", empty lists and objects) from an object, recursively.
pub(crate) fn prune(value: &mut Value) {
    if let Value::Object(map) = value {
        for item in map.values_mut() {
            prune(item);
        }
        map.retain(|_, item| match item {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
        });
    }
}

fn as_u32(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)).or_else(|| v.as_str()?.parse().ok()))
        .and_then(|n| u32::try_from(n).ok())
}

pub(crate) fn as_i64(value: Option<&Value>) -> Option<i64> {
    value.and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)).or_else(|| v.as_str()?.parse().ok()))
}

/// One sheet (tab).
#[derive(Debug, Clone)]
pub(crate) struct Sheet {
    pub id: i64,
    pub title: String,
    pub rows: u32,
    pub cols: u32,
    /// Every other `SheetProperties` field (`hidden`, `tabColor`, `gridProperties.frozenRowCount`, …).
    pub extra: Map<String, Value>,
    /// Rows of cells, trimmed: only as many as were ever written.
    pub cells: Vec<Vec<Cell>>,
    pub row_meta: Vec<Map<String, Value>>,
    pub col_meta: Vec<Map<String, Value>>,
    pub merges: Vec<Rect>,
    pub charts: Vec<Value>,
}

impl Sheet {
    pub(crate) fn new(id: i64, title: &str) -> Self {
        Self {
            id,
            title: title.to_owned(),
            rows: DEFAULT_ROWS,
            cols: DEFAULT_COLUMNS,
            extra: Map::new(),
            cells: Vec::new(),
            row_meta: Vec::new(),
            col_meta: Vec::new(),
            merges: Vec::new(),
            charts: Vec::new(),
        }
    }

    pub(crate) fn grid(&self) -> Rect {
        Rect { r0: 0, c0: 0, r1: self.rows, c1: self.cols }
    }

    /// `SheetProperties` as Google renders them (`sheetId` and `index` are always present).
    pub(crate) fn properties(&self, index: usize) -> Value {
        let mut extra = Value::Object(self.extra.clone());
        prune(&mut extra);
        let mut props = json!({
            "sheetId": self.id,
            "title": self.title,
            "index": index,
            "sheetType": "GRID",
        });
        let mut grid = json!({ "rowCount": self.rows, "columnCount": self.cols });
        if let Value::Object(mut extra) = extra {
            if let Some(more) = extra.remove("gridProperties") {
                fields::merge(&mut grid, &more);
            }
            fields::merge(&mut props, &Value::Object(extra));
        }
        props["gridProperties"] = grid;
        super::colors::tidy(&mut props);
        props
    }

    /// Replaces the properties from Google's JSON (after a field-mask merge). `index` is the caller's.
    pub(crate) fn set_properties(&mut self, props: &Map<String, Value>) -> Result<(), String> {
        let mut extra = props.clone();
        extra.remove("index");
        extra.remove("sheetType");
        if let Some(id) = extra.remove("sheetId") {
            self.id = as_i64(Some(&id)).unwrap_or(self.id);
        }
        if let Some(title) = extra.remove("title") {
            self.title = title.as_str().unwrap_or_default().to_owned();
        }
        let mut grid = match extra.remove("gridProperties") {
            Some(Value::Object(grid)) => grid,
            _ => Map::new(),
        };
        let rows = as_u32(grid.remove("rowCount").as_ref()).unwrap_or(self.rows);
        let cols = as_u32(grid.remove("columnCount").as_ref()).unwrap_or(self.cols);
        if rows == 0 {
            return Err("You can't delete all the rows on the sheet.".into());
        }
        if cols == 0 {
            return Err("You can't delete all the columns on the sheet.".into());
        }
        if rows > a1::MAX_ROWS || cols > a1::MAX_COLUMNS {
            return Err(format!("Grid size {rows}x{cols} is larger than the maximum allowed."));
        }
        if as_u32(grid.get("frozenRowCount")).unwrap_or(0) >= rows {
            return Err("You can't freeze all visible rows on the sheet.".into());
        }
        if as_u32(grid.get("frozenColumnCount")).unwrap_or(0) >= cols {
            return Err("You can't freeze all visible columns on the sheet.".into());
        }
        self.resize(rows, cols);
        if !grid.is_empty() {
            extra.insert("gridProperties".into(), Value::Object(grid));
        }
        self.extra = extra;
        Ok(())
    }

    pub(crate) fn hidden(&self) -> bool {
        self.extra.get("hidden").and_then(Value::as_bool).unwrap_or(false)
    }

    /// Changes the grid size, dropping what falls outside.
    pub(crate) fn resize(&mut self, rows: u32, cols: u32) {
        self.rows = rows;
        self.cols = cols;
        self.cells.truncate(rows as usize);
        self.row_meta.truncate(rows as usize);
        self.col_meta.truncate(cols as usize);
        for row in &mut self.cells {
            row.truncate(cols as usize);
        }
        let grid = self.grid();
        self.merges.retain(|m| grid.contains(m));
        self.trim();
    }

    pub(crate) fn cell(&self, row: u32, col: u32) -> Option<&Cell> {
        self.cells.get(row as usize)?.get(col as usize)
    }

    pub(crate) fn cell_mut(&mut self, row: u32, col: u32) -> &mut Cell {
        let (row, col) = (row as usize, col as usize);
        if self.cells.len() <= row {
            self.cells.resize_with(row + 1, Vec::new);
        }
        let cells = &mut self.cells[row];
        if cells.len() <= col {
            cells.resize_with(col + 1, Cell::default);
        }
        &mut cells[col]
    }

    /// Drops trailing blank cells and rows from storage.
    pub(crate) fn trim(&mut self) {
        for row in &mut self.cells {
            while row.last().is_some_and(Cell::is_blank) {
                row.pop();
            }
        }
        while self.cells.last().is_some_and(Vec::is_empty) {
            self.cells.pop();
        }
        while self.row_meta.last().is_some_and(Map::is_empty) {
            self.row_meta.pop();
        }
        while self.col_meta.last().is_some_and(Map::is_empty) {
            self.col_meta.pop();
        }
    }

    /// Resolves a span against this sheet's grid.
    pub(crate) fn clamp(&self, span: Span) -> Rect {
        Rect {
            r0: span.start_row.min(self.rows),
            c0: span.start_col.min(self.cols),
            r1: span.end_row.unwrap_or(self.rows).min(self.rows),
            c1: span.end_col.unwrap_or(self.cols).min(self.cols),
        }
    }

    pub(crate) fn insert_rows(&mut self, at: u32, count: u32) {
        let at_index = at as usize;
        if at_index < self.cells.len() {
            let blank = std::iter::repeat_with(Vec::new).take(count as usize);
            self.cells.splice(at_index..at_index, blank);
        }
        if at_index < self.row_meta.len() {
            let blank = std::iter::repeat_with(Map::new).take(count as usize);
            self.row_meta.splice(at_index..at_index, blank);
        }
        for merge in &mut self.merges {
            if merge.r0 >= at {
                merge.r0 += count;
                merge.r1 += count;
            } else if merge.r1 > at {
                merge.r1 += count;
            }
        }
        self.rows += count;
    }

    pub(crate) fn insert_cols(&mut self, at: u32, count: u32) {
        let at_index = at as usize;
        for row in &mut self.cells {
            if at_index < row.len() {
                let blank = std::iter::repeat_with(Cell::default).take(count as usize);
                row.splice(at_index..at_index, blank);
            }
        }
        if at_index < self.col_meta.len() {
            let blank = std::iter::repeat_with(Map::new).take(count as usize);
            self.col_meta.splice(at_index..at_index, blank);
        }
        for merge in &mut self.merges {
            if merge.c0 >= at {
                merge.c0 += count;
                merge.c1 += count;
            } else if merge.c1 > at {
                merge.c1 += count;
            }
        }
        self.cols += count;
    }

    pub(crate) fn delete_rows(&mut self, start: u32, end: u32) {
        let (s, e) = (start as usize, end as usize);
        if s < self.cells.len() {
            self.cells.drain(s..e.min(self.cells.len()));
        }
        if s < self.row_meta.len() {
            self.row_meta.drain(s..e.min(self.row_meta.len()));
        }
        let count = end - start;
        self.merges.retain_mut(|m| shrink(&mut m.r0, &mut m.r1, start, end, count));
        self.rows -= count;
        self.trim();
    }

    pub(crate) fn delete_cols(&mut self, start: u32, end: u32) {
        let (s, e) = (start as usize, end as usize);
        for row in &mut self.cells {
            if s < row.len() {
                row.drain(s..e.min(row.len()));
            }
        }
        if s < self.col_meta.len() {
            self.col_meta.drain(s..e.min(self.col_meta.len()));
        }
        let count = end - start;
        self.merges.retain_mut(|m| shrink(&mut m.c0, &mut m.c1, start, end, count));
        self.cols -= count;
        self.trim();
    }

    /// How many rows (or columns) the sheet has.
    pub(crate) fn size(&self, rows: bool) -> u32 {
        if rows { self.rows } else { self.cols }
    }

    pub(crate) fn meta_mut(&mut self, rows: bool, index: u32) -> &mut Map<String, Value> {
        let list = if rows { &mut self.row_meta } else { &mut self.col_meta };
        let index = index as usize;
        if list.len() <= index {
            list.resize_with(index + 1, Map::new);
        }
        &mut list[index]
    }

    pub(crate) fn meta(&self, rows: bool, index: u32) -> Value {
        let list = if rows { &self.row_meta } else { &self.col_meta };
        let mut meta = list.get(index as usize).cloned().unwrap_or_default();
        meta.entry("pixelSize").or_insert_with(|| json!(if rows { ROW_PIXELS } else { COLUMN_PIXELS }));
        let mut meta = Value::Object(meta);
        prune(&mut meta);
        meta
    }

    /// Clears the values (not the formats) of a rectangle.
    pub(crate) fn clear_values(&mut self, rect: Rect) {
        for r in rect.r0..rect.r1.min(self.cells.len() as u32) {
            let row = &mut self.cells[r as usize];
            for c in rect.c0..rect.c1.min(row.len() as u32) {
                row[c as usize].value = None;
            }
        }
        self.trim();
    }
}

/// Shrinks `[a, b)` by the deleted `[start, end)`; false when nothing is left.
fn shrink(a: &mut u32, b: &mut u32, start: u32, end: u32, count: u32) -> bool {
    let new_a = if *a >= end { *a - count } else { (*a).min(start) };
    let new_b = if *b >= end { *b - count } else { (*b).min(start) };
    *a = new_a;
    *b = new_b;
    new_b > new_a
}

/// A spreadsheet.
#[derive(Debug, Clone)]
pub(crate) struct Spreadsheet {
    pub id: String,
    pub properties: Map<String, Value>,
    pub sheets: Vec<Sheet>,
}

/// `SpreadsheetProperties` of a new spreadsheet, as Google fills them in.
pub(crate) fn default_properties(title: &str) -> Map<String, Value> {
    let white = json!({ "red": 1, "green": 1, "blue": 1 });
    let value = json!({
        "title": title,
        "locale": "en_US",
        "autoRecalc": "ON_CHANGE",
        "timeZone": "Etc/GMT",
        "defaultFormat": {
            "backgroundColor": white,
            "padding": { "top": 2, "right": 3, "bottom": 2, "left": 3 },
            "verticalAlignment": "BOTTOM",
            "wrapStrategy": "OVERFLOW_CELL",
            "textFormat": {
                "foregroundColor": {},
                "fontFamily": "arial,sans,sans-serif",
                "fontSize": 10,
                "bold": false,
                "italic": false,
                "strikethrough": false,
                "underline": false,
                "foregroundColorStyle": { "rgbColor": {} }
            },
            "backgroundColorStyle": { "rgbColor": white }
        },
        "spreadsheetTheme": {
            "primaryFontFamily": "Arial",
            "themeColors": [
                { "colorType": "TEXT", "color": { "rgbColor": {} } },
                { "colorType": "BACKGROUND", "color": { "rgbColor": white } },
                { "colorType": "ACCENT1", "color": { "rgbColor": { "red": 0.25882354, "green": 0.52156866, "blue": 0.95686275 } } },
                { "colorType": "ACCENT2", "color": { "rgbColor": { "red": 0.91764706, "green": 0.2627451, "blue": 0.20784314 } } },
                { "colorType": "ACCENT3", "color": { "rgbColor": { "red": 0.9843137, "green": 0.7372549, "blue": 0.015686275 } } },
                { "colorType": "ACCENT4", "color": { "rgbColor": { "red": 0.20392157, "green": 0.65882355, "blue": 0.3254902 } } },
                { "colorType": "ACCENT5", "color": { "rgbColor": { "red": 1, "green": 0.42745098, "blue": 0.003921569 } } },
                { "colorType": "ACCENT6", "color": { "rgbColor": { "red": 0.27450982, "green": 0.7411765, "blue": 0.7764706 } } },
                { "colorType": "LINK", "color": { "rgbColor": { "red": 0.06666667, "green": 0.33333334, "blue": 0.8 } } }
            ]
        }
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// How a values read renders cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Render {
    Formatted,
    Unformatted,
    Formula,
}

/// Which sheet and rectangle a range names.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub sheet: usize,
    pub span: Span,
}

impl Spreadsheet {
    pub(crate) fn new(id: &str, title: &str) -> Self {
        Self { id: id.to_owned(), properties: default_properties(title), sheets: vec![Sheet::new(0, "Sheet1")] }
    }

    pub(crate) fn title(&self) -> &str {
        self.properties.get("title").and_then(Value::as_str).unwrap_or_default()
    }

    pub(crate) fn url(&self) -> String {
        format!("https://docs.google.com/spreadsheets/d/{}/edit", self.id)
    }

    pub(crate) fn total_cells(&self) -> u64 {
        self.sheets.iter().map(|s| u64::from(s.rows) * u64::from(s.cols)).sum()
    }

    /// Google's refusal of a spreadsheet past 10 million cells.
    pub(crate) fn check_limit(&self) -> Result<(), String> {
        if self.total_cells() > CELL_LIMIT {
            return Err(format!(
                "This action would increase the number of cells in the workbook above the limit of {CELL_LIMIT} cells."
            ));
        }
        Ok(())
    }

    pub(crate) fn sheet_by_name(&self, name: &str) -> Option<usize> {
        self.sheets
            .iter()
            .position(|s| s.title == name)
            .or_else(|| self.sheets.iter().position(|s| s.title.to_lowercase() == name.to_lowercase()))
    }

    pub(crate) fn sheet_by_id(&self, id: i64) -> Option<usize> {
        self.sheets.iter().position(|s| s.id == id)
    }

    /// Reads an A1 range; Google's `Unable to parse range` when it names no sheet or no cells.
    pub(crate) fn resolve(&self, range: &str) -> Result<Target, ApiError> {
        let error = || ApiError::invalid(format!("Unable to parse range: {range}"));
        let parsed = a1::parse(range).ok_or_else(error)?;
        if let Some(word) = &parsed.ambiguous {
            if let Some(sheet) = self.sheet_by_name(word) {
                return Ok(Target { sheet, span: Span::WHOLE });
            }
            let span = parsed.cells.ok_or_else(error)?;
            let sheet = self.sheets.iter().position(|s| !s.hidden()).unwrap_or(0);
            return Ok(Target { sheet, span });
        }
        let name = parsed.sheet.as_deref().ok_or_else(error)?;
        let sheet = self.sheet_by_name(name).ok_or_else(error)?;
        Ok(Target { sheet, span: parsed.cells.unwrap_or(Span::WHOLE) })
    }

    /// A unique sheet id (Google's are random non-negative int32s).
    pub(crate) fn new_sheet_id(&self) -> i64 {
        use rand::Rng;
        let mut rng = rand::rng();
        loop {
            let id = i64::from(rng.random_range(1..i32::MAX));
            if self.sheet_by_id(id).is_none() {
                return id;
            }
        }
    }

    /// A sheet title not yet taken: `base`, then `base 2`, `base 3`, …
    pub(crate) fn unique_title(&self, base: &str) -> String {
        if self.sheet_by_name(base).is_none() {
            return base.to_owned();
        }
        (2..).map(|n| format!("{base} {n}")).find(|t| self.sheet_by_name(t).is_none()).unwrap_or_default()
    }

    /// The next `SheetN` name for `addSheet` without a title.
    pub(crate) fn next_default_title(&self) -> String {
        (self.sheets.len() + 1..)
            .map(|n| format!("Sheet{n}"))
            .find(|t| self.sheet_by_name(t).is_none())
            .unwrap_or_default()
    }

    /// The A1 text Google reports for a rectangle of a sheet.
    pub(crate) fn a1(&self, sheet: usize, rect: Rect) -> String {
        let title = self.sheets.get(sheet).map(|s| s.title.as_str()).unwrap_or_default();
        a1::format(title, rect.r0, rect.c0, rect.r1, rect.c1)
    }

    /// Writes parsed input values at `(row, col)`; the grid must already be large enough.
    pub(crate) fn write(&mut self, sheet: usize, row: u32, col: u32, input: Input) {
        let Some(sheet) = self.sheets.get_mut(sheet) else {
            return;
        };
        let cell = sheet.cell_mut(row, col);
        cell.value = input.value;
        if let Some(format) = input.number_format {
            cell.set_number_format(format);
        }
    }

    /// The full `Spreadsheet` resource.
    pub(crate) fn json(&self, grid: Option<&[Target]>, include_grid: bool) -> Value {
        let mut eval = Eval::new(self);
        let mut sheets = Vec::new();
        for (index, sheet) in self.sheets.iter().enumerate() {
            let ranges: Vec<Rect> = match grid {
                Some(targets) => {
                    let mine: Vec<Rect> =
                        targets.iter().filter(|t| t.sheet == index).map(|t| sheet.clamp(t.span)).collect();
                    if mine.is_empty() {
                        continue;
                    }
                    mine
                }
                None => vec![sheet.grid()],
            };
            let mut item = json!({ "properties": sheet.properties(index) });
            if include_grid {
                let data: Vec<Value> = ranges.iter().map(|rect| eval.grid_data(index, *rect)).collect();
                item["data"] = Value::Array(data);
            }
            if !sheet.merges.is_empty() {
                item["merges"] = Value::Array(sheet.merges.iter().map(|m| grid_range(sheet.id, *m)).collect());
            }
            if !sheet.charts.is_empty() {
                item["charts"] = Value::Array(sheet.charts.clone());
            }
            sheets.push(item);
        }
        json!({
            "spreadsheetId": self.id,
            "properties": Value::Object(self.properties.clone()),
            "sheets": sheets,
            "spreadsheetUrl": self.url(),
        })
    }
}

/// A `GridRange` in proto3 JSON.
pub(crate) fn grid_range(sheet_id: i64, rect: Rect) -> Value {
    let mut value = json!({
        "sheetId": sheet_id,
        "startRowIndex": rect.r0,
        "endRowIndex": rect.r1,
        "startColumnIndex": rect.c0,
        "endColumnIndex": rect.c1,
    });
    prune(&mut value);
    value
}

/// The writable `CellData` of a cell as JSON (for field-mask updates).
pub(crate) fn cell_json(cell: &Cell) -> Map<String, Value> {
    let mut map = cell.extra.clone();
    if let Some(value) = &cell.value {
        map.insert("userEnteredValue".into(), cell::entered_json(value));
    }
    map
}

const READ_ONLY_CELL_FIELDS: [&str; 6] =
    ["effectiveValue", "formattedValue", "effectiveFormat", "pivotTable", "dataSourceTable", "dataSourceFormula"];

/// A cell from writable `CellData` JSON.
pub(crate) fn cell_from_json(mut map: Map<String, Value>) -> Result<Cell, String> {
    let value = match map.remove("userEnteredValue") {
        Some(v) => cell::entered_from_json(&v)?,
        None => None,
    };
    for field in READ_ONLY_CELL_FIELDS {
        map.remove(field);
    }
    map.retain(|_, v| !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty()));
    Ok(Cell { value, extra: map })
}
