# Sourced by the scripts that print one "ok NAME" / "not ok NAME" line per check (validate-mcp.sh,
# test-install.sh): test.sh counts those lines. `failures` counts the checks that failed.
failures=0

check() { # check NAME COMMAND… : runs COMMAND, reports ok/not ok (with the last 30 lines it printed)
  local name=$1; shift
  if output=$("$@" 2>&1); then
    echo "ok $name"
  else
    echo "not ok $name"
    echo "$output" | tail -n 30 | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}
