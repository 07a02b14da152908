#!/usr/bin/env bash
# Crash test of the Node client kit's durable commitments (--state_dir,
# tools/clients/node/lib/state.js) against a real referee over loopback.
#
# One Rock, Paper, Pyramid! match: seat 0 is the kit's random bot with
# --state_dir (and --verbose); seats 1 and 2 are slow kit bots
# (tests/node_kit_slow_bot.js, 1.2 s per decision), so that seat 0, which
# answers at once, spends most of each round holding a commitment whose
# reveal is not yet asked for (or owed). Seat 0's process is SIGKILLed
# between an acknowledged ("<- commit_ack" in its log), recorded commit and
# its reveal and started again on the same state directory, KILLS times
# (default 5) within CAP_S seconds (default 40), on that condition, not on
# a timer (the loop is tests/state_kill_loop.sh). The clocks are generous
# (a 10 s reveal deadline), so the restarts make every deadline. The match
# must end with no FAULT_REVEAL_TIMEOUT or FAULT_REVEAL_MISMATCH (no fault
# at all, no forfeit), its log must verify (`replay verify`), all KILLS
# kills must have landed, at least KILLS restarted processes must have
# resumed a commitment from the directory ("resuming the commitment kept
# in DIR"), none may have said that the referee holds a commitment it does
# not have, and the directory must be empty at the end (the match's end
# removes its records).
#
# NODE_KIT_STATE_TEST_WITHOUT_STATE_DIR=1 runs the same without
# --state_dir: the test then fails (a kill between a commit and its reveal
# faults seat 0 at the reveal deadline), which shows what it tests.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin). Needs node (18 or later) and the kit's packages (`npm ci` in
# tools/clients/node, run here when they are missing).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/node
LIMIT=90 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
# shellcheck source=tests/state_kill_loop.sh
source "${BASH_SOURCE%/*}/state_kill_loop.sh" # KILLS, CAP_S, WAIT_S
need_built referee refctl replay

{ command -v node && command -v npm; } >/dev/null ||
  fail "node and npm are not installed (tools/setup.sh installs them)"
if [[ ! -d $KIT/node_modules/@grpc/grpc-js ]]; then
  (cd "$KIT" && timeout 300 npm ci --no-audit --no-fund) >"$tmp/npm.out" 2>&1 ||
    fail "npm ci in $KIT (is the npm registry reachable?)"
fi

state=(--state_dir="$tmp/state")
if [[ ${NODE_KIT_STATE_TEST_WITHOUT_STATE_DIR:-} == 1 ]]; then
  state=()
  echo "(without --state_dir: this run is expected to fail)"
fi

start_referee 127.0.0.1:0
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --seed_timeout_ms=60000 --commit_timeout_ms=30000 --reveal_timeout_ms=10000 \
  --token_dir="$tmp/tok" 2>/dev/null) || fail "create-match"

waited=()
for seat in 1 2; do
  spawn "peer-$seat" node tests/node_kit_slow_bot.js --referee="$addr" \
    --token_file="$tmp/tok/seat-$seat.token" --matches=1 --delay_ms=1200
  waited+=("$last_pid")
done

seat0() { # NAME: starts seat 0's bot, its output in $tmp/NAME.out
  spawn "$1" node "$KIT/examples/random_bot.js" --referee="$addr" \
    --token_file="$tmp/tok/seat-0.token" --matches=1 --reconnect_for_s=60 --verbose \
    "${state[@]}"
}
commit_ack_sed='s/.*<- commit_ack: .*"decision_id":"\([0-9]*\)".*/\1/p'

# Kill seat 0 between a commit and its reveal while the match runs; each
# time a new process takes over with the same state directory.
state_kill_loop victim
wait_for "$pid" "${waited[@]}"
count_resumes victim

expect_clean "victim-$n" 1
for seat in 1 2; do expect_clean "peer-$seat" 1; done
verify_log "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/show.txt" 2>&1 || fail "replay show $match"
[[ -n ${SHOW_LOG:-} ]] && cat "$tmp/show.txt"
if grep -q "FAULT_REVEAL_TIMEOUT\|FAULT_REVEAL_MISMATCH" "$tmp/show.txt"; then
  fail "a reveal fault: $(grep -i "fault" "$tmp/show.txt" | head -5)"
fi
! grep -qi "fault\|TERMINATION_FORFEIT\|forfeited" "$tmp/show.txt" ||
  fail "the match's log holds a fault: $(grep -i "fault\|TERMINATION_FORFEIT\|forfeited" "$tmp/show.txt" | head -5)"
((lost == 0)) || fail "$lost restarted process(es) lost a commitment"
((kills >= KILLS)) || fail "only $kills of $KILLS kills landed between a commit and its reveal (the match ended, or no acknowledged commit came within ${WAIT_S}s)"
((reloads >= KILLS)) || fail "only $reloads of the $kills restarted processes resumed a commitment from the state directory"
if ((${#state[@]})); then
  left=$(find "$tmp/state" -type f | wc -l)
  ((left == 0)) || fail "the match ended, but $left file(s) are left in the state directory"
fi
echo "PASS: Node kit --state_dir: seat 0 SIGKILLed $kills times between a commit and its reveal, $reloads restart(s) resumed a commitment, no fault, the log genuine"
