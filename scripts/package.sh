#!/usr/bin/env bash
# Builds Gatehouse's installable bundles from the binaries cargo built, into target/bundle/:
#   mcpb  Claude Desktop's one-click bundle (.mcpb): the `gatehouse` binary and a manifest generated from the
#         tool declarations (`gatehouse tools --mcpb-manifest`), validated and packed with the official
#         @anthropic-ai/mcpb CLI. Claude Desktop starts it as `gatehouse serve`, which relays to the desktop app
#         while it runs and hosts itself when it doesn't.
#
# Usage: bash scripts/package.sh [--debug] [mcpb]
#   --debug  bundle target/debug (what the tests built) instead of building and bundling a release.
# Prints the path of each bundle it made, one per line, on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
kinds=()
for arg in "$@"; do
  case "$arg" in
    --debug) profile=debug ;;
    mcpb) kinds+=("$arg") ;;
    *) echo "package.sh: unknown option $arg (known: --debug, mcpb)" >&2; exit 2 ;;
  esac
done
[ "${#kinds[@]}" -gt 0 ] || kinds=(mcpb)

export PATH="$HOME/.cargo/bin:$PATH"
tools=target/tools
if [ ! -x "$tools/node_modules/.bin/mcpb" ]; then
  echo "The MCP Bundle CLI is missing: run \`bash scripts/install-deps.sh --validators\` first." >&2
  exit 1
fi

if [ "$profile" = release ]; then
  echo "Building the release binary…" >&2
  cargo build --release --locked -p gatehouse-cli >&2
fi
bin="target/$profile/gatehouse"
exe=""
# On Windows (Git Bash) cargo builds gatehouse.exe; the manifest names it so too.
if [ ! -x "$bin" ] && [ -x "$bin.exe" ]; then exe=.exe; fi
[ -x "$bin$exe" ] || { echo "No $bin: build it first (cargo build -p gatehouse-cli)." >&2; exit 1; }
bin="$bin$exe"

out=target/bundle
mkdir -p "$out"
version=$("$bin" --version | awk '{print $2}')

for kind in "${kinds[@]}"; do
  case "$kind" in
    mcpb)
      stage="$out/mcpb"
      rm -rf "$stage"
      mkdir -p "$stage/server"
      cp "$bin" "$stage/server/gatehouse$exe"
      # A bundle needs no symbols: stripped, a debug build packs in seconds rather than minutes.
      if [ -z "$exe" ] && command -v strip >/dev/null; then strip "$stage/server/gatehouse"; fi
      "$bin" tools --mcpb-manifest >"$stage/manifest.json"
      platform=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["compatibility"]["platforms"][0])' "$stage/manifest.json")
      "$tools/node_modules/.bin/mcpb" validate "$stage/manifest.json" >&2
      bundle="$out/gatehouse-$version-$platform.mcpb"
      rm -f "$bundle"
      "$tools/node_modules/.bin/mcpb" pack "$stage" "$bundle" >&2
      echo "$bundle"
      ;;
  esac
done
