//! `sortRange`: the rows of a range reordered by the computed values of the sort columns, as Sheets
//! sorts them: numbers, then text (ignoring case), then booleans, then errors; blank cells last in either
//! direction; ties keep their order. Whole cells move (values, formulas and formats).
//!
//! Not emulated: Google rewrites relative references of moved formulas; here formulas move as written.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use super::{Outcome, grid_range, obj};
use crate::sheets::cell::{Cell, Val};
use crate::sheets::eval::Eval;
use crate::sheets::model::{Spreadsheet, as_i64};

/// A sort key's rank among kinds of value.
fn rank(value: &Val) -> u8 {
    match value {
        Val::Num(_) => 0,
        Val::Text(_) => 1,
        Val::Bool(_) => 2,
        Val::Err(..) => 3,
        Val::Empty => 4,
    }
}

fn compare(a: &Val, b: &Val, descending: bool) -> Ordering {
    let (ra, rb) = (rank(a), rank(b));
    // Blank cells sort last in either direction.
    if matches!(a, Val::Empty) || matches!(b, Val::Empty) {
        return ra.cmp(&rb);
    }
    let order = match (a, b) {
        (Val::Num(x), Val::Num(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Val::Text(x), Val::Text(y)) => x.to_lowercase().cmp(&y.to_lowercase()),
        (Val::Bool(x), Val::Bool(y)) => x.cmp(y),
        _ => ra.cmp(&rb),
    };
    if descending { order.reverse() } else { order }
}

pub(super) fn sort_range(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rect) = grid_range(book, obj(body, "range"))?;
    let mut specs: Vec<(u32, bool)> = Vec::new();
    for spec in body.get("sortSpecs").and_then(Value::as_array).into_iter().flatten() {
        let column = u32::try_from(as_i64(spec.get("dimensionIndex")).unwrap_or(0)).unwrap_or(0);
        if column < rect.c0 || column >= rect.c1 {
            return Err(format!("sortSpecs dimensionIndex {column} is outside the range to sort.").into());
        }
        specs.push((column, spec.get("sortOrder").and_then(Value::as_str) == Some("DESCENDING")));
    }
    if specs.is_empty() {
        specs.push((rect.c0, false));
    }
    // Each row's computed sort keys, read before anything moves.
    let mut eval = Eval::new(book);
    let keys: Vec<Vec<Val>> =
        (rect.r0..rect.r1).map(|r| specs.iter().map(|(c, _)| eval.value(index, r, *c)).collect()).collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        for (k, (_, descending)) in specs.iter().enumerate() {
            let by = compare(&keys[a][k], &keys[b][k], *descending);
            if by != Ordering::Equal {
                return by;
            }
        }
        Ordering::Equal
    });
    let sheet = &mut book.sheets[index];
    let rows: Vec<Vec<Cell>> = order
        .iter()
        .map(|&i| {
            let r = rect.r0 + i as u32;
            (rect.c0..rect.c1).map(|c| sheet.cell(r, c).cloned().unwrap_or_default()).collect()
        })
        .collect();
    for (i, row) in rows.into_iter().enumerate() {
        for (j, cell) in row.into_iter().enumerate() {
            let (r, c) = (rect.r0 + i as u32, rect.c0 + j as u32);
            if !cell.is_blank() || sheet.cell(r, c).is_some() {
                *sheet.cell_mut(r, c) = cell;
            }
        }
    }
    sheet.trim();
    Ok(json!({}))
}
