#!/usr/bin/env bash
# Builds Gatehouse's installable bundles from the binaries cargo built, into target/bundle/:
#   mcpb      Claude Desktop's one-click bundle (.mcpb): the `gatehouse` binary and a manifest generated from the
#             tool declarations (`gatehouse tools --mcpb-manifest`), validated and packed with the official
#             @anthropic-ai/mcpb CLI. Claude Desktop starts it as `gatehouse serve`, which relays to the desktop app
#             while it runs and hosts itself when it doesn't.
#   deb       The desktop app for Debian and Ubuntu (Tauri's bundler): `gatehouse-desktop` and the `gatehouse`
#             command in /usr/bin, the menu entry (/usr/share/applications/Gatehouse.desktop) and the icon in
#             every size icons/ holds.
#   appimage  The same app as one self-contained file for other Linux distributions. Tauri's bundler downloads
#             linuxdeploy and its plugins from GitHub to make it: this needs a machine that reaches github.com.
#   app, dmg  macOS (on a Mac): Gatehouse.app (with `gatehouse` inside, Contents/MacOS) and its disk image.
#   nsis, msi Windows (on Windows, in Git Bash): the setup program and the Windows Installer package.
# With no kind named, it makes every kind this system can make (Linux: mcpb deb appimage; macOS: mcpb app dmg;
# Windows: mcpb nsis msi).
#
# Updates: when TAURI_SIGNING_PRIVATE_KEY (or TAURI_SIGNING_PRIVATE_KEY_PATH) is set, the bundler also signs each
# installer for the in-app updater (a .sig beside it; `tauri signer generate` makes the key pair). The release
# build then needs the public half and where the update manifest lives, compiled into the app:
# GATEHOUSE_UPDATE_PUBKEY (the .pub file's text) and GATEHOUSE_UPDATE_ENDPOINT (an https URL); docs/updates.md.
#
# Usage: bash scripts/package.sh [--debug] [KIND…]
#   --debug  bundle target/debug (what the tests built) instead of building and bundling a release.
# Prints the path of each bundle it made, one per line, on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
kinds=()
for arg in "$@"; do
  case "$arg" in
    --debug) profile=debug ;;
    mcpb | deb | appimage | app | dmg | nsis | msi) kinds+=("$arg") ;;
    *) echo "package.sh: unknown option $arg (known: --debug, mcpb, deb, appimage, app, dmg, nsis, msi)" >&2; exit 2 ;;
  esac
done
if [ "${#kinds[@]}" -eq 0 ]; then
  case "$(uname -s)" in
    Linux) kinds=(mcpb deb appimage) ;;
    Darwin) kinds=(mcpb app dmg) ;;
    MINGW* | MSYS* | CYGWIN*) kinds=(mcpb nsis msi) ;;
    *) kinds=(mcpb) ;;
  esac
fi

export PATH="$HOME/.cargo/bin:$PATH"
tools=target/tools
for kind in "${kinds[@]}"; do
  if [ "$kind" = mcpb ] && [ ! -x "$tools/node_modules/.bin/mcpb" ]; then
    echo "The MCP Bundle CLI is missing: run \`bash scripts/install-deps.sh --validators\` first." >&2
    exit 1
  fi
  if [ "$kind" != mcpb ] && [ ! -x "$tools/node_modules/.bin/tauri" ]; then
    echo "The Tauri CLI is missing: run \`bash scripts/install-deps.sh --validators\` first." >&2
    exit 1
  fi
done

# What the updater needs compiled in (empty: this build does not look for updates; docs/updates.md).
update_config=$(python3 - <<'EOF'
import json, os
pubkey = os.environ.get("GATEHOUSE_UPDATE_PUBKEY", "").strip()
endpoint = os.environ.get("GATEHOUSE_UPDATE_ENDPOINT", "").strip()
if bool(pubkey) != bool(endpoint):
    raise SystemExit("Set both GATEHOUSE_UPDATE_PUBKEY and GATEHOUSE_UPDATE_ENDPOINT (or neither): an app that looks for updates needs where, and the key they are signed with.")
if endpoint and not endpoint.startswith("https://"):
    raise SystemExit(f"GATEHOUSE_UPDATE_ENDPOINT is {endpoint!r}: the update manifest must be served over https.")
print(json.dumps({"plugins": {"updater": {"pubkey": pubkey, "endpoints": [endpoint]}}}) if pubkey else "")
EOF
)

if [ "$profile" = release ]; then
  packages=(-p gatehouse-cli)
  for kind in "${kinds[@]}"; do [ "$kind" = mcpb ] || packages=(-p gatehouse-cli -p gatehouse-desktop); done
  echo "Building the release binaries…" >&2
  TAURI_CONFIG="$update_config" cargo build --release --locked "${packages[@]}" >&2
elif [ -n "$update_config" ]; then
  echo "package.sh: GATEHOUSE_UPDATE_PUBKEY is compiled into a release build only; drop --debug." >&2
  exit 2
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

# The desktop bundles, made by Tauri's bundler from a staging target folder: a copy of the two programs (stripped
# when they are a debug build: a debug build packs in seconds rather than minutes), so the build itself is left
# as cargo made it. `gatehouse` goes in as an external binary, which the bundler puts beside the app's own.
desktop_bundles() { # desktop_bundles KIND…
  local desktop="target/$profile/gatehouse-desktop$exe"
  [ -x "$desktop" ] || { echo "No $desktop: build it first (cargo build -p gatehouse-desktop)." >&2; return 1; }
  local triple; triple=$(rustc -vV | sed -n 's/^host: //p')
  local stage="$PWD/$out/stage"
  rm -rf "$stage"
  mkdir -p "$stage/$profile" "$stage/sidecar"
  cp "$desktop" "$stage/$profile/"
  cp "$bin" "$stage/sidecar/gatehouse-$triple$exe"
  if [ "$profile" = debug ] && [ -z "$exe" ] && command -v strip >/dev/null; then
    strip "$stage/$profile/gatehouse-desktop" "$stage/sidecar/gatehouse-$triple"
  fi
  local config
  config=$(STAGE="$stage" SIGNING="${TAURI_SIGNING_PRIVATE_KEY:-${TAURI_SIGNING_PRIVATE_KEY_PATH:-}}" python3 -c '
import json, os, sys
config = {"bundle": {"externalBin": [os.environ["STAGE"] + "/sidecar/gatehouse"]}}
if os.environ["SIGNING"]:
    config["bundle"]["createUpdaterArtifacts"] = True
if sys.argv[1]:
    config.update(json.loads(sys.argv[1]))
print(json.dumps(config))' "$update_config")
  local flags=(--bundles "$(IFS=,; echo "$*")" --config "$config" --no-sign --ci)
  [ "$profile" = debug ] && flags+=(--debug)
  local log="$stage/bundler.log"
  if ! (cd src-tauri && CARGO_TARGET_DIR="$stage" "../$tools/node_modules/.bin/tauri" bundle "${flags[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    if grep -qiE 'github\.com|linuxdeploy|appimagetool|nsis_tauri_utils|error sending request|dns' "$log"; then
      echo "Tauri's bundler could not download its tools (linuxdeploy for the AppImage, NSIS's plugin for Windows) from GitHub: make these bundles on a machine that reaches github.com (docs/installers.md)." >&2
    fi
    return 1
  fi
  cat "$log" >&2
  local made
  for made in "$stage/$profile/bundle"/*/*; do
    case "$made" in
      *.deb | *.AppImage | *.dmg | *.msi | *-setup.exe | *.sig | *.tar.gz | *.zip)
        cp "$made" "$out/"
        echo "$out/$(basename "$made")"
        ;;
      *.app)
        rm -rf "${out:?}/$(basename "$made")"
        cp -R "$made" "$out/"
        echo "$out/$(basename "$made")"
        ;;
    esac
  done
  # The staged copies of the programs are hundreds of megabytes; the bundles are in $out now.
  rm -rf "$stage"
}

desktop_kinds=()
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
    *) desktop_kinds+=("$kind") ;;
  esac
done
[ "${#desktop_kinds[@]}" -eq 0 ] || desktop_bundles "${desktop_kinds[@]}"
