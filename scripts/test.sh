#!/usr/bin/env bash
# Runs every test of Gatehouse: unit and integration tests, the end-to-end tests (the real binary with
# rmcp's client over stdio and HTTP), then the MCP Inspector CLI and the official MCP conformance suite
# against the real binary, then the install test (the .deb of this build installed, run and removed again:
# scripts/test-install.sh). Ends with one summary line: "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh --validators || exit 1
export PATH="$HOME/.cargo/bin:$PATH"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The debug build of every test, the Windows cross-build and the tools take about 12 GB (docs/benchmarks.md,
# "Disk"); 15 leaves room for the tests' own files. Said up front, so a full disk reads as one, not as a linker's crash.
need_gb=15
free_gb=$(df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}')
if [ "${free_gb:-0}" -lt "$need_gb" ]; then
  echo "Only $free_gb GB is free on the disk of $(pwd); building and testing Gatehouse takes about $need_gb GB. Free some space (an old target/ folder, say) if the build fails." >&2
fi

echo "== build" >&2
if ! cargo build --workspace --all-targets --locked >"$log" 2>&1; then
  if grep -q "No space left on device" "$log"; then
    echo "The disk is full: building and testing Gatehouse takes about $need_gb GB free in $(pwd). Free some space and run this again." >&2
  fi
  # The errors, not just the last lines: what failed to build, and why.
  grep -E -A14 '^error' "$log" | head -n 120 >&2
  tail -n 5 "$log" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
tail -n 1 "$log" >&2

echo "== cargo test" >&2
# The keychain tests need a real Secret Service: gnome-keyring, unlocked with a throwaway password, in a private
# D-Bus session, with a fresh HOME for its keyring files (cargo and rustup keep their own homes). Without those
# programs (a machine install-deps.sh could not provision) the keychain tests fail: nothing is skipped.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  keyring_home=$(mktemp -d)
  trap 'rm -f "$log"; rm -rf "$keyring_home"' EXIT
  HOME="$keyring_home" GATEHOUSE_REQUIRE_KEYCHAIN=1 dbus-run-session -- sh -c \
    'printf %s pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1;
     exec cargo test --workspace --locked --no-fail-fast' 2>&1 | grep -v '^dbus-daemon\[' | tee "$log" >&2
  cargo_status=${PIPESTATUS[0]}
else
  echo "dbus-run-session or gnome-keyring-daemon is missing: the keychain tests will fail (install gnome-keyring dbus-x11)" >&2
  GATEHOUSE_REQUIRE_KEYCHAIN=1 cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log" >&2
  cargo_status=${PIPESTATUS[0]}
fi
# Counts the cargo test run in "$log" that ended with status $1: sets tests_passed and tests_failed (a run that
# failed with no failed test counts as one failure), and keeps what failed, by name, for the end: a long run's
# log is cut in the middle, and the summary is what is read.
count_tests() {
  tests_passed=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
  tests_failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
  if [ "$1" != 0 ] && [ "$tests_failed" = 0 ]; then tests_failed=1; fi
  failures="$failures
$(grep -E '^test .+ \.\.\. FAILED$|^error: test failed|process didn.t exit successfully' "$log" | head -n 40)
$(grep -E -A3 '^thread .+ panicked at' "$log" | cut -c1-400 | head -n 80)"
}
failures=""
count_tests "$cargo_status"
cargo_passed=$tests_passed cargo_failed=$tests_failed

echo "== Windows-only code: control channel, Start at login (x86_64-pc-windows-gnu under Wine)" >&2
bash scripts/test-windows.sh 2>&1 | tee "$log" >&2
windows_status=${PIPESTATUS[0]}
count_tests "$windows_status"
cargo_passed=$((cargo_passed + tests_passed))
cargo_failed=$((cargo_failed + tests_failed))

echo "== supply chain: cargo deny check bans licenses sources (deny.toml)" >&2
# Offline: the rules are about what Cargo.lock holds. The advisory database can't be fetched here (deny.toml).
# cargo-deny reads the metadata of every crate in Cargo.lock, for every platform, and the build fetched only
# this platform's: `cargo fetch` gets the others first (from crates.io), or an offline check fails on a fresh
# machine (what failed stop 24's run, unnamed).
if cargo fetch --locked >"$log" 2>&1 && cargo deny --offline check bans licenses sources >>"$log" 2>&1; then
  deny_passed=1 deny_failed=0
else
  grep -E -A8 '^error|\[ERROR\]' "$log" | head -n 60 >&2
  deny_passed=0 deny_failed=1
  failures="$failures
the supply-chain check (cargo deny check bans licenses sources): see its errors above"
fi
tail -n 1 "$log" >&2
cargo_passed=$((cargo_passed + deny_passed))
cargo_failed=$((cargo_failed + deny_failed))

# Runs a script that prints one "ok NAME" / "not ok NAME" line per check; sets checks_passed and
# checks_failed (a script that stops without a "not ok" line counts as one failure) and keeps what failed.
run_checks() {
  bash "$1" 2>&1 | tee "$log" >&2
  local status=${PIPESTATUS[0]}
  checks_passed=$(grep -Ec '^ok ' "$log")
  checks_failed=$(grep -Ec '^not ok ' "$log")
  failures="$failures
$(grep -E '^not ok ' "$log")"
  if [ "$status" != 0 ] && [ "$checks_failed" = 0 ]; then
    checks_failed=1
    failures="$failures
$1 stopped with status $status before naming a check"
  fi
}

echo "== MCP validators" >&2
run_checks scripts/validate-mcp.sh
validators_passed=$checks_passed validators_failed=$checks_failed

echo "== Install test: the .deb of this build, installed, started under Xvfb, removed" >&2
run_checks scripts/test-install.sh
install_passed=$checks_passed install_failed=$checks_failed

passed=$((cargo_passed + validators_passed + install_passed))
failed=$((cargo_failed + validators_failed + install_failed))
if [ "$failed" != 0 ]; then
  echo "== what failed" >&2
  printf '%s\n' "$failures" | grep -v '^$' >&2
fi
echo "cargo test: $cargo_passed passed, $cargo_failed failed; MCP validators: $validators_passed passed, $validators_failed failed; install test: $install_passed passed, $install_failed failed" >&2
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
