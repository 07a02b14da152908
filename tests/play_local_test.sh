#!/usr/bin/env bash
# tools/clients/play_local.sh replaces an earlier run's directory only once
# the tournament runner has accepted the command:
#
#  1. A run of the C++ bot against two C++ bots writes --out=DIR (exit 0).
#  2. The same with --seats=4, which rock_paper_pyramid does not take: the
#     runner refuses it (exit 2) and DIR is still the first run's, byte for
#     byte, with nothing left beside it.
#  3. A run with --rounds=2 replaces DIR (6 matches instead of 3).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=60 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built tournament bot

out=$tmp/out/run
mkdir -p "$tmp/out"
play() {
  PYRAMID_BIN=$BIN tools/clients/play_local.sh --out="$out" "$@" \
    -- "$(realpath "$BIN/bot")" --quiet
}
# scheduled: the matches results.json says the run scheduled.
scheduled() {
  grep -o '"scheduled": [0-9]*' "$out/results.json" | grep -o '[0-9]*$'
}

# --- 1. A first run
play >"$tmp/first.out" 2>&1 || fail "the first run failed: $(tail -n 5 "$tmp/first.out")"
[[ -f $out/results.json ]] || fail "the first run wrote no results.json"
[[ $(scheduled) == 3 ]] || fail "the first run scheduled $(scheduled) matches, not 3"
cp -a "$out" "$tmp/first"

# --- 2. A refused command replaces nothing
status=0
play --seats=4 >"$tmp/refused.out" 2>&1 || status=$?
((status == 2)) || fail "--seats=4: exit status $status, not 2: $(cat "$tmp/refused.out")"
grep -q "seats: rock_paper_pyramid takes 3 seats, not 4" "$tmp/refused.out" ||
  fail "--seats=4: no reason given: $(cat "$tmp/refused.out")"
diff -r "$tmp/first" "$out" >/dev/null ||
  fail "the refused command changed the earlier run's directory"
leftovers=$(find "$tmp/out" -mindepth 1 -maxdepth 1 ! -name run ! -name 'run.referee.key*')
[[ -z $leftovers ]] || fail "left beside the directory: $leftovers"

# --- 3. An accepted command replaces it
play --rounds=2 >"$tmp/second.out" 2>&1 || fail "the second run failed: $(tail -n 5 "$tmp/second.out")"
[[ $(scheduled) == 6 ]] || fail "the second run scheduled $(scheduled) matches, not 6"
leftovers=$(find "$tmp/out" -mindepth 1 -maxdepth 1 ! -name run ! -name 'run.referee.key*')
[[ -z $leftovers ]] || fail "left beside the directory: $leftovers"

echo "PASS: a refused play_local command keeps the earlier run; an accepted one replaces it"
