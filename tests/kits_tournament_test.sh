#!/usr/bin/env bash
# The documented mixed tournament (tools/clients/mixed_kits.txt) through the
# tournament runner: the C++ reference bot (heuristic and random), the
# Python kit's and the Node kit's random bots, as plain commands in one
# Pyramid Shambo tournament. The runner must exit 0 (every scheduled match
# played, every log verified, the transparency evidence checked); every log
# must verify again with `replay verify --key`, each saying that all 3 seats
# named its header (every bot copies the seed request's header_hash into its
# seed contribution); no seat may forfeit; every bot must have played.
# Then tools/clients/play_local.sh plays the Node kit's random bot against
# the C++ heuristic (2 Flaming Pyramids matches).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin; the file's build/bin/ is rewritten to it). Installs the Node
# kit's pinned packages with `npm ci` (fails without the npm registry).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
FILE=tools/clients/mixed_kits.txt
LIMIT=240  # Seconds the tournament may take.

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.out "$tmp"/out/bots/*.log; do
    [[ -f $f ]] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  exit 1
}

for tool in tournament bot replay; do
  [[ -x $BIN/$tool ]] || fail "$BIN/$tool is not built"
done
(cd tools/clients/node && timeout 300 npm ci --no-audit --no-fund) \
  >"$tmp/npm.out" 2>&1 || fail "npm ci in tools/clients/node"

sed "s#\"build/bin/#\"$BIN/#g" "$FILE" >"$tmp/mixed_kits.txt"
status=0
PYTHONDONTWRITEBYTECODE=1 timeout "$LIMIT" "$BIN/tournament" "$tmp/mixed_kits.txt" \
  --output_dir="$tmp/out" >"$tmp/tournament.out" 2>&1 || status=$?
((status == 0)) || fail "the tournament runner exited with status $status"
cat "$tmp/tournament.out" | tail -n 12
grep -Eq "^12 matches, all included in checkpoint [0-9]+ " "$tmp/tournament.out" ||
  fail "the runner did not report 12 matches in its checkpoint"

logs=("$tmp"/out/logs/*.pyrlog)
((${#logs[@]} == 12)) || fail "${#logs[@]} logs, not 12"
out=$("$BIN/replay" verify --key="$tmp/out/referee.key.pub" "${logs[@]}") ||
  fail "replay verify: $out"
genuine=$(grep -c ": genuine (" <<<"$out" || true)
((genuine == 12)) || fail "$genuine of 12 logs genuine: $out"
# Every bot, of either kit or C++, names the log header in its seed.
named=$(grep -cE "; 3 of 3 seats named this header[;,]" <<<"$out" || true)
((named == 12)) || fail "every seat named the header in $named of 12 logs: $out"
! grep -q '"forfeited": *true' "$tmp/out/results.json" ||
  fail "a seat forfeited (results.json)"
for bot in cpp-heuristic cpp-random python-random node-random; do
  grep -q "\"$bot\"" "$tmp/out/results.json" || fail "$bot is not in the results"
done
for bot in python-random node-random; do
  grep -q "^match [0-9a-f]\{32\} seat [0-9]: rank " "$tmp/out/bots/$bot.log" ||
    fail "$bot printed no finished match"
  ! grep -Eq 'Traceback|Error|: code [0-9]+: |giving up|[1-9][0-9]* error\(s\)' \
    "$tmp/out/bots/$bot.log" || fail "$bot reported an error"
done
# The documented one-command game: the Node kit's bot against C++ heuristics.
PYRAMID_BIN=$BIN timeout "$LIMIT" tools/clients/play_local.sh --game=flaming_pyramids \
  --seats=2 --strategy=heuristic --out="$tmp/play-local" -- \
  node tools/clients/node/examples/random_bot.js >"$tmp/play-local.out" 2>&1 ||
  fail "play_local.sh with the Node kit's random bot"
grep -q "^2 matches, all included in checkpoint" "$tmp/play-local.out" ||
  fail "play_local.sh did not play and verify 2 matches"

echo "PASS: mixed tournament (C++, Python kit, Node kit): 12 matches, every log genuine, no forfeit; play_local.sh (${SECONDS}s)"
