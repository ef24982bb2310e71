//! The desktop app's measurements: `bash scripts/bench.sh` runs them against release builds (on their own:
//! `GATEHOUSE_DESKTOP_BIN=target/release/gatehouse-desktop GATEHOUSE_BIN=target/release/gatehouse cargo bench -p
//! gatehouse-e2e --bench desktop`). Each app runs on its own Xvfb display and D-Bus session, in the sandbox.
//!
//! 1. Launch to MCP-ready: from spawning `gatehouse-desktop` to the first MCP `initialize` over HTTP that
//!    succeeds (polled every 5 ms), for a first launch (empty `GATEHOUSE_HOME`) and later ones.
//! 2. Idle memory with no window open: the RSS of the app and of every process below it (WebKit's), 10 s
//!    after MCP-ready; and again after cards were shown and answered and the windows closed or hidden.
//! 3. Call to card visible: from the assistant sending `update_cells` (rmcp through `gatehouse serve`, relayed
//!    to the app) to the card window being visible with that card drawn in it, as WebDriver sees it: the page's
//!    visibility state and the card's text, polled in a loop whose round trip sets the resolution (reported).
//!    The first card also creates the card window; later ones show the hidden window again.
//!
//! Prints a Markdown table to paste into docs/benchmarks.md.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use gatehouse_e2e::Home;
use gatehouse_e2e::desktop::{
    Desktop, SessionBus, WebDriver, Xvfb, app_env, apply_env, call, desktop_bin, free_port, mcp_ready, process_name,
    process_tree, rss_kib,
};
use serde_json::{Value, json};

const LAUNCHES: usize = 6;
const CARDS: usize = 20;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// A process's program name, from its command line (`comm` is cut at 15 characters).
fn program(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .ok()
        .and_then(|cmdline| {
            let first = cmdline.split(|b| *b == 0).next()?.to_vec();
            let path = String::from_utf8(first).ok()?;
            Some(path.rsplit('/').next()?.to_owned())
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| process_name(pid))
}

/// The proportional set size of a process in KiB (shared pages split among the processes that map them).
fn pss_kib(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    rollup.lines().find(|l| l.starts_with("Pss:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// The memory of `pid` and every process below it: total RSS and PSS in MB, and each process's RSS.
struct Memory {
    rss_mib: f64,
    pss_mib: f64,
    each: Vec<String>,
}

fn tree_memory(pid: u32) -> Memory {
    let tree = process_tree(pid);
    let mib = |kib: u64| kib as f64 / 1024.0;
    let rss: u64 = tree.iter().filter_map(|pid| rss_kib(*pid)).sum();
    let pss: u64 = tree.iter().filter_map(|pid| pss_kib(*pid)).sum();
    let each = tree.iter().map(|pid| format!("{} {:.0}", program(*pid), mib(rss_kib(*pid).unwrap_or(0)))).collect();
    Memory { rss_mib: mib(rss), pss_mib: mib(pss), each }
}

fn stop(child: &mut std::process::Child) {
    let tree = process_tree(child.id());
    // SIGTERM first: the app denies what waits and removes its socket, as when a session ends.
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && child.try_wait().ok().flatten().is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = Command::new("kill").arg("-KILL").args(tree.iter().map(u32::to_string)).stderr(Stdio::null()).status();
    let _ = child.wait();
}

struct Launches {
    first: Duration,
    later: Vec<Duration>,
    idle: Memory,
}

/// Launches the app directly (no WebDriver) `LAUNCHES` times in one home, timing MCP-ready; measures the last
/// one's idle memory.
async fn launches() -> Result<Launches> {
    let display = Xvfb::start()?;
    let bus = SessionBus::start()?;
    let home = Home::new();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build()?;
    let mut times = Vec::new();
    let mut idle = None;
    for launch in 0..LAUNCHES {
        let http = format!("127.0.0.1:{}", free_port()).parse()?;
        let mut command = Command::new(desktop_bin());
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        apply_env(&mut command, &app_env(home.path(), &display.display, &bus.address, http));
        let started = Instant::now();
        let mut child = command.spawn().context("starting gatehouse-desktop")?;
        loop {
            if mcp_ready(&client, home.path(), http).await {
                break;
            }
            ensure!(child.try_wait()?.is_none(), "the app exited before it served MCP");
            ensure!(started.elapsed() < Duration::from_secs(60), "the app did not serve MCP within 60 s");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        times.push(started.elapsed());
        if launch == LAUNCHES - 1 {
            tokio::time::sleep(Duration::from_secs(10)).await;
            idle = Some(tree_memory(child.id()));
        }
        stop(&mut child);
    }
    let idle = idle.context("no launch measured")?;
    Ok(Launches { first: times[0], later: times[1..].to_vec(), idle })
}

const CARD_ON_SCREEN: &str = r#"
    const card = document.getElementById("card");
    const heading = document.getElementById("heading").textContent;
    return document.visibilityState === "visible" && !card.hidden && heading === "Update cells"
        && document.getElementById("arguments").textContent.includes(arguments[0]);
"#;

struct Cards {
    first: Duration,
    later: Vec<Duration>,
    /// The longest WebDriver poll round trip, for the first card and the later ones: the resolution.
    first_resolution: Duration,
    resolution: Duration,
    after: Memory,
}

/// Polls until the card for the write of `marker` is on screen; returns when it was seen and the longest poll.
/// Until the card window exists, a poll asks only for the app's window handles (cheap); the new handle is then
/// switched to once, and polled like the others.
async fn until_card(
    webdriver: &WebDriver,
    marker: &str,
    known: &mut Vec<String>,
    card: &mut bool,
) -> Result<(Instant, Duration)> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut longest = Duration::ZERO;
    loop {
        let poll = Instant::now();
        let mut shown = false;
        if !*card {
            if let Some(new) = webdriver.window_handles().await?.into_iter().find(|h| !known.contains(h)) {
                webdriver.switch_to_handle(&new).await?;
                known.push(new);
                *card = true;
            }
        } else {
            // A page still loading may not answer yet: that is "not shown".
            shown = webdriver.execute(CARD_ON_SCREEN, json!([marker])).await.ok() == Some(Value::Bool(true));
        }
        longest = longest.max(poll.elapsed());
        if shown {
            return Ok((Instant::now(), longest));
        }
        ensure!(Instant::now() < deadline, "the card did not show within 30 s");
    }
}

async fn cards() -> Result<Cards> {
    let home = Home::new();
    let mut app = Desktop::launch(&home, &[]).await?;
    let assistant = app.assistant("Claude Desktop", &["--sandbox"]).await?;
    let peer = assistant.peer().clone();
    let found = call(&peer, "search_spreadsheets", json!({ "query": "Budget 2026" })).await?;
    let found: Value = serde_json::from_str(&found.content[0].as_text().context("text")?.text)?;
    let id = found["spreadsheets"][0]["id"].as_str().context("Budget 2026")?.to_owned();

    // The settings window, so WebDriver is attached before the first card (whose window is then made).
    app.launch_again().await?;
    let webdriver = app.webdriver().await?.clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await?;

    let mut known = webdriver.window_handles().await?;
    let mut card_window = false;
    let mut times = Vec::new();
    let mut resolutions = Vec::new();
    for round in 0..CARDS {
        let marker = format!("bench round {round}");
        let args = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "K1", "data": [[marker]] });
        let sent = Instant::now();
        let waiting = {
            let peer = peer.clone();
            tokio::spawn(async move { call(&peer, "update_cells", args).await })
        };
        let (seen, longest) = until_card(&webdriver, &marker, &mut known, &mut card_window).await?;
        times.push(seen - sent);
        resolutions.push(longest);
        webdriver.click_on("#deny").await?;
        let refused = tokio::time::timeout(Duration::from_secs(30), waiting).await???;
        ensure!(refused.is_error == Some(true), "the denied call ran");
        webdriver
            .wait_for("the card hidden", "return document.visibilityState === 'hidden'", Duration::from_secs(10))
            .await?;
    }

    // Every window closed or hidden: the settings window closed, the card hidden.
    webdriver.switch_to_page("settings.html", Duration::from_secs(5)).await?;
    webdriver.close_window().await?;
    tokio::time::sleep(Duration::from_secs(10)).await;
    let app_pid = app.app_pid().context("the app's process")?;
    let after = tree_memory(app_pid);
    assistant.cancel().await?;
    Ok(Cards {
        first: times[0],
        later: times[1..].to_vec(),
        first_resolution: resolutions[0],
        resolution: resolutions[1..].iter().copied().max().unwrap_or_default(),
        after,
    })
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find(|l| l.starts_with("model name"))?.split(':').nth(1).map(str::trim).map(String::from)
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().next()?.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map(|kib| kib / 1024.0 / 1024.0)
        .unwrap_or(0.0);
    format!("{cores} cores ({cpu}), {mem:.0} GB")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    // `cargo bench` passes --bench; nothing to parse.
    eprintln!("measuring with {}", desktop_bin().display());
    let launches = launches().await?;
    let cards = cards().await?;

    println!("Machine: {}; binary: {}", machine(), desktop_bin().display());
    println!();
    println!("| measure | value |");
    println!("|---|---|");
    println!("| launch to MCP-ready, first launch (empty GATEHOUSE_HOME) | {:.0} ms |", ms(launches.first));
    println!(
        "| launch to MCP-ready, later launches: median (min–max) of {} | {:.0} ms ({:.0}–{:.0}) |",
        launches.later.len(),
        ms(median(launches.later.clone())),
        ms(*launches.later.iter().min().unwrap_or(&Duration::ZERO)),
        ms(*launches.later.iter().max().unwrap_or(&Duration::ZERO)),
    );
    println!(
        "| idle memory, no window ever opened (10 s after MCP-ready): RSS / PSS | {:.0} MB / {:.0} MB ({}) |",
        launches.idle.rss_mib,
        launches.idle.pss_mib,
        launches.idle.each.join(", ")
    );
    println!(
        "| idle memory after {CARDS} cards, settings window closed, card hidden (10 s later): RSS / PSS | {:.0} MB / {:.0} MB ({}) |",
        cards.after.rss_mib,
        cards.after.pss_mib,
        cards.after.each.join(", ")
    );
    println!("| call to card visible, first card (makes the card window) | {:.0} ms |", ms(cards.first));
    let mut later = cards.later.clone();
    later.sort();
    println!(
        "| call to card visible, next {} cards: median / max | {:.0} ms / {:.0} ms |",
        later.len(),
        ms(median(later.clone())),
        ms(*later.last().unwrap_or(&Duration::ZERO)),
    );
    println!(
        "| polling resolution (longest WebDriver poll round trip), first card / next cards | {:.0} ms / {:.0} ms |",
        ms(cards.first_resolution),
        ms(cards.resolution)
    );
    Ok(())
}
