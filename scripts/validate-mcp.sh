#!/usr/bin/env bash
# Checks the real `gatehouse` binary with the ecosystem's own MCP validators: the MCP Inspector CLI over
# stdio and HTTP, and the official conformance suite's server scenarios over HTTP (2025 revisions, and
# 2026-07-28's from the suite's pre-release). Prints one
# "ok NAME" / "not ok NAME" line per check. Expects `cargo build` and `install-deps.sh --validators` done.
set -uo pipefail
cd "$(dirname "$0")/.."

tools=target/tools/node_modules/.bin
export PATH="$PWD/$tools:$PATH"
bin="$PWD/target/debug/gatehouse"
home=$(mktemp -d)
export GATEHOUSE_HOME="$home"
unset GATEHOUSE_GOOGLE_ENDPOINT SERVICE_ACCOUNT_PATH ENABLED_TOOLS MAX_TOOL_RESPONSE_CHARS
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$home"
}
trap cleanup EXIT
# shellcheck source=lib/check.sh
. scripts/lib/check.sh

for tool in inspector conformance mcpb; do
  command -v "$tool" >/dev/null || { echo "not ok validators-installed ($tool missing: run scripts/install-deps.sh --validators)"; exit 1; }
done
[ -x target/tools/conformance-2026/node_modules/.bin/conformance ] ||
  { echo "not ok validators-installed (the 2026-07-28 conformance suite is missing: run scripts/install-deps.sh --validators)"; exit 1; }

# Every tool a sandbox server lists: Gatehouse's own, and the emulator's tools of Google's no Gatehouse tool
# covers (`google_…`, discovered while it runs; a bundle's manifest lists only the first).
expected_tools=$("$bin" tools | grep -c '^| `')
own_tools=$("$bin" tools | grep '^| `' | grep -vc '^| `google_')

inspector_stdio() { inspector --cli "$bin" serve --sandbox "$@"; }

tools_listed_over_stdio() {
  local out; out=$(inspector_stdio --method tools/list) || return 1
  local n; n=$(echo "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tools.length))')
  [ "$n" = "$expected_tools" ] || { echo "listed $n tools, declared $expected_tools"; return 1; }
}
check "inspector-stdio-tools-list" tools_listed_over_stdio

schemas_portable() { # the Inspector's portability check: schemas every client's dialect can read
  local report; report=$(inspector_stdio --method tools/list --strict 2>&1 >/dev/null) || return 1
  if grep -q 'Schema portability\|^Warning: tool\|^Error: tool' <<<"$report"; then grep -v ' INFO ' <<<"$report"; return 1; fi
}
check "inspector-stdio-schema-portability" schemas_portable

quota_over_stdio() {
  local out; out=$(inspector_stdio --method tools/call --tool-name get_storage_quota) || return 1
  grep -q 'sandbox@gatehouse.example\|limit\|usage' <<<"$out" || { echo "$out"; return 1; }
}
check "inspector-stdio-tools-call" quota_over_stdio

tool_error_exit_code() {
  inspector_stdio --method tools/call --tool-name list_sheets --tool-arg spreadsheet_id=does-not-exist >/dev/null 2>&1
  local status=$?
  [ "$status" = 5 ] || { echo "expected exit 5 for a tool error, got $status"; return 1; }
}
check "inspector-stdio-tool-error" tool_error_exit_code

auth_status_over_stdio() {
  local out; out=$(inspector_stdio --method resources/read --uri server://auth-status) || return 1
  grep -q 'sandbox@gatehouse.example' <<<"$out"
}
check "inspector-stdio-auth-status" auth_status_over_stdio

templates_over_stdio() {
  local out; out=$(inspector_stdio --method resources/templates/list) || return 1
  grep -q 'spreadsheet://{spreadsheet_id}/info' <<<"$out"
}
check "inspector-stdio-resource-templates" templates_over_stdio

# HTTP: start the server on a free loopback port and read the URL it prints.
token=$("$bin" serve --print-token)
log="$home/server.log"
"$bin" serve --sandbox --http 127.0.0.1:0 2>"$log" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -n 1)
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "not ok http-server-start"; cat "$log"; exit 1
fi

tools_listed_over_http() {
  local out; out=$(inspector --cli "$url" --header "Authorization: Bearer $token" --method tools/list) || return 1
  grep -q '"get_sheet_data"' <<<"$out" || { echo "tools/list over HTTP did not list get_sheet_data"; return 1; }
}
check "inspector-http-tools-list" tools_listed_over_http

refused_without_token() {
  local out
  if out=$(inspector --cli "$url" --method tools/list 2>&1); then echo "listed tools without a token"; return 1; fi
  grep -qi '401\|unauthorized\|auth_required' <<<"$out" || { echo "$out"; return 1; }
}
check "inspector-http-refused-without-token" refused_without_token

# The conformance suite cannot send headers: it gets the URL form with the token (RFC 6750 access_token).
conformance_url="$url?access_token=$token"
for scenario in server-initialize ping tools-list dns-rebinding-protection; do
  check "conformance-$scenario" conformance server --url "$conformance_url" --scenario "$scenario"
done

# MCP 2026-07-28 (stateless requests, server/discover, subscriptions/listen, caching hints): the scenarios
# exist only in the suite's 0.2 pre-release (target/tools/conformance-2026). The checks that need the suite's
# own test server are listed, with why, in scripts/conformance-2026-baseline.yml. Left out: the header
# scenarios (http-header-validation, http-custom-header-server-validation), which post to the URL without its
# query and so without the token (a 401 for every probe); rmcp's header checks are covered by
# server-stateless's header-mismatch check. Scenarios that call the reference server's sample tools
# (tools-call-*, prompts-*, resources-read-*) do not apply.
conformance_2026=target/tools/conformance-2026/node_modules/.bin/conformance
for scenario in server-stateless tools-list dns-rebinding-protection resources-list sep-2164-resource-not-found \
  server-sse-multiple-streams caching; do
  check "conformance-2026-07-28-$scenario" "$conformance_2026" server --url "$conformance_url" \
    --scenario "$scenario" --spec-version 2026-07-28 --expected-failures scripts/conformance-2026-baseline.yml
done

# Claude Desktop's one-click bundle: packed from this binary and validated by the official MCP Bundle CLI
# (scripts/package.sh), then unpacked and started exactly as its manifest tells Claude Desktop to start it.
# (Each check runs in a subshell: the bundle's path passes from one to the next in a file.)
bundle_packs() {
  local bundle; bundle=$(bash scripts/package.sh --debug mcpb) || return 1
  [ -f "$bundle" ] || { echo "package.sh printed no bundle: $bundle"; return 1; }
  mcpb info "$bundle" >/dev/null && echo "$bundle" >"$home/bundle-path"
}
check "mcpb-bundle-validates-and-packs" bundle_packs

bundle_serves_as_its_manifest_says() {
  local bundle; bundle=$(cat "$home/bundle-path" 2>/dev/null)
  [ -f "$bundle" ] || { echo "no bundle to unpack: packing it failed"; return 1; }
  local dir="$home/unpacked"
  mcpb unpack "$bundle" "$dir" >/dev/null || return 1
  local command args listed declared
  command=$(node -e 'const m=require(process.argv[1]);console.log(m.server.mcp_config.command.replace("${__dirname}",process.argv[2]))' "$dir/manifest.json" "$dir")
  mapfile -t args < <(node -e 'require(process.argv[1]).server.mcp_config.args.forEach(a=>console.log(a))' "$dir/manifest.json")
  [ -x "$command" ] || { echo "the manifest's command $command is not an executable in the bundle"; return 1; }
  declared=$(node -e 'console.log(require(process.argv[1]).tools.length)' "$dir/manifest.json")
  listed=$(GATEHOUSE_HOME="$home/bundle-home" inspector --cli "$command" "${args[@]}" --method tools/list |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tools.length))') || return 1
  # Nobody is signed in here, so no Google server's tools are discovered: it lists Gatehouse's own.
  [ "$listed" = "$own_tools" ] && [ "$declared" = "$own_tools" ] ||
    { echo "the bundle's server listed $listed tools, its manifest $declared, Gatehouse's own are $own_tools"; return 1; }
}
check "mcpb-bundle-serves-its-manifest-tools" bundle_serves_as_its_manifest_says

[ "$failures" = 0 ]
