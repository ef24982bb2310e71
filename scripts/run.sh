#!/usr/bin/env bash
# Runs Gatehouse. Installs what is missing first (system packages, Rust), builds the release binaries, then
# starts the desktop app: Gatehouse in the tray, with its approval cards and settings window, serving MCP over
# HTTP on loopback (GATEHOUSE_ADDR, default 127.0.0.1:8765). With nobody signed in to Google the app starts in
# the sandbox (the built-in Google emulator with sample files); where there is no display it says so and
# serves without windows (answer approvals with `gatehouse approvals` then).
#
# Options: --sandbox  sample files even when a Google account is signed in;
#          --stdio    serve MCP over stdio instead of starting the app (what an assistant launches).
set -euo pipefail
cd "$(dirname "$0")/.."

stdio=false
sandbox=()
for arg in "$@"; do
  case "$arg" in
    --stdio) stdio=true ;;
    --sandbox) sandbox=(--sandbox) ;;
    *) echo "run.sh: unknown option $arg (known: --sandbox, --stdio)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"

echo "Building Gatehouse (the first build takes a few minutes)…" >&2
log=$(mktemp)
# Both binaries every time, even for --stdio: built together they share one set of compiled dependencies, so
# switching between the app and --stdio never rebuilds.
if ! cargo build --release --locked -p gatehouse-cli -p gatehouse-desktop >"$log" 2>&1; then
  # What failed to build, and why, not just the last line.
  grep -E -A14 '^error' "$log" | head -n 120 >&2
  tail -n 5 "$log" >&2
  rm -f "$log"
  exit 1
fi
tail -n 1 "$log" >&2
rm -f "$log"
bin=target/release/gatehouse

if $stdio; then
  # A signed-in Google account (`gatehouse login`) or a service-account key serves for real; otherwise the sandbox.
  if [ "${#sandbox[@]}" = 0 ] && [ -z "${SERVICE_ACCOUNT_PATH:-}" ] && ! "$bin" status 2>/dev/null | grep -q '(active)'; then
    sandbox=(--sandbox)
    echo "No Google account signed in: serving the sandbox (sample files, nothing real is touched)." >&2
    echo "Run \`$bin login\` to use your own Google account." >&2
  fi
  exec "$bin" serve "${sandbox[@]}"
fi

# The app picks the sandbox itself when nobody is signed in, and falls back to serving without windows where
# there is no display.
export GATEHOUSE_HTTP_ADDR="${GATEHOUSE_ADDR:-${GATEHOUSE_HTTP_ADDR:-127.0.0.1:8765}}"
echo "Starting the Gatehouse desktop app. The \`gatehouse\` command (sign-in, approvals, grants) is $bin." >&2
echo "Bearer token for HTTP clients: $("$bin" serve --print-token)" >&2
exec target/release/gatehouse-desktop "${sandbox[@]}"
