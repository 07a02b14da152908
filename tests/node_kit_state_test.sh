#!/usr/bin/env bash
# Crash test of the Node client kit's durable commitments (--state_dir,
# tools/clients/node/lib/state.js) against a real referee over loopback.
#
# One Rock, Paper, Pyramid! match: seat 0 is the kit's random bot with
# --state_dir; seats 1 and 2 are slow kit bots (tests/node_kit_slow_bot.js,
# 1.2 s per decision), so that seat 0, which answers at once, spends most of
# each round holding a commitment whose reveal is not yet asked for (or
# owed). Seat 0's process is SIGKILLed at random moments, every 0.3 to 1.5
# s, up to $KILLS times (while the match runs), and started again each time
# with the same state directory; the clocks are generous (a 10 s reveal
# deadline), so the restarts make every deadline. The match must end with
# no FAULT_REVEAL_TIMEOUT or FAULT_REVEAL_MISMATCH (no fault at all, no
# forfeit), its log must verify (`replay verify`), at least one restarted
# process must have resumed a commitment from the directory (so a kill did
# land between a commit and its reveal), none may have said that the
# referee holds a commitment it does not have, and the directory must be
# empty at the end (the match's end removes its records).
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
KILLS=${KILLS:-8}

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl replay

command -v node >/dev/null && command -v npm >/dev/null ||
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

victim() { # N: seat 0's Nth process
  spawn "victim-$1" node "$KIT/examples/random_bot.js" --referee="$addr" \
    --token_file="$tmp/tok/seat-0.token" --matches=1 --reconnect_for_s=60 \
    "${state[@]}"
}

# Kill seat 0 at random moments while the match runs; each time a new
# process takes over with the same state directory.
kills=0
n=0
while ((kills < KILLS)); do
  n=$((n + 1))
  victim "$n"
  pid=$last_pid
  sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.3 + 1.2 * r / 32767 }')"
  kill -0 "$pid" 2>/dev/null || break # It finished: the match is over.
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  kills=$((kills + 1))
done
if kill -0 "$pid" 2>/dev/null; then
  : # The last one (not killed) is still playing.
else
  reap "$pid"
  if ((status != 0)); then
    n=$((n + 1))
    victim "$n"
    pid=$last_pid
  fi
fi
wait_for "$pid" "${waited[@]}"
echo "seat 0 killed $kills times, $n processes"

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
missing=$(cat "$tmp"/victim-*.out | grep -c "holds a commitment this process does not have" || true)
((missing == 0)) || fail "$missing restarted process(es) lost a commitment"
resumed=$(cat "$tmp"/victim-*.out | grep -c "resuming the commitment kept in" || true)
((resumed > 0)) || fail "no restart resumed a commitment: no kill landed between a commit and its reveal"
if ((${#state[@]})); then
  left=$(find "$tmp/state" -type f | wc -l)
  ((left == 0)) || fail "the match ended, but $left file(s) are left in the state directory"
fi
echo "PASS: Node kit --state_dir: seat 0 SIGKILLed $kills times, $resumed commitment(s) resumed after a restart, no fault, the log genuine"
