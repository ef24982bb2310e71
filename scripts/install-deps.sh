#!/usr/bin/env bash
# Installs what building and testing Gatehouse needs and is missing: Debian/Ubuntu packages, a Rust
# toolchain if there is none, and (with --validators, for the tests) the pinned npm MCP validators under
# target/tools and what the desktop app's end-to-end test needs (WebKitWebDriver, Xvfb, tauri-driver).
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

if $want_validators; then
  tools=target/tools
  mkdir -p "$tools"
  if [ ! -x "$tools/node_modules/.bin/conformance" ] || [ ! -x "$tools/node_modules/.bin/inspector" ] ||
    [ ! -x "$tools/node_modules/.bin/mcpb" ]; then
    echo "Installing the MCP validators (MCP Inspector CLI, MCP conformance suite, the MCP Bundle CLI, Node 22)…" >&2
    [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
    (cd "$tools" && npm install --no-audit --no-fund --loglevel=error \
      node@22 @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.1.16 \
      @anthropic-ai/mcpb@2.1.2 >&2)
  fi
fi
