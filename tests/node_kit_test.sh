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
#     the last seat of each is a Node bot with a seat token.
#  2. A slow asynchronous strategy (tests/node_kit_slow_bot.js) against a
#     3-second commit deadline: the kit commits its fallback action in time;
#     then the referee is SIGKILLed mid-match and restarted on its data
#     directory, and the Node bots reconnect and finish. No seat is faulted.
#  3. A match over TLS (--tls_ca), against a second referee with a
#     certificate made here with openssl.
# Every log is fetched with `refctl get-log` and must verify as genuine.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin). Needs node (18 or later) and npm (tools/setup.sh).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
KIT=tools/clients/node
LIMIT=60  # Seconds any one phase may take.

tmp=$(mktemp -d)
pids=()
declare -A names  # pid -> name, for messages
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.out; do
    [[ -f $f ]] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  exit 1
}

for tool in referee refctl replay keygen; do
  [[ -x $BIN/$tool ]] || fail "$BIN/$tool is not built"
done
command -v node >/dev/null && command -v npm >/dev/null ||
  fail "node and npm are not installed (tools/setup.sh installs them)"

spawn() {
  local name=$1
  shift
  "$@" >"$tmp/$name.out" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
  names[$last_pid]=$name
}

wait_for() {
  local deadline=$((SECONDS + LIMIT)) pid status
  for pid in "$@"; do
    while kill -0 "$pid" 2>/dev/null; do
      ((SECONDS < deadline)) || fail "${names[$pid]} still running after ${LIMIT}s"
      sleep 0.05
    done
    status=0
    wait "$pid" || status=$?
    ((status == 0)) || fail "${names[$pid]} exited with status $status"
  done
}

poll() {
  local deadline=$((SECONDS + LIMIT))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out waiting for: $*"
    sleep 0.05
  done
}

# --- 0. packages and unit tests
(cd "$KIT" && timeout 300 npm ci --no-audit --no-fund) >"$tmp/npm.out" 2>&1 ||
  fail "npm ci in $KIT (is the npm registry reachable?)"
(cd "$KIT" && npm test) >"$tmp/unit.out" 2>&1 || fail "npm test in $KIT"
grep -E "^# (pass|fail)" "$tmp/unit.out"
RANDOM_BOT=$KIT/examples/random_bot.js

start_referee() {
  rm -f "$tmp/port"
  spawn referee "$BIN/referee" --listen="$1" --port_file="$tmp/port" \
    --data_dir="$tmp/data"
  referee_pid=$last_pid
  poll test -s "$tmp/port"
}
start_referee 127.0.0.1:0
addr=127.0.0.1:$(cat "$tmp/port")
refctl() {
  "$BIN/refctl" --referee="$addr" --admin_token_file="$tmp/data/admin.token" "$@"
}

verify_log() {
  local match=$1 out
  refctl get-log "$match" --out="$tmp/$match.pyrlog" 2>/dev/null ||
    fail "get-log $match"
  out=$("$BIN/replay" verify --key="$tmp/data/referee.key.pub" \
    "$tmp/$match.pyrlog") || fail "replay verify $match: $out"
  [[ $out == *": genuine ("* ]] || fail "replay verify $match: $out"
  echo "$out"
}

expect_clean() {  # NAME MATCHES
  local out=$tmp/$1.out
  grep -q "^pyramid_kit: $2 match(es) ended, 0 error(s)" "$out" ||
    fail "$1 did not end $2 match(es) without error"
  ! grep -q "(forfeited)\|TERMINATION_FORFEIT" "$out" || fail "$1 saw a forfeit"
}

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
for match in "${matches[@]}"; do verify_log "$match"; done
echo "phase 1: one match of each game, genuine (${SECONDS}s)"

# --- 2. a slow strategy, then a referee restart mid-match
match=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --commit_timeout_ms=4000 --reveal_timeout_ms=10000 --token_dir="$tmp/tok-slow" \
  2>/dev/null) || fail "create-match slow"
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
done
verify_log "$match"
"$BIN/replay" show "$tmp/$match.pyrlog" >"$tmp/slow-show.txt" 2>&1 ||
  fail "replay show $match"
! grep -qi "fault" "$tmp/slow-show.txt" || fail "the slow match's log holds a fault"
echo "phase 2: fallback before the deadline, reconnected after a referee SIGKILL (${SECONDS}s)"

# --- 3. TLS: a referee with a certificate; the bots trust it with --tls_ca
mkdir -p "$tmp/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" -days 2 -subj /CN=localhost \
  -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || fail "openssl req"
spawn tls-referee "$BIN/referee" --listen=127.0.0.1:0 --port_file="$tmp/tls/port" \
  --data_dir="$tmp/tls/data" --tls_cert="$tmp/tls/cert.pem" --tls_key="$tmp/tls/key.pem"
poll test -s "$tmp/tls/port"
tls_addr=127.0.0.1:$(cat "$tmp/tls/port")
match=$("$BIN/refctl" --referee="$tls_addr" --tls_ca="$tmp/tls/cert.pem" \
  --admin_token_file="$tmp/tls/data/admin.token" create-match \
  --game=rock_paper_pyramid --seats=3 --token_dir="$tmp/tok-tls" 2>/dev/null) ||
  fail "create-match over TLS"
waited=()
for seat in 0 1 2; do
  spawn "tls-$seat" node "$RANDOM_BOT" --referee="$tls_addr" --tls_ca="$tmp/tls/cert.pem" \
      --token_file="$tmp/tok-tls/seat-$seat.token" --matches=1
  waited+=("$last_pid")
done
wait_for "${waited[@]}"
for seat in 0 1 2; do expect_clean "tls-$seat" 1; done
"$BIN/refctl" --referee="$tls_addr" --tls_ca="$tmp/tls/cert.pem" get-log "$match" \
  --out="$tmp/tls/match.pyrlog" 2>/dev/null || fail "get-log over TLS"
out=$("$BIN/replay" verify --key="$tmp/tls/data/referee.key.pub" "$tmp/tls/match.pyrlog") ||
  fail "replay verify (TLS match): $out"
[[ $out == *": genuine ("* ]] || fail "replay verify (TLS match): $out"
echo "phase 3: a match over TLS (${SECONDS}s)"

echo "PASS: Node kit: npm ci, unit tests, $((${#matches[@]} + 2)) matches (every game; a keyed bot token on 4 matches at once; a slow strategy; a referee restart; TLS); every log genuine"
