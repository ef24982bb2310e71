//! The approvals benchmark: `bash scripts/bench.sh` runs it after the MCP one; alone, it is
//! `cargo bench -p gatehouse-core --bench approvals`.
//!
//! Against a real SQLite store on disk holding 10,000 grants, spread over every write tool, several accounts,
//! agents and targets, some expired and some revoked, it measures:
//! 1. the decision for a call one grant covers, as the gate takes it: the candidates from the store's in-memory
//!    index, copied for `decide`, and `decide` itself (the ≤ 50 µs p99 target), each part on its own too;
//! 2. the whole `Approvals::permit` for the same call, which also commits the grant's use to the database,
//!    and that commit (`Store::record_use`) alone;
//! 3. 100 concurrent gated calls that no grant covers, each answered from its own arguments (allow once for
//!    even, deny for odd): every call must get its own answer.
//!
//! Prints a Markdown table to paste into docs/benchmarks.md. `BENCH_ROUNDS` changes the number of measured
//! rounds (20,000 by default).

use std::collections::BTreeSet;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::decide::{Decision, Facts, GrantStores, decide};
use gatehouse_core::approval::evaluator;
use gatehouse_core::approval::fingerprint::fingerprint;
use gatehouse_core::approval::model::{Caller, Constraint, DecisionSource, Grant, Owner};
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::Store;
use gatehouse_core::approval::{Approvals, CallMeta, Permit};
use gatehouse_core::tools::{Access, ToolDef, all_tools};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

/// Grants in the store, the covering one included.
const GRANTS: usize = 10_000;
/// The signed-in account; the others are accounts the person signed in with before.
const ACCOUNT: &str = "ana@example.com";
const OTHER_ACCOUNTS: [&str; 2] = ["ana.work@example.org", "family@example.net"];
/// The calling assistant; grants name these agents, or none (any agent).
const AGENT: &str = "claude";
const AGENTS: [Option<&str>; 5] = [Some(AGENT), Some("cursor"), Some("chatgpt"), Some("zed"), None];
/// The measured tool, and the spreadsheet its covering grant is limited to.
const TOOL: &str = "update_cells";
const SHEET: &str = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms";
const COVERING: &str = "bench-covering-grant";
/// Distinct targets the other grants are limited to.
const TARGETS: usize = 500;
const CONCURRENT: usize = 100;
const WARM_UP: usize = 2_000;

fn rounds() -> usize {
    std::env::var("BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(20_000)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// "p50 / p99 / max" of the samples, in µs.
fn spread(samples: &mut [Duration]) -> String {
    samples.sort();
    let max = samples.last().copied().unwrap_or_default();
    format!("{:.1} µs / {:.1} µs / {:.0} µs", us(percentile(samples, 0.5)), us(percentile(samples, 0.99)), us(max))
}

/// An id shaped like Google's (44 characters from its alphabet).
fn google_id(rng: &mut StdRng) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    (0..44).map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())])).collect()
}

/// The constraint kind a tool's grants may be limited to (`spreadsheet`, `folder`, `email_domain`…).
fn constraint_kind(tool: &ToolDef) -> Option<&'static str> {
    tool.evaluators().iter().find(|evaluator| evaluator.constrains()).map(|evaluator| evaluator.kind())
}

/// Whether a grant would cover an interactive `update_cells` call by [`AGENT`] while [`ACCOUNT`] is signed in,
/// whatever the spreadsheet: a grant the scan must check down to its constraint.
fn reaches_constraint(grant: &Grant, now: DateTime<Utc>) -> bool {
    grant.owner == Owner::User(ACCOUNT.to_owned())
        && grant.tool == TOOL
        && grant.revoked.is_none()
        && grant.expires.is_some_and(|expires| now < expires)
        && grant.agent.as_ref().is_none_or(|agent| agent.name == AGENT && !agent.self_reported)
}

/// The store's other grants: every write tool in turn; 70% for the signed-in account; agents evenly; four in
/// five limited to one of [`TARGETS`] targets where the tool allows it; 20% expired, 10% revoked, 5% made for
/// an older definition of the tool. None of them covers the measured call: where one would (no constraint),
/// it is limited to another spreadsheet, so the scan has to check each one down to its constraint.
fn other_grants(rng: &mut StdRng, tools: &[(ToolDef, String)], now: DateTime<Utc>) -> Vec<Grant> {
    let targets: Vec<String> = (0..TARGETS).map(|_| google_id(rng)).collect();
    let domains: Vec<String> = (0..TARGETS).map(|n| format!("partner{n}.example.com")).collect();
    (0..GRANTS - 1)
        .map(|i| {
            let (tool, print) = &tools[i % tools.len()];
            let owner = match rng.random_range(0..10) {
                0..7 => ACCOUNT,
                7..9 => OTHER_ACCOUNTS[0],
                _ => OTHER_ACCOUNTS[1],
            };
            let pick = |rng: &mut StdRng, kind: &str| {
                let pool = if kind == "email_domain" { &domains } else { &targets };
                Constraint { kind: kind.to_owned(), value: pool[rng.random_range(0..pool.len())].clone() }
            };
            let kind = constraint_kind(tool);
            let constraint = kind.filter(|_| rng.random_bool(0.8)).map(|kind| pick(rng, kind));
            // No grant lasts longer than the policy's 90 days: the store refuses one that does, as a row no
            // card could have made (approval::store::trust). Made up to 60 days ago, ending within 30.
            let age = rng.random_range(60..60 * 24 * 60);
            let created = now - TimeDelta::minutes(age);
            let state = rng.random_range(0..10);
            let expires = match state {
                0..2 => created + TimeDelta::minutes(rng.random_range(1..age)),
                _ => now + TimeDelta::minutes(rng.random_range(60..30 * 24 * 60)),
            };
            let revoked = (state == 2).then(|| created + (now - created) / 2);
            let fingerprint = if rng.random_bool(0.05) { format!("{:064x}", i) } else { print.clone() };
            let use_count = rng.random_range(0..200u64);
            let mut grant = Grant {
                id: format!("{:08x}-bench-{i:05}", rng.random::<u32>()),
                owner: Owner::User(owner.to_owned()),
                tool: tool.meta.name.to_owned(),
                agent: AGENTS[rng.random_range(0..AGENTS.len())]
                    .map(gatehouse_core::approval::model::Agent::registered),
                constraint,
                target_name: None,
                unattended: false,
                created,
                expires: Some(expires),
                revoked,
                last_used: (use_count > 0).then_some(created),
                use_count,
                fingerprint,
            };
            if reaches_constraint(&grant, now) && grant.constraint.is_none() {
                grant.constraint = Some(pick(rng, "spreadsheet"));
            }
            grant
        })
        .collect()
}

fn covering_grant(print: &str, now: DateTime<Utc>) -> Grant {
    Grant {
        id: COVERING.to_owned(),
        owner: Owner::User(ACCOUNT.to_owned()),
        tool: TOOL.to_owned(),
        agent: Some(gatehouse_core::approval::model::Agent::registered(AGENT)),
        constraint: Some(Constraint { kind: "spreadsheet".to_owned(), value: SHEET.to_owned() }),
        target_name: None,
        unattended: false,
        created: now - TimeDelta::hours(1),
        expires: Some(now + TimeDelta::days(7)),
        revoked: None,
        last_used: None,
        use_count: 0,
        fingerprint: print.to_owned(),
    }
}

/// The ids of every tool's candidates, to compare two indexes.
fn index_ids(store: &Store, tools: &[(ToolDef, String)]) -> Vec<BTreeSet<String>> {
    tools.iter().map(|(tool, _)| store.candidates(tool.meta.name).iter().map(|g| g.id.clone()).collect()).collect()
}

#[tokio::main]
async fn main() {
    let rounds = rounds();
    let mut rng = StdRng::seed_from_u64(20261130);
    let now = Utc::now();
    let catalogue = all_tools();
    let tools: Vec<(ToolDef, String)> = catalogue
        .iter()
        .filter(|tool| matches!(tool.meta.access, Access::Write(_)))
        .map(|tool| (tool.clone(), fingerprint(tool)))
        .collect();
    let (tool, print) = tools.iter().find(|(tool, _)| tool.meta.name == TOOL).expect("update_cells is a write tool");

    // The store, on the disk the project is on (as GATEHOUSE_HOME would be), filled through `insert_grant`:
    // each grant committed, and the index following each commit.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary folder for the store");
    let path = dir.path().join("gatehouse.db");
    let store = Store::open_with(&path, gatehouse_core::approval::store::StoreOptions::with_key([0x5a; 32]))
        .await
        .expect("open the store");
    let mut grants = other_grants(&mut rng, &tools, now);
    grants.push(covering_grant(print, now));
    let started = Instant::now();
    for grant in &grants {
        store.insert_grant(grant).await.expect("insert a grant");
    }
    let filling = started.elapsed();
    let revoked = grants.iter().filter(|g| g.revoked.is_some()).count();
    let expired = grants.iter().filter(|g| g.revoked.is_none() && g.expires.is_none_or(|e| e <= now)).count();

    // The index kept in step with the database: a fresh load of the same file gives the same candidates.
    let started = Instant::now();
    let reloaded = Store::open_with(&path, gatehouse_core::approval::store::StoreOptions::with_key([0x5a; 32]))
        .await
        .expect("reopen the store");
    let reload = started.elapsed();
    assert_eq!(index_ids(&store, &tools), index_ids(&reloaded, &tools), "the index differs from the database");
    reloaded.close().await;

    let approvals = Arc::new(Approvals::new(Some(store.clone()), Policy::default(), &catalogue));
    let args = json!({ "spreadsheet_id": SHEET, "sheet": "Budget", "range": "B2", "data": [[1250, "=SUM(B3:B9)"]] });
    let caller = Caller { agent: Some(gatehouse_core::approval::model::Agent::registered(AGENT)), interactive: true };
    let candidates = store.candidates(TOOL);
    let scanned = candidates.iter().filter(|grant| reaches_constraint(grant, now)).count();
    let position = candidates.iter().position(|grant| grant.id == COVERING).expect("the covering grant is indexed");
    assert_eq!(position + 1, candidates.len(), "the covering grant is the last one scanned");

    // 1. The decision, as the gate takes it: index lookup (a shared snapshot, not a copy), then `decide`.
    let (mut lookup, mut deciding, mut decision) =
        (Vec::with_capacity(rounds), Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..WARM_UP + rounds {
        let t0 = Instant::now();
        let candidates = store.candidates(TOOL);
        let t1 = Instant::now();
        let facts = Facts {
            tool: TOOL,
            fingerprint: print,
            args: &args,
            evaluators: tool.evaluators(),
            caller: &caller,
            retry: false,
            always_ask: false,
            account: Some(ACCOUNT),
            on_event: None,
            now: Utc::now(),
            denies: &[],
            grants: GrantStores::One(&candidates),
        };
        let decided = black_box(decide(black_box(&facts)));
        let t2 = Instant::now();
        assert_eq!(
            decided,
            Decision::Covered { grant: COVERING.to_owned(), source: DecisionSource::Grant(COVERING.to_owned()) }
        );
        if round >= WARM_UP {
            lookup.push(t1 - t0);
            deciding.push(t2 - t1);
            decision.push(t2 - t0);
        }
    }

    // What `decide` spends on each grant it checks down to its constraint: the tool's evaluator judging the
    // call against another spreadsheet.
    let elsewhere = Constraint { kind: "spreadsheet".to_owned(), value: "another-spreadsheet".to_owned() };
    let mut checks = Vec::with_capacity(rounds);
    for round in 0..WARM_UP + rounds {
        let started = Instant::now();
        let satisfied = black_box(evaluator::satisfied(tool.evaluators(), black_box(&elsewhere), &args));
        let elapsed = started.elapsed();
        assert_eq!(satisfied, Ok(false));
        if round >= WARM_UP {
            checks.push(elapsed);
        }
    }

    // 2. The whole gate for the same call, which also commits the grant's use; then that commit alone.
    let meta = CallMeta { caller: caller.clone(), ..CallMeta::default() };
    let mut permits = Vec::with_capacity(rounds);
    for round in 0..WARM_UP + rounds {
        let started = Instant::now();
        let permit = approvals.permit(tool, &args, &meta, Some(ACCOUNT)).await;
        let elapsed = started.elapsed();
        assert_eq!(permit, Permit::Run { source: DecisionSource::Grant(COVERING.to_owned()) });
        if round >= WARM_UP {
            permits.push(elapsed);
        }
    }
    let mut uses = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let recorded = store.record_use(COVERING, Utc::now()).await.expect("record a use");
        uses.push(started.elapsed());
        assert!(recorded);
    }
    let covering = store.get_grant(COVERING).await.expect("read the grant").expect("the covering grant exists");
    assert_eq!(covering.use_count, (WARM_UP + 2 * rounds) as u64, "every permit and use was recorded");

    // 3. 100 concurrent gated calls no grant covers, each answered from its own arguments.
    let started = Instant::now();
    let calls: Vec<_> = (0..CONCURRENT)
        .map(|i| {
            let (approvals, tool, meta) = (Arc::clone(&approvals), tool.clone(), meta.clone());
            tokio::spawn(async move {
                let args = json!({
                    "spreadsheet_id": format!("concurrent-{i:03}"), "sheet": "Budget", "range": "A1", "data": [[i]]
                });
                (i, approvals.permit(&tool, &args, &meta, Some(ACCOUNT)).await)
            })
        })
        .collect();
    let mut pending = approvals.broker().pending();
    while pending.len() < CONCURRENT {
        assert!(started.elapsed() < Duration::from_secs(30), "only {} of {CONCURRENT} cards appeared", pending.len());
        tokio::time::sleep(Duration::from_millis(1)).await;
        pending = approvals.broker().pending();
    }
    let shown = started.elapsed();
    pending.shuffle(&mut rng);
    let answered_at = Instant::now();
    for card in &pending {
        let number = |value: &Value| value.as_u64().map(|n| n as usize);
        let from_id = card.arguments["spreadsheet_id"].as_str().and_then(|id| id.strip_prefix("concurrent-"));
        let i: usize = from_id.and_then(|i| i.parse().ok()).expect("the card shows the call's spreadsheet");
        assert_eq!(number(&card.arguments["data"][0][0]), Some(i), "card {} shows another call's data", card.id);
        let answer = if i.is_multiple_of(2) { RawAnswer::AllowOnce } else { RawAnswer::Deny };
        approvals.broker().answer(card.id, answer).expect("the card is pending");
    }
    let mut right = 0;
    for call in calls {
        let (i, permit) =
            tokio::time::timeout(Duration::from_secs(30), call).await.expect("a call never returned").expect("a call");
        match permit {
            Permit::Run { source: DecisionSource::Person } if i.is_multiple_of(2) => right += 1,
            Permit::Refuse { source: DecisionSource::Person, .. } if !i.is_multiple_of(2) => right += 1,
            other => panic!("call {i} got {other:?}, not its own answer"),
        }
    }
    let returned = answered_at.elapsed();
    assert!(approvals.broker().pending().is_empty(), "cards were left pending");
    store.close().await;

    println!("| measure | value | target |");
    println!("|---|---|---|");
    println!(
        "| store: grants over write tools (active / expired / revoked) | {} over {} ({} / {expired} / {revoked}) | |",
        grants.len(),
        tools.len(),
        grants.len() - expired - revoked
    );
    println!(
        "| `{TOOL}` candidates in the index / checked down to their constraint | {} / {scanned} (covering grant last) | |",
        candidates.len()
    );
    println!(
        "| filling the store: {} `insert_grant`, each committed | {:.1} s ({:.2} ms each) | |",
        grants.len(),
        filling.as_secs_f64(),
        filling.as_secs_f64() * 1000.0 / grants.len() as f64
    );
    println!("| reopening the file: index rebuilt, same as the live one | {:.0} ms | |", reload.as_secs_f64() * 1000.0);
    println!(
        "| **decision**, covered call: lookup + `decide`, p50 / p99 / max | {} | ≤ 50 µs p99 |",
        spread(&mut decision)
    );
    println!("| … index lookup (`Store::candidates`) | {} | |", spread(&mut lookup));
    println!("| … `decide` | {} | |", spread(&mut deciding));
    println!(
        "| … one constraint check from raw arguments (`evaluator::satisfied`; `decide` parses once) | {} | |",
        spread(&mut checks)
    );
    println!("| `permit()`, covered call, with the use committed, p50 / p99 / max | {} | |", spread(&mut permits));
    println!("| … the use alone (`Store::record_use`), p50 / p99 / max | {} | |", spread(&mut uses));
    println!("| {CONCURRENT} concurrent gated calls: answered with their own answer | {right} / {CONCURRENT} | all |");
    println!("| … from the calls to {CONCURRENT} cards pending | {:.1} ms | |", shown.as_secs_f64() * 1000.0);
    println!("| … from the first answer to all {CONCURRENT} returned | {:.2} ms | |", returned.as_secs_f64() * 1000.0);
    println!("\n{rounds} rounds after {WARM_UP} warm-up rounds each.");
}
