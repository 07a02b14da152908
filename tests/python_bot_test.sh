#!/usr/bin/env bash
# End-to-end test of the example Python bot (tools/python/pyramid_bot.py)
# against a real referee over loopback gRPC, next to the C++ reference bot.
#
#  1. Seat token: a Rock, Paper, Pyramid! match where the Python bot plays
#     seat 0 (token from --token_file=FILE, as play_local.sh and the
#     tournament runner pass it) and two C++ bots play seats 1 and 2.
#  2. Bot token: a registered bot, played by one Python process (token from
#     $PYRAMID_TOKEN), holds seat 0 of two matches on one Play stream: the
#     first match is created before it connects (pushed on resume), the
#     second after (pushed live).
#  3. The same bot token in a restarted process: it is sent the MatchEnded
#     of the earlier matches again and must count only the match it plays.
#     (It takes the older, hyphenated flag spellings, still accepted.)
#     Then a second process with that bot token: its stream replaces the
#     first one's, and the first exits 1 saying that another process
#     connected with its token, instead of reconnecting.
#  4. A scripted three-seat client (tests/python_fault_check.py) checks the
#     messages around a mismatched reveal under the forfeit policy; its
#     seeds name the log header ("3 of 3 seats named this header").
#  5. Every other game: the Python bot on one seat and C++ bots on the others
#     in a Pyramid Shambo (4 seats), a Flaming Pyramids (3 seats, curse) and
#     a Pyramid Scheme (3 seats) match; the rank it prints must be the
#     verified one. Its action for a decision whose legal actions are not
#     listed (a Shambo payment with very many options, which random play
#     rarely meets) is checked on its own first.
# Every log is fetched with `refctl get-log` and must verify as genuine
# against the referee's public key.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin); the Python stubs are in PYRAMID_PYTHON_STUBS (default
# $PYRAMID_BIN/../python).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
STUBS=${PYRAMID_PYTHON_STUBS:-$BIN/../python}
PY=/usr/bin/python3
PYBOT=tools/python/pyramid_bot.py
LIMIT=30  # Seconds any one phase may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee bot refctl replay
[[ -f $STUBS/pyramid/referee/v1/referee_service_pb2_grpc.py ]] ||
  fail "no Python stubs in $STUBS (build the pyramid_python_stubs target)"

# --- the referee
start_referee 127.0.0.1:0

# --- 1. seat tokens: Python on seat 0, C++ on seats 1 and 2
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok1" 2>/dev/null) || fail "create-match"
spawn python1 "$PY" "$PYBOT" --referee "$addr" --stubs "$STUBS" \
  --token_file="$tmp/tok1/seat-0.token" --matches 1 --strategy random --seed 1 \
  --reconnect_for_s=30
py=$last_pid
spawn cpp1_1 "$BIN/bot" --referee="$addr" --token_file="$tmp/tok1/seat-1.token" \
  --matches=1 --quiet
c1=$last_pid
spawn cpp1_2 "$BIN/bot" --referee="$addr" --token_file="$tmp/tok1/seat-2.token" \
  --matches=1 --quiet
c2=$last_pid
wait_for "$py" "$c1" "$c2"
grep -q "^match $match seat 0: rank [123], score " "$tmp/python1.out" ||
  fail "the Python bot printed no MatchEnded for $match"
grep -q "1 match(es) ended, 0 error(s)" "$tmp/python1.out" ||
  fail "the Python bot reported errors"
verify_named "$match"

# --- 2. a bot token: one Python stream plays seat 0 of two matches
bot_id=$(refctl register-bot pybot --token_out="$tmp/pybot.token" 2>/dev/null) ||
  fail "register-bot"
match_a=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --token_dir="$tmp/tok2a" 2>/dev/null) || fail "create-match A"
PYRAMID_TOKEN=$(cat "$tmp/pybot.token") spawn python2 "$PY" "$PYBOT" \
  --referee "$addr" --stubs "$STUBS" --matches 2 --strategy random --seed 2
py=$last_pid
# Once the bot's stream is open, the next match's requests go to it live.
poll seat0_connected "$match_a"
match_b=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --token_dir="$tmp/tok2b" 2>/dev/null) || fail "create-match B"
others=()
for m in a b; do
  for s in 1 2; do
    spawn "cpp2${m}_$s" "$BIN/bot" --referee="$addr" \
      --token_file="$tmp/tok2$m/seat-$s.token" --matches=1 --quiet
    others+=("$last_pid")
  done
done
wait_for "$py" "${others[@]}"
for m in "$match_a" "$match_b"; do
  grep -q "^match $m seat 0: rank [123], score " "$tmp/python2.out" ||
    fail "the Python bot printed no MatchEnded for $m"
done
grep -q "2 match(es) ended, 0 error(s)" "$tmp/python2.out" ||
  fail "the Python bot reported errors"
verify_named "$match_a"
verify_named "$match_b"

# --- 3. the same bot restarted: its new stream first gets the MatchEnded of
# A and B again; it must count only the match it plays now.
spawn python_restart "$PY" "$PYBOT" --referee "$addr" --stubs "$STUBS" \
  --token-file "$tmp/pybot.token" --matches 1 --seed 3 --reconnect-for 30
py=$last_pid
poll seat0_connected "$match_a"
match_c=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --token_dir="$tmp/tok2c" 2>/dev/null) || fail "create-match C"
others=()
for s in 1 2; do
  spawn "cpp2c_$s" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok2c/seat-$s.token" --matches=1 --quiet
  others+=("$last_pid")
done
wait_for "$py" "${others[@]}"
grep -q "^match $match_c seat 0: rank [123], score " "$tmp/python_restart.out" ||
  fail "the restarted Python bot printed no MatchEnded for $match_c"
grep -q "1 match(es) ended, 0 error(s)" "$tmp/python_restart.out" ||
  fail "the restarted Python bot miscounted"
verify_named "$match_c"
match_e=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok2e" 2>/dev/null) ||
  fail "create-match E"
expect_older_stops python "$match_e" \
  "pyramid_bot: another process connected with this token; stopping" \
  "$PY" "$PYBOT" --referee "$addr" --stubs "$STUBS" --token_file "$tmp/pybot.token"
kill "$new_pid"

# --- 4. faults, by a scripted client on all three seats (python_fault_check.py)
match_d=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok4" 2>/dev/null) || fail "create-match D"
spawn fault "$PY" tests/python_fault_check.py "$addr" "$STUBS" "$tmp/tok4" \
  "$match_d"
wait_for "$last_pid"
cat "$tmp/fault.out"
# Its seats' seed contributions name the log header.
out=$(verify_named "$match_d")
[[ $out == *"; 3 of 3 seats named this header"[\;,]* ]] ||
  fail "the scripted client's seats did not all name the header: $out"
# --- 5. every other game, the Python bot on one seat
PYTHONDONTWRITEBYTECODE=1 "$PY" - "$STUBS" tools/python <<'PYEOF' ||
import sys
sys.path[:0] = sys.argv[1:]
from pyramid_bot import unlisted_action
from pyramid.referee.v1 import game_pb2, pyramid_shambo_pb2 as shambo_pb2
from pyramid.referee.v1 import referee_service_pb2 as pb
req = pb.DecisionRequest(game="pyramid_shambo", decision_id=9,
                         legal_actions_listed=False)
req.observation.pyramid_shambo.phase = shambo_pb2.SHAMBO_PHASE_PAYMENT
action = unlisted_action(req, game_pb2, shambo_pb2)
assert action is not None and action.pyramid_shambo.canonical, action
req.observation.pyramid_shambo.phase = shambo_pb2.SHAMBO_PHASE_THROW
assert unlisted_action(req, game_pb2, shambo_pb2) is None
req.game = "flaming_pyramids"
assert unlisted_action(req, game_pb2, shambo_pb2) is None
PYEOF
  fail "the Python bot's action for an unlisted Shambo payment is not canonical"

# play_game NAME GAME SEATS PY_SEAT [OPTIONS]: the Python bot on seat
# PY_SEAT, C++ bots on the others. Every bot must finish cleanly, the log
# must verify, and the Python bot must print its verified rank.
play_game() {
  local name=$1 game=$2 seats=$3 py_seat=$4 options=${5:-}
  local match seat out ranks waited=()
  match=$(refctl create-match --game="$game" --seats="$seats" \
    --options="$options" --token_dir="$tmp/tok-$name" 2>/dev/null) ||
    fail "create-match $game"
  for ((seat = 0; seat < seats; seat++)); do
    if ((seat == py_seat)); then
      spawn "python-$name" "$PY" "$PYBOT" --referee "$addr" --stubs "$STUBS" \
        --token_file "$tmp/tok-$name/seat-$seat.token" --matches 1 --seed 5
    else
      spawn "cpp-$name-$seat" "$BIN/bot" --referee="$addr" \
        --token_file="$tmp/tok-$name/seat-$seat.token" --matches=1 --quiet
    fi
    waited+=("$last_pid")
  done
  wait_for "${waited[@]}"
  grep -q "1 match(es) ended, 0 error(s)" "$tmp/python-$name.out" ||
    fail "the Python bot reported errors in $game"
  out=$(verify_named "$match")
  echo "$out"
  ranks=${out##*, ranks }
  read -ra ranks <<<"${ranks%%;*}"
  grep -Eq "^match $match seat $py_seat: rank ${ranks[py_seat]}, score -?[0-9]+ \[TERMINATION_(NORMAL|MOVE_LIMIT)\]$" \
    "$tmp/python-$name.out" ||
    fail "the Python bot did not print its verified rank in $game"
}
play_game shambo pyramid_shambo 4 3
play_game flaming flaming_pyramids 3 1 "flaming_pyramids { curse: true }"
play_game scheme pyramid_scheme 3 2
echo "PASS: Python clients played 8 matches (Rock, Paper, Pyramid!: seat token; bot token: 2 on one stream, 1 after a restart; a fault; one each of Pyramid Shambo, Flaming Pyramids, Pyramid Scheme); every log genuine"
