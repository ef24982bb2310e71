//! The Docs table tools against the emulator: the resulting tables (rows, cells, their text, spans and
//! styles) and the indexes around them, read back from the emulator's own `documents.get`.

use crate::docs_common;
use crate::support;

use docs_common::raw_doc;
use serde_json::{Value, json};
use support::Harness;

/// The body's top-level elements.
fn content(doc: &Value) -> Vec<Value> {
    doc["body"]["content"].as_array().unwrap().clone()
}

/// The first table element of the body.
fn table(doc: &Value) -> Value {
    content(doc).into_iter().find(|e| e.get("table").is_some()).unwrap_or_else(|| panic!("no table in {doc}"))
}

/// A cell's text: its paragraphs' runs, newlines kept.
fn cell_text(cell: &Value) -> String {
    cell["content"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["paragraph"]["elements"].as_array().unwrap().iter())
        .filter_map(|e| e["textRun"]["content"].as_str())
        .collect()
}

/// Each row's cells' text without the final newline.
fn grid(doc: &Value) -> Vec<Vec<String>> {
    table(doc)["table"]["tableRows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row["tableCells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| cell_text(c).trim_end_matches('\n').to_owned())
                .collect()
        })
        .collect()
}

fn cell(doc: &Value, row: usize, column: usize) -> Value {
    table(doc)["table"]["tableRows"][row]["tableCells"][column].clone()
}

fn batch_updates(h: &Harness) -> usize {
    h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count()
}

/// A document "Intro" with a 2×2 table after it holding a, b / c, d; the table starts at 7.
async fn doc_with_table(h: &Harness) -> String {
    let id = h.google.world().create_document("Tables", "Intro", &h.owner());
    let result = h.ok("insert_doc_table", json!({"doc_id": id, "index": 6, "rows": 2, "columns": 2})).await;
    assert_eq!(result["table_start_index"], 7);
    // Cells start at 9, 11 / 14, 16; their paragraphs one later.
    h.ok(
        "insert_doc_text",
        json!({"doc_id": id, "insertions": [
            {"index": 10, "text": "a"}, {"index": 12, "text": "b"}, {"index": 15, "text": "c"}, {"index": 17, "text": "d"},
        ]}),
    )
    .await;
    id
}

#[tokio::test]
async fn a_table_is_inserted_after_a_newline_and_shifts_what_follows() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Report", "Hello world\nEnd", &h.owner());
    let result = h.ok("insert_doc_table", json!({"doc_id": id, "index": 6, "rows": 2, "columns": 3})).await;
    assert_eq!(result["table_start_index"], 7);

    let doc = raw_doc(&h, &id).await;
    let elements = content(&doc);
    // section break, "Hello\n", the table, " world\n", "End\n".
    assert_eq!(elements.len(), 5, "{doc}");
    assert_eq!((elements[1]["startIndex"].as_u64(), elements[1]["endIndex"].as_u64()), (Some(1), Some(7)));
    let t = &elements[2];
    assert_eq!((t["startIndex"].as_u64(), t["endIndex"].as_u64()), (Some(7), Some(22)));
    assert_eq!((t["table"]["rows"].as_u64(), t["table"]["columns"].as_u64()), (Some(2), Some(3)));
    let rows = t["table"]["tableRows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["tableCells"].as_array().unwrap().len() == 3));
    assert_eq!(rows[0]["startIndex"], 8);
    assert_eq!(rows[0]["tableCells"][0]["startIndex"], 9);
    assert_eq!(rows[0]["tableCells"][0]["content"][0]["startIndex"], 10);
    assert_eq!(rows[1]["tableCells"][2]["startIndex"], 20);
    assert_eq!(rows[1]["tableCells"][2]["endIndex"], 22);
    // " world" was at 6, "End" at 13: 16 further on (newline, table, 2 rows of 1 + 3 × 2).
    assert_eq!(elements[3]["startIndex"], 22);
    assert_eq!(elements[4]["startIndex"], 29);
    assert_eq!(grid(&doc), vec![vec![""; 3]; 2]);

    // Text typed into cells lands in them.
    h.ok(
        "insert_doc_text",
        json!({"doc_id": id, "insertions": [{"index": 10, "text": "A"}, {"index": 21, "text": "Z"}]}),
    )
    .await;
    let doc = raw_doc(&h, &id).await;
    assert_eq!(grid(&doc), vec![vec!["A", "", ""], vec!["", "", "Z"]]);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hello\nA\n\n\n\n\nZ\n world\nEnd\n");
}

#[tokio::test]
async fn rows_and_columns_are_inserted_and_deleted_where_asked() {
    let h = Harness::new().await;
    let id = doc_with_table(&h).await;
    assert_eq!(grid(&raw_doc(&h, &id).await), vec![vec!["a", "b"], vec!["c", "d"]]);

    let result = h.ok("insert_table_row", json!({"doc_id": id, "table_start_index": 7, "row_index": 0})).await;
    assert_eq!(result["inserted_row_index"], 1);
    let doc = raw_doc(&h, &id).await;
    assert_eq!(grid(&doc), vec![vec!["a", "b"], vec!["", ""], vec!["c", "d"]]);
    assert_eq!(table(&doc)["table"]["rows"], 3);
    // The row (1 + 2 cells of 2) moved the closing paragraph from 22 to 27.
    assert_eq!(content(&doc).last().unwrap()["startIndex"], 27);

    h.ok(
        "insert_table_column",
        json!({"doc_id": id, "table_start_index": 7, "column_index": 0, "insert_right": false}),
    )
    .await;
    let doc = raw_doc(&h, &id).await;
    assert_eq!(grid(&doc), vec![vec!["", "a", "b"], vec!["", "", ""], vec!["", "c", "d"]]);
    assert_eq!(table(&doc)["table"]["columns"], 3);

    h.ok("delete_table_row", json!({"doc_id": id, "table_start_index": 7, "row_index": 1})).await;
    h.ok("delete_table_column", json!({"doc_id": id, "table_start_index": 7, "column_index": 0})).await;
    let doc = raw_doc(&h, &id).await;
    assert_eq!(grid(&doc), vec![vec!["a", "b"], vec!["c", "d"]]);
    assert_eq!(content(&doc).last().unwrap()["startIndex"], 22);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Intro\na\nb\nc\nd\n\n");
}

#[tokio::test]
async fn deleting_the_only_row_deletes_the_table() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Tables", "Intro", &h.owner());
    h.ok("insert_doc_table", json!({"doc_id": id, "index": 6, "rows": 1, "columns": 2})).await;
    h.ok("delete_table_row", json!({"doc_id": id, "table_start_index": 7, "row_index": 0})).await;
    let doc = raw_doc(&h, &id).await;
    assert!(content(&doc).iter().all(|e| e.get("table").is_none()), "{doc}");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Intro\n\n");
}

#[tokio::test]
async fn merged_cells_keep_their_text_in_the_head_cell() {
    let h = Harness::new().await;
    let id = doc_with_table(&h).await;
    h.ok(
        "merge_table_cells",
        json!({"doc_id": id, "table_start_index": 7, "row_index": 0, "column_index": 0, "column_span": 2}),
    )
    .await;
    let doc = raw_doc(&h, &id).await;
    let head = cell(&doc, 0, 0);
    assert_eq!(head["tableCellStyle"]["columnSpan"], 2);
    assert_eq!(head["tableCellStyle"]["rowSpan"], 1);
    assert_eq!(cell_text(&head), "a\nb\n");
    assert_eq!(cell_text(&cell(&doc, 0, 1)), "\n");
    assert_eq!(grid(&doc)[1], vec!["c", "d"]);
}

#[tokio::test]
async fn cell_styles_land_on_the_named_cells_only() {
    let h = Harness::new().await;
    let id = doc_with_table(&h).await;
    let result = h
        .ok(
            "style_doc_table_cells",
            json!({"doc_id": id, "table_start_index": 7, "cells": [
                {"row_index": 1, "column_index": 0, "column_span": 2, "background_color": {"red": 1, "green": 0.5}, "content_alignment": "middle"},
                {"row_index": 0, "column_index": 1, "padding": 8},
            ]}),
        )
        .await;
    assert_eq!(result["styled"], 2);
    let doc = raw_doc(&h, &id).await;
    for column in 0..2 {
        let style = &cell(&doc, 1, column)["tableCellStyle"];
        let rgb = &style["backgroundColor"]["color"]["rgbColor"];
        assert_eq!(
            (rgb["red"].as_f64(), rgb["green"].as_f64(), rgb.get("blue")),
            (Some(1.0), Some(0.5), None),
            "{style}"
        );
        assert_eq!(style["contentAlignment"], "MIDDLE");
    }
    let untouched = &cell(&doc, 0, 0)["tableCellStyle"];
    assert!(untouched.get("backgroundColor").is_none() && untouched["contentAlignment"] == "TOP", "{untouched}");
    let padding = &cell(&doc, 0, 1)["tableCellStyle"]["paddingLeft"];
    assert_eq!((padding["magnitude"].as_f64(), padding["unit"].as_str()), (Some(8.0), Some("PT")), "{padding}");
    // Styling leaves the text alone.
    assert_eq!(grid(&doc), vec![vec!["a", "b"], vec!["c", "d"]]);
}

#[tokio::test]
async fn bad_table_arguments_are_refused_before_google() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Tables", "Intro", &h.owner());
    let cases = [
        ("insert_doc_table", json!({"doc_id": id, "index": 2, "rows": 2, "columns": 21}), "1 to 20 columns"),
        ("insert_doc_table", json!({"doc_id": id, "index": 2, "rows": 0, "columns": 2}), "at least 1 row"),
        ("insert_doc_table", json!({"doc_id": id, "index": 0, "rows": 1, "columns": 2}), "starts at index 1"),
        ("insert_table_row", json!({"doc_id": id, "table_start_index": 7, "row_index": -1}), "row_index is -1"),
        (
            "delete_table_column",
            json!({"doc_id": id, "table_start_index": 1, "column_index": 0}),
            "table_start_index is 1",
        ),
        (
            "merge_table_cells",
            json!({"doc_id": id, "table_start_index": 7, "row_index": 0, "column_index": 0}),
            "a single cell",
        ),
        (
            "style_doc_table_cells",
            json!({"doc_id": id, "table_start_index": 7, "cells": [{"row_index": 0, "column_index": 0, "content_alignment": "CENTER"}]}),
            "is not one of TOP, MIDDLE, BOTTOM",
        ),
        ("style_doc_table_cells", json!({"doc_id": id, "table_start_index": 7, "cells": []}), "cells is empty"),
    ];
    for (tool, args, needle) in cases {
        let message = h.err(tool, args).await;
        assert!(message.contains(needle), "{tool}: {needle} not in: {message}");
    }
    assert_eq!(batch_updates(&h), 0);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Intro\n");
}

#[tokio::test]
async fn googles_refusals_about_tables_come_back_in_plain_words() {
    let h = Harness::new().await;
    let id = doc_with_table(&h).await;
    // No table starts at 3; the table has no row 5.
    let message = h.err("insert_table_row", json!({"doc_id": id, "table_start_index": 3, "row_index": 0})).await;
    assert!(message.contains("Google Docs refused the request as invalid"), "{message}");
    assert!(message.contains("no table starting at index 3"), "{message}");
    let message = h.err("delete_table_row", json!({"doc_id": id, "table_start_index": 7, "row_index": 5})).await;
    assert!(message.contains("Invalid row index 5"), "{message}");
    // A range cutting through the table's structure, or text at the table's start, is refused too.
    let message =
        h.err("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": 8, "end_index": 11}]})).await;
    assert!(message.contains("Cannot delete a table's structure"), "{message}");
    let message = h.err("insert_doc_text", json!({"doc_id": id, "insertions": [{"index": 7, "text": "x"}]})).await;
    assert!(message.contains("inside the bounds of an existing paragraph"), "{message}");
    let message = h.err("insert_page_break", json!({"doc_id": id, "index": 10})).await;
    assert!(message.contains("Page breaks cannot be inserted inside a table"), "{message}");
    assert_eq!(grid(&raw_doc(&h, &id).await), vec![vec!["a", "b"], vec!["c", "d"]]);
}
