//! Formula evaluation over a spreadsheet (memoised, cycle-safe, resumable for long reference chains)
//! and the rendering of cells as values responses and grid data.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::a1::{self, Span};
use super::cell::{self, Entered, ErrKind, Val};
use super::fields;
use super::format;
use super::formula::{self, Context};
use super::model::{Rect, Render, Spreadsheet, prune};

/// Formula evaluation with memoisation, over one spreadsheet.
pub(crate) struct Eval<'a> {
    book: &'a Spreadsheet,
    memo: HashMap<(usize, u32, u32), Val>,
    stack: Vec<(usize, u32, u32)>,
    /// The first cell left unevaluated because the reference chain got too deep.
    deferred: Option<(usize, u32, u32)>,
}

/// How deep formula evaluation recurses before it defers the rest (long chains are resumed from the
/// deferred cell, so depth never limits what can be computed).
const MAX_DEPTH: usize = 40;

fn circular() -> Val {
    Val::Err(
        ErrKind::Ref,
        "Circular dependency detected. To resolve with iterative calculation, see File > Settings.".into(),
    )
}

impl<'a> Eval<'a> {
    pub(crate) fn new(book: &'a Spreadsheet) -> Self {
        Self { book, memo: HashMap::new(), stack: Vec::new(), deferred: None }
    }

    /// The computed value of a cell.
    pub(crate) fn value(&mut self, sheet: usize, row: u32, col: u32) -> Val {
        if !self.stack.is_empty() {
            return self.compute(sheet, row, col);
        }
        // Evaluate the deepest deferred cell first, then resume the ones waiting on it.
        let mut pending = vec![(sheet, row, col)];
        let mut waiting = std::collections::HashSet::from([(sheet, row, col)]);
        while let Some(&(s, r, c)) = pending.last() {
            self.deferred = None;
            let value = self.compute(s, r, c);
            match self.deferred.take() {
                Some(key) if waiting.contains(&key) => {
                    self.memo.insert(key, circular());
                }
                Some(key) => {
                    pending.push(key);
                    waiting.insert(key);
                }
                None => {
                    pending.pop();
                    if pending.is_empty() {
                        return value;
                    }
                }
            }
        }
        Val::Empty
    }

    fn compute(&mut self, sheet: usize, row: u32, col: u32) -> Val {
        let Some(cell) = self.book.sheets.get(sheet).and_then(|s| s.cell(row, col)) else {
            return Val::Empty;
        };
        match &cell.value {
            None => Val::Empty,
            Some(Entered::Number(n)) => Val::Num(*n),
            Some(Entered::Text(s)) => Val::Text(s.clone()),
            Some(Entered::Bool(b)) => Val::Bool(*b),
            Some(Entered::Formula(f)) => {
                let key = (sheet, row, col);
                if let Some(v) = self.memo.get(&key) {
                    return v.clone();
                }
                if self.stack.contains(&key) {
                    return circular();
                }
                if self.stack.len() >= MAX_DEPTH {
                    self.deferred.get_or_insert(key);
                    return Val::Err(ErrKind::Error, "Evaluation deferred.".into());
                }
                self.stack.push(key);
                let value = formula::evaluate(f, self);
                self.stack.pop();
                // Values computed while something below was deferred are provisional.
                if self.deferred.is_none() {
                    self.memo.insert(key, value.clone());
                }
                value
            }
        }
    }

    fn current(&self) -> usize {
        self.stack.last().map_or(0, |k| k.0)
    }

    fn sheet_for(&self, name: Option<&str>) -> Result<usize, Val> {
        match name {
            None => Ok(self.current()),
            Some(name) => {
                let unquoted = a1::parse(name).and_then(|p| p.sheet.or(p.ambiguous)).unwrap_or_else(|| name.to_owned());
                self.book
                    .sheet_by_name(&unquoted)
                    .ok_or_else(|| Val::Err(ErrKind::Ref, format!("Unresolved sheet name '{unquoted}'.")))
            }
        }
    }

    /// How a cell reads in a values response.
    pub(crate) fn render(&mut self, sheet: usize, row: u32, col: u32, render: Render, date_strings: bool) -> Value {
        let Some(cell) = self.book.sheets.get(sheet).and_then(|s| s.cell(row, col)) else {
            return json!("");
        };
        if cell.value.is_none() {
            return json!("");
        }
        if render == Render::Formula
            && let Some(Entered::Formula(f)) = &cell.value
        {
            return json!(f);
        }
        let value = self.value(sheet, row, col);
        let formatted = || format::format_value(&value, cell.number_format());
        match (&value, render) {
            (_, Render::Formatted) => json!(formatted()),
            (Val::Num(_), _) if date_strings && cell.is_date_time() => json!(formatted()),
            (Val::Num(n), _) => cell::num_json(*n),
            (Val::Bool(b), _) => json!(b),
            (Val::Text(s), _) => json!(s),
            (Val::Empty, _) => json!(""),
            (Val::Err(kind, _), _) => json!(kind.code()),
        }
    }

    /// The `values` of a `ValueRange`: trailing empty rows and cells trimmed.
    pub(crate) fn values(
        &mut self,
        sheet: usize,
        rect: Rect,
        columns: bool,
        render: Render,
        dates: bool,
    ) -> Vec<Vec<Value>> {
        let Some(s) = self.book.sheets.get(sheet) else {
            return Vec::new();
        };
        let stored_rows = (s.cells.len() as u32).min(rect.r1);
        let mut grid: Vec<Vec<Value>> = Vec::new();
        for r in rect.r0..stored_rows {
            let row_len = (s.cells[r as usize].len() as u32).min(rect.c1);
            let mut row = Vec::new();
            for c in rect.c0..row_len {
                row.push(self.render(sheet, r, c, render, dates));
            }
            grid.push(row);
        }
        let blank = |v: &Value| v.as_str() == Some("");
        if columns {
            let width = grid.iter().map(Vec::len).max().unwrap_or(0);
            let mut cols: Vec<Vec<Value>> = vec![Vec::new(); width];
            for (r, row) in grid.iter().enumerate() {
                for (c, col) in cols.iter_mut().enumerate() {
                    let item = row.get(c).cloned().unwrap_or_else(|| json!(""));
                    if !blank(&item) {
                        col.resize(r, json!(""));
                        col.push(item);
                    }
                }
            }
            grid = cols;
        } else {
            for row in &mut grid {
                while row.last().is_some_and(blank) {
                    row.pop();
                }
            }
        }
        while grid.last().is_some_and(Vec::is_empty) {
            grid.pop();
        }
        grid
    }

    /// `CellData` with computed fields, for `includeGridData`.
    fn cell_data(&mut self, sheet: usize, row: u32, col: u32, default_format: &Value) -> Value {
        let Some(cell) = self.book.sheets.get(sheet).and_then(|s| s.cell(row, col)) else {
            return json!({});
        };
        let mut out = Value::Object(cell.extra.clone());
        if let Some(entered) = &cell.value {
            out["userEnteredValue"] = cell::entered_json(entered);
            let value = self.value(sheet, row, col);
            if let Some(effective) = cell::val_json(&value) {
                out["effectiveValue"] = effective;
            }
            let formatted = format::format_value(&value, cell.number_format());
            if !formatted.is_empty() {
                out["formattedValue"] = json!(formatted);
            }
        }
        if !cell.is_blank() {
            let mut effective = default_format.clone();
            if let Some(format) = cell.extra.get("userEnteredFormat") {
                fields::merge(&mut effective, format);
            }
            out["effectiveFormat"] = effective;
        }
        super::colors::tidy(&mut out);
        out
    }

    /// One `GridData` for a rectangle.
    pub(crate) fn grid_data(&mut self, sheet: usize, rect: Rect) -> Value {
        let Some(s) = self.book.sheets.get(sheet) else {
            return json!({});
        };
        let default_format = self.book.properties.get("defaultFormat").cloned().unwrap_or_else(|| json!({}));
        let stored_rows = (s.cells.len() as u32).min(rect.r1);
        let mut rows = Vec::new();
        for r in rect.r0..stored_rows {
            let row_len = (s.cells[r as usize].len() as u32).min(rect.c1);
            let values: Vec<Value> = (rect.c0..row_len).map(|c| self.cell_data(sheet, r, c, &default_format)).collect();
            rows.push(if values.is_empty() { json!({}) } else { json!({ "values": values }) });
        }
        while rows.last().is_some_and(|r| r.as_object().is_some_and(Map::is_empty)) {
            rows.pop();
        }
        let mut data = json!({
            "startRow": rect.r0,
            "startColumn": rect.c0,
        });
        prune(&mut data);
        if !rows.is_empty() {
            data["rowData"] = Value::Array(rows);
        }
        data["rowMetadata"] = Value::Array((rect.r0..rect.r1).map(|r| s.meta(true, r)).collect());
        data["columnMetadata"] = Value::Array((rect.c0..rect.c1).map(|c| s.meta(false, c)).collect());
        data
    }
}

impl Context for Eval<'_> {
    fn cell(&mut self, sheet: Option<&str>, row: u32, col: u32) -> Val {
        match self.sheet_for(sheet) {
            Ok(index) => {
                let inside = self.book.sheets.get(index).is_some_and(|s| row < s.rows && col < s.cols);
                if inside {
                    self.value(index, row, col)
                } else {
                    Val::Err(ErrKind::Ref, "Reference does not exist.".into())
                }
            }
            Err(error) => error,
        }
    }

    fn range(&mut self, sheet: Option<&str>, span: Span) -> Result<Vec<Val>, Val> {
        let index = self.sheet_for(sheet)?;
        let Some(s) = self.book.sheets.get(index) else {
            return Ok(Vec::new());
        };
        let rect = s.clamp(span);
        let stored = (s.cells.len() as u32).min(rect.r1);
        let mut out = Vec::new();
        for r in rect.r0..stored {
            let width = (s.cells[r as usize].len() as u32).min(rect.c1);
            for c in rect.c0..width {
                out.push(self.value(index, r, c));
            }
        }
        Ok(out)
    }
}
