#!/usr/bin/env bash
# The C++ reference bot's command line (build/bin/bot) against a real
# referee over loopback, as the tournament runner starts it
# (docs/tournament.md) and as docs/writing-a-bot.md documents it:
#
#  1. Stopped by SIGTERM mid-match, its standard output a file: a bot token
#     on seat 0 of two matches; the first ends (its line must reach the
#     file while the bot runs: output is flushed line by line), the second
#     waits for a seat that never plays. SIGTERM must end the bot with
#     status 0, the file holding its summary line.
#  2. The environment alone: $PYRAMID_REFEREE and $PYRAMID_TOKEN_FILE (with
#     a $PYRAMID_TOKEN that is no token, which the file wins over) play a
#     match; the other seat's bot has a wrong $PYRAMID_REFEREE and
#     $PYRAMID_TOKEN_FILE, over which its flags win.
#  3. --reconnect_for_s=0 against a closed port: exits at once with a
#     non-zero status, never waiting to reconnect. With --reconnect_for_s=2
#     it says, in one line (not one per try: it was silent, or a line per
#     try), that the referee at that address does not answer and that it
#     retries for up to 2 s, then gives up with status 1, saying after how
#     long ("giving up: no referee for 2.0 s", as the kits say it); with
#     --quiet only the giving up is said.
#  4. Messages: an unknown --strategy names the strategies (and no empty
#     game); an unknown --game is refused before connecting (status 2),
#     naming the games; a file --token_file, $PYRAMID_TOKEN_FILE, --key_file
#     or --tls_ca names that cannot be read, or a --tls_ca file that holds
#     no PEM certificate, is refused (status 2), naming the flag or variable
#     and the file; a referee address that is not HOST:PORT or unix:PATH
#     (no port, a port out of range, a URL, an IPv6 host without brackets)
#     in --referee or $PYRAMID_REFEREE is refused (status 2) before
#     anything is dialled; a bot registered with a public key that runs
#     without --key_file is told to pass --key_file.
#  5. Two processes with one seat token: the second one's stream replaces
#     the first one's (ABORTED, "replaced by a newer stream"); the first
#     exits 1 saying that another process connected with its token, instead
#     of reconnecting (which would take the seat back, and so on forever),
#     and the second keeps the seat.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=20 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee bot refctl keygen

# wait_until MESSAGE CMD...: runs CMD every 50 ms until it succeeds; fails
# with MESSAGE after $LIMIT seconds.
wait_until() {
  local message=$1 deadline=$((SECONDS + LIMIT))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || fail "$message"
    sleep 0.05
  done
}

start_referee 127.0.0.1:0

# --- 1. SIGTERM mid-match
bot_id=$(refctl register-bot stopped --token_out="$tmp/stopped.token" \
  2>/dev/null) || fail "register-bot"
match_a=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --token_dir="$tmp/tok-a" 2>/dev/null) || fail "create-match A"
# The seat that never plays leaves the bot waiting: long deadlines.
match_b=$(refctl create-match --game=rock_paper_pyramid --bots="$bot_id,," \
  --commit_timeout_ms=60000 --reveal_timeout_ms=60000 \
  --token_dir="$tmp/tok-b" 2>/dev/null) || fail "create-match B"
# Standard output to a file of its own, as the tournament runner does.
"$BIN/bot" --referee="$addr" --token_file="$tmp/stopped.token" \
  >"$tmp/stopped.log" 2>"$tmp/stopped.out" &
stopped=$!
pids+=("$stopped")
names[$stopped]="the bot stopped by SIGTERM"
others=()
for seat in 1 2; do
  spawn "other-a$seat" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok-a/seat-$seat.token" --matches=1 --quiet
  others+=("$last_pid")
done
wait_for "${others[@]}"
ended_a() {
  kill -0 "$stopped" 2>/dev/null || fail "the bot exited before SIGTERM"
  grep -q "^match $match_a seat 0: rank [123], score " "$tmp/stopped.log"
}
wait_until "the line of match $match_a is not in the bot's output file while it runs (not flushed)" \
  ended_a
kill -TERM "$stopped"
reap "$stopped"
((status == 0)) ||
  fail "the bot exited with status $status on SIGTERM (output: $(cat "$tmp/stopped.log"))"
grep -q "^bot: 1 match(es) ended, 0 error(s)$" "$tmp/stopped.log" ||
  fail "no summary line in the output file of the bot stopped by SIGTERM: $(cat "$tmp/stopped.log")"
! grep -q "$match_b" "$tmp/stopped.log" || fail "match $match_b ended"
echo "1. SIGTERM: status 0, summary line in the output file"

# --- 2. the environment alone
match_c=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-c" 2>/dev/null) || fail "create-match C"
# (--reconnect_for_s: a bot that ignores $PYRAMID_REFEREE fails in seconds.)
PYRAMID_REFEREE=$addr PYRAMID_TOKEN_FILE=$tmp/tok-c/seat-0.token \
  PYRAMID_TOKEN=not-a-token spawn env-bot "$BIN/bot" --matches=1 \
  --reconnect_for_s=5
env_bot=$last_pid
others=()
for seat in 1 2; do
  PYRAMID_REFEREE=127.0.0.1:1 PYRAMID_TOKEN_FILE=$tmp/no-such.token \
    spawn "flag-bot$seat" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok-c/seat-$seat.token" --matches=1
  others+=("$last_pid")
done
wait_for "$env_bot" "${others[@]}"
for bot in env-bot flag-bot1 flag-bot2; do
  grep -q "^match $match_c seat [012]: rank [123], score " "$tmp/$bot.out" ||
    fail "$bot did not play match $match_c"
  grep -q "^bot: 1 match(es) ended, 0 error(s)$" "$tmp/$bot.out" ||
    fail "$bot reported errors"
done
echo "2. \$PYRAMID_REFEREE and \$PYRAMID_TOKEN_FILE honoured; flags win"

# --- 3. --reconnect_for_s=0 against a closed port
# A port that was free a moment ago: the referee's, stopped.
closed=$addr
kill "$referee_pid"
reap "$referee_pid"
status=0
out=$(timeout "$LIMIT" "$BIN/bot" --referee="$closed" \
  --token_file="$tmp/tok-c/seat-0.token" --reconnect_for_s=0 2>&1) ||
  status=$?
((status != 124)) || fail "--reconnect_for_s=0: still running after ${LIMIT}s"
((status != 0)) || fail "--reconnect_for_s=0: status 0 without a referee: $out"
[[ $out != *"reconnecting in"* && $out != *"giving up"* ]] ||
  fail "--reconnect_for_s=0 waited to reconnect: $out"
[[ $out == *"not reconnecting (--reconnect_for_s=0)"* ]] ||
  fail "--reconnect_for_s=0: no message saying why it exits: $out"
echo "3. --reconnect_for_s=0: status $status at once"
status=0
out=$(timeout "$LIMIT" "$BIN/bot" --referee="$closed" \
  --token_file="$tmp/tok-c/seat-0.token" --reconnect_for_s=2 2>&1) ||
  status=$?
((status == 1)) || fail "--reconnect_for_s=2 against a closed port: status $status: $out"
retrying="bot: the referee at $closed does not answer (UNAVAILABLE: "
said=$(grep -c -F "$retrying" <<<"$out" || true)
((said == 1)) && grep -q -F "); retrying for up to 2s (--reconnect_for_s)" <<<"$out" ||
  fail "--reconnect_for_s=2: not one line saying the referee does not answer: $out"
grep -Eq '^bot: giving up: no referee for [0-9]+\.[0-9] s \(UNAVAILABLE: ' <<<"$out" ||
  fail "--reconnect_for_s=2: no line saying it gave up, and after how long: $out"
((${#out} < 2000)) || fail "--reconnect_for_s=2: a line per try: $out"
status=0
out=$(timeout "$LIMIT" "$BIN/bot" --referee="$closed" --quiet \
  --token_file="$tmp/tok-c/seat-0.token" --reconnect_for_s=1 2>&1) ||
  status=$?
((status == 1)) && [[ $out != *"does not answer"* && $out == *"bot: giving up: no referee for "* ]] ||
  fail "--quiet --reconnect_for_s=1: status $status, said: $out"
echo "3. a closed port: one line saying the referee does not answer, then giving up (--quiet: only that)"

# --- 4. messages
status=0
out=$(PYRAMID_TOKEN=x "$BIN/bot" --strategy=bogus 2>&1) || status=$?
((status == 2)) || fail "--strategy=bogus: status $status"
[[ $out == *'unknown strategy "bogus": the strategies are random and heuristic'* &&
  $out != *'game ""'* ]] || fail "--strategy=bogus said: $out"
# expect_refused TEXT [VAR=VALUE...] -- ARGS...: the bot, given ARGS (and
# the environment's VAR=VALUE), exits 2 at once, saying TEXT. Its referee
# is the closed port, where a bot that did not refuse fails otherwise.
expect_refused() {
  local text=$1 out status=0
  shift
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  out=$(env "${env[@]}" timeout "$LIMIT" "$BIN/bot" --referee="$closed" \
    --reconnect_for_s=0 "$@" 2>&1) || status=$?
  if ((status != 2)) || [[ $out != *"$text"* ]]; then
    fail "bot $*: status $status (want 2, saying $text), said: $out"
  fi
}
expect_refused 'unknown --game "nosuch": the games are flaming_pyramids, pyramid_scheme, pyramid_shambo, rock_paper_pyramid' \
  -- --game=nosuch --token_file="$tmp/tok-c/seat-0.token"
expect_refused "--token_file: cannot open $tmp/no-such.token: No such file" \
  -- --token_file="$tmp/no-such.token"
expect_refused "\$PYRAMID_TOKEN_FILE: cannot open $tmp/no-such.token: No such file" \
  PYRAMID_TOKEN_FILE="$tmp/no-such.token" --
expect_refused "--key_file: cannot read $tmp/no-such.key: No such file" \
  -- --token_file="$tmp/tok-c/seat-0.token" --key_file="$tmp/no-such.key"
expect_refused "--tls_ca: cannot open $tmp/no-such.pem: No such file" \
  -- --token_file="$tmp/tok-c/seat-0.token" --tls_ca="$tmp/no-such.pem"
# A file without a certificate: gRPC took it, then failed every
# connection, and the bot retried a referee that was up.
echo "not a certificate" >"$tmp/not-a-cert.pem"
expect_refused "--tls_ca: $tmp/not-a-cert.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)" \
  -- --token_file="$tmp/tok-c/seat-0.token" --tls_ca="$tmp/not-a-cert.pem"
form='is HOST:PORT (PORT 1 to 65535; an IPv6 host in brackets, as [::1]:50051) or unix:PATH'
expect_refused "--referee $form: no port in \"127.0.0.1\"" \
  -- --token_file="$tmp/tok-c/seat-0.token" --referee=127.0.0.1
expect_refused "--referee $form: port 99999 is out of range in \"127.0.0.1:99999\"" \
  -- --token_file="$tmp/tok-c/seat-0.token" --referee=127.0.0.1:99999
expect_refused "--referee $form, not a URL: \"http://127.0.0.1:24100\"" \
  -- --token_file="$tmp/tok-c/seat-0.token" --referee=http://127.0.0.1:24100
expect_refused "--referee $form, not \"::1:50051\"" \
  -- --token_file="$tmp/tok-c/seat-0.token" --referee=::1:50051
status=0
out=$(PYRAMID_REFEREE=localhost timeout "$LIMIT" "$BIN/bot" \
  --token_file="$tmp/tok-c/seat-0.token" --reconnect_for_s=0 2>&1) || status=$?
((status == 2)) && [[ $out == *"\$PYRAMID_REFEREE $form: no port in \"localhost\""* ]] ||
  fail "PYRAMID_REFEREE=localhost: status $status, said: $out"
# [::1]:PORT is an address: the bot dials it (and, closed, exits 1).
status=0
out=$(timeout "$LIMIT" "$BIN/bot" --referee="[::1]:${closed##*:}" \
  --token_file="$tmp/tok-c/seat-0.token" --reconnect_for_s=0 2>&1) || status=$?
((status == 1)) && [[ $out == *"not reconnecting (--reconnect_for_s=0)"* ]] ||
  fail "--referee=[::1]:PORT: status $status, said: $out"
start_referee 127.0.0.1:0
"$BIN/keygen" --out="$tmp/seat.key" >/dev/null 2>&1 || fail "keygen"
keyed=$(refctl register-bot keyed --public_key="$(cat "$tmp/seat.key.pub")" \
  --token_out="$tmp/keyed.token" 2>/dev/null) || fail "register-bot keyed"
refctl create-match --game=rock_paper_pyramid --bots="$keyed,," \
  --commit_timeout_ms=60000 --token_dir="$tmp/tok-d" >/dev/null 2>&1 ||
  fail "create-match D"
spawn unkeyed "$BIN/bot" --referee="$addr" --token_file="$tmp/keyed.token"
unkeyed=$last_pid
wait_until "a bot without --key_file on a seat with a key was not told to pass --key_file" \
  grep -q "pass its secret key with --key_file" "$tmp/unkeyed.out"
kill -TERM "$unkeyed"
reap "$unkeyed"
((status == 1)) || fail "the bot whose commit was refused exited with $status"
echo "4. messages: strategies named; bad --game, files and referee addresses refused, named; --key_file hinted"

# --- 5. two processes with one token
match_e=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --seed_timeout_ms=60000 --token_dir="$tmp/tok-e" 2>/dev/null) ||
  fail "create-match E"
expect_older_stops twice "$match_e" \
  "bot: another process connected with this token; stopping (stream ended: replaced by a newer stream)" \
  "$BIN/bot" --referee="$addr" --token_file="$tmp/tok-e/seat-0.token"
! grep -q "stream ended" "$tmp/twice-new.out" || fail "the newer bot lost its stream"
kill -TERM "$new_pid"
reap "$new_pid"
((status == 0)) || fail "the newer bot exited with status $status on SIGTERM"
echo "5. of two processes with one token, the older stops with status 1"

echo "PASS: the bot stops cleanly on SIGTERM, reads the environment as the kits do, exits at once with --reconnect_for_s=0, and stops when another process takes its token"
