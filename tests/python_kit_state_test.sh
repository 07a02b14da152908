#!/usr/bin/env bash
# Crash test of the Python kit's --state_dir (durable commitments): a kit
# bot SIGKILLed between its commit and its reveal, and started again on the
# same state directory, reveals what it committed to.
#
# One Rock, Paper, Pyramid! match of 3 seats on a real referee: seats 1 and
# 2 are kit bots whose strategy takes 0.8 s a decision
# (tests/python_kit_slow_bot.py), so that seat 0, whose random strategy
# answers at once, spends most of each decision owing its reveal (the
# reveal phase opens only once every seat has committed). Seat 0's kit bot
# runs with --state_dir and --verbose, and is SIGKILLed between an
# acknowledged ("<- commit_ack" in its log), recorded commit and its reveal
# and started again on the same state directory, KILLS times (default 5)
# within CAP_S seconds (default 40), on that condition, not on a timer
# (the loop is tests/state_kill_loop.sh); then it plays to the end. The
# match must end with no fault at all (no FAULT_REVEAL_TIMEOUT or
# FAULT_REVEAL_MISMATCH for seat 0, none for the others), its log must
# verify (`replay verify`, every seat naming the header), all KILLS kills
# must have landed, at least KILLS restarted processes must have said
# "resuming the commitment kept in DIR" (as the Node kit says it), none
# that a commitment was lost, and the directory must be empty once the
# match is over.
#
# PYTHON_KIT_STATE_TEST_WITHOUT_STATE_DIR=1 runs the same without
# --state_dir, to see the test catch what it is for: a kill between commit
# and reveal then faults seat 0 at the reveal deadline (the bot says "the
# referee holds a commitment this process does not have") and the test
# fails.
#
# Runs from the source root, with the kit from tools/clients/python and
# Debian's /usr/bin/python3. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/python
LIMIT=90  # Seconds any one phase may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
# shellcheck source=tests/state_kill_loop.sh
source "${BASH_SOURCE%/*}/state_kill_loop.sh"  # KILLS, CAP_S, WAIT_S
need_built referee refctl replay

export PYTHONPATH=$KIT PYTHONDONTWRITEBYTECODE=1
PY=/usr/bin/python3
state=(--state_dir "$tmp/state")
[[ ${PYTHON_KIT_STATE_TEST_WITHOUT_STATE_DIR:-} == 1 ]] && state=()

match_with_slow_python_peers

# Seat 0: started, killed between a commit and its reveal, started again.
seat0() {  # NAME: starts seat 0's bot, its output in $tmp/NAME.out
  spawn "$1" "$PY" "$KIT/examples/random_bot.py" --referee "$addr" \
    --token_file "$tmp/tok/seat-0.token" --matches 1 --verbose "${state[@]}"
}
commit_ack_sed='s/.*<- commit_ack: .*decision_id: \([0-9]*\).*/\1/p'
state_kill_loop seat0
waited+=("$pid")
wait_for "${waited[@]}"
count_resumes seat0

verify_named "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/show.txt" 2>&1 ||
  fail "replay show $match"
if grep -i "fault" "$tmp/show.txt"; then
  fail "the match's log holds a fault (seat 0 killed $kills times, $reloads restart(s) resumed a commitment, $lost lost)"
fi
expect_clean "seat0-$n" 1
((kills >= KILLS)) || fail "only $kills of $KILLS kills landed between a commit and its reveal (the match ended, or no acknowledged commit came within ${WAIT_S}s)"
((reloads >= KILLS)) || fail "only $reloads of the $kills restarted processes resumed a commitment from the state directory"
((lost == 0)) || fail "$lost commitment(s) lost"
left=$(ls -A "$tmp/state")
[[ -z $left ]] || fail "the state directory still holds records after the match: $left"
echo "PASS: Python kit --state_dir: seat 0 SIGKILLed $kills times between a commit and its reveal, $reloads restart(s) resumed a commitment, no fault, the log genuine, the state directory empty at the end"
