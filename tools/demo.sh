#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts a referee
# (build/bin/referee), and for every game with a demo tournament file in
# tools/demo/ plays a short tournament between separate reference-bot
# processes. Every log is verified (by the runner, and again here with
# `replay verify` against the referee's key); each tournament ends with
# "N matches, all included in checkpoint SIZE ROOT" and its directory is
# checked again with `replay verify-tournament` (every scheduled match
# present once, in the referee's signed checkpoint); the standings are
# printed; the referee is stopped; the output says where everything is.
#
# OUT (default out/demo) names the output directory.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
bin=${BUILD_DIR:-build}/bin
out=${OUT:-out/demo}
rm -rf "$out"
mkdir -p "$out"

"$bin/referee" --listen=127.0.0.1:0 --port_file="$out/referee.port" \
  --data_dir="$out/referee" >"$out/referee.out" 2>&1 &
referee_pid=$!
trap 'kill "$referee_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$out/referee.port" ]] && break; sleep 0.1; done
[[ -s "$out/referee.port" ]] || { cat "$out/referee.out"; exit 1; }
address="127.0.0.1:$(cat "$out/referee.port")"
cat "$out/referee.out"

status=0
for file in tools/demo/*.txt; do
  game=$(basename "$file" .txt)
  echo
  echo "== demo tournament: $game"
  "$bin/tournament" "$file" --referee="$address" \
    --referee_key="$out/referee/referee.key.pub" \
    --admin_token_file="$out/referee/admin.token" \
    --output_dir="$out/$game" || status=1
  echo "== replay verify --key $out/referee/referee.key.pub $out/$game/logs/*"
  "$bin/replay" verify --key="$out/referee/referee.key.pub" \
    "$out/$game"/logs/*.pyrlog | sed 's/; referee key pinned//' | tail -n 3 \
    || status=1
  echo "   ($(ls "$out/$game"/logs/*.pyrlog | wc -l) logs verified)"
  echo "== replay verify-tournament $out/$game"
  "$bin/replay" verify-tournament --key="$out/referee/referee.key.pub" \
    "$out/$game" || status=1
done

kill -TERM "$referee_pid"
wait "$referee_pid" || true
trap - EXIT
echo
echo "Referee stopped. Logs: $out/<game>/logs (results.json and report.html beside them);"
echo "referee key: $out/referee/referee.key.pub; transcript of a match:"
echo "  $bin/replay show \$(ls $out/rock_paper_pyramid/logs/*.pyrlog | head -n 1)"
exit $status
