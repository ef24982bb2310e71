#!/usr/bin/env bash
# Runs Gatehouse. Installs what is missing first (system packages, Rust), builds, then serves MCP over
# HTTP on loopback. With no Google credential configured it runs in the sandbox: the built-in Google
# emulator with sample files. Pass --stdio to serve over stdio instead (what an assistant launches).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"
echo "Building Gatehouse (the first build takes a few minutes)…" >&2
cargo build --release --locked -p gatehouse-cli 2>&1 | tail -n 1 >&2
bin=target/release/gatehouse

mode=(--http "${GATEHOUSE_ADDR:-127.0.0.1:8765}")
if [ "${1:-}" = "--stdio" ]; then mode=(); fi
# A signed-in Google account (`gatehouse login`) or a service-account key serves for real; otherwise the sandbox.
sandbox=()
if [ -z "${SERVICE_ACCOUNT_PATH:-}" ] && ! "$bin" status 2>/dev/null | grep -q '(active)'; then
  sandbox=(--sandbox)
  echo "No Google account signed in: starting the sandbox (sample files, nothing real is touched)." >&2
  echo "Run \`$bin login\` to use your own Google account." >&2
fi
if [ "${#mode[@]}" -gt 0 ]; then
  echo "Bearer token for HTTP clients: $("$bin" serve --print-token)" >&2
fi
exec "$bin" serve "${sandbox[@]}" "${mode[@]}"
