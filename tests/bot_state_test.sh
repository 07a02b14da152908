#!/usr/bin/env bash
# Crash test of the C++ reference bot's --state_dir (durable commitments,
# tools/bot/state_dir.h): build/bin/bot SIGKILLed between its commit and its
# reveal, and started again on the same state directory, reveals what it
# committed to.
#
# One Rock, Paper, Pyramid! match of 3 seats on a real referee: seats 1 and
# 2 are Python kit bots whose strategy takes 0.8 s a decision
# (tests/python_kit_slow_bot.py), so that seat 0, the C++ bot, whose
# random strategy answers at once, spends most of each decision owing its
# reveal (the reveal phase opens only once every seat has committed). Seat
# 0's bot runs with --state_dir and is SIGKILLed at random moments 0.3 to
# 1.5 s apart, KILLS times (default 8), each time started again with the
# same state directory; then it plays to the end. The match must end with
# no fault at all (no FAULT_REVEAL_TIMEOUT or FAULT_REVEAL_MISMATCH for
# seat 0, none for the others), its log must verify (`replay verify`, every
# seat naming the header), the restarted bots must have read commitments
# back from the directory (said "the commitment read back from"; the count
# is printed), none may have said one lost, and the directory must be
# empty once the match is over.
#
# BOT_STATE_TEST_WITHOUT_STATE_DIR=1 runs the same without --state_dir, to
# see the test catch what it is for: a kill between commit and reveal then
# faults seat 0 at the reveal deadline (the bot says "the referee holds a
# commitment this process does not have") and the test fails.
#
# Runs from the source root; the slow peers use the kit from
# tools/clients/python and Debian's /usr/bin/python3. PYRAMID_BIN names the
# built binaries (default build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/python
LIMIT=90  # Seconds any one phase may take.
KILLS=${KILLS:-8}

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl replay bot

export PYTHONPATH=$KIT PYTHONDONTWRITEBYTECODE=1
PY=/usr/bin/python3
state=(--state_dir="$tmp/state")
[[ ${BOT_STATE_TEST_WITHOUT_STATE_DIR:-} == 1 ]] && state=()

start_referee 127.0.0.1:0
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --commit_timeout_ms=10000 --reveal_timeout_ms=8000 --seed_timeout_ms=60000 \
  --token_dir="$tmp/tok" 2>/dev/null) || fail "create-match"

waited=()
for seat in 1 2; do
  spawn "peer-$seat" "$PY" tests/python_kit_slow_bot.py --referee "$addr" \
    --token_file "$tmp/tok/seat-$seat.token" --matches 1 --delay_s 0.8
  waited+=("$last_pid")
done

# Seat 0: started, killed at a random moment, started again, KILLS times.
seat0() {  # NAME: starts seat 0's bot, its output in $tmp/NAME.out
  spawn "$1" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok/seat-0.token" --matches=1 "${state[@]}"
}
kills=0
for ((i = 1; i <= KILLS; i++)); do
  seat0 "seat0-$i"
  pid=$last_pid
  ms=$((300 + RANDOM % 1201))  # 0.3 to 1.5 s.
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  if ! kill -0 "$pid" 2>/dev/null; then
    break  # The match is over already.
  fi
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  kills=$((kills + 1))
done
seat0 seat0-last
waited+=("$last_pid")
wait_for "${waited[@]}"

reloads=$(cat "$tmp"/seat0-*.out | grep -c "the commitment read back from" || true)
lost=$(cat "$tmp"/seat0-*.out | grep -c "holds a commitment this process does not have" || true)
echo "seat 0 killed $kills times; $reloads commitment(s) read back from the state directory, $lost lost"

verify_named "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/show.txt" 2>&1 ||
  fail "replay show $match"
if grep -i "fault" "$tmp/show.txt"; then
  fail "the match's log holds a fault (seat 0 killed $kills times, $reloads commitment(s) read back, $lost lost)"
fi
grep -q "^bot: 1 match(es) ended, 0 error(s)" "$tmp/seat0-last.out" ||
  fail "seat 0's last bot did not end 1 match without error"
! grep -q "(forfeited)" "$tmp/seat0-last.out" || fail "seat 0 saw a forfeit"
((kills > 0)) || fail "seat 0 was never killed: the match ended first"
((reloads > 0)) || fail "no restarted bot read a commitment back: no kill landed between a commit and its reveal (run again, or raise KILLS)"
((lost == 0)) || fail "$lost commitment(s) lost"
left=$(ls -A "$tmp/state")
[[ -z $left ]] || fail "the state directory still holds records after the match: $left"
echo "PASS: build/bin/bot --state_dir: seat 0 SIGKILLed $kills times, $reloads commitment(s) read back after a restart, no fault, the log genuine, the state directory empty at the end"
