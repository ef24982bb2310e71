#!/usr/bin/env bash
# Runs the tests of Gatehouse's Windows-only code, built for x86_64-pc-windows-gnu and run under Wine: the process
# tree (crates/core/src/process/windows.rs), the control
# channel (crates/core/tests/control_windows.rs: the named pipe that only this user's SID may open, end to end with
# a real engine and store) and *Start at login*'s Run key value (crates/core/src/autostart/run_key.rs). Everything
# else runs in the Linux tests.
# Needs Debian's gcc-mingw-w64-x86-64 and wine (scripts/install-deps.sh --validators installs them) and the Rust target
# (installed here with rustup when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  echo "Installing the Rust target $target…" >&2
  rustup target add "$target" >&2
fi

# A private Wine prefix, made once per run: no state from earlier runs or the person's own Wine.
prefix=$(mktemp -d)
trap 'wineserver -k >/dev/null 2>&1 || true; rm -rf "$prefix"' EXIT
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wineboot --init >/dev/null 2>&1 || true
# Wine 8 lacks bcryptprimitives.dll (Rust's std takes random bytes from its ProcessPrng): a small stand-in.
x86_64-w64-mingw32-gcc -shared -O2 -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/wine/bcryptprimitives.c -lbcrypt

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
# Built once per run: incremental files would only take disk space (gigabytes for a second target).
export CARGO_INCREMENTAL=0
status=0
# The pipe module's own tests, among them the access list the control folder is given.
cargo test --locked -p gatehouse-core --target "$target" --lib control::pipe || status=1
# Which process is whose child and holds which loopback connection (the terminal-answer check of `control::answers`).
# Wine 8's TCP table names no connection's owner (it says 0 for all), so the live look-up of a connection's
# process is for a real Windows machine only; the reading of the table's rows runs here.
cargo test --locked -p gatehouse-core --target "$target" --lib process:: -- \
  --skip process::windows::tests::the_holder_of_a_loopback_connection_is_found || status=1
# *Start at login*: the Run key value, read back and switched off with reg.exe.
cargo test --locked -p gatehouse-core --target "$target" --lib autostart::run_key || status=1
# End to end. One test reads the folder's access list back from the file system: Windows keeps it, Wine 8
# accepts it and forgets it (it reports its default list), so that test is for a real Windows machine only.
cargo test --locked -p gatehouse-core --target "$target" --test control_windows -- \
  --skip the_control_folder_and_the_file_naming_the_pipe_grant_only_this_user || status=1
exit "$status"
