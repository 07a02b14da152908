#!/usr/bin/env bash
# bench_tournament: the tournament runner's throughput against the service
# load benchmark, measured in the same run (a benchmark, not a test).
#
#   tools/bench_tournament.sh [MATCHES] [CONCURRENCY]     (default 10000 256)
#
#  1. `tournament` plays MATCHES Rock, Paper, Pyramid! matches (3 seats,
#     round robin of 4 reference `bot` processes, rounded up to whole
#     rounds of 12) on its embedded referee, CONCURRENCY at a time, and
#     verifies every log. Its moves/s = every applied move of every
#     verified match / wall time of the whole command (start-up, bot
#     processes, verification and report included).
#  2. `bench_load` (1,000 concurrent matches over raw gRPC clients, the
#     service issue's benchmark) prints its referee moves/s.
# Prints both, their ratio (target: >= 0.5), and the tournament's forfeits
# (target: none).
#
# Runs from the source root; binaries from $PYRAMID_BIN (default build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
MATCHES=${1:-10000}
CONCURRENCY=${2:-256}
ROUNDS=$(((MATCHES + 11) / 12))

for tool in tournament bot bench_load; do
  [[ -x $BIN/$tool ]] || { echo "$BIN/$tool is not built" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  echo "name: \"bench\" game { game: \"rock_paper_pyramid\" } seats: 3"
  for i in 1 2 3 4; do
    echo "bots { name: \"random-$i\" command: \"$BIN/bot\" command: \"--quiet\" }"
  done
  echo "rounds: $ROUNDS concurrency: $CONCURRENCY output_dir: \"$tmp/out\""
} >"$tmp/bench.txt"

echo "== tournament: $((ROUNDS * 12)) matches, $CONCURRENCY in flight"
start=$(date +%s.%N)
"$BIN/tournament" "$tmp/bench.txt" >"$tmp/tournament.out" 2>"$tmp/tournament.err" ||
  { cat "$tmp/tournament.out" "$tmp/tournament.err" >&2; exit 1; }
end=$(date +%s.%N)
read -r t_matches t_verified t_moves t_forfeits < <(python3 - "$tmp/out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["matches"]
print(len(m), r["verified"], sum(int(x.get("moves", 0)) for x in m),
      sum(1 for x in m if x["outcome"].get("termination") == "TERMINATION_FORFEIT"))
PY
)
t_seconds=$(python3 -c "print(f'{$end - $start:.1f}')")
t_rate=$(python3 -c "print(f'{$t_moves / ($end - $start):.0f}')")
echo "   $t_verified of $t_matches logs verified, $t_moves moves in ${t_seconds} s," \
  "$t_forfeits forfeits"

echo "== bench_load (1,000 concurrent matches)"
"$BIN/bench_load" --echo_seconds=2 >"$tmp/load.out" 2>&1 ||
  { cat "$tmp/load.out" >&2; exit 1; }
l_rate=$(awk '/^  Summary/{s=1} s && $1=="moves/s"{print $2; exit}' "$tmp/load.out")

echo
printf '  %-36s %s\n' "tournament moves/s" "$t_rate"
printf '  %-36s %s\n' "bench_load moves/s" "$l_rate"
printf '  %-36s %s\n' "ratio (target >= 0.5)" \
  "$(python3 -c "print(f'{$t_rate / $l_rate:.2f}')")"
printf '  %-36s %s\n' "tournament forfeits (target 0)" "$t_forfeits"
