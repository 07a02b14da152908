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
#  2. `bench_load` (the service load benchmark, raw gRPC clients) plays
#     CONCURRENCY matches at once, the tournament's concurrency, three
#     times: one run plays for well under a second (at 256, about 0.6 s),
#     so a single run moves with whatever else the machine does; the
#     median run is the baseline, and all three are printed. The first run
#     comes before the tournament and the other two after it, so that the
#     baseline brackets the tournament in time (the machine's speed drifts
#     by 15-30% within a minute).
# Prints both runs' moves/s and matches/s, the ratio of their matches/s
# (target: >= 0.5), and the tournament's forfeits (target: none); the last
# line holds the same figures as key=value pairs for scripts:
#   tournament_matches_per_s=<x> load_matches_per_s=<x> ratio=<x.xx>
#   forfeits=<n>
#
# Runs from the source root; binaries from $PYRAMID_BIN (default build/bin).
# --help prints the usage line and exits 0; more than two arguments, or one
# that is not a positive integer, is a usage error: exit status 2, naming
# it, before anything runs.
set -euo pipefail

usage='usage: tools/bench_tournament.sh [MATCHES] [CONCURRENCY]   (positive integers, default 10000 256)'
if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  echo "$usage"
  exit 0
fi
if (($# > 2)); then
  echo "bench_tournament.sh: takes MATCHES and CONCURRENCY only (got $# arguments)" >&2
  echo "$usage" >&2
  exit 2
fi
BIN=${PYRAMID_BIN:-build/bin}
MATCHES=${1:-10000}
CONCURRENCY=${2:-256}
for name in MATCHES CONCURRENCY; do
  if ! [[ ${!name} =~ ^[1-9][0-9]{0,8}$ ]]; then
    echo "bench_tournament.sh: $name is a positive integer, not \"${!name}\"" >&2
    echo "$usage" >&2
    exit 2
  fi
done
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

summary() {  # summary KEY FILE: a figure of bench_load's Summary.
  awk -v key="$1" '/^  Summary/{s=1} s && index($0, "  " key " ") == 1 {
    print $(split(key, k, " ") + 1); exit }' "$2"
}
runs=()
load_run() {  # load_run N: bench_load's run N, appended to runs.
  "$BIN/bench_load" --matches="$CONCURRENCY" --echo_seconds=0 \
    --verify_logs=1 >"$tmp/load.out" 2>&1 ||
    { cat "$tmp/load.out" >&2; exit 1; }
  runs+=("$(summary "matches/s" "$tmp/load.out") $(summary "moves/s" "$tmp/load.out")")
  echo "   run $1: ${runs[-1]% *} matches/s, ${runs[-1]#* } moves/s"
}

echo "== bench_load ($CONCURRENCY concurrent matches): run 1 of 3, before"
load_run 1
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

echo "== bench_load ($CONCURRENCY concurrent matches): runs 2 and 3 of 3, after"
load_run 2
load_run 3
# The median run by matches/s.
read -r l_matches l_rate < <(printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p)
t_matches_rate=$(python3 -c "print(f'{$t_matches / ($end - $start):.1f}')")
ratio=$(python3 -c "print(f'{$t_matches_rate / $l_matches:.2f}')")

echo
printf '  %-36s %s\n' "tournament moves/s" "$t_rate"
printf '  %-36s %s\n' "bench_load moves/s (median run)" "$l_rate"
printf '  %-36s %s\n' "tournament matches/s" "$t_matches_rate"
printf '  %-36s %s\n' "bench_load matches/s (median run)" "$l_matches"
printf '  %-36s %s\n' "ratio of matches/s (target >= 0.5)" "$ratio"
printf '  %-36s %s\n' "tournament forfeits (target 0)" "$t_forfeits"
echo "tournament_matches_per_s=$t_matches_rate load_matches_per_s=$l_matches" \
  "ratio=$ratio forfeits=$t_forfeits"
