#!/usr/bin/env bash
# The main job: installs what is missing, builds, plays a handful of
# in-process Rock, Paper, Pyramid! matches between random players (classic,
# red, and winner-takes-all), writes their signed logs, and verifies every
# log with the standalone verifier against the pinned referee key.
#
# OUT (default out/demo) names the directory for the logs and the key.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
bin=${BUILD_DIR:-build}/bin
out=${OUT:-out/demo}
rm -rf "$out"
mkdir -p "$out"

"$bin/keygen" --out="$out/referee.key" >/dev/null
echo "== playing matches (logs in $out)"
"$bin/selfplay" --game=rock_paper_pyramid --matches=4 --key="$out/referee.key" \
  --out="$out/classic"
"$bin/selfplay" --game=rock_paper_pyramid --matches=3 --key="$out/referee.key" \
  --options='rock_paper_pyramid { red: true }' --out="$out/red"
"$bin/selfplay" --game=rock_paper_pyramid --matches=3 --key="$out/referee.key" \
  --options='rock_paper_pyramid { winner_takes: RPP_TAKES_ALL }' \
  --out="$out/winner-takes-all"

echo "== verifying every log against the referee key $out/referee.key.pub"
"$bin/replay" verify --key="$out/referee.key.pub" "$out"/*/*.pyrlog

first=$(ls "$out"/classic/*.pyrlog | head -n 1)
echo "== transcript of $first"
"$bin/replay" show "$first"
echo
echo "Logs: $out  (replay show LOG | replay export --json LOG | replay verify --key $out/referee.key.pub LOG)"
