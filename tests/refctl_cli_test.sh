#!/usr/bin/env bash
# refctl's command line against a real referee over loopback:
#
#  1. The admin token (FindAdminToken, referee/cli/token_text.h): an empty
#     $PYRAMID_ADMIN_TOKEN counts as unset, as the referee and the runner
#     take it. `PYRAMID_ADMIN_TOKEN= refctl list` in a directory without
#     referee-data/ lists (no token needed); register-bot so says "no admin
#     token" (status 1); the token in the variable registers a bot.
#  2. create-match never writes over a token file in --token_dir (it may
#     hold a seat token of a match still running, never given again): a
#     second match into the same directory is refused (status 1) naming
#     seat-0.token, before any match is created, the first match's tokens
#     kept; with --replace_tokens it is created and its tokens replace them.
#  3. A watch whose referee stops (SIGTERM) says that the referee went away
#     and that the match may resume once it is back (status 1), not gRPC's
#     "UNAVAILABLE: Cancelling all calls". It stops the referee.
#  4. A get-log waiting for the referee (stopped) is served soon after the
#     referee is back: within 2 s of its serving, where it waited out its
#     backoff before. Its waits (0.1 s doubling to 5 s) try at 3.1 s, then
#     at 6.3 s and 11.3 s; the referee restarts 3.7 s after the try at
#     3.1 s, so that a get-log that waits its backoff out tries next 8.2 s
#     after that try, some 4 s after the referee serves (2 s of margin for
#     the referee's start; gRPC's own connect backoff, not reset, failed
#     that try too: 9.3 s); one that tries once the referee connects (as
#     the bot does, within some 250 ms) took 0.1-0.2 s.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=$(realpath "${PYRAMID_BIN:-build/bin}")
LIMIT=20 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl bot replay

start_referee "unix:$tmp/referee.sock" # Started again on it below.
mkdir -p "$tmp/cwd"

# --- 1. The admin token
# (cd "$tmp/cwd"; refctl without --admin_token_file, ARGS...)
bare_refctl() {
  (cd "$tmp/cwd" && exec "$BIN/refctl" --referee="$addr" "$@")
}
PYRAMID_ADMIN_TOKEN= bare_refctl list >"$tmp/empty-list.out" 2>&1 ||
  fail "PYRAMID_ADMIN_TOKEN= refctl list: $(cat "$tmp/empty-list.out")"
PYRAMID_ADMIN_TOKEN= expect_exit empty-register 1 \
  '^refctl: no admin token: give --admin_token_file or \$PYRAMID_ADMIN_TOKEN' \
  -- bare_refctl register-bot nobody --token_out="$tmp/nobody.token"
[[ ! -e $tmp/nobody.token ]] || fail "a token file without a bot"
PYRAMID_ADMIN_TOKEN=$(cat "$tmp/data/admin.token") expect_exit env-register 0 \
  'bot token written to' -- bare_refctl register-bot envbot \
  --token_out="$tmp/envbot.token"

# --- 2. Token files are not overwritten unasked
matches() { refctl list | wc -l; }
refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok" >"$tmp/first.out" 2>&1 || fail "create-match"
cp -r "$tmp/tok" "$tmp/tok-first"
(($(matches) == 1)) || fail "not one match: $(refctl list)"
expect_exit again 1 \
  "^refctl: $tmp/tok/seat-0.token exists and may hold a seat token of an earlier match, which the referee never gives again: remove it, give another --token_dir, or give --replace_tokens to overwrite it; no match created\$" \
  -- refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok"
(($(matches) == 1)) || fail "a refused create-match created a match"
diff -r "$tmp/tok-first" "$tmp/tok" >/dev/null || fail "the tokens changed"
expect_exit replaced 0 "seat 0 token written to $tmp/tok/seat-0.token" \
  -- refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok" --replace_tokens
(($(matches) == 2)) || fail "--replace_tokens created no match"
for seat in 0 1 2; do
  ! cmp -s "$tmp/tok-first/seat-$seat.token" "$tmp/tok/seat-$seat.token" ||
    fail "--replace_tokens left seat-$seat.token as it was"
done

# --- 3. A watch across the referee's stop
watched=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-watch" 2>/dev/null) || fail "create-match to watch"
spawn watch refctl watch "$watched"
watch_pid=$last_pid
poll test -s "$tmp/watch.out" # The match and its snapshot: being watched.
kill -TERM "$referee_pid"
reap "$watch_pid"
((status == 1)) || fail "watch: exited with status $status, not 1"
went_away="refctl: the referee at $addr went away while watching match"
grep -qF "$went_away $watched (UNAVAILABLE: " "$tmp/watch.out" ||
  fail "watch: no line says the referee went away: $(tail -c 600 "$tmp/watch.out")"
grep -qF "the match may resume once the referee is back: run the watch again" \
  "$tmp/watch.out" || fail "watch: no line says to watch again"

# --- 4. A get-log across the referee's return
reap "$referee_pid" # Stopped by 3: gone before its data is used again.
start_referee "$addr"
played=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$tmp/tok-log" 2>/dev/null) || fail "create-match to fetch"
players=()
for seat in 0 1 2; do
  spawn "log-bot$seat" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok-log/seat-$seat.token" --matches=1 --quiet
  players+=("$last_pid")
done
wait_for "${players[@]}"
kill -TERM "$referee_pid"
reap "$referee_pid"
spawn get-log refctl get-log "$played" --out="$tmp/played.pyrlog" \
  --retry_for_s=60
get_log_pid=$last_pid
poll grep -q 'waiting 3.2s to retry' "$tmp/get-log.out"
sleep 3.7
start_referee "$addr"
served=$(date +%s%N)
reap "$get_log_pid"
took_ms=$((($(date +%s%N) - served) / 1000000))
((status == 0)) || fail "get-log: exited with status $status"
((took_ms < 2000)) ||
  fail "get-log: the log came ${took_ms} ms after the referee was back"
verdict=$("$BIN/replay" verify --key="$tmp/data/referee.key.pub" \
  "$tmp/played.pyrlog") || fail "replay verify: $verdict"
[[ $verdict == *": genuine ("* ]] || fail "replay verify: $verdict"

echo "refctl_cli_test: PASS (get-log ${took_ms} ms after the referee was back)"
