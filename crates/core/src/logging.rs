//! The log filter every shell installs (`gatehouse`, the desktop app): `GATEHOUSE_LOG`, `info` by default.
//!
//! Logs go to stderr, which assistants keep in their own logs, so they never carry the person's data above
//! `trace`. Gatehouse's own lines name tools, ids and outcomes, never results or arguments. rmcp, though,
//! logs every whole JSON-RPC request and response at `debug` (a tool's arguments, a sheet's cells, a mail's
//! body): its lines need `rmcp=trace` named explicitly, and stay at `info` for every other setting, including
//! `GATEHOUSE_LOG=debug` or `trace`.

use tracing_subscriber::EnvFilter;

/// The variable that sets the log filter (`tracing` directives, e.g. `debug` or `info,gatehouse_core=debug`).
pub const LOG_VARIABLE: &str = "GATEHOUSE_LOG";

/// What applies when `GATEHOUSE_LOG` is unset or not valid.
const DEFAULT: &str = "info";

/// The filter for `setting` (the value of `GATEHOUSE_LOG`): its directives, with rmcp held at `info` unless a
/// directive names `rmcp` at `trace` (see the module documentation). A setting that is not valid falls back
/// to `info`.
pub fn filter(setting: Option<&str>) -> EnvFilter {
    let setting = setting.map(str::trim).filter(|value| !value.is_empty()).unwrap_or(DEFAULT);
    let mut rmcp_traced = false;
    let mut directives: Vec<&str> = Vec::new();
    for directive in setting.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let (target, level) = directive.split_once('=').unwrap_or((directive, ""));
        if target.trim().starts_with("rmcp") {
            // Only an explicit `rmcp…=trace` lets its messages through; any other level for it is replaced.
            if level.trim().eq_ignore_ascii_case("trace") {
                rmcp_traced = true;
                directives.push(directive);
            }
            continue;
        }
        directives.push(directive);
    }
    let mut text = directives.join(",");
    if !rmcp_traced {
        if !text.is_empty() {
            text.push(',');
        }
        text.push_str("rmcp=info");
    }
    EnvFilter::try_new(&text).unwrap_or_else(|_| EnvFilter::new(format!("{DEFAULT},rmcp=info")))
}

/// The variable that, set to anything, also prints how long each phase of every tool call took (see
/// [`TIMING_TARGET`]): `scripts/bench.sh` uses it for the time breakdown in docs/benchmarks.md.
pub const TIMING_VARIABLE: &str = "GATEHOUSE_TIMING";

/// The target of the spans timing a call's phases (`call`, `decide`, `cache_lookup`, `tool`, `cache_keep`,
/// `render`, `audit`): at `trace`, so they cost one check per phase unless [`TIMING_VARIABLE`] is set. They
/// carry no fields: no arguments, no data.
pub const TIMING_TARGET: &str = "gatehouse::timing";

/// Installs the filter of `GATEHOUSE_LOG`, writing to stderr (stdout is the MCP channel over stdio), and
/// with [`TIMING_VARIABLE`] set a line per timed phase as it ends (`time.busy`, `time.idle`).
pub fn init_stderr() {
    use tracing_subscriber::Layer;
    use tracing_subscriber::fmt::format::FmtSpan;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;

    let setting = std::env::var(LOG_VARIABLE).ok();
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(filter(setting.as_deref()));
    let timing = std::env::var_os(TIMING_VARIABLE).map(|_| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .with_span_events(FmtSpan::CLOSE)
            .with_filter(tracing_subscriber::filter::Targets::new().with_target(TIMING_TARGET, tracing::Level::TRACE))
    });
    tracing_subscriber::registry().with(logs).with(timing).init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmcp_stays_at_info_unless_trace_is_named_for_it() {
        for setting in [None, Some("debug"), Some("trace"), Some("debug,rmcp=debug"), Some("rmcp::service=debug")] {
            let text = filter(setting).to_string();
            assert!(text.contains("rmcp=info"), "{setting:?}: {text}");
            assert!(!text.contains("rmcp=debug") && !text.contains("rmcp::service=debug"), "{setting:?}: {text}");
        }
        let traced = filter(Some("debug,rmcp=trace")).to_string();
        assert!(traced.contains("rmcp=trace") && !traced.contains("rmcp=info"), "{traced}");
        assert!(filter(Some("not a [valid filter")).to_string().contains("rmcp=info"));
    }
}
