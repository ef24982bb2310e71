//! Peak memory of a large `get_sheet_data` (20,000 x 8 short cells), and the response cap on that path.
//!
//! The values path transcodes Google's `values.get` body straight into the result text, so a read holds
//! Google's body and the text, never a tree of the cells (a `Value` is 72 bytes with `preserve_order`, plus
//! its string, against ~11 serialized: the tree made the peak ~10x the result). The bound is 3x the
//! serialized result, peak over the heap in use when the call starts; an extra copy of the cells would
//! push it past that. Most of the remaining peak is the HTTP client collecting Google's body.
//!
//! A counting allocator tracks the heap of the test thread only, where the engine call runs on a
//! current-thread runtime (so the HTTP connection's tasks run there too); the emulator serves from another
//! runtime's worker threads and isn't counted.

#[path = "integration/sheets_common/mod.rs"]
mod sheets_common;
#[path = "integration/support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{Value, json};
use sheets_common::seed;
use support::Harness;

struct Counting;

thread_local! {
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(delta: isize) {
    // `try_with`: thread-locals may already be gone while a thread exits.
    let _ = TRACKING.try_with(|tracking| {
        if tracking.get() {
            let now = CURRENT.with(|c| {
                c.set(c.get() + delta);
                c.get()
            });
            PEAK.with(|p| p.set(p.get().max(now)));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Count the moment both blocks may exist, then settle on the new size.
        add(new_size as isize);
        add(-(layout.size() as isize));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_20k_by_8_read_peaks_under_3x_its_result() {
    let setup = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let h = setup.block_on(Harness::with_config(|c| c.max_response_chars = 50_000_000));
    let rows: Vec<Vec<Value>> = (1..=20_000)
        .map(|r| {
            vec![
                json!(format!("Customer {r}")),
                json!(r * 7 % 1000),
                json!(format!("{}.{:02}", r % 500, r % 100)),
                json!(if r % 3 == 0 { "paid" } else { "open" }),
                json!(format!("Region {}", r % 12)),
                json!(r),
                json!(format!("note for row {r}")),
                json!(r % 2 == 0),
            ]
        })
        .collect();
    let id = seed(&h, "Big", &[("Data", rows)]);
    let engine = h.engine.clone();
    let args = json!({ "spreadsheet_id": id, "sheet": "Data" });
    let Value::Object(args) = args else { unreachable!() };

    let call = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // Warm up: connection pool, token, lazy statics.
    call.block_on(
        engine.call("list_sheets", Some(serde_json::Map::from_iter([("spreadsheet_id".to_owned(), json!(id))]))),
    )
    .unwrap();

    // Peak over the heap in use now.
    CURRENT.with(|c| c.set(0));
    PEAK.with(|p| p.set(0));
    TRACKING.with(|t| t.set(true));
    let reply = call.block_on(engine.call("get_sheet_data", Some(args))).unwrap();
    TRACKING.with(|t| t.set(false));
    let peak = PEAK.with(Cell::get) as f64;

    assert!(!reply.is_error, "{}", &reply.text[..reply.text.len().min(300)]);
    let result = reply.text.len() as f64;
    let parsed: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(parsed["values"].as_array().unwrap().len(), 20_000);
    assert_eq!(
        parsed["values"][19_999],
        json!(["Customer 20000", "0", "0", "open", "Region 8", "20000", "note for row 20000", "TRUE"])
    );
    assert!(parsed["range"].as_str().unwrap().starts_with("Data!A1:"));
    let ratio = peak / result;
    eprintln!("result {:.1} MB, peak {:.1} MB, ratio {ratio:.2}", result / 1e6, peak / 1e6);
    assert!(ratio <= 3.0, "peak {peak} bytes is {ratio:.2}x the {result}-byte result");
    drop(h);
}

/// The cap applies to the transcoded text: the refusal names the tool, the result's size in characters
/// (not bytes), the cap and the remedies; `local_path` gets the same text in full.
#[tokio::test]
async fn an_over_cap_read_names_tool_size_cap_and_remedies() {
    let h = Harness::with_config(|c| c.max_response_chars = 1_000).await;
    let rows = (1..=60).map(|r| vec![json!(format!("Café № {r}")), json!(r)]).collect();
    let id = seed(&h, "Cap", &[("Data", rows)]);
    let saved =
        h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "local_path": "cap.json" })).await;
    let text = std::fs::read_to_string(saved["local_path"].as_str().unwrap()).unwrap();
    let written: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(written["values"][59], json!(["Café № 60", "60"]));
    let size = text.chars().count();
    assert!(size > 1_000 && text.len() > size, "{size} chars");
    let grouped = format!("{},{:03}", size / 1000, size % 1000);

    let message = h.err("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    for needle in ["get_sheet_data", &grouped, "1000", "MAX_TOOL_RESPONSE_CHARS", "narrower range", "local_path"] {
        assert!(message.contains(needle), "{needle} missing: {message}");
    }

    let message = h.err("get_sheet_formulas", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    for needle in ["get_sheet_formulas", "1000", "narrower range"] {
        assert!(message.contains(needle), "{needle} missing: {message}");
    }
    assert!(!message.contains("local_path"), "{message}");
}
