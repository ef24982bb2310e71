//! The desktop app's measurements: `bash scripts/bench.sh` runs them against release builds (on their own:
//! `GATEHOUSE_DESKTOP_BIN=target/release/gatehouse-desktop GATEHOUSE_BIN=target/release/gatehouse cargo bench -p
//! gatehouse-e2e --bench desktop`). Each app runs on its own Xvfb display and D-Bus session, in the sandbox.
//!
//! 1. Launch to MCP-ready: from spawning `gatehouse-desktop` to the first MCP `initialize` over HTTP that
//!    succeeds (polled every 5 ms), for a first launch (empty `GATEHOUSE_HOME`) and later ones.
//! 2. Idle memory: the RSS of the app and of every process below it (WebKit's), 10 s after it runs with no
//!    assistant ever connected (readiness asked over the control socket, which is no assistant); then 10 s after
//!    one assistant connected over HTTP (the app then makes its card window, hidden, ahead of the first card);
//!    and again after cards were shown and answered and the windows closed or hidden.
//! 3. Call to card visible with its preview: from the assistant sending `update_cells` (rmcp through `gatehouse
//!    serve`, relayed to the app) to the card window being visible with that card drawn in it, its sentence and
//!    its before → after preview of the cell (read from the emulator before the card shows; target ≤ 150 ms), as
//!    WebDriver sees it: the page's visibility state and the card's text, polled in a loop whose round trip sets
//!    the resolution (reported).
//!    As in real use the assistant connects first (the app makes the card window then): the first card comes
//!    once that window is ready, the next ones show the hidden window again. Separately, in another app, the
//!    worst case: an assistant whose very first action, right as it connected, is a write — in a fresh home its
//!    card arrives while the card window is still being made; at the next launch in that home, which
//!    assistants have used by then, the app makes the card window at launch (its idle memory is measured too);
//!    and in a fresh home where the person pasted Gatehouse into Cursor's config by hand before launching it,
//!    where the app makes it at launch too.
//!
//! Prints a Markdown table to paste into docs/benchmarks.md.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use gatehouse_e2e::Home;
use gatehouse_e2e::desktop::{
    Assistant, Desktop, SessionBus, WebDriver, Xvfb, app_env, apply_env, call, desktop_bin, free_port, host_ready,
    mcp_ready, process_name, process_tree, rss_kib,
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
    /// No assistant ever connected.
    idle: Memory,
    /// One assistant connected over HTTP (MCP `initialize`), nothing else.
    connected: Memory,
}

fn spawn_app(home: &Home, display: &Xvfb, bus: &SessionBus) -> Result<(std::process::Child, std::net::SocketAddr)> {
    let http = format!("127.0.0.1:{}", free_port()).parse()?;
    let mut command = Command::new(desktop_bin());
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    apply_env(&mut command, &app_env(home.path(), &display.display, &bus.address, http));
    Ok((command.spawn().context("starting gatehouse-desktop")?, http))
}

/// Launches the app directly (no WebDriver) `LAUNCHES` times in one home, timing MCP-ready; then once more to
/// measure its idle memory with no assistant, and with one.
async fn launches() -> Result<Launches> {
    let display = Xvfb::start()?;
    let bus = SessionBus::start()?;
    let home = Home::new();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build()?;
    let mut times = Vec::new();
    for _ in 0..LAUNCHES {
        let started = Instant::now();
        let (mut child, http) = spawn_app(&home, &display, &bus)?;
        loop {
            if mcp_ready(&client, home.path(), http).await {
                break;
            }
            ensure!(child.try_wait()?.is_none(), "the app exited before it served MCP");
            ensure!(started.elapsed() < Duration::from_secs(60), "the app did not serve MCP within 60 s");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        times.push(started.elapsed());
        stop(&mut child);
    }

    // Ready is asked over the control socket: an MCP `initialize` would be an assistant connecting.
    let started = Instant::now();
    let (mut child, http) = spawn_app(&home, &display, &bus)?;
    while !host_ready(home.path()).await {
        ensure!(child.try_wait()?.is_none(), "the app exited before it ran as the host");
        ensure!(started.elapsed() < Duration::from_secs(60), "the app did not run as the host within 60 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_secs(10)).await;
    let idle = tree_memory(child.id());
    ensure!(mcp_ready(&client, home.path(), http).await, "the app did not answer an MCP initialize");
    tokio::time::sleep(Duration::from_secs(10)).await;
    let connected = tree_memory(child.id());
    stop(&mut child);
    Ok(Launches { first: times[0], later: times[1..].to_vec(), idle, connected })
}

/// The card for the write of `arguments[0]` on screen with its preview: the window visible, the sentence drawn,
/// and the preview's grid showing that value as the cell's "after" (the preview read from the emulator before
/// the card showed, issue 18).
const CARD_ON_SCREEN: &str = r##"
    const card = document.getElementById("card");
    const heading = document.getElementById("heading").textContent;
    const after = [...document.querySelectorAll("#preview td.after")].map((cell) => cell.textContent);
    return document.visibilityState === "visible" && !card.hidden && heading.startsWith("write 1 cell in")
        && after.includes(arguments[0]);
"##;

/// Records, in the card page, when it becomes visible, when a card is drawn into it and the frame after that
/// (`Date.now()`, the same clock as [`epoch_ms`]).
const PAGE_TIMES: &str = r##"
    // The first card's times are kept apart: its frames may come after WebDriver saw it, so they are read last.
    window.__benchFirst = window.__benchTimes = {};
    const times = () => window.__benchTimes;
    document.addEventListener("visibilitychange", () => {
        if (document.visibilityState === "visible" && !times().visible) times().visible = Date.now();
    });
    new MutationObserver(() => {
        const now = times();
        if (!now.drawn && document.getElementById("heading").textContent.startsWith("write 1 cell in")
            && document.querySelector("#preview td.after")) {
            now.drawn = Date.now();
            requestAnimationFrame(() => requestAnimationFrame(() => { now.painted = Date.now(); }));
        }
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    return true;
"##;

fn epoch_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

struct Cards {
    /// The first card of an assistant that connected a while before (the card window made then).
    first: Duration,
    later: Vec<Duration>,
    /// From the relay attaching to the card window made, its page loaded, and hidden.
    prepared_in: Duration,
    /// The first card of an assistant whose first action, right as it connected, is a write.
    at_once: Duration,
    /// The same at the next launch in that home (used by assistants by then: the card window made at launch).
    at_once_used: Duration,
    /// The same in a fresh home with an assistant set up by hand before launch (the card window made at launch).
    at_once_set_up: Duration,
    at_once_set_up_resolution: Duration,
    /// That launch's idle memory before any assistant connected.
    used_idle: Memory,
    /// The longest WebDriver poll round trip: first card / later cards / the writes right at connection.
    first_resolution: Duration,
    resolution: Duration,
    at_once_resolution: Duration,
    at_once_used_resolution: Duration,
    /// The first card as its page saw it, in ms after the call was sent: the page visible, the card drawn, the
    /// frame after that.
    first_page: (Option<f64>, Option<f64>, Option<f64>),
    /// The median of the later cards' "next frame", in ms after the call.
    later_frame: Option<f64>,
    after: Memory,
}

/// Polls until the card for the write of `marker` is on screen; returns when it was seen and the longest poll.
/// Until the card window exists (`card` false), a poll asks only for the app's window handles (cheap); the new
/// handle is then switched to once, and polled like the others.
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

/// An app with no assistant and its settings window open, WebDriver attached to it (so WebDriver is there before
/// the card window is made); the settings window's handle.
async fn app_with_settings(home: &Home) -> Result<(Desktop, WebDriver, Vec<String>)> {
    let mut app = Desktop::launch_idle(home, &[]).await?;
    app.launch_again().await?;
    let webdriver = app.webdriver().await?.clone();
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await?;
    let known = webdriver.window_handles().await?;
    // The welcome window of a first launch may be open too; the card window must not be, yet.
    for handle in &known {
        webdriver.switch_to_handle(handle).await?;
        let url = webdriver.url().await?;
        ensure!(!url.contains("card.html"), "the card window was made before any assistant connected: {known:?}");
    }
    webdriver.switch_to_page("settings.html", Duration::from_secs(30)).await?;
    Ok((app, webdriver, known))
}

/// An assistant through `gatehouse serve` (which attaches to the app), and the id of "Budget 2026".
async fn assistant_and_budget(app: &Desktop) -> Result<(Assistant, String)> {
    let assistant = app.assistant("Claude Desktop", &["--sandbox"]).await?;
    let found = call(assistant.peer(), "search_spreadsheets", json!({ "query": "Budget 2026" })).await?;
    let found: Value = serde_json::from_str(&found.content[0].as_text().context("text")?.text)?;
    let id = found["spreadsheets"][0]["id"].as_str().context("Budget 2026")?.to_owned();
    Ok((assistant, id))
}

/// Sends a write of `marker` and waits for its card on screen; denies it. The time from the call to the card
/// seen, and the longest poll.
async fn card_round(
    webdriver: &WebDriver,
    assistant: &Assistant,
    id: &str,
    marker: &str,
    known: &mut Vec<String>,
    card_window: &mut bool,
) -> Result<(Duration, Duration)> {
    let args = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "K1", "data": [[marker]] });
    let sent = Instant::now();
    let waiting = {
        let peer = assistant.peer().clone();
        tokio::spawn(async move { call(&peer, "update_cells", args).await })
    };
    let (seen, longest) = until_card(webdriver, marker, known, card_window).await?;
    webdriver.click_on("#deny").await?;
    let refused = tokio::time::timeout(Duration::from_secs(30), waiting).await???;
    ensure!(refused.is_error == Some(true), "the denied call ran");
    webdriver
        .wait_for("the card hidden", "return document.visibilityState === 'hidden'", Duration::from_secs(10))
        .await?;
    Ok((seen - sent, longest))
}

/// The worst case: the assistant's first action, right as it connected, is a write. In `home`, new.
async fn card_at_once(home: &Home) -> Result<(Duration, Duration)> {
    let (app, webdriver, mut known) = app_with_settings(home).await?;
    let (assistant, id) = assistant_and_budget(&app).await?;
    let mut card_window = false;
    let (time, resolution) =
        card_round(&webdriver, &assistant, &id, "bench at once", &mut known, &mut card_window).await?;
    assistant.cancel().await?;
    Ok((time, resolution))
}

/// The same worst case in an app that made its card window at launch (in `home`, which assistants used before
/// or where one is set up to start Gatehouse). Also the app's idle memory then, before any assistant connects.
async fn card_at_once_prepared(home: &Home, marker: &str) -> Result<(Duration, Duration, Memory)> {
    // On a desktop with a tray, as a person who set Gatehouse up has: no welcome window at this later launch
    // (a first launch still gets one), so the card window is what WebDriver attaches to.
    let mut app = Desktop::launch_with_tray(home, &[]).await?;
    let webdriver = app.webdriver().await?.clone();
    webdriver.switch_to_page("card.html", Duration::from_secs(30)).await?;
    let ready = "return document.readyState === 'complete' && !!window.__TAURI__";
    webdriver.wait_for("the card page made at launch loaded", ready, Duration::from_secs(30)).await?;
    let state = webdriver.execute("return document.visibilityState", json!([])).await?;
    ensure!(state == "hidden", "the card window made at launch is not hidden: {state}");
    tokio::time::sleep(Duration::from_secs(10)).await;
    let idle = tree_memory(app.app_pid().context("the app's process")?);
    let (assistant, id) = assistant_and_budget(&app).await?;
    let mut known = webdriver.window_handles().await?;
    let mut card_window = true;
    let (time, resolution) = card_round(&webdriver, &assistant, &id, marker, &mut known, &mut card_window).await?;
    assistant.cancel().await?;
    Ok((time, resolution, idle))
}

/// A fresh home where the person pasted Gatehouse's entry into Cursor's config by hand before launching it.
fn set_up_by_hand() -> Result<Home> {
    let home = Home::new();
    let config = home.path().join("user").join(".cursor").join("mcp.json");
    std::fs::create_dir_all(config.parent().context("Cursor's folder")?)?;
    let entry =
        json!({ "mcpServers": { "gatehouse": { "command": gatehouse_e2e::gatehouse_bin(), "args": ["serve"] } } });
    std::fs::write(&config, serde_json::to_vec_pretty(&entry)?)?;
    Ok(home)
}

async fn cards() -> Result<Cards> {
    let used = Home::new();
    let (at_once, at_once_resolution) = card_at_once(&used).await?;
    let (at_once_used, at_once_used_resolution, used_idle) =
        card_at_once_prepared(&used, "bench at once, used home").await?;
    let (at_once_set_up, at_once_set_up_resolution, _) =
        card_at_once_prepared(&set_up_by_hand()?, "bench at once, set up by hand").await?;

    let home = Home::new();
    let (app, webdriver, mut known) = app_with_settings(&home).await?;
    // The assistant connects; the app makes the card window, hidden, and loads its page.
    let connected = Instant::now();
    let (assistant, id) = assistant_and_budget(&app).await?;
    let prepared_in = loop {
        if let Some(card) = webdriver.window_handles().await?.into_iter().find(|h| !known.contains(h)) {
            webdriver.switch_to_handle(&card).await?;
            known.push(card);
            let ready = "return document.readyState === 'complete' && !!window.__TAURI__";
            webdriver.wait_for("the prepared card page loaded", ready, Duration::from_secs(30)).await?;
            break connected.elapsed();
        }
        ensure!(connected.elapsed() < Duration::from_secs(30), "no card window was made for the assistant");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let state = webdriver.execute("return document.visibilityState", json!([])).await?;
    ensure!(state == "hidden", "the card window made for the assistant is not hidden: {state}");
    // Where the first card's time goes, as the page sees it (WebDriver's polls are too coarse for that): when it
    // became visible, when the card was drawn into it, and the frame after that.
    webdriver.execute(PAGE_TIMES, json!([])).await?;
    // As in real use, the first write comes a while after the assistant connected.
    tokio::time::sleep(Duration::from_secs(1)).await;

    let mut card_window = true;
    let mut times = Vec::new();
    let mut resolutions = Vec::new();
    let mut pages = Vec::new();
    let mut first_sent = 0.0;
    for round in 0..CARDS {
        let marker = format!("bench round {round}");
        if round > 0 {
            webdriver.execute("window.__benchTimes = {}; return true", json!([])).await?;
        }
        let sent_at = epoch_ms();
        if round == 0 {
            first_sent = sent_at;
        }
        let (time, longest) = card_round(&webdriver, &assistant, &id, &marker, &mut known, &mut card_window).await?;
        times.push(time);
        resolutions.push(longest);
        let seen = webdriver.execute("return window.__benchTimes", json!([])).await?;
        let since = |key: &str| seen[key].as_f64().map(|at| at - sent_at);
        pages.push((since("visible"), since("drawn"), since("painted")));
    }
    let seen = webdriver.execute("return window.__benchFirst", json!([])).await?;
    let since = |key: &str| seen[key].as_f64().map(|at| at - first_sent);
    let first_page = (since("visible"), since("drawn"), since("painted"));
    let mut later_frames: Vec<f64> = pages[1..].iter().filter_map(|page| page.2).collect();
    later_frames.sort_by(f64::total_cmp);
    let later_frame = later_frames.get(later_frames.len() / 2).copied();

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
        prepared_in,
        at_once,
        at_once_used,
        used_idle,
        first_resolution: resolutions[0],
        resolution: resolutions[1..].iter().copied().max().unwrap_or_default(),
        at_once_resolution,
        at_once_used_resolution,
        at_once_set_up,
        at_once_set_up_resolution,
        first_page,
        later_frame,
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
    let memory = |m: &Memory| format!("{:.0} MB / {:.0} MB ({})", m.rss_mib, m.pss_mib, m.each.join(", "));
    println!("| idle memory, no assistant ever connected (10 s after ready): RSS / PSS | {} |", memory(&launches.idle));
    println!(
        "| idle memory, next launch in a home assistants used (card window made at launch, hidden; 10 s after it loaded): RSS / PSS | {} |",
        memory(&cards.used_idle)
    );
    println!(
        "| idle memory, one assistant connected over HTTP (10 s later; card window made, hidden): RSS / PSS | {} |",
        memory(&launches.connected)
    );
    println!(
        "| idle memory after {CARDS} cards, settings window closed, card hidden (10 s later): RSS / PSS | {} |",
        memory(&cards.after)
    );
    println!(
        "| assistant connected (relay attached) to card window made and loaded, hidden | {:.0} ms |",
        ms(cards.prepared_in)
    );
    println!("| call to card visible, the assistant's first card (connected 1 s before) | {:.0} ms |", ms(cards.first));
    let page = |at: Option<f64>| at.map(|ms| format!("{ms:.0} ms")).unwrap_or_else(|| "not seen".into());
    println!(
        "| the assistant's first card as its page saw it, after the call: page visible / card drawn / next frame | {} / {} / {} |",
        page(cards.first_page.0),
        page(cards.first_page.1),
        page(cards.first_page.2)
    );
    println!(
        "| the next cards as their page saw them: next frame after the card was drawn, median | {} |",
        page(cards.later_frame)
    );
    let mut later = cards.later.clone();
    later.sort();
    println!(
        "| call to card visible, next {} cards: median / max | {:.0} ms / {:.0} ms |",
        later.len(),
        ms(median(later.clone())),
        ms(*later.last().unwrap_or(&Duration::ZERO)),
    );
    println!(
        "| call to card visible, a write sent right as the first assistant connected, fresh home (card window still being made) | {:.0} ms |",
        ms(cards.at_once)
    );
    println!(
        "| call to card visible, a write sent right as an assistant connected, next launch (card window made at launch) | {:.0} ms |",
        ms(cards.at_once_used)
    );
    println!(
        "| call to card visible, a write sent right as the first assistant connected, fresh home with that assistant set up by hand before launch (card window made at launch) | {:.0} ms |",
        ms(cards.at_once_set_up)
    );
    println!(
        "| polling resolution (longest WebDriver poll round trip): first card / next cards / write at connection, fresh / used / set-up home | {:.0} ms / {:.0} ms / {:.0} ms / {:.0} ms / {:.0} ms |",
        ms(cards.first_resolution),
        ms(cards.resolution),
        ms(cards.at_once_resolution),
        ms(cards.at_once_used_resolution),
        ms(cards.at_once_set_up_resolution)
    );
    Ok(())
}
