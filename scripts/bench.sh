#!/usr/bin/env bash
# Runs the benchmarks (docs/benchmarks.md says what they measure) against release builds: the MCP round trip
# and memory (tests/bench/mcp.rs), the approvals decision (crates/core/benches/approvals.rs), then the desktop
# app's launch, memory and card latency (tests/bench/desktop.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "Installing valgrind (for the heap measurement)…" >&2; apt-get install -y -qq valgrind >/dev/null 2>&1 || sudo apt-get install -y -qq valgrind >/dev/null 2>&1 || true; }
cargo build --release --locked -p gatehouse-cli -p gatehouse-desktop 2>&1 | tail -n 1 >&2
# The size of `tools/list` per tool set (no timing: the figures are bytes).
target/release/gatehouse tools --sets
cargo bench --locked -p gatehouse-e2e --bench mcp
cargo bench --locked -p gatehouse-core --bench approvals
# The desktop app (tests/bench/desktop.rs): launch to MCP-ready, idle memory, call to card visible. It needs
# Xvfb, WebKitWebDriver and tauri-driver: `bash scripts/install-deps.sh --validators` installs them.
GATEHOUSE_DESKTOP_BIN="$PWD/target/release/gatehouse-desktop" GATEHOUSE_BIN="$PWD/target/release/gatehouse" \
  cargo bench --locked -p gatehouse-e2e --bench desktop
