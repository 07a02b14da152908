#!/usr/bin/env bash
# Crash test of the Node client kit's durable commitments (--state_dir,
# tools/clients/node/lib/state.js) against a real referee over loopback.
#
# One Rock, Paper, Pyramid! match: seat 0 is the kit's random bot with
# --state_dir (and --verbose); seats 1 and 2 are slow kit bots
# (tests/node_kit_slow_bot.js, 1.2 s per decision), so that seat 0, which
# answers at once, spends most of each round holding a commitment whose
# reveal is not yet asked for (or owed). Seat 0's process is killed on a
# condition, not on a timer (which under load landed before the bot had
# even connected): the test waits (at most WAIT_S, 15 s) until its commit of
# a decision newer than at the last kill (and not the seed, whose reveal
# follows at once) is acknowledged ("<- commit_ack" in its log) and its
# record is in the state directory, then SIGKILLs it 0 to 200 ms later, so
# between that commit and its reveal, and starts it again on the same
# state directory; KILLS times (default 5), within CAP_S seconds (default
# 40). The clocks are generous (a 10 s reveal deadline), so the restarts
# make every deadline. The match must end with no FAULT_REVEAL_TIMEOUT or
# FAULT_REVEAL_MISMATCH (no fault at all, no forfeit), its log must verify
# (`replay verify`), all KILLS kills must have landed, at least KILLS
# restarted processes must have resumed a commitment from the directory
# ("resuming the commitment kept in DIR"), none may have said that the
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
KILLS=${KILLS:-5} # Kills between a commit and its reveal.
CAP_S=${CAP_S:-40} # Seconds all the kills may take.
WAIT_S=${WAIT_S:-15} # Seconds to wait for one commit to kill after.

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
    --token_file="$tmp/tok/seat-0.token" --matches=1 --reconnect_for_s=60 --verbose \
    "${state[@]}"
}
acked() { # OUT: the newest decision whose commit OUT's bot saw acknowledged
  { sed -n 's/.*<- commit_ack: .*"decision_id":"\([0-9]*\)".*/\1/p' "$1" ||
    true; } 2>/dev/null | sort -n | tail -1
}
recorded() { # DECISION: whether seat 0's record of it is there (if kept)
  ((${#state[@]} == 0)) || [[ -e $tmp/state/$match-0-$1.json ]]
}

# Kill seat 0 between a commit and its reveal while the match runs; each
# time a new process takes over with the same state directory.
kills=0 last=0 n=1
victim "$n"
pid=$last_pid
cap=$((SECONDS + CAP_S))
while ((kills < KILLS && SECONDS < cap)); do
  # A decision newer than at the last kill committed, acknowledged and
  # recorded: its reveal is owed until the slow seats commit.
  d="" wait_until=$((SECONDS + WAIT_S))
  while ((SECONDS < wait_until)) && kill -0 "$pid" 2>/dev/null; do
    d=$(acked "$tmp/victim-$n.out")
    [[ -n $d ]] && ((d > last)) && recorded "$d" && break
    d=""
    sleep 0.02
  done
  [[ -n $d ]] || break # The match is over, or no commit came.
  sleep "0.$(printf '%03d' $((RANDOM % 201)))" # 0 to 200 ms.
  kill -0 "$pid" 2>/dev/null || break
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  kills=$((kills + 1)) last=$d n=$((n + 1))
  victim "$n"
  pid=$last_pid
done
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
((kills >= KILLS)) || fail "only $kills of $KILLS kills landed between a commit and its reveal (the match ended, or no acknowledged commit came within ${WAIT_S}s)"
# Restarted processes that resumed a commitment from the directory.
resumed=$({ grep -l "resuming the commitment kept in $tmp/state" "$tmp"/victim-*.out || true; } |
  wc -l)
((resumed >= KILLS)) || fail "only $resumed of the $kills restarted processes resumed a commitment from the state directory"
if ((${#state[@]})); then
  left=$(find "$tmp/state" -type f | wc -l)
  ((left == 0)) || fail "the match ended, but $left file(s) are left in the state directory"
fi
echo "PASS: Node kit --state_dir: seat 0 SIGKILLed $kills times between a commit and its reveal, $resumed restart(s) resumed a commitment, no fault, the log genuine"
