#!/usr/bin/env bash
# Installs what building and testing Gatehouse needs and is missing: Debian/Ubuntu packages, a Rust
# toolchain if there is none, and (with --validators, for the tests) the pinned MCP validators and the
# official Python and TypeScript SDK clients (MCP 2026-07-28) under target/tools, and what the desktop app's
# end-to-end test needs (WebKitWebDriver, Xvfb, tauri-driver), cargo-deny for the supply-chain check, and the
# Tauri CLI that scripts/package.sh bundles the desktop app with (the install test's .deb).
set -euo pipefail
cd "$(dirname "$0")/.."

want_validators=false
for arg in "$@"; do
  case "$arg" in
    --validators) want_validators=true ;;
    *) echo "install-deps.sh: unknown option $arg (known: --validators)" >&2; exit 2 ;;
  esac
done

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi

packages=(build-essential pkg-config curl ca-certificates)
# The keychain tests run against a real Secret Service: gnome-keyring in a private D-Bus session
# (dbus-run-session comes with dbus-x11's dependencies; secret-tool from libsecret-tools).
packages+=(gnome-keyring libsecret-tools dbus-x11)
# The desktop app (src-tauri, Tauri 2): WebKitGTK for its windows, the tray (app indicator), SVG icons.
packages+=(libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev)
# The desktop app's notification test talks to a real notification server: python3-dbusmock's, on a private bus.
packages+=(python3-dbusmock)
# Node may come from elsewhere (NodeSource bundles npm): only ask Debian for it when it is missing.
if $want_validators && ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
# The desktop app's end-to-end test (tests/e2e/desktop.rs) drives it in real WebKit: WebKitWebDriver, on a
# virtual X display; its screenshots are taken from that display (xdotool finds the window, ImageMagick's
# import takes it).
if $want_validators; then packages+=(webkit2gtk-driver xvfb xdotool imagemagick); fi
# The official Python SDK's client (tests/clients/mcp2026.py) runs in a venv under target/tools (Python 3.10+).
if $want_validators; then packages+=(python3-venv); fi
# The Windows control channel's test (scripts/test-windows.sh) is cross-built with MinGW and run under Wine.
if $want_validators; then packages+=(gcc-mingw-w64-x86-64 wine wine64); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null; then
    echo "Installing system packages: ${missing[*]}" >&2
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "Please install these packages with your system's package manager: ${missing[*]}" >&2
  fi
fi

if ! command -v cargo >/dev/null; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "Installing the Rust toolchain (rustup)…" >&2
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

# tauri-driver (pinned) sits between the desktop test's WebDriver client and WebKitWebDriver; cargo builds it
# once into ~/.cargo/bin.
if $want_validators && ! command -v tauri-driver >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]; then
  echo "Installing tauri-driver (for the desktop app's end-to-end test)…" >&2
  cargo install tauri-driver --version 2.1.0 --locked --quiet >&2
fi

# cargo-deny (pinned) checks the supply-chain rules of deny.toml; cargo builds it once into ~/.cargo/bin.
if $want_validators && ! command -v cargo-deny >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo-deny" ]; then
  echo "Installing cargo-deny (for the supply-chain check)…" >&2
  cargo install cargo-deny --version 0.20.2 --locked --quiet >&2
fi

if $want_validators; then
  tools=target/tools
  mkdir -p "$tools"
  # The official TypeScript SDK's client for MCP 2026-07-28 is @modelcontextprotocol/client (2.x): the older
  # @modelcontextprotocol/sdk (1.32.2, its newest) stops at 2025-11-25. tests/clients/mcp2026.mjs uses it.
  # The Tauri CLI (scripts/package.sh bundles the desktop app with it) comes from npm as a prebuilt binary
  # (@tauri-apps/cli-linux-x64-gnu and its siblings): seconds, where `cargo install tauri-cli` compiles for minutes.
  if [ ! -x "$tools/node_modules/.bin/conformance" ] || [ ! -x "$tools/node_modules/.bin/inspector" ] ||
    [ ! -x "$tools/node_modules/.bin/mcpb" ] || [ ! -d "$tools/node_modules/@modelcontextprotocol/client" ] ||
    [ ! -x "$tools/node_modules/.bin/tauri" ]; then
    echo "Installing the MCP validators (MCP Inspector CLI, MCP conformance suite, the MCP Bundle CLI, the TypeScript SDK's client, Node 22) and the Tauri CLI…" >&2
    [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
    (cd "$tools" && npm install --no-audit --no-fund --loglevel=error \
      node@22 @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.1.16 \
      @anthropic-ai/mcpb@2.1.2 @modelcontextprotocol/client@2.4.0 @tauri-apps/cli@2.12.6 >&2)
  fi
  # The conformance suite's scenarios for MCP 2026-07-28 exist only in its 0.2 pre-releases; kept apart from
  # the released 0.1.16 above (same package name), for scripts/validate-mcp.sh.
  if [ ! -x "$tools/conformance-2026/node_modules/.bin/conformance" ]; then
    echo "Installing the MCP conformance suite's 2026-07-28 scenarios (0.2.0-alpha.12)…" >&2
    mkdir -p "$tools/conformance-2026"
    [ -f "$tools/conformance-2026/package.json" ] || (cd "$tools/conformance-2026" && npm init -y >/dev/null)
    (cd "$tools/conformance-2026" && npm install --no-audit --no-fund --loglevel=error \
      @modelcontextprotocol/conformance@0.2.0-alpha.12 >&2)
  fi
  # The official Python SDK (`mcp` on PyPI; 2.x speaks 2026-07-28), in a venv of its own for
  # tests/clients/mcp2026.py and the independent Sheets MCP server tests/servers/sheets_mcp.py (which uses
  # only what mcp 2.3.0 brings: uvicorn, starlette, jsonschema).
  if [ ! -x "$tools/py/bin/python" ] || ! "$tools/py/bin/python" -c 'import mcp' 2>/dev/null; then
    echo "Installing the official MCP Python SDK (mcp 2.3.0) into $tools/py…" >&2
    python3 -m venv "$tools/py"
    "$tools/py/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 >&2
  fi
fi
