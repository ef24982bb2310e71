//! Tables in the flat body: a table is `TableStart`, then per row `RowStart`, then per cell `CellStart`
//! followed by the cell's paragraphs, and a zero-width `TableEnd`. The markers take one index each, as in
//! Google's documents (table, row and cell each start one index before their content), and carry the
//! table's, row's and cell's style as their unit style.
//!
//! Implemented: `insertTable`, `insertTableRow`, `insertTableColumn`, `deleteTableRow`,
//! `deleteTableColumn`, `mergeTableCells` and `updateTableCellStyle`. Nested tables and row or column
//! edits of a table holding merged cells answer 501.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::edit::{inherited_style, insertion_point, mask, prune, split_para};
use super::model::{Document, Kind, Para, Style, Unit, empty_style};
use super::named_ranges::inherit;
use crate::rpc::Failure;
use crate::sheets::fields;

type Outcome = Result<Value, Failure>;

/// Where a table's parts are, as unit positions.
pub(crate) struct Layout {
    pub start: usize,
    /// The `TableEnd` unit.
    pub end: usize,
    /// Each row's `RowStart` and its cells' `CellStart` positions.
    pub rows: Vec<(usize, Vec<usize>)>,
}

impl Layout {
    /// The table starting at unit `start` (a `TableStart`).
    pub(crate) fn scan(doc: &Document, start: usize) -> Layout {
        let mut rows: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut depth = 0;
        let mut i = start;
        while i < doc.units.len() {
            match doc.units[i].kind {
                Kind::TableStart => depth += 1,
                Kind::TableEnd => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Kind::RowStart if depth == 1 => rows.push((i, Vec::new())),
                Kind::CellStart if depth == 1 => {
                    if let Some((_, cells)) = rows.last_mut() {
                        cells.push(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Layout { start, end: i, rows }
    }

    fn columns(&self) -> usize {
        self.rows.first().map_or(0, |(_, cells)| cells.len())
    }

    /// The units after cell `(r, c)`'s `CellStart` up to the next marker of this table: `[from, to)`.
    fn cell_content(&self, r: usize, c: usize) -> (usize, usize) {
        let (_, cells) = &self.rows[r];
        let from = cells[c] + 1;
        let to = match cells.get(c + 1) {
            Some(&next) => next,
            None => self.rows.get(r + 1).map_or(self.end, |(row, _)| *row),
        };
        (from, to)
    }

    /// The unit just past row `r`.
    fn row_end(&self, r: usize) -> usize {
        self.rows.get(r + 1).map_or(self.end, |(row, _)| *row)
    }
}

/// How many tables contain unit `pos`.
pub(crate) fn depth_at(doc: &Document, pos: usize) -> i32 {
    doc.units[..pos].iter().fold(0, |depth, unit| match unit.kind {
        Kind::TableStart => depth + 1,
        Kind::TableEnd => depth - 1,
        _ => depth,
    })
}

/// Whether any cell of the table is merged with others.
fn has_merges(doc: &Document, layout: &Layout) -> bool {
    layout.rows.iter().flat_map(|(_, cells)| cells).any(|&c| {
        let style = &doc.units[c].style;
        span(style, "rowSpan") > 1 || span(style, "columnSpan") > 1
    })
}

fn span(style: &Map<String, Value>, key: &str) -> i64 {
    style.get(key).and_then(Value::as_i64).unwrap_or(1)
}

/// A new empty cell: its marker and its one empty paragraph.
fn empty_cell(style: Style) -> [Unit; 2] {
    let marker = Unit::mark(Kind::CellStart, style);
    [marker, Unit::char('\n', empty_style(), Some(&Para::default()))]
}

/// A cell style as a copy keeps it: spans are the merge's, not the copy's.
fn copied_cell_style(style: &Style) -> Style {
    let mut style = (**style).clone();
    style.remove("rowSpan");
    style.remove("columnSpan");
    Arc::new(style)
}

fn marker(kind: Kind) -> Unit {
    Unit::mark(kind, empty_style())
}

fn int(value: Option<&Value>) -> i64 {
    value.and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok())).unwrap_or(0)
}

pub(crate) fn insert_table(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let rows = int(body.get("rows"));
    let columns = int(body.get("columns"));
    if !(1..=20).contains(&columns) || rows < 1 {
        return Err(format!(
            "Invalid table dimensions: rows must be at least 1 and columns between 1 and 20 (got {rows} rows, {columns} columns)."
        )
        .into());
    }
    let pos = insertion_point(doc, body)?;
    if depth_at(doc, pos) > 0 {
        return Err(Failure::Unimplemented);
    }
    let para = split_para(&doc.para_at(pos));
    let style = inherited_style(doc, pos);
    let mut units = vec![Unit::char('\n', style, Some(&para)), marker(Kind::TableStart)];
    for _ in 0..rows {
        units.push(marker(Kind::RowStart));
        for _ in 0..columns {
            units.extend(empty_cell(empty_style()));
        }
    }
    units.push(marker(Kind::TableEnd));
    let count = units.len();
    doc.units.splice(pos..pos, units);
    inherit(doc, pos, count);
    Ok(json!({}))
}

/// The table a `Location` names by its start index.
fn table_at(doc: &Document, location: Option<&Map<String, Value>>) -> Result<Layout, Failure> {
    let location = location.ok_or_else(|| Failure::from("tableStartLocation must be specified."))?;
    if let Some(segment) = location.get("segmentId").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        return Err(format!("The segment with ID '{segment}' was not found.").into());
    }
    let index = int(location.get("index"));
    let starts = doc.starts();
    let pos = u32::try_from(index).ok().and_then(|i| doc.position(&starts, i));
    match pos {
        Some(pos) if doc.units[pos].kind == Kind::TableStart => Ok(Layout::scan(doc, pos)),
        _ => Err(format!("Invalid table start location. There is no table starting at index {index}.").into()),
    }
}

/// A `TableCellLocation`: the table and the checked row and column.
fn cell_location(doc: &Document, body: &Map<String, Value>) -> Result<(Layout, usize, usize), Failure> {
    let location = body
        .get("tableCellLocation")
        .and_then(Value::as_object)
        .ok_or_else(|| Failure::from("tableCellLocation must be specified."))?;
    let layout = table_at(doc, location.get("tableStartLocation").and_then(Value::as_object))?;
    let (row, column) = (int(location.get("rowIndex")), int(location.get("columnIndex")));
    let rows = layout.rows.len() as i64;
    let columns = layout.columns() as i64;
    if !(0..rows).contains(&row) {
        return Err(format!("Invalid row index {row}: the table has {rows} rows.").into());
    }
    if !(0..columns).contains(&column) {
        return Err(format!("Invalid column index {column}: the table has {columns} columns.").into());
    }
    Ok((layout, row as usize, column as usize))
}

pub(crate) fn insert_table_row(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (layout, row, _) = cell_location(doc, body)?;
    if has_merges(doc, &layout) {
        return Err(Failure::Unimplemented);
    }
    let below = body.get("insertBelow").and_then(Value::as_bool).unwrap_or(false);
    let (row_start, cells) = &layout.rows[row];
    let mut units = vec![Unit::mark(Kind::RowStart, doc.units[*row_start].style.clone())];
    for &cell in cells {
        units.extend(empty_cell(copied_cell_style(&doc.units[cell].style)));
    }
    let at = if below { layout.row_end(row) } else { *row_start };
    let count = units.len();
    doc.units.splice(at..at, units);
    inherit(doc, at, count);
    Ok(json!({}))
}

pub(crate) fn insert_table_column(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (layout, _, column) = cell_location(doc, body)?;
    if has_merges(doc, &layout) {
        return Err(Failure::Unimplemented);
    }
    let right = body.get("insertRight").and_then(Value::as_bool).unwrap_or(false);
    if layout.columns() >= 20 {
        return Err("Tables can have at most 20 columns.".into());
    }
    for r in (0..layout.rows.len()).rev() {
        let at = if right { layout.cell_content(r, column).1 } else { layout.rows[r].1[column] };
        let style = copied_cell_style(&doc.units[layout.rows[r].1[column]].style);
        doc.units.splice(at..at, empty_cell(style));
        inherit(doc, at, 2);
    }
    Ok(json!({}))
}

pub(crate) fn delete_table_row(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (layout, row, _) = cell_location(doc, body)?;
    if has_merges(doc, &layout) {
        return Err(Failure::Unimplemented);
    }
    // Without rows left the whole table goes.
    if layout.rows.len() == 1 {
        doc.units.drain(layout.start..=layout.end);
        return Ok(json!({}));
    }
    doc.units.drain(layout.rows[row].0..layout.row_end(row));
    Ok(json!({}))
}

pub(crate) fn delete_table_column(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let (layout, _, column) = cell_location(doc, body)?;
    if has_merges(doc, &layout) {
        return Err(Failure::Unimplemented);
    }
    // Without columns left the whole table goes.
    if layout.columns() == 1 {
        doc.units.drain(layout.start..=layout.end);
        return Ok(json!({}));
    }
    for r in (0..layout.rows.len()).rev() {
        let (_, to) = layout.cell_content(r, column);
        doc.units.drain(layout.rows[r].1[column]..to);
    }
    Ok(json!({}))
}

/// A `TableRange`: the table, first row and column, and the spans, checked against the table.
fn table_range(doc: &Document, range: &Map<String, Value>) -> Result<(Layout, usize, usize, usize, usize), Failure> {
    let (layout, row, column) = cell_location(doc, range)?;
    let row_span = int(range.get("rowSpan"));
    let column_span = int(range.get("columnSpan"));
    if row_span < 1 || column_span < 1 {
        return Err("The table range's rowSpan and columnSpan must be at least 1.".into());
    }
    let (row_span, column_span) = (row_span as usize, column_span as usize);
    if row + row_span > layout.rows.len() || column + column_span > layout.columns() {
        return Err("The table range must lie within the table.".into());
    }
    Ok((layout, row, column, row_span, column_span))
}

pub(crate) fn merge_table_cells(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let range = body
        .get("tableRange")
        .and_then(Value::as_object)
        .ok_or_else(|| Failure::from("tableRange must be specified."))?;
    let (layout, row, column, row_span, column_span) = table_range(doc, range)?;
    if row_span * column_span < 2 {
        return Err("The table range to merge must span more than one cell.".into());
    }
    if has_merges(doc, &layout) {
        return Err(Failure::Unimplemented);
    }
    // The covered cells' text moves into the head cell, as paragraphs after its own.
    let mut moved: Vec<Unit> = Vec::new();
    let mut emptied: Vec<(usize, usize)> = Vec::new();
    for r in row..row + row_span {
        for c in column..column + column_span {
            if (r, c) == (row, column) {
                continue;
            }
            let (from, to) = layout.cell_content(r, c);
            if to - from > 1 {
                moved.extend(doc.units[from..to].iter().cloned());
                emptied.push((from, to - 1));
            }
        }
    }
    let head = layout.rows[row].1[column];
    let mut style = (*doc.units[head].style).clone();
    style.insert("rowSpan".into(), json!(row_span));
    style.insert("columnSpan".into(), json!(column_span));
    doc.units[head].style = Arc::new(style);
    for &(from, to) in emptied.iter().rev() {
        doc.units.drain(from..to);
    }
    if !moved.is_empty() {
        let (_, head_end) = layout.cell_content(row, column);
        doc.units.splice(head_end..head_end, moved);
    }
    Ok(json!({}))
}

pub(crate) fn update_table_cell_style(doc: &mut Document, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let cells: Vec<usize> = match body.get("tableRange").and_then(Value::as_object) {
        Some(range) => {
            let (layout, row, column, row_span, column_span) = table_range(doc, range)?;
            (row..row + row_span).flat_map(|r| layout.rows[r].1[column..column + column_span].to_vec()).collect()
        }
        None => {
            let layout = table_at(doc, body.get("tableStartLocation").and_then(Value::as_object))?;
            layout.rows.iter().flat_map(|(_, cells)| cells.clone()).collect()
        }
    };
    let mut source = body.get("tableCellStyle").and_then(Value::as_object).cloned().unwrap_or_default();
    // Spans are set by merging, never by style.
    source.remove("rowSpan");
    source.remove("columnSpan");
    for cell in cells {
        let mut style = (*doc.units[cell].style).clone();
        let spans: Vec<(String, Value)> =
            ["rowSpan", "columnSpan"].iter().filter_map(|k| style.remove(*k).map(|v| ((*k).to_owned(), v))).collect();
        fields::apply(&mut style, &source, &mask);
        prune(&mut style);
        style.extend(spans);
        doc.units[cell].style = Arc::new(style);
    }
    Ok(json!({}))
}

/// The `Table` structural element starting at unit `start`, and the unit position after it.
pub(crate) fn table_json(doc: &Document, starts: &[u32], start: usize) -> (Value, usize) {
    let layout = Layout::scan(doc, start);
    let columns = layout.columns();
    let rows: Vec<Value> = (0..layout.rows.len())
        .map(|r| {
            let (row_start, cells) = &layout.rows[r];
            let cells: Vec<Value> = (0..cells.len())
                .map(|c| {
                    let (from, to) = layout.cell_content(r, c);
                    let mut style = json!({ "rowSpan": 1, "columnSpan": 1, "contentAlignment": "TOP" });
                    if let Value::Object(map) = &mut style {
                        map.extend((*doc.units[cells[c]].style).clone());
                    }
                    json!({
                        "startIndex": starts[cells[c]],
                        "endIndex": starts[to],
                        "content": doc.content_json(starts, from, to),
                        "tableCellStyle": style,
                    })
                })
                .collect();
            let mut row_style = json!({ "minRowHeight": { "unit": "PT" } });
            if let Value::Object(map) = &mut row_style {
                map.extend((*doc.units[*row_start].style).clone());
            }
            json!({
                "startIndex": starts[*row_start],
                "endIndex": starts[layout.row_end(r)],
                "tableCells": cells,
                "tableRowStyle": row_style,
            })
        })
        .collect();
    let column_properties: Vec<Value> = (0..columns).map(|_| json!({ "widthType": "EVENLY_DISTRIBUTED" })).collect();
    let element = json!({
        "startIndex": starts[start],
        "endIndex": starts[layout.end],
        "table": {
            "rows": layout.rows.len(),
            "columns": columns,
            "tableRows": rows,
            "tableStyle": { "tableColumnProperties": column_properties },
        }
    });
    (element, layout.end + 1)
}

/// Checks that deleting units `[start, end)` keeps every table whole: a range may hold whole tables, or
/// lie inside one cell without its last newline.
pub(crate) fn check_deletion(doc: &Document, start: usize, end: usize) -> Result<(), Failure> {
    let mut depth = 0i32;
    let mut whole = true;
    for unit in &doc.units[start..end] {
        match unit.kind {
            Kind::TableStart => depth += 1,
            Kind::TableEnd => {
                depth -= 1;
                if depth < 0 {
                    whole = false;
                }
            }
            Kind::RowStart | Kind::CellStart if depth == 0 => whole = false,
            _ => {}
        }
    }
    if !whole || depth != 0 {
        return Err("Invalid deletion range. Cannot delete a table's structure (its start, rows or cells) without deleting the whole table.".into());
    }
    let before_table = doc.units.get(end).is_some_and(|u| u.kind == Kind::TableStart);
    if before_table && end > start && doc.units[end - 1].is_newline() {
        return Err(
            "Invalid deletion range. Cannot delete the newline before a table without deleting the table.".into()
        );
    }
    let closes_cell =
        doc.units.get(end).is_some_and(|u| matches!(u.kind, Kind::CellStart | Kind::RowStart | Kind::TableEnd));
    if closes_cell && end > start && doc.units[end - 1].is_newline() && depth_at(doc, end) > 0 {
        return Err("Invalid deletion range. Cannot delete the requested range: the last newline in a table cell cannot be deleted.".into());
    }
    Ok(())
}
