#!/usr/bin/env bash
# The installer test: bundles the debug build the tests already made as a .deb (scripts/package.sh), checks what
# the package holds, installs it on this machine with apt-get, checks the installed `gatehouse` command, runs the
# installed desktop app under Xvfb (tests/e2e/installed.rs: it serves MCP, shows its window, and *Start at
# login* starts the installed program), then removes the package and checks that nothing of it is left.
# Prints one "ok NAME" / "not ok NAME" line per check. Installing needs root (CI runs as root) or sudo.
# Expects `cargo build --workspace --all-targets` and `install-deps.sh --validators` done.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo -n"; fi
work=$(mktemp -d)
is_installed() { dpkg-query -W -f='${Status}' gatehouse 2>/dev/null | grep -q "install ok installed"; }
# Whatever this run installed is removed again, also when a check fails half-way.
cleanup() {
  if [ -e "$work/installed-by-us" ] && is_installed; then
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get remove -y -qq gatehouse >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=lib/check.sh
. scripts/lib/check.sh

if [ -n "$sudo_cmd" ] && ! sudo -n true 2>/dev/null; then
  echo "not ok install-test-can-install (installing a package needs root or password-less sudo)"
  exit 1
fi
# A Gatehouse someone installed here is theirs: the test neither replaces nor removes it.
if is_installed; then
  echo "not ok install-test-can-install (a Gatehouse package is already installed on this machine; remove it first: apt-get remove gatehouse)"
  exit 1
fi

deb_builds() {
  local made; made=$(bash scripts/package.sh --debug deb) || return 1
  local deb; deb=$(grep '\.deb$' <<<"$made" | head -n 1)
  [ -f "$deb" ] || { echo "package.sh made no .deb: $made"; return 1; }
  echo "$PWD/$deb" >"$work/deb-path"
}
check "deb-bundles-the-debug-build" deb_builds
deb=$(cat "$work/deb-path" 2>/dev/null)

# The files a person's desktop needs, and an icon of every size icons/ holds for it.
deb_holds_the_app() {
  [ -f "$deb" ] || { echo "no .deb to look into"; return 1; }
  local listing; listing=$(dpkg-deb -c "$deb" | awk '{sub(/^\.\//, "", $NF); print $NF}')
  local wanted=(usr/bin/gatehouse-desktop usr/bin/gatehouse usr/share/applications/Gatehouse.desktop)
  local size
  for size in 16x16 24x24 32x32 48x48 64x64 128x128 256x256 512x512; do
    wanted+=("usr/share/icons/hicolor/$size/apps/gatehouse-desktop.png")
  done
  local missing=() file
  for file in "${wanted[@]}"; do grep -qxF "$file" <<<"$listing" || missing+=("$file"); done
  [ "${#missing[@]}" = 0 ] || { echo "missing from the package: ${missing[*]}"; echo "$listing"; return 1; }
  [ "$(dpkg-deb -f "$deb" Package)" = gatehouse ] || { echo "the package is named $(dpkg-deb -f "$deb" Package)"; return 1; }
}
check "deb-holds-both-programs-the-menu-entry-and-every-icon" deb_holds_the_app

installs() {
  [ -f "$deb" ] || { echo "no .deb to install"; return 1; }
  touch "$work/installed-by-us"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$deb" || return 1
  is_installed || { echo "apt-get finished, but dpkg does not list gatehouse as installed"; return 1; }
}
check "deb-installs-with-apt-get" installs

# The `gatehouse` on PATH is the installed one, and answers an MCP client over stdio (no app runs yet, so it
# hosts itself, as it does for Claude Desktop when the app is closed).
gatehouse_on_path_serves_mcp() {
  local found; found=$(command -v gatehouse) || { echo "gatehouse is not on PATH"; return 1; }
  [ "$found" = /usr/bin/gatehouse ] || { echo "gatehouse on PATH is $found, not the installed /usr/bin/gatehouse"; return 1; }
  local declared; declared=$(gatehouse tools | grep -c '^| `')
  local listed
  listed=$(GATEHOUSE_HOME="$work/cli-home" HOME="$work/cli-home" target/tools/node_modules/.bin/inspector --cli \
    gatehouse serve --sandbox --method tools/list |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tools.length))') || return 1
  [ "$listed" = "$declared" ] || { echo "the installed gatehouse listed $listed tools, declares $declared"; return 1; }
}
check "installed-gatehouse-on-path-answers-tools-list-over-stdio" gatehouse_on_path_serves_mcp

# The installed app under Xvfb, driven as in the desktop end-to-end tests (one test: see its name).
installed_app() {
  command -v gatehouse-desktop >/dev/null || { echo "gatehouse-desktop is not on PATH"; return 1; }
  GATEHOUSE_DESKTOP_BIN=/usr/bin/gatehouse-desktop GATEHOUSE_BIN=/usr/bin/gatehouse \
    cargo test --locked --workspace --test installed 2>&1 | tee "$work/installed.log" | tail -n 40
  grep -q '^test result: ok\. 1 passed' "$work/installed.log"
}
check "installed-app-serves-mcp-shows-its-window-and-starts-at-login-from-usr-bin" installed_app

removes_cleanly() {
  is_installed || { echo "nothing was installed to remove"; return 1; }
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get remove -y -qq gatehouse || return 1
  is_installed && { echo "dpkg still lists gatehouse as installed"; return 1; }
  hash -r
  local left=()
  command -v gatehouse >/dev/null && left+=("$(command -v gatehouse)")
  command -v gatehouse-desktop >/dev/null && left+=("$(command -v gatehouse-desktop)")
  [ -e /usr/share/applications/Gatehouse.desktop ] && left+=(/usr/share/applications/Gatehouse.desktop)
  local icon
  for icon in /usr/share/icons/hicolor/*/apps/gatehouse-desktop.png; do [ -e "$icon" ] && left+=("$icon"); done
  [ "${#left[@]}" = 0 ] || { echo "left behind: ${left[*]}"; return 1; }
}
check "deb-removes-leaving-nothing-on-path" removes_cleanly
