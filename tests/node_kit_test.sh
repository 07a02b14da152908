#!/usr/bin/env bash
# End-to-end test of the Node client kit (tools/clients/node) against a real
# referee over loopback gRPC.
#
#  0. `npm ci` installs the pinned packages of package-lock.json (from the
#     npm registry: without it this test fails, it does not skip), and the
#     kit's unit tests pass (`npm test`).
#  1. One match of each game played by Node kit bots only: a bot token
#     registered with an Ed25519 key (the bot signs with --key_file) holds
#     every seat but the last of all four matches at once, on one stream;
#     the last seat of each is a Node bot with a seat token. Then that seat
#     token of a match now over: `--matches=1` counts the end the referee
#     sends on connecting, and exits 0. Then two processes with one seat
#     token: the second one's stream replaces the first one's, and the
#     first exits 1 saying that another process connected with its token,
#     instead of reconnecting; the second keeps the seat.
#  2. A slow asynchronous strategy (tests/node_kit_slow_bot.js) against a
#     4-second commit deadline (the seed decision's is a minute, so that the
#     bots' start on a loaded machine faults nobody): the kit commits its
#     fallback action in time;
#     then the referee is SIGKILLed mid-match and restarted on its data
#     directory, and the Node bots reconnect and finish, saying so as the
#     Python kit does ("stream ended (UNAVAILABLE: ...); reconnecting in
#     0.1 s"). No seat is faulted.
#  3. A match over TLS (--tls_ca), against a second referee with a
#     certificate made here with openssl.
# Every log is fetched with `refctl get-log` and must verify as genuine, and
# say that every seat named its header ("N of N seats named this header":
# the kit copies the seed request's header_hash into its seed contribution).
# Before 1, a --proto_dir that does not exist must exit 2, naming it.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin). Needs node (18 or later) and npm (tools/setup.sh).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/node
LIMIT=60  # Seconds any one phase may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl replay keygen

command -v node >/dev/null && command -v npm >/dev/null ||
  fail "node and npm are not installed (tools/setup.sh installs them)"

# --- 0. packages and unit tests
(cd "$KIT" && timeout 300 npm ci --no-audit --no-fund) >"$tmp/npm.out" 2>&1 ||
  fail "npm ci in $KIT (is the npm registry reachable?)"
(cd "$KIT" && npm test) >"$tmp/unit.out" 2>&1 || fail "npm test in $KIT"
grep -E "^# (pass|fail)" "$tmp/unit.out"
RANDOM_BOT=$KIT/examples/random_bot.js

# A proto directory that is not there is a usage error (2) that names it.
echo token >"$tmp/any.token"
status=0
node "$RANDOM_BOT" --token_file="$tmp/any.token" --proto_dir="$tmp/no-proto" \
  >"$tmp/noproto.out" 2>&1 || status=$?
((status == 2)) && grep -q "no pyramid/referee/v1/referee_service.proto under $tmp/no-proto" \
  "$tmp/noproto.out" || fail "--proto_dir missing: status $status: $(cat "$tmp/noproto.out")"

# --- the referee
start_referee "unix:$tmp/referee.sock" # Started again on it below.

# --- 1. one match of each game, Node bots only
"$BIN/keygen" --out="$tmp/node.key" >/dev/null 2>&1 || fail "keygen"
nodebot=$(refctl register-bot nodebot --public_key="$(cat "$tmp/node.key.pub")" \
  --token_out="$tmp/node.token" 2>/dev/null) || fail "register-bot"
matches=()
waited=()
node_match() {  # NAME GAME SEATS
  local bots="" i match
  for ((i = 1; i < $3; i++)); do bots+="$nodebot,"; done
  match=$(refctl create-match --game="$2" --bots="$bots" \
    --token_dir="$tmp/tok-$1" 2>/dev/null) || fail "create-match $2"
  matches+=("$match")
  spawn "$1" node "$RANDOM_BOT" --referee="$addr" \
    --token_file="$tmp/tok-$1/seat-$(($3 - 1)).token" --matches=1
  waited+=("$last_pid")
}
node_match rpp rock_paper_pyramid 3
node_match shambo pyramid_shambo 3
node_match flaming flaming_pyramids 2
node_match scheme pyramid_scheme 3
spawn nodebot node "$RANDOM_BOT" --referee="$addr" --token_file="$tmp/node.token" \
  --key_file="$tmp/node.key" --matches=4
waited+=("$last_pid")
wait_for "${waited[@]}"
for name in rpp shambo flaming scheme; do expect_clean "$name" 1; done
expect_clean nodebot 4
for match in "${matches[@]}"; do verify_named "$match"; done
echo "phase 1: one match of each game, genuine (${SECONDS}s)"

# A seat token whose match is over: the referee sends its end on connecting
# and nothing more will come; --matches=1 counts it and ends, as
# build/bin/bot does, instead of waiting forever.
spawn over node "$RANDOM_BOT" --referee="$addr" \
  --token_file="$tmp/tok-rpp/seat-2.token" --matches=1 --reconnect_for_s=0
wait_for "$last_pid"
expect_clean over 1
echo "phase 1b: the seat token of a finished match ends at once (${SECONDS}s)"

# Two processes with one token: the older stops, the newer keeps the seat.
twice=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok-twice" 2>/dev/null) ||
  fail "create-match twice"
expect_older_stops twice "$twice" \
  "pyramid_kit: giving up: another process connected with this token; stopping (stream ended: ABORTED: replaced by a newer stream)" \
  node "$RANDOM_BOT" --referee="$addr" --token_file="$tmp/tok-twice/seat-0.token"
kill -TERM "$new_pid"
reap "$new_pid"
((status == 0)) || fail "the newer Node bot exited with status $status on SIGTERM"
grep -q "^pyramid_kit: 0 match(es) ended, 0 error(s), 0 fallback action(s), 1 stream(s)$" \
  "$tmp/twice-new.out" || fail "the newer Node bot lost its stream: $(cat "$tmp/twice-new.out")"
echo "phase 1c: of two processes with one token, the older stops (${SECONDS}s)"

# --- 2. a slow strategy, then a referee restart mid-match
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --commit_timeout_ms=4000 --reveal_timeout_ms=10000 --seed_timeout_ms=60000 \
  --token_dir="$tmp/tok-slow" 2>/dev/null) || fail "create-match slow"
spawn slow node tests/node_kit_slow_bot.js --referee="$addr" \
  --token_file="$tmp/tok-slow/seat-0.token" --matches=1 --delay_ms=6000 \
  --slow_decisions=2 --deadline_margin_ms=1500
waited=("$last_pid")
for seat in 1 2; do
  spawn "slow-peer-$seat" node tests/node_kit_slow_bot.js --referee="$addr" \
    --token_file="$tmp/tok-slow/seat-$seat.token" --matches=1 --delay_ms=300
  waited+=("$last_pid")
done
past_decision_3() {
  local info re='"decision_id": *"?([0-9]+)'
  info=$(refctl get-match "$match" 2>/dev/null) || return 1
  [[ $info =~ $re ]] && ((BASH_REMATCH[1] >= 3))
}
poll past_decision_3
kill -9 "$referee_pid"
wait "$referee_pid" 2>/dev/null || true
sleep 0.5
start_referee "$addr"
wait_for "${waited[@]}"
expect_clean slow 1
grep -Eq "0 error\(s\), 2 fallback action\(s\), [2-9] stream\(s\)" "$tmp/slow.out" ||
  fail "the slow Node bot did not fall back twice and reconnect"
for seat in 1 2; do
  expect_clean "slow-peer-$seat" 1
  grep -Eq "[2-9] stream\(s\)" "$tmp/slow-peer-$seat.out" ||
    fail "slow-peer-$seat did not reconnect"
  # The line docs/writing-a-bot.md shows, as the Python kit prints it.
  grep -Eq "^pyramid_kit: stream ended \(UNAVAILABLE: .*\); reconnecting in 0\.1 s$" \
    "$tmp/slow-peer-$seat.out" ||
    fail "slow-peer-$seat: no 'reconnecting in 0.1 s' line: $(cat "$tmp/slow-peer-$seat.out")"
done
verify_named "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/slow-show.txt" 2>&1 ||
  fail "replay show $match"
! grep -qi "fault" "$tmp/slow-show.txt" || fail "the slow match's log holds a fault"
echo "phase 2: fallback before the deadline, reconnected after a referee SIGKILL (${SECONDS}s)"

# --- 3. TLS: a referee with a certificate; the bots trust it with --tls_ca
start_tls_referee
match=$(tls_refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-tls" 2>/dev/null) || fail "create-match over TLS"
waited=()
for seat in 0 1 2; do
  spawn "tls-$seat" node "$RANDOM_BOT" --referee="$tls_addr" --tls_ca="$tmp/tls/cert.pem" \
      --token_file="$tmp/tok-tls/seat-$seat.token" --matches=1
  waited+=("$last_pid")
done
wait_for "${waited[@]}"
for seat in 0 1 2; do expect_clean "tls-$seat" 1; done
verify_named "$match" tls_refctl "$tmp/tls/data"
echo "phase 3: a match over TLS (${SECONDS}s)"

echo "PASS: Node kit: npm ci, unit tests, $((${#matches[@]} + 2)) matches (every game; a keyed bot token on 4 matches at once; a slow strategy; a referee restart; TLS); every log genuine"
