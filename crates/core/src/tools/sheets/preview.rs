//! The previews of cell writes (see [`crate::approval::preview`]): the cells a call sets, read with
//! `values.get` (`values.batchGet` for several ranges) as the Sheets UI shows them, before → after.
//! Attached to the declarations in `sheets/mod.rs` with `.previewed`.

use serde_json::Value;

use super::said::written;
use super::write;
use crate::a1::{self, A1Range, column_letters};
use crate::approval::preview::{CellChange, MAX_CELLS, Preview, cut};
use crate::google::GoogleClient;
use crate::google::sheets::ValueRender;
use crate::tools::registry::PreviewRead;

/// A cell's value as text: what the card shows of it.
fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => cut(text),
        other => cut(&other.to_string()),
    }
}

/// The changes of writing `after` (rows from the top-left of `block`) over `before` (the same block as Google
/// holds it now): every cell the call sets, the first [`MAX_CELLS`] listed, the rest counted.
fn changes(
    block: &A1Range,
    before: &[Vec<Value>],
    after: &[Vec<Value>],
    listed: &mut Vec<CellChange>,
    more: &mut usize,
) {
    let (row, col) = (block.start_row.unwrap_or(0), block.start_col.unwrap_or(0));
    for (r, cells) in after.iter().enumerate() {
        for (c, value) in cells.iter().enumerate() {
            if value.is_null() {
                continue;
            }
            if listed.len() == MAX_CELLS {
                *more += 1;
                continue;
            }
            let was = before.get(r).and_then(|cells| cells.get(c)).map(text).unwrap_or_default();
            let (Ok(r32), Ok(c32)) = (u32::try_from(r), u32::try_from(c)) else { continue };
            let address = format!("{}{}", column_letters(col + c32), u64::from(row + r32) + 1);
            listed.push(CellChange { cell: address, before: was, after: text(value) });
        }
    }
}

/// The A1 range of `block` on `sheet`, as Google reads it.
fn on(sheet: &str, block: &A1Range) -> Result<String, String> {
    a1::qualified(sheet, Some(&block.to_a1())).map_err(|error| format!("the range could not be read: {error}"))
}

fn unread(error: crate::google::GoogleError) -> String {
    format!("Google did not give the cells as they are now ({error})")
}

pub(super) fn update_cells(google: GoogleClient, a: write::UpdateCellsArgs) -> PreviewRead {
    Box::pin(async move {
        let block = written(&a.range, &a.data).ok_or("the range could not be read")?;
        let range = on(&a.sheet, &block)?;
        let now = google
            .sheets()
            .values_get::<Value>(&a.spreadsheet_id, &range, ValueRender::Formatted)
            .await
            .map_err(unread)?;
        let (mut cells, mut more) = (Vec::new(), 0);
        changes(&block, &now.values, &a.data, &mut cells, &mut more);
        Ok(Preview::Cells { cells, more })
    })
}

pub(super) fn batch_update_cells(google: GoogleClient, a: write::BatchUpdateCellsArgs) -> PreviewRead {
    Box::pin(async move {
        let mut writes = Vec::new();
        for (range, rows) in &a.ranges {
            let rows: Vec<Vec<Value>> =
                serde_json::from_value(rows.clone()).map_err(|_| "a range's values are not rows")?;
            let block = written(range, &rows).ok_or("a range could not be read")?;
            writes.push((on(&a.sheet, &block)?, block, rows));
        }
        let ranges: Vec<&str> = writes.iter().map(|(range, _, _)| range.as_str()).collect();
        let now = google
            .sheets()
            .values_batch_get::<Value>(&a.spreadsheet_id, &ranges, ValueRender::Formatted)
            .await
            .map_err(unread)?;
        let (mut cells, mut more) = (Vec::new(), 0);
        for (i, (_, block, rows)) in writes.iter().enumerate() {
            let before = now.value_ranges.get(i).map(|range| range.values.as_slice()).unwrap_or_default();
            changes(block, before, rows, &mut cells, &mut more);
        }
        Ok(Preview::Cells { cells, more })
    })
}

pub(super) fn clear_values(google: GoogleClient, a: write::ClearValuesArgs) -> PreviewRead {
    Box::pin(async move {
        let range = a1::qualified(&a.sheet, a.range.as_deref())
            .map_err(|error| format!("the range could not be read: {error}"))?;
        let now = google
            .sheets()
            .values_get::<Value>(&a.spreadsheet_id, &range, ValueRender::Formatted)
            .await
            .map_err(unread)?;
        // Google answers the range it read, from the first row or column that holds a value.
        let start = now.range.rsplit('!').next().and_then(|cells| A1Range::parse(cells).ok()).unwrap_or_default();
        let block = A1Range { sheet: None, ..start };
        let emptied: Vec<Vec<Value>> = now
            .values
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| if text(cell).is_empty() { Value::Null } else { Value::String(String::new()) })
                    .collect()
            })
            .collect();
        let (mut cells, mut more) = (Vec::new(), 0);
        changes(&block, &now.values, &emptied, &mut cells, &mut more);
        Ok(Preview::Cells { cells, more })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_changes_list_the_first_cells_before_and_after_and_count_the_rest() {
        let block = A1Range::parse("B2").unwrap();
        let after: Vec<Vec<Value>> = (0..5).map(|r| (0..5).map(|c| json!(r * 5 + c)).collect()).collect();
        let before = vec![vec![json!("old")]];
        let (mut cells, mut more) = (Vec::new(), 0);
        changes(&block, &before, &after, &mut cells, &mut more);
        assert_eq!((cells.len(), more), (MAX_CELLS, 5));
        assert_eq!(cells[0], CellChange { cell: "B2".into(), before: "old".into(), after: "0".into() });
        assert_eq!(cells[6], CellChange { cell: "C3".into(), before: String::new(), after: "6".into() });
        let (mut cells, mut more) = (Vec::new(), 0);
        changes(&block, &[], &[vec![Value::Null, json!("x")]], &mut cells, &mut more);
        assert_eq!(
            cells,
            [CellChange { cell: "C2".into(), before: String::new(), after: "x".into() }],
            "null leaves a cell"
        );
    }
}
