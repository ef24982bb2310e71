//! Gatehouse's benchmark: `bash scripts/bench.sh` (builds the release binary, then runs this).
//!
//! Measures, against the Google emulator on loopback:
//! 1. the MCP round trip of `get_sheet_data` over stdio against a direct HTTP call to the emulator (the
//!    floor): p50, p99 and their ratio, and the overhead above the floor;
//! 2. Google calls per tool call for `get_multiple_sheet_data` with 200 queries;
//! 3. the server's idle RSS, and its peak memory serving a 20,000 x 8 sheet against the serialized result;
//! 4. where a call's time goes inside the server;
//! 5. the bridge to Google's MCP servers: `get_sheet_data` over stdio with `GATEHOUSE_GOOGLE_BACKEND=mcp`
//!    against a direct 2026-07-28 call of the emulator's Sheets MCP server's `get_values` (its floor), and
//!    the first call's cost (start, connection, discovery) on each backend.
//!
//! Prints a Markdown table to paste into docs/benchmarks.md.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gatehouse_e2e::{Home, call, text};
use google_fake::{FakeGoogle, Identity, ServiceAccountKey};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn rounds() -> usize {
    std::env::var("BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(400)
}
const EMAIL: &str = "bench@project.iam.gserviceaccount.com";

/// The release `gatehouse`, or the one `GATEHOUSE_BENCH_BIN` names (to measure another build, such as the
/// one before a change, with the same harness in the same run).
fn release_bin() -> Result<PathBuf> {
    let path = match std::env::var_os("GATEHOUSE_BENCH_BIN") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/gatehouse"),
    };
    anyhow::ensure!(path.exists(), "{} is missing: run `bash scripts/bench.sh`", path.display());
    Ok(path)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `VmRSS` or `VmHWM` of a process, in KiB.
fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}

/// The highest `mem_heap_B` + `mem_heap_extra_B` of a massif output file.
fn massif_peak(path: &std::path::Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut peak = 0u64;
    let mut current = 0u64;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("mem_heap_B=") {
            current = v.parse().ok()?;
        } else if let Some(v) = line.strip_prefix("mem_heap_extra_B=") {
            peak = peak.max(current + v.parse::<u64>().ok()?);
        }
    }
    (peak > 0).then_some(peak)
}

#[tokio::main]
async fn main() -> Result<()> {
    let bin = release_bin()?;
    // The discovery check would add the same cost to both measured paths: off, as in the sandbox.
    let google =
        FakeGoogle::start_with(google_fake::World { skip_discovery_checks: true, ..Default::default() }).await?;
    google.world().service_accounts.push(ServiceAccountKey {
        email: EMAIL.to_owned(),
        public_key_pem: include_str!("../data/test-service-account.pub.pem").to_owned(),
    });
    let owner = Identity::service_account(EMAIL);
    let small: Vec<Vec<Value>> = (0..10).map(|r| (0..8).map(|c| json!(format!("r{r}c{c}"))).collect()).collect();
    let big: Vec<Vec<Value>> = (0..20_000)
        .map(|r| (0..8).map(|c| if c == 0 { json!(format!("row {r}")) } else { json!(r * 8 + c) }).collect())
        .collect();
    let id = google.world().create_spreadsheet("Bench", &[("Small", small), ("Big", big)], &owner);
    let direct_token = google.issue_token(owner.clone());

    let home = Home::new();
    let key = json!({
        "type": "service_account", "client_email": EMAIL, "private_key_id": "bench",
        "private_key": include_str!("../data/test-service-account.pem"),
        "token_uri": "https://oauth2.googleapis.com/token",
    });
    let key_path = home.path().join("key.json");
    std::fs::write(&key_path, key.to_string())?;
    let server_on = |program: &std::path::Path, wrapper: &[String], backend: &str| {
        let mut command = match wrapper.split_first() {
            Some((first, rest)) => {
                let mut command = tokio::process::Command::new(first);
                command.args(rest).arg(program);
                command
            }
            None => tokio::process::Command::new(program),
        };
        command
            .args(["serve"])
            .env("GATEHOUSE_HOME", home.path())
            .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
            .env("SERVICE_ACCOUNT_PATH", &key_path)
            .env("GATEHOUSE_LOG", "warn")
            // Parts 1-4 on Google's REST API, as the floor's `values.get` is: the figures stay comparable with
            // the earlier ones. Part 5 measures the path through Google's MCP servers.
            .env("GATEHOUSE_GOOGLE_BACKEND", backend)
            .env("MAX_TOOL_RESPONSE_CHARS", "50000000");
        command
    };
    let server = |program: &std::path::Path, wrapper: &[String]| server_on(program, wrapper, "rest");
    let (transport, _) = TokioChildProcess::builder(server(&bin, &[])).stderr(Stdio::null()).spawn()?;
    let pid = transport.id().context("server pid")?;
    let client = ().serve(transport).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle_rss = proc_status_kib(pid, "VmRSS:").unwrap_or_default();
    // What the idle RSS is made of: the program's own pages mapped from its file (clean, reclaimable: the
    // code the start ran, faulted in in windows) against anonymous memory (heap, stacks, buffers).
    let idle_file = proc_status_kib(pid, "RssFile:").unwrap_or_default();
    let idle_anon = proc_status_kib(pid, "RssAnon:").unwrap_or_default();
    let threads = proc_status_kib(pid, "Threads:").unwrap_or_default();

    // 1. Round trips: the floor (a direct values.get) and the same read through MCP.
    let http = reqwest::Client::new();
    let url = format!("{}/v4/spreadsheets/{id}/values/Small%21A1%3AH10", google.url());
    let args = json!({ "spreadsheet_id": id, "sheet": "Small", "range": "A1:H10" });
    for _ in 0..20 {
        http.get(&url).bearer_auth(&direct_token).send().await?.bytes().await?;
        call(&client, "get_sheet_data", args.clone()).await?;
    }
    let mut floor = Vec::with_capacity(rounds());
    let mut mcp = Vec::with_capacity(rounds());
    for _ in 0..rounds() {
        let started = Instant::now();
        http.get(&url).bearer_auth(&direct_token).send().await?.bytes().await?;
        floor.push(started.elapsed());
        let started = Instant::now();
        let result = call(&client, "get_sheet_data", args.clone()).await?;
        mcp.push(started.elapsed());
        anyhow::ensure!(!result.is_error.unwrap_or(false), "get_sheet_data failed: {}", text(&result));
    }
    floor.sort();
    mcp.sort();

    // 1b. Reads of ranges not read before (what an assistant mostly does): each range once, through MCP and
    //     straight to the emulator, alternating.
    let mut fresh_floor = Vec::with_capacity(rounds());
    let mut fresh_mcp = Vec::with_capacity(rounds());
    for i in 0..rounds() {
        let row = i + 1;
        let url = format!("{}/v4/spreadsheets/{id}/values/Big%21A{row}%3AH{row}", google.url());
        let started = Instant::now();
        http.get(&url).bearer_auth(&direct_token).send().await?.bytes().await?;
        fresh_floor.push(started.elapsed());
        let once =
            json!({ "spreadsheet_id": id, "sheet": "Big", "range": format!("A{}:H{}", row + 10_000, row + 10_000) });
        let started = Instant::now();
        let result = call(&client, "get_sheet_data", once).await?;
        fresh_mcp.push(started.elapsed());
        anyhow::ensure!(!result.is_error.unwrap_or(false), "get_sheet_data failed: {}", text(&result));
    }
    fresh_floor.sort();
    fresh_mcp.sort();

    // 2. Google calls for 200 queries on one spreadsheet.
    let queries: Vec<Value> = (0..200)
        .map(|i| json!({ "spreadsheet_id": id, "sheet": "Big", "range": format!("A{}:H{}", i * 10 + 1, i * 10 + 10) }))
        .collect();
    let before = google.world().count_requests("/v4/spreadsheets");
    let multi = call(&client, "get_multiple_sheet_data", json!({ "queries": queries })).await?;
    anyhow::ensure!(!multi.is_error.unwrap_or(false), "get_multiple_sheet_data failed: {}", text(&multi));
    let google_calls = google.world().count_requests("/v4/spreadsheets") - before;

    // 3. Peak memory reading the whole 20,000 x 8 sheet.
    let started = Instant::now();
    let big_read = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Big" })).await?;
    let big_elapsed = started.elapsed();
    anyhow::ensure!(!big_read.is_error.unwrap_or(false), "big read failed: {}", text(&big_read));
    let result_chars = text(&big_read).chars().count();
    let peak = proc_status_kib(pid, "VmHWM:").unwrap_or_default();
    let peak_above_idle = peak.saturating_sub(idle_rss) * 1024;
    client.cancel().await?;

    // The heap's own peak, from valgrind's massif (RSS also counts what the allocator keeps after
    // freeing): one idle session (start, initialize, stop) and one that does the big read; the difference
    // is what the read itself needed at its peak.
    let under_massif = |name: &str| {
        let out = home.path().join(name);
        ["valgrind".to_owned(), "--tool=massif".to_owned(), format!("--massif-out-file={}", out.display())]
    };
    let mut heap = Vec::new();
    for (name, read) in [("idle.massif", false), ("read.massif", true)] {
        let Ok((transport, _)) =
            TokioChildProcess::builder(server(&bin, &under_massif(name))).stderr(Stdio::null()).spawn()
        else {
            break;
        };
        let client = ().serve(transport).await?;
        if read {
            let result = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Big" })).await?;
            anyhow::ensure!(!result.is_error.unwrap_or(false), "big read under massif failed: {}", text(&result));
        }
        client.cancel().await?;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        heap.extend(massif_peak(&home.path().join(name)));
    }
    let heap_peak = match heap[..] {
        [idle, read] => Some((read, read.saturating_sub(idle))),
        _ => None,
    };

    // 4. Where a call's time goes: the same small read through a second server that times its phases
    //    (`GATEHOUSE_TIMING`, see crates/core/src/logging.rs), its stderr kept in a file.
    let timing_log = home.path().join("timing.log");
    let mut timed = server(&bin, &[]);
    timed.env("GATEHOUSE_TIMING", "1");
    let (transport, _) =
        TokioChildProcess::builder(timed).stderr(Stdio::from(std::fs::File::create(&timing_log)?)).spawn()?;
    let client = ().serve(transport).await?;
    for _ in 0..20 {
        call(&client, "get_sheet_data", args.clone()).await?;
    }
    let skip = std::fs::read_to_string(&timing_log)?.lines().count();
    let mut timed_mcp = Vec::with_capacity(rounds());
    for _ in 0..rounds() {
        let started = Instant::now();
        call(&client, "get_sheet_data", args.clone()).await?;
        timed_mcp.push(started.elapsed());
    }
    client.cancel().await?;
    timed_mcp.sort();
    let phases = phase_times(&std::fs::read_to_string(&timing_log)?, skip);

    let mut bridge: Option<(Vec<Duration>, Vec<Duration>, Duration)> = None;
    // 5. The bridge: the first call's cost on each backend (a fresh server: start, initialize, and on `mcp`
    //    the connection to Google's server and its tool list), then the same small read through Google's MCP
    //    server against a direct call of it.
    let mut first_call = Vec::new();
    for backend in ["rest", "mcp"] {
        let started = Instant::now();
        let (transport, _) = TokioChildProcess::builder(server_on(&bin, &[], backend)).stderr(Stdio::null()).spawn()?;
        let client = ().serve(transport).await?;
        let result = call(&client, "get_sheet_data", args.clone()).await?;
        anyhow::ensure!(!result.is_error.unwrap_or(false), "first call on {backend} failed: {}", text(&result));
        first_call.push((backend, started.elapsed()));
        if backend == "rest" {
            client.cancel().await?;
            continue;
        }
        let started = Instant::now();
        let direct = direct_mcp_client(&google.url(), &direct_token).await?;
        let get_values = rmcp::model::CallToolRequestParams::new("get_values").with_arguments(
            json!({ "spreadsheetId": id, "range": "Small!A1:H10" }).as_object().cloned().unwrap_or_default(),
        );
        let answered = direct.peer().call_tool(get_values.clone()).await?;
        anyhow::ensure!(!answered.is_error.unwrap_or(false), "get_values failed: {}", text(&answered));
        let direct_first = started.elapsed();
        for _ in 0..20 {
            direct.peer().call_tool(get_values.clone()).await?;
            call(&client, "get_sheet_data", args.clone()).await?;
        }
        let mut bridge_floor = Vec::with_capacity(rounds());
        let mut bridged = Vec::with_capacity(rounds());
        for _ in 0..rounds() {
            let started = Instant::now();
            direct.peer().call_tool(get_values.clone()).await?;
            bridge_floor.push(started.elapsed());
            let started = Instant::now();
            let result = call(&client, "get_sheet_data", args.clone()).await?;
            bridged.push(started.elapsed());
            anyhow::ensure!(!result.is_error.unwrap_or(false), "get_sheet_data on mcp failed: {}", text(&result));
        }
        let runs = google.world().requests.iter().filter(|record| record.host == "sheetsmcp.googleapis.com").count();
        anyhow::ensure!(runs > rounds(), "the mcp backend's reads ran on Google's MCP server ({runs} there)");
        client.cancel().await?;
        direct.cancel().await?;
        bridge_floor.sort();
        bridged.sort();
        bridge = Some((bridge_floor, bridged, direct_first));
    }

    let p50_overhead = ms(percentile(&mcp, 0.5)) - ms(percentile(&floor, 0.5));
    println!("| measure | value | target |");
    println!("|---|---|---|");
    println!(
        "| floor: direct `values.get` p50 / p99 | {:.3} ms / {:.3} ms | |",
        ms(percentile(&floor, 0.5)),
        ms(percentile(&floor, 0.99))
    );
    println!(
        "| MCP stdio `get_sheet_data` p50 / p99 | {:.3} ms / {:.3} ms | |",
        ms(percentile(&mcp, 0.5)),
        ms(percentile(&mcp, 0.99))
    );
    println!(
        "| ratio MCP / floor, p50 / p99 | {:.2} / {:.2} | |",
        ms(percentile(&mcp, 0.5)) / ms(percentile(&floor, 0.5)),
        ms(percentile(&mcp, 0.99)) / ms(percentile(&floor, 0.99))
    );
    println!("| overhead above the floor, p50 | {p50_overhead:.3} ms | ≤ 0.3 ms |");
    println!(
        "| a range not read before: floor / MCP stdio p50 | {:.3} ms / {:.3} ms | |",
        ms(percentile(&fresh_floor, 0.5)),
        ms(percentile(&fresh_mcp, 0.5))
    );
    println!(
        "| a range not read before: overhead above the floor, p50 | {:.3} ms | |",
        ms(percentile(&fresh_mcp, 0.5)) - ms(percentile(&fresh_floor, 0.5))
    );
    println!("| Google calls for `get_multiple_sheet_data`, 200 queries | {google_calls} | a handful |");
    println!("| idle server RSS | {:.1} MB | ≤ 20 MB |", idle_rss as f64 / 1024.0);
    println!(
        "| idle server RSS: mapped from the program file / anonymous; threads | {:.1} MB / {:.1} MB; {threads} | |",
        idle_file as f64 / 1024.0,
        idle_anon as f64 / 1024.0
    );
    println!(
        "| 20,000 x 8 read: result size, time | {:.2} M chars, {:.0} ms | |",
        result_chars as f64 / 1e6,
        ms(big_elapsed)
    );
    println!(
        "| 20,000 x 8 read: peak RSS above idle / result | {:.1} MB / {:.2}x | |",
        peak_above_idle as f64 / 1e6,
        peak_above_idle as f64 / result_chars as f64
    );
    match heap_peak {
        Some((whole, read)) => {
            println!("| 20,000 x 8 read: peak heap of the whole process (massif) | {:.1} MB | |", whole as f64 / 1e6);
            println!(
                "| 20,000 x 8 read: peak heap above an idle server / result | {:.1} MB / {:.2}x | ≤ 3x |",
                read as f64 / 1e6,
                read as f64 / result_chars as f64
            );
        }
        None => println!("| 20,000 x 8 read: peak heap (massif) | not measured: valgrind is not installed | ≤ 3x |"),
    }
    if let Some((floor, bridged, direct_first)) = &bridge {
        println!(
            "| bridge floor: direct `get_values` on the Sheets MCP server p50 / p99 | {:.3} ms / {:.3} ms | |",
            ms(percentile(floor, 0.5)),
            ms(percentile(floor, 0.99))
        );
        println!(
            "| MCP stdio `get_sheet_data` through Google's MCP server p50 / p99 | {:.3} ms / {:.3} ms | |",
            ms(percentile(bridged, 0.5)),
            ms(percentile(bridged, 0.99))
        );
        println!(
            "| bridge overhead above a direct call, p50 | {:.3} ms | ≤ 0.5 ms |",
            ms(percentile(bridged, 0.5)) - ms(percentile(floor, 0.5))
        );
        println!("| direct MCP client: connect + first `get_values` | {:.1} ms | |", ms(*direct_first));
    }
    for (backend, elapsed) in &first_call {
        println!("| first call on `{backend}`: start + initialize + `get_sheet_data` | {:.1} ms | |", ms(*elapsed));
    }
    println!();
    println!("Where a `get_sheet_data` call's time goes, inside the server (p50 of {} calls):", rounds());
    println!();
    println!("| phase | wall p50 | of which on CPU (busy) p50 |");
    println!("|---|---|---|");
    println!("| MCP round trip seen by the client (this run) | {:.3} ms | |", ms(percentile(&timed_mcp, 0.5)));
    for name in ["call", "decide", "cache_lookup", "tool", "cache_keep", "render", "audit"] {
        let Some((mut wall, mut busy)) = phases.get(name).cloned() else { continue };
        wall.sort();
        busy.sort();
        println!("| {name} | {:.3} ms | {:.3} ms |", ms(percentile(&wall, 0.5)), ms(percentile(&busy, 0.5)));
    }
    Ok(())
}

/// A client of the emulator's Sheets MCP server as Gatehouse's own is: MCP 2026-07-28, stateless, the
/// service account's bearer token.
async fn direct_mcp_client(
    root: &str,
    token: &str,
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>> {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("{root}/mcp/sheets/v1")).auth_header(token);
    config.allow_stateless = true;
    let transport = StreamableHttpClientTransport::from_config(config);
    let lifecycle =
        ClientLifecycleMode::Discover { preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28] };
    Ok(rmcp::model::ClientConfig::default().serve_with_lifecycle(transport, lifecycle).await?)
}

/// The `time.busy` / `time.idle` of each timed phase's closing line in a `GATEHOUSE_TIMING` log, past its
/// first `skip` lines (the warm-up): per phase, the wall times (busy + idle) and the busy ones.
fn phase_times(log: &str, skip: usize) -> std::collections::HashMap<String, (Vec<Duration>, Vec<Duration>)> {
    let mut phases: std::collections::HashMap<String, (Vec<Duration>, Vec<Duration>)> = Default::default();
    for line in log.lines().skip(skip) {
        let Some((context, rest)) = line.split_once(": gatehouse::timing: close ") else { continue };
        let Some(name) = context.rsplit([' ', ':']).next() else { continue };
        let field = |key: &str| rest.split_whitespace().find_map(|f| f.strip_prefix(key)).and_then(duration);
        let (Some(busy), Some(idle)) = (field("time.busy="), field("time.idle=")) else { continue };
        let entry = phases.entry(name.to_owned()).or_default();
        entry.0.push(busy + idle);
        entry.1.push(busy);
    }
    phases
}

/// A duration as tracing prints it: `12.3µs`, `1.20ms`, `456ns`, `1.5s`.
fn duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit {
        "ns" => number / 1e9,
        "µs" | "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
}
