#!/usr/bin/env bash
# End-to-end test of the Python client kit (tools/clients/python) against a
# real referee over loopback gRPC.
#
#  0. The shipped stubs match proto/ (generate_stubs.sh --check); the kit
#     installs as documented, offline, into a fresh venv:
#       /usr/bin/python3 -m venv --system-site-packages VENV
#       VENV/bin/pip install --no-build-isolation tools/clients/python
#     and its unit tests (tests/python_kit_unit_test.py) pass there.
#  1. The kit's example bots on every seat (seat tokens), every game, several
#     seat counts: Rock, Paper, Pyramid! (3), Pyramid Shambo (2 and 4),
#     Flaming Pyramids (3, curse), Pyramid Scheme (2); random_bot.py on
#     every seat but one seat of RPP, Shambo-4 and Flaming, which play the
#     game's own example (examples/GAME_bot.py).
#  2. At the same time, a bot token with an Ed25519 key (registered with its
#     public key; the bot signs with --key_file) holding both seats of a
#     Flaming Pyramids match and seat 0 of a Rock, Paper, Pyramid! match, and
#     an unkeyed bot token holding seat 0 of one match of each game at once,
#     each token played by one kit process (C++ bots on the other seats).
#     Then a seat token of a match of phase 1, now over: `--matches 1`
#     counts the end the referee sends on connecting, and exits 0. Then
#     two processes with one seat token: the second one's stream replaces
#     the first one's, and the first exits 1 saying that another process
#     connected with its token, instead of reconnecting (which would take
#     the seat back, and so on forever); the second keeps the seat.
#  3. A strategy slower than the commit deadline (tests/python_kit_slow_bot.py):
#     the kit commits its fallback action before the deadline; no seat is
#     faulted and the match ends normally. The seed decision's deadline is a
#     minute (refctl --seed_timeout_ms), so that the bots' start on a loaded
#     machine faults nobody.
#  4. The referee is SIGKILLed mid-match and restarted on its data directory:
#     the kit bots reconnect on their own and finish the match. Then a
#     network blip: seat 0's bot talks through a proxy
#     (tests/python_kit_blip_proxy.py) that cuts its connection on the bot's
#     side only, mid-match; the referee still holds the old stream, which
#     the bot's reconnection replaces (ABORTED, to nobody): the bot must
#     reconnect and finish, not stop as if another process took its token.
#  5. tools/clients/play_local.sh runs the installed kit's random bot against
#     C++ bots (3 Pyramid Shambo matches, verified by the runner). Then a
#     bot that cannot start (ModuleNotFoundError): play_local.sh prints its
#     last lines, naming its log, at its first failed exit (not only in
#     DIR/bots/mine.log after 35 s of restarts); stopped then.
#  6. A match over TLS (--tls_ca), against a second referee with a
#     certificate made here with openssl.
# Every log is fetched with `refctl get-log` and must verify as genuine, and
# say that every seat named its header ("N of N seats named this header":
# the kit copies the seed request's header_hash into its seed contribution;
# the C++ bot on the other seats of phase 2 does too); the unit tests check
# the seed action the kit builds.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/python
LIMIT=60  # Seconds any one phase may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee bot refctl replay keygen

# --- 0. stubs, install, unit tests
"$KIT/generate_stubs.sh" --check >/dev/null || fail "the kit's stubs are stale"
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" ||
  fail "python3 -m venv (Debian: python3-venv)"
"$tmp/venv/bin/pip" install --quiet --no-build-isolation "$KIT" \
  >"$tmp/pip.out" 2>&1 || fail "pip install --no-build-isolation $KIT"
PY=$tmp/venv/bin/python
where=$(cd / && "$PY" -c 'import pyramid_kit; print(pyramid_kit.__file__)')
[[ $where == "$tmp/venv/"* ]] || fail "pyramid_kit imported from $where, not the venv"
PYTHONDONTWRITEBYTECODE=1 "$PY" tests/python_kit_unit_test.py 2>"$tmp/unit.out" ||
  fail "tests/python_kit_unit_test.py"
tail -n 1 "$tmp/unit.out"
RANDOM_BOT=$KIT/examples/random_bot.py

# --- the referee
start_referee "unix:$tmp/referee.sock" # Started again on it below.

# --- 1. random kit bots on every seat, every game
matches=()
waited=()
kit_match() {  # NAME GAME SEATS [OPTIONS [SEAT EXAMPLE]]: EXAMPLE on SEAT
  local name=$1 game=$2 seats=$3 options=${4:-} match seat script
  match=$(refctl create-match --game="$game" --seats="$seats" \
    --options="$options" --token_dir="$tmp/tok-$name" 2>/dev/null) ||
    fail "create-match $game"
  matches+=("$match")
  for ((seat = 0; seat < seats; seat++)); do
    script=$RANDOM_BOT
    [[ $seat == "${5:-}" ]] && script=$KIT/examples/$6
    spawn "$name-$seat" "$PY" "$script" --referee "$addr" \
      --token_file "$tmp/tok-$name/seat-$seat.token" --matches 1
    waited+=("$last_pid")
  done
}
kit_match rpp3 rock_paper_pyramid 3 "" 0 rock_paper_pyramid_bot.py
kit_match shambo2 pyramid_shambo 2
kit_match shambo4 pyramid_shambo 4 "" 3 pyramid_shambo_bot.py
kit_match flaming3 flaming_pyramids 3 "flaming_pyramids { curse: true }" 2 \
  flaming_pyramids_bot.py
kit_match scheme2 pyramid_scheme 2

# --- 2. bot tokens: one keyed, one carrying a match of every game at once
"$BIN/keygen" --out="$tmp/keyed.key" >/dev/null 2>&1 || fail "keygen"
keyed=$(refctl register-bot keyed --public_key="$(cat "$tmp/keyed.key.pub")" \
  --token_out="$tmp/keyed.token" 2>/dev/null) || fail "register-bot keyed"
multi=$(refctl register-bot multi --token_out="$tmp/multi.token" 2>/dev/null) ||
  fail "register-bot multi"
others=$(refctl register-bot others --token_out="$tmp/others.token" 2>/dev/null) ||
  fail "register-bot others"
bot_matches=()
bot_match() {  # GAME BOTS
  local match
  match=$(refctl create-match --game="$1" --bots="$2" --token_dir="$tmp" \
    2>/dev/null) || fail "create-match $1 --bots=$2"
  bot_matches+=("$match")
}
bot_match flaming_pyramids "$keyed,$keyed"
bot_match rock_paper_pyramid "$keyed,$others,$others"
bot_match rock_paper_pyramid "$multi,$others,$others"
bot_match pyramid_shambo "$multi,$others,$others"
bot_match flaming_pyramids "$multi,$others"
bot_match pyramid_scheme "$multi,$others,$others"
spawn keyed "$PY" "$RANDOM_BOT" --referee "$addr" --token_file "$tmp/keyed.token" \
  --key_file "$tmp/keyed.key" --matches 2
waited+=("$last_pid")
PYRAMID_TOKEN=$(cat "$tmp/multi.token") PYRAMID_REFEREE=$addr \
  spawn multi "$PY" "$RANDOM_BOT" --matches 4
waited+=("$last_pid")
# The C++ bot holding the other seats plays until it is stopped (it counts a
# MatchEnded per seat, and it holds two seats of some matches).
spawn others "$BIN/bot" --referee="$addr" --token_file="$tmp/others.token" --quiet
others_pid=$last_pid

wait_for "${waited[@]}"
kill "$others_pid"
for name in rpp3-0 rpp3-1 shambo2-1 shambo4-3 shambo4-0 flaming3-2 flaming3-0 scheme2-0; do
  expect_clean "$name" 1
done
expect_clean keyed 2
expect_clean multi 4
# The kit's bots (and the C++ bot on the other seats) name the log header.
for match in "${matches[@]}" "${bot_matches[@]}"; do verify_named "$match"; done
echo "phase 1-2: $((${#matches[@]} + ${#bot_matches[@]})) matches genuine (${SECONDS}s)"

# A seat token whose match is over: the referee sends its end on connecting
# and nothing more will come; --matches 1 counts it and ends, as
# build/bin/bot does, instead of waiting forever.
spawn over "$PY" "$RANDOM_BOT" --referee "$addr" \
  --token_file "$tmp/tok-rpp3/seat-1.token" --matches 1 --reconnect_for_s 0
wait_for "$last_pid"
expect_clean over 1
echo "phase 2b: the seat token of a finished match ends at once (${SECONDS}s)"

# A seat token whose match broke (the referee could not write its log): it
# is sent the DATA_LOSS PlayError and never a MatchEnded. --matches 1 counts
# the match as over and ends (status 1: the match broke), in the kit and in
# build/bin/bot, instead of waiting forever.
spawn broken-referee "$PY" tests/broken_match_referee.py "$tmp/broken.port"
poll test -s "$tmp/broken.port"
broken_addr=127.0.0.1:$(cat "$tmp/broken.port")
printf '0123456789abcdef.%s\n' "$(printf 'ab%.0s' {1..32})" >"$tmp/broken.token"
spawn broken-kit "$PY" "$RANDOM_BOT" --referee "$broken_addr" \
  --token_file "$tmp/broken.token" --matches 1 --reconnect_for_s 0
spawn broken-cc "$BIN/bot" --referee="$broken_addr" \
  --token_file="$tmp/broken.token" --matches=1 --reconnect_for_s=0
for pid in "${pids[@]: -2}"; do
  reap "$pid"
  ((status == 1)) || fail "${names[$pid]} exited with status $status"
done
grep -q "^pyramid_kit: 1 match(es) ended, 1 error(s)" "$tmp/broken-kit.out" ||
  fail "the kit did not count the broken match: $(tail -3 "$tmp/broken-kit.out")"
grep -q "^bot: 1 match(es) ended, 1 error(s)" "$tmp/broken-cc.out" ||
  fail "bot did not count the broken match: $(tail -3 "$tmp/broken-cc.out")"
echo "phase 2c: the seat token of a broken match ends at once (${SECONDS}s)"

# Two processes with one token: the older stops, the newer keeps the seat.
twice=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok-twice" 2>/dev/null) ||
  fail "create-match twice"
expect_older_stops twice "$twice" \
  "pyramid_kit: giving up: another process connected with this token; stopping (stream ended: ABORTED: replaced by a newer stream)" \
  "$PY" "$RANDOM_BOT" --referee "$addr" --token_file "$tmp/tok-twice/seat-0.token"
kill -TERM "$new_pid"
reap "$new_pid"
((status == 0)) || fail "the newer kit bot exited with status $status on SIGTERM"
grep -q "^pyramid_kit: 0 match(es) ended, 0 error(s), 0 fallback action(s), 1 stream(s)$" \
  "$tmp/twice-new.out" || fail "the newer kit bot lost its stream: $(cat "$tmp/twice-new.out")"
echo "phase 2d: of two processes with one token, the older stops (${SECONDS}s)"

# --- 3. a strategy slower than the commit deadline
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --commit_timeout_ms=4000 --reveal_timeout_ms=10000 --seed_timeout_ms=60000 \
  --token_dir="$tmp/tok-slow" 2>/dev/null) || fail "create-match slow"
spawn slow "$PY" tests/python_kit_slow_bot.py --referee "$addr" \
  --token_file "$tmp/tok-slow/seat-0.token" --matches 1 --delay_s 6 \
  --slow_decisions 2 --deadline_margin_ms 1500
waited=("$last_pid")
# Not --quiet: should a peer outlive its match, its output says whether
# the match's end reached it (its "match ... rank" line) or not.
for seat in 1 2; do
  spawn "slow-peer-$seat" "$PY" "$RANDOM_BOT" --referee "$addr" \
    --token_file "$tmp/tok-slow/seat-$seat.token" --matches 1
  waited+=("$last_pid")
done
wait_for "${waited[@]}"
expect_clean slow 1
grep -q "0 error(s), 2 fallback action(s)" "$tmp/slow.out" ||
  fail "the slow strategy's two late decisions were not answered by the fallback"
out=$(verify_named "$match")
echo "$out"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/slow-show.txt" 2>&1 ||
  fail "replay show $match"
! grep -qi "fault" "$tmp/slow-show.txt" || fail "the slow match's log holds a fault"
echo "phase 3: fallback actions before the deadline, no fault (${SECONDS}s)"

# --- 4. the referee dies mid-match; the kit bots reconnect
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-re" 2>/dev/null) || fail "create-match reconnect"
waited=()
for seat in 0 1 2; do
  spawn "re-$seat" "$PY" tests/python_kit_slow_bot.py --referee "$addr" \
    --token_file "$tmp/tok-re/seat-$seat.token" --matches 1 --delay_s 0.3
  waited+=("$last_pid")
done
past_decision_2() {
  local info re='"decision_id": *"?([0-9]+)'
  info=$(refctl get-match "$match" 2>/dev/null) || return 1
  [[ $info =~ $re ]] && ((BASH_REMATCH[1] >= 2))
}
poll past_decision_2
kill -9 "$referee_pid"
wait "$referee_pid" 2>/dev/null || true
sleep 0.5
start_referee "$addr"
wait_for "${waited[@]}"
for seat in 0 1 2; do
  expect_clean "re-$seat" 1
  grep -Eq "^pyramid_kit: 1 match\(es\) ended, 0 error\(s\), [0-9]+ fallback action\(s\), [2-9] stream\(s\)" \
    "$tmp/re-$seat.out" || fail "re-$seat did not reconnect"
done
verify_named "$match"
echo "phase 4: reconnected after a referee SIGKILL (${SECONDS}s)"

spawn blip-proxy "$PY" tests/python_kit_blip_proxy.py "$addr" "$tmp/blip.port"
blip_proxy=$last_pid
poll test -s "$tmp/blip.port"
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok-blip" 2>/dev/null) ||
  fail "create-match blip"
spawn blip-0 "$PY" tests/python_kit_slow_bot.py \
  --referee "127.0.0.1:$(cat "$tmp/blip.port")" \
  --token_file "$tmp/tok-blip/seat-0.token" --matches 1 --delay_s 0.3
waited=("$last_pid")
for seat in 1 2; do
  spawn "blip-$seat" "$PY" tests/python_kit_slow_bot.py --referee "$addr" \
    --token_file "$tmp/tok-blip/seat-$seat.token" --matches 1 --delay_s 0.3
  waited+=("$last_pid")
done
poll past_decision_2
kill -USR1 "$blip_proxy"
poll grep -q "^cut 1 connection" "$tmp/blip-proxy.out"
wait_for "${waited[@]}"
for seat in 0 1 2; do expect_clean "blip-$seat" 1; done
grep -q "^pyramid_kit: stream ended (UNAVAILABLE: " "$tmp/blip-0.out" ||
  fail "seat 0's stream did not break at the blip"
grep -Eq "^pyramid_kit: 1 match\(es\) ended, 0 error\(s\), [0-9]+ fallback action\(s\), [2-9] stream\(s\)" \
  "$tmp/blip-0.out" || fail "seat 0 did not reconnect after the blip"
verify_named "$match"
kill "$blip_proxy"
echo "phase 4b: reconnected after a network blip (${SECONDS}s)"

# --- 5. the documented one-command game against C++ bots (play_local.sh)
PYRAMID_BIN=$BIN timeout "$LIMIT" tools/clients/play_local.sh --game=pyramid_shambo \
  --seats=3 --out="$tmp/play-local" -- "$PY" "$RANDOM_BOT" >"$tmp/play-local.out" 2>&1 ||
  fail "play_local.sh with the Python kit's random bot"
grep -q "^3 matches, all included in checkpoint" "$tmp/play-local.out" ||
  fail "play_local.sh did not play and verify 3 matches"
setsid env PYRAMID_BIN="$BIN" tools/clients/play_local.sh --seats=3 \
  --out="$tmp/play-broken" -- "$PY" -c "import no_such_module_here" \
  >"$tmp/play-broken.out" 2>&1 &
broken_play=$!
pids+=("$broken_play")
names[$broken_play]=play-broken
poll grep -q "^play_local: | ModuleNotFoundError: No module named 'no_such_module_here'" \
  "$tmp/play-broken.out"
grep -qF "play_local: your bot failed; the last lines of its output ($tmp/play-broken/bots/mine.log):" \
  "$tmp/play-broken.out" || fail "play_local.sh did not name the failed bot's log"
# The whole group (the runner would wait out its matches' seed deadlines).
kill -KILL -- "-$broken_play" 2>/dev/null || true
reap "$broken_play"
echo "phase 5: play_local.sh, and a bot that cannot start said at once (${SECONDS}s)"

# --- 6. TLS: a referee with a certificate; the bots trust it with --tls_ca
start_tls_referee
match=$(tls_refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-tls" 2>/dev/null) || fail "create-match over TLS"
waited=()
for seat in 0 1 2; do
  spawn "tls-$seat" "$PY" "$RANDOM_BOT" --referee "$tls_addr" --tls_ca "$tmp/tls/cert.pem" \
      --token_file "$tmp/tok-tls/seat-$seat.token" --matches 1
  waited+=("$last_pid")
done
wait_for "${waited[@]}"
for seat in 0 1 2; do expect_clean "tls-$seat" 1; done
verify_named "$match" tls_refctl "$tmp/tls/data"
echo "phase 6: a match over TLS (${SECONDS}s)"

echo "PASS: Python kit: installed with pip, $((${#matches[@]} + ${#bot_matches[@]} + 4)) matches of every game (seat tokens, a keyed bot token, one bot token on 4 matches at once, a slow strategy, a referee restart, a network blip), two processes on one token, play_local.sh and TLS; every log genuine"
