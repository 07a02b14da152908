#!/usr/bin/env bash
# A referee and a tournament whose output is piped into a program that
# ends first (`referee | head`, `tournament ... | head`, a pager quit
# early) are not killed by SIGPIPE at their next line: the referee stops
# cleanly on SIGTERM (status 0, where it died with 141 in its shutdown
# message), and the tournament plays every match and writes its results.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=30 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee tournament bot

# --- the referee: its banner's first line read, the pipe closed.
(
  "$BIN/referee" --listen=127.0.0.1:0 --port_file="$tmp/port" \
    --data_dir="$tmp/data" 2>&1 &
  echo $! >"$tmp/referee.pid"
  status=0
  wait $! || status=$?
  echo "$status" >"$tmp/referee.status"
) | head -n 1 >"$tmp/head.out" &
poll test -s "$tmp/port"
poll test -s "$tmp/head.out"
sleep 0.2 # head has ended: the pipe has no reader.
kill -TERM "$(cat "$tmp/referee.pid")"
poll test -s "$tmp/referee.status"
status=$(cat "$tmp/referee.status")
((status == 0)) || fail "the referee whose output pipe closed exited with status $status on SIGTERM (141: SIGPIPE)"
echo "1. referee | head -n 1: stopped on SIGTERM with status 0"

# --- the tournament: its first progress line read, the pipe closed.
write_tournament "$tmp/closed-output.txt" rock_paper_pyramid seats=3 \
  format=ROUND_ROBIN rounds=2 concurrency=3 \
  -- a "$BIN/bot" --quiet -- b "$BIN/bot" --quiet -- c "$BIN/bot" --quiet
{
  status=0
  timeout "$LIMIT" "$BIN/tournament" "$tmp/closed-output.txt" \
    --output_dir="$tmp/out" 2>&1 || status=$?
  echo "$status" >"$tmp/tournament.status"
} | head -n 1 >/dev/null
status=$(cat "$tmp/tournament.status")
((status == 0)) || fail "the tournament whose output pipe closed exited with status $status (141: SIGPIPE)"
grep -q '"verified": *6' "$tmp/out/results.json" ||
  fail "results.json does not say 6 matches verified"
echo "2. tournament | head -n 1: every match played, status 0"

echo "PASS: a closed output pipe kills neither the referee nor the tournament"
