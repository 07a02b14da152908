#!/usr/bin/env bash
# A referee restart faults no seat played by a client of this repository
# (docs/durability.md: "Nobody forfeits because of a restart"): each one
# reconnects within a few hundred milliseconds of the referee coming back,
# however long it was away, instead of sleeping out a blind backoff.
#
# Usage: kits_referee_restart_test.sh OUTAGE_S [CLOCK_MS]
#
# One Rock, Paper, Pyramid! match of 3 seats on a real referee, with commit
# and reveal clocks of CLOCK_MS (default 3000): seat 0 the Node kit, seat 1
# the C++ bot (build/bin/bot), seat 2 the Python kit; the kit bots answer
# after 300 ms (tests/node_kit_slow_bot.js, tests/python_kit_slow_bot.py).
# Past decision 2, the referee is stopped with SIGTERM and, once it has
# exited, started again OUTAGE_S seconds later on the same address and data
# directory. It reopens each open decision with its whole clock counted
# from the restart, so a client that is back within a few hundred
# milliseconds answers in time: every bot must end its match without a
# forfeit, and the log (`replay show`) hold no fault at all.
#
# The old clients slept their backoff (100 ms doubling to 5 s) blind, so an
# outage that ends early in one of their long waits faulted them; ctest runs
# this with outages that did (tests/CMakeLists.txt): 7 s for the Node kit's
# 5 s wait after 6.3 s, 18 s for the 5 s wait the C++ bot and the Python
# kit began after 17.5 s. The fixed clients pass at any outage below their
# give-up limit (--reconnect_for_s).
#
# Runs from the source root; the Python kit from tools/clients/python with
# Debian's /usr/bin/python3, the Node kit from tools/clients/node (its
# packages installed with `npm ci` if they are not). PYRAMID_BIN names the
# built binaries (default build/bin).
set -euo pipefail

OUTAGE_S=${1:?usage: kits_referee_restart_test.sh OUTAGE_S [CLOCK_MS]}
CLOCK_MS=${2:-3000}
BIN=${PYRAMID_BIN:-build/bin}
NODE_KIT=tools/clients/node
LIMIT=$((90 + ${OUTAGE_S%.*}))  # Seconds any one phase may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl replay bot

command -v node >/dev/null || fail "node is not installed (tools/setup.sh installs it)"
if [[ ! -d $NODE_KIT/node_modules/@grpc/grpc-js ]]; then
  (cd "$NODE_KIT" && timeout 300 npm ci --no-audit --no-fund) >"$tmp/npm.out" 2>&1 ||
    fail "npm ci in $NODE_KIT (is the npm registry reachable?)"
fi
export PYTHONPATH=tools/clients/python PYTHONDONTWRITEBYTECODE=1

start_referee "unix:$tmp/referee.sock" # Started again on it below.
# The seed decision's clock is a minute, so that the bots' start on a
# loaded machine faults nobody.
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --commit_timeout_ms="$CLOCK_MS" --reveal_timeout_ms="$CLOCK_MS" \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok" 2>/dev/null) ||
  fail "create-match"
spawn node node tests/node_kit_slow_bot.js --referee="$addr" \
  --token_file="$tmp/tok/seat-0.token" --matches=1 --delay_ms=300
waited=("$last_pid")
spawn cpp "$BIN/bot" --referee="$addr" --token_file="$tmp/tok/seat-1.token" \
  --matches=1
waited+=("$last_pid")
spawn python /usr/bin/python3 tests/python_kit_slow_bot.py --referee "$addr" \
  --token_file "$tmp/tok/seat-2.token" --matches 1 --delay_s 0.3
waited+=("$last_pid")

past_decision_2() {
  local info re='"decision_id": *"?([0-9]+)'
  info=$(refctl get-match "$match" 2>/dev/null) || return 1
  [[ $info =~ $re ]] && ((BASH_REMATCH[1] >= 2))
}
poll past_decision_2
kill -TERM "$referee_pid"
reap "$referee_pid"
((status == 0)) || fail "the referee exited with status $status on SIGTERM"
sleep "$OUTAGE_S"  # The outage itself.
start_referee "$addr"
back_ns=$(date +%s%N)
# For the record (the clocks are the test): how soon the bots were back.
all_connected() {  # Or the match over (a seat faulted: said below).
  local info connected
  info=$(refctl get-match "$match" 2>/dev/null) || return 1
  connected=$(grep -o '"connected":true' <<<"$info" | wc -l)
  ((connected == 3)) || [[ $info != *'"status":"MATCH_RUNNING"'* ]]
}
poll all_connected
echo "referee back after ${OUTAGE_S}s; every seat connected (or the match over)" \
  "$((($(date +%s%N) - back_ns) / 1000000)) ms after it listened (${SECONDS}s)"

wait_for "${waited[@]}"
verify_log "$match" >/dev/null
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/show.txt" 2>&1 ||
  fail "replay show $match"
faults=$(grep -i "fault" "$tmp/show.txt" || true)
[[ -z $faults ]] ||
  fail "a referee restart of ${OUTAGE_S}s faulted (seat 0 Node, 1 C++, 2 Python): $faults"
for name in node python; do
  grep -q "^pyramid_kit: 1 match(es) ended, 0 error(s)" "$tmp/$name.out" ||
    fail "the $name kit bot did not end its match without error"
done
grep -q "^bot: 1 match(es) ended, 0 error(s)" "$tmp/cpp.out" ||
  fail "the C++ bot did not end its match without error"
! grep -q "(forfeited)" "$tmp"/{node,cpp,python}.out || fail "a bot saw its seat forfeit"
echo "PASS: a referee restart after ${OUTAGE_S}s with ${CLOCK_MS} ms clocks faulted none of the Node kit, the C++ bot and the Python kit (${SECONDS}s)"
