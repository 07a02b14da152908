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
# 0's bot runs with --state_dir and --verbose, and is killed on a
# condition, not on a timer (as tests/python_kit_state_test.sh is): the
# test waits (at most WAIT_S, 15 s) until the bot's commit of a decision
# newer than at the last kill (and not the seed, whose reveal follows at
# once) is acknowledged ("bot: <- commit_ack: ..." in its log) and its
# record is in the state directory, then SIGKILLs it 0 to 200 ms later, so
# between that commit and its reveal, and starts it again on the same
# state directory; KILLS times (default 5), within CAP_S seconds (default
# 40); then it plays to the end. The match must end with no fault at all
# (no FAULT_REVEAL_TIMEOUT or FAULT_REVEAL_MISMATCH for seat 0, none for
# the others), its log must verify (`replay verify`, every seat naming the
# header), all KILLS kills must have landed, at least KILLS restarted
# processes must have said "resuming the commitment kept in DIR" (as the
# kits say it), none that a commitment was lost, and the directory must be
# empty once the match is over (records are kept until their match ends,
# which removes them).
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
KILLS=${KILLS:-5}  # Kills between a commit and its reveal.
CAP_S=${CAP_S:-40}  # Seconds all the kills may take.
WAIT_S=${WAIT_S:-15}  # Seconds to wait for one commit to kill after.

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

# Seat 0: started, killed between a commit and its reveal, started again.
seat0() {  # NAME: starts seat 0's bot, its output in $tmp/NAME.out
  spawn "$1" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok/seat-0.token" --matches=1 --verbose "${state[@]}"
}
acked() {  # OUT: the newest decision whose commit OUT's bot saw acknowledged
  { sed -n 's/^bot: <- commit_ack: .* decision \([0-9]*\)$/\1/p' "$1" ||
    true; } 2>/dev/null | sort -n | tail -1
}
recorded() {  # DECISION: whether seat 0's record of it is there (if kept)
  ((${#state[@]} == 0)) || [[ -e $tmp/state/$match-0-$1.json ]]
}
kills=0 last=0 n=1
seat0 seat0-1
pid=$last_pid
cap=$((SECONDS + CAP_S))
while ((kills < KILLS && SECONDS < cap)); do
  # A decision newer than at the last kill committed, acknowledged and
  # recorded: its reveal is owed until the slow seats commit.
  d="" wait_until=$((SECONDS + WAIT_S))
  while ((SECONDS < wait_until)) && kill -0 "$pid" 2>/dev/null; do
    d=$(acked "$tmp/seat0-$n.out")
    [[ -n $d ]] && ((d > last)) && recorded "$d" && break
    d=""
    sleep 0.02
  done
  [[ -n $d ]] || break  # The match is over, or no commit came.
  sleep "0.$(printf '%03d' $((RANDOM % 201)))"  # 0 to 200 ms.
  kill -0 "$pid" 2>/dev/null || break
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  kills=$((kills + 1)) last=$d n=$((n + 1))
  seat0 "seat0-$n"
  pid=$last_pid
done
waited+=("$pid")
wait_for "${waited[@]}"

# Restarted processes that resumed a commitment from the directory.
reloads=$({ grep -l "resuming the commitment kept in $tmp/state" "$tmp"/seat0-*.out || true; } |
  wc -l)
lost=$(cat "$tmp"/seat0-*.out | grep -c "holds a commitment this process does not have" || true)
echo "seat 0 killed $kills times between a commit and its reveal; $reloads restarted process(es) resumed a commitment from the state directory, $lost lost"

verify_named "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/show.txt" 2>&1 ||
  fail "replay show $match"
if grep -i "fault" "$tmp/show.txt"; then
  fail "the match's log holds a fault (seat 0 killed $kills times, $reloads restart(s) resumed a commitment, $lost lost)"
fi
grep -q "^bot: 1 match(es) ended, 0 error(s)" "$tmp/seat0-$n.out" ||
  fail "seat 0's last bot did not end 1 match without error"
! grep -q "(forfeited)" "$tmp/seat0-$n.out" || fail "seat 0 saw a forfeit"
((kills >= KILLS)) || fail "only $kills of $KILLS kills landed between a commit and its reveal (the match ended, or no acknowledged commit came within ${WAIT_S}s)"
((reloads >= KILLS)) || fail "only $reloads of the $kills restarted processes resumed a commitment from the state directory"
((lost == 0)) || fail "$lost commitment(s) lost"
left=$(ls -A "$tmp/state")
[[ -z $left ]] || fail "the state directory still holds records after the match: $left"
echo "PASS: build/bin/bot --state_dir: seat 0 SIGKILLed $kills times between a commit and its reveal, $reloads restart(s) resumed a commitment, no fault, the log genuine, the state directory empty at the end"
