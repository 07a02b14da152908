# shellcheck shell=bash disable=SC2154  # tmp, match, state: the caller's.
# The kill loop of the --state_dir crash tests (bot_state_test.sh,
# python_kit_state_test.sh, node_kit_state_test.sh): seat 0's bot is
# SIGKILLed between a commit and its reveal, and started again on the same
# state directory, again and again, on a condition, not on a timer (which
# under load landed before the bot had even connected). Sourced, not run,
# after tests/e2e_lib.sh (spawn, $tmp).
#
# The caller defines, before calling state_kill_loop:
#   seat0 NAME           starts seat 0's bot (with --verbose, and the
#                        "${state[@]}" arguments) by spawn NAME, so its
#                        output is in $tmp/NAME.out and its pid in $last_pid
#   commit_ack_sed       a sed script (run with -n) that prints, from a
#                        line of that output acknowledging a commit
#                        ("<- commit_ack"), the commit's decision id
#   state                the bot's --state_dir arguments: empty when the
#                        test runs without a state directory; else the
#                        directory is $tmp/state and a decision D's record
#                        $tmp/state/$match-0-D.json
#   match                the match's id
#   KILLS, CAP_S, WAIT_S from the environment, else 5, 40, 15 (set here)
#
#   state_kill_loop PREFIX
#       starts seat 0's bot as PREFIX-1; then, KILLS times at most, within
#       CAP_S seconds: waits (at most WAIT_S seconds, while the bot runs)
#       until its log acknowledges the commit of a decision newer than the
#       one at the last kill (so not the seed, whose reveal follows at once)
#       whose record is in the state directory (when there is one),
#       SIGKILLs it 0 to 200 ms later, so between that commit and its
#       reveal, and starts it again as PREFIX-N on the same directory. It
#       stops early when the bot exits or no such commit comes. Sets
#       $kills (the kills that landed), $last (the decision at the last
#       kill), $n (the processes started: the last is PREFIX-$n) and $pid
#       (the last one's, left running for the caller to wait_for).
#   count_resumes PREFIX
#       once the bots have ended: sets $reloads, the PREFIX-* processes
#       that said "resuming the commitment kept in $tmp/state", and $lost,
#       the lines of theirs saying "the referee holds a commitment this
#       process does not have"; prints both with $kills and $n.

KILLS=${KILLS:-5}  # Kills between a commit and its reveal.
CAP_S=${CAP_S:-40}  # Seconds all the kills may take.
WAIT_S=${WAIT_S:-15}  # Seconds to wait for one commit to kill after.

# acked OUT: the newest decision whose commit OUT's bot saw acknowledged.
acked() {
  { sed -n "$commit_ack_sed" "$1" || true; } 2>/dev/null | sort -n | tail -1
}

# recorded DECISION: whether seat 0's record of it is there (if kept).
recorded() {
  ((${#state[@]} == 0)) || [[ -e $tmp/state/$match-0-$1.json ]]
}

state_kill_loop() {
  local prefix=$1 d cap wait_until
  kills=0 last=0 n=1
  seat0 "$prefix-1"
  pid=$last_pid
  cap=$((SECONDS + CAP_S))
  while ((kills < KILLS && SECONDS < cap)); do
    # A decision newer than at the last kill committed, acknowledged and
    # recorded: its reveal is owed until the slow seats commit.
    d="" wait_until=$((SECONDS + WAIT_S))
    while ((SECONDS < wait_until)) && kill -0 "$pid" 2>/dev/null; do
      d=$(acked "$tmp/$prefix-$n.out")
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
    seat0 "$prefix-$n"
    pid=$last_pid
  done
}

count_resumes() {
  local prefix=$1
  reloads=$({ grep -l "resuming the commitment kept in $tmp/state" \
    "$tmp/$prefix"-*.out || true; } | wc -l)
  lost=$(cat "$tmp/$prefix"-*.out |
    grep -c "holds a commitment this process does not have" || true)
  echo "seat 0 killed $kills times between a commit and its reveal ($n processes); $reloads restarted process(es) resumed a commitment from the state directory, $lost lost"
}

# match_with_slow_python_peers
#     starts the referee (start_referee: $addr), creates a Rock, Paper,
#     Pyramid! match of 3 seats with generous clocks (tokens in $tmp/tok;
#     sets match) and spawns seats 1 and 2 as the Python kit's slow bot
#     (tests/python_kit_slow_bot.py, 0.8 s a decision: seat 0 owes its
#     reveal most of each decision), their pids in waited. Needs $PY and
#     the kit on PYTHONPATH.
match_with_slow_python_peers() {
  start_referee 127.0.0.1:0
  match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
    --commit_timeout_ms=10000 --reveal_timeout_ms=8000 \
    --seed_timeout_ms=60000 --token_dir="$tmp/tok" 2>/dev/null) ||
    fail "create-match"
  waited=()
  local seat
  for seat in 1 2; do
    spawn "peer-$seat" "$PY" tests/python_kit_slow_bot.py --referee "$addr" \
      --token_file "$tmp/tok/seat-$seat.token" --matches 1 --delay_s 0.8
    waited+=("$last_pid")
  done
}
