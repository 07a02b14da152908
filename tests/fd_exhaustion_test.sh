#!/usr/bin/env bash
# A referee that a client tries to run out of file descriptors, and one
# whose stderr a client tries to fill (docs/protocol.md, "Connections and
# file descriptors"):
#
#  1. A referee started with an open-file limit of 256 (prlimit) says in
#     its banner that connections take descriptors below 192, the last 64
#     kept for its files. While a match plays (its seat 2 absent, so that
#     the referee writes and syncs its log on each deadline, with a
#     checkpoint every 4 records), an unauthenticated client opens 400 idle
#     TCP connections: those beyond the ceiling are reset at once, the
#     referee never holds 256 descriptors, and says so on stderr in a line
#     per 10 s the flood took at most (its rate limit), not one per
#     connection. (gRPC 1.51 alone stopped accepting for good at the first
#     EMFILE.)
#  2. The client closes them all; the match ends finished, not broken, its
#     log genuine; a new match of three bots, on new connections, plays and
#     its log verifies.
#  3. 2,000 GetMatch calls whose match_id is not UTF-8 (each made
#     protobuf write a 230-byte line) leave on stderr at most 3 of its
#     lines per 10 s the calls took (the rate limit) and the count of the
#     others.
#  4. A tournament (open-file limit 256) one of whose bots first opens
#     every connection it can to the runner's embedded referee plays all
#     its matches, no seat forfeited: the runner has the referee's guard.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=20 # Seconds any one wait may take.
PY=/usr/bin/python3

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"

# A rate limit of N lines per window of W seconds, a window opened by the
# first line after the last window ended, allows N lines for each window
# that can have begun since a moment: one, and one more for each whole W
# seconds since. Checks against it hold however slow the machine is, and
# still fail if the limit is gone (a line per event).
#
# now_ms: the wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# windows_since START_MS W: the windows of W seconds begun since START_MS
# at most.
windows_since() { echo $((($(now_ms) - $1) / ($2 * 1000) + 1)); }

need_built referee bot refctl replay tournament
command -v prlimit >/dev/null || fail "prlimit (util-linux) is not installed"

# --- 1. the flood
# prlimit execs the referee: $referee_pid is the referee's.
spawn referee prlimit --nofile=256:256 "$BIN/referee" --listen=127.0.0.1:0 \
  --port_file="$tmp/port" --data_dir="$tmp/data" --checkpoint_interval=4
referee_pid=$last_pid
poll test -s "$tmp/port"
addr=127.0.0.1:$(cat "$tmp/port")
grep -q "connections:  on file descriptors below 192 of the open-file limit 256; the last 64 are kept" \
  "$tmp/referee.out" || fail "the banner does not say what connections may take"

# Seat 2 never connects: each decision waits for its deadline (the
# default action), so the match plays for about 7 s, through the flood.
# The seed decision's clock runs from the creation: its 3 s give the bots,
# slow to start under a sanitizer, time to connect (400 ms did not, once).
match_a=$(refctl create-match --game=rock_paper_pyramid --seats=3 \
  --forfeit_policy=default --commit_timeout_ms=400 --reveal_timeout_ms=400 \
  --seed_timeout_ms=3000 --token_dir="$tmp/tok-a" 2>/dev/null) ||
  fail "create-match A"
bots_a=()
for seat in 0 1; do
  spawn "bot-a$seat" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok-a/seat-$seat.token" --matches=1 --quiet
  bots_a+=("$last_pid")
done
poll seat0_connected "$match_a"

# Prints "held H reset R peak P unanswered U": of 400 connections, those
# still open 2 s after they were made and those the referee reset, the most
# descriptors it held, and 1 if one was never accepted (made in 2 s).
flood_start=$(now_ms)
flood=$("$PY" - "$addr" "$referee_pid" <<'EOF'
import os, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
fds = f"/proc/{sys.argv[2]}/fd"
peak = refused = unanswered = 0
socks = []
for _ in range(400):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, int(port)))
        socks.append(s)
    except socket.timeout:  # Not accepted: the listener has stopped.
        unanswered += 1
        s.close()
        break
    except OSError:  # Reset before connect() saw it made.
        refused += 1
        s.close()
    peak = max(peak, len(os.listdir(fds)))
held, reset = 0, refused
for _ in range(20):  # 2 s while the match plays on.
    time.sleep(0.1)
    peak = max(peak, len(os.listdir(fds)))
for s in socks:
    try:  # Accepted, the referee has sent its HTTP/2 SETTINGS.
        if s.recv(4096, socket.MSG_DONTWAIT) == b"":
            reset += 1  # Closed (not reset): counted alike.
        else:
            held += 1
    except BlockingIOError:
        held += 1
    except ConnectionResetError:
        reset += 1
for s in socks:
    s.close()
print(f"held {held} reset {reset} peak {peak} unanswered {unanswered}")
EOF
) || fail "the flood script failed"
read -r _ held _ reset _ peak _ unanswered <<<"$flood"
((unanswered == 0 && held + reset == 400)) ||
  fail "connections unanswered: the referee stopped accepting ($flood)"
((reset > 0)) || fail "no connection was reset ($flood)"
((held <= 192)) || fail "more connections held than the ceiling ($flood)"
((peak < 256)) || fail "the referee ran out of file descriptors ($flood)"
resets=$(grep -c "^referee: reset [0-9]* connection" "$tmp/referee.out") || true
# The guard's period, as its line says ("at most one such line per 10 s").
period=$(sed -n 's/^referee: reset .* at most one such line per \([0-9]*\) s$/\1/p' \
  "$tmp/referee.out" | head -n 1)
[[ -n $period ]] || fail "no line about reset connections gives its rate limit"
allowed=$(windows_since "$flood_start" "$period")
((allowed < reset)) ||
  fail "the flood took too long to tell a rate limit from none ($allowed periods of ${period} s, $reset resets)"
((resets >= 1 && resets <= allowed)) ||
  fail "$resets lines about reset connections on stderr (want 1 to $allowed: one per ${period} s)"
echo "1. 400 idle connections: $held held, $reset reset, at most $peak descriptors; $resets line(s) on stderr (at most $allowed)"

# --- 2. after the flood
wait_for "${bots_a[@]}"
info=$(timeout "$LIMIT" "$BIN/refctl" --referee="$addr" \
  --admin_token_file="$tmp/data/admin.token" get-match "$match_a") ||
  fail "get-match A on a new connection"
[[ $info == *'"status":"MATCH_FINISHED"'* ]] ||
  fail "match A did not finish: $info"
verify_log "$match_a" >/dev/null
match_b=$(timeout "$LIMIT" "$BIN/refctl" --referee="$addr" \
  --admin_token_file="$tmp/data/admin.token" create-match \
  --game=rock_paper_pyramid --seats=3 --token_dir="$tmp/tok-b" 2>/dev/null) ||
  fail "create-match B after the flood"
bots_b=()
for seat in 0 1 2; do
  spawn "bot-b$seat" "$BIN/bot" --referee="$addr" \
    --token_file="$tmp/tok-b/seat-$seat.token" --matches=1 --quiet
  bots_b+=("$last_pid")
done
wait_for "${bots_b[@]}"
verify_log "$match_b" >/dev/null
echo "2. match A finished through the flood, match B played after it; both logs genuine"

# --- 3. protobuf's messages
calls_start=$(now_ms)
"$PY" - "$addr" <<'EOF' || fail "the GetMatch calls failed"
import sys
import grpc
channel = grpc.insecure_channel(sys.argv[1])
get_match = channel.unary_unary("/pyramid.referee.v1.Referee/GetMatch",
                                request_serializer=lambda x: x,
                                response_deserializer=lambda x: x)
calls = [get_match.future(b"\x0a\x02\xc3\x28") for _ in range(2000)]
for call in calls:
    try:
        call.result()
    except grpc.RpcError:
        pass
EOF
kill -TERM "$referee_pid"
reap "$referee_pid"
((status == 0)) || fail "the referee exited with status $status on SIGTERM"
grep -q "^\[libprotobuf\] [0-9]* more messages from .* suppressed" \
  "$tmp/referee.out" || fail "the suppressed messages are not counted at exit"
# The budget, as the count's line says ("at most 3 per 10 s from one
# place, and those stderr did not take at once"): kLibraryLogLines per
# kLibraryLogWindow (library_log.h).
read -r per_window window < <(sed -n \
  's/^\[libprotobuf\] .* suppressed (at most \([0-9]*\) per \([0-9]*\) s from one place[,)].*$/\1 \2/p' \
  "$tmp/referee.out" | head -n 1) || true
[[ -n ${window:-} ]] || fail "the count of suppressed messages does not give the budget"
allowed=$((per_window * $(windows_since "$calls_start" "$window")))
((allowed < 2000)) ||
  fail "the calls took too long to tell a rate limit from none (up to $allowed lines allowed)"
lines=$(grep -c "^\[libprotobuf ERROR .*invalid UTF-8" "$tmp/referee.out") || true
((lines >= 1 && lines <= allowed)) ||
  fail "$lines lines of protobuf's on stderr for 2,000 calls (want 1 to $allowed: $per_window per ${window} s)"
echo "3. 2,000 calls with a match_id that is not UTF-8: $lines lines of protobuf's (at most $allowed), then their count"

# --- 4. the tournament's embedded referee, flooded by one of its bots
# The bot "flooder" opens every connection its open-file limit allows
# (about 250) to the referee it was given, holds them a second, closes
# them and only then plays. Without the guard the runner's listener
# stopped at the first EMFILE, and every seat of every match forfeited.
cat >"$tmp/flood_bot.py" <<'EOF'
import os, socket, sys, time
referee = next(a[len("--referee="):] for a in sys.argv if a.startswith("--referee="))
host, port = referee.rsplit(":", 1)
socks = []
while len(socks) < 400:
    try:
        s = socket.socket()
    except OSError:  # No descriptor left to this process.
        break
    s.settimeout(2)
    try:
        s.connect((host, int(port)))
        socks.append(s)
    except OSError:
        s.close()
time.sleep(1)
for s in socks:
    s.close()
print(f"flooded with {len(socks)} connections", file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])
EOF
write_tournament "$tmp/flood.txt" rock_paper_pyramid seats=3 \
  format=ROUND_ROBIN rounds=1 concurrency=3 \
  -- flooder "$PY" "$tmp/flood_bot.py" "$BIN/bot" --quiet \
  -- random-1 "$BIN/bot" --quiet -- random-2 "$BIN/bot" --quiet
# It must end with status 0, the runner saying it reset connections.
expect_exit tournament 0 "^tournament: reset [0-9]* connection" \
  -- timeout 60 prlimit --nofile=256:256 "$BIN/tournament" "$tmp/flood.txt" \
  --output_dir="$tmp/flood"
flooded=$(grep -o "flooded with [0-9]* connections" "$tmp/flood/bots/flooder.log" | head -n 1) || true
[[ -n $flooded ]] || fail "the flooding bot did not flood"
grep -Eq "^3 matches, all included in checkpoint 3 " "$tmp/tournament.out" ||
  fail "the runner did not report 3 matches in its checkpoint"
! grep -q '"forfeited": *true' "$tmp/flood/results.json" ||
  fail "a seat forfeited (results.json)"
echo "4. a tournament bot $flooded: those beyond the ceiling reset, all 3 matches played, no seat forfeited"

echo "PASS: a referee out of file descriptors resets connections, keeps its matches and accepts again; protobuf's messages are rate-limited; a tournament keeps its listener through a bot that floods it"
