#!/usr/bin/env bash
# `--help` of every program lists every flag it defines, with its help text
# (Abseil alone printed "No flags matched"). For each program, every flag
# its sources define with ABSL_FLAG must appear as --NAME in its --help.
# PYRAMID_NO_BENCHMARKS=1 (the sanitizer build, which does not build them)
# leaves out the bench_* programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
declare -A sources=(
  [referee]=referee/main.cc [bot]=tools/bot/bot_main.cc
  [tournament]=tools/tournament/tournament_main.cc [refctl]=tools/refctl.cc
  [keygen]=tools/keygen.cc [selfplay]=tools/selfplay.cc
  [arena]=tools/bot/arena.cc [bench_load]=tools/bench_load.cc
  [bench_verify]=tools/bench_verify.cc [make_golden]=tools/make_golden.cc
)
passed=0 failed=0
# expect_flag PROGRAM FLAG HELP PATTERN: counts whether HELP, PROGRAM's
# --help, lists --FLAG followed by PATTERN's separator.
expect_flag() {
  if grep -q -- "--$2$4" <<<"$3"; then
    ((++passed))
  else
    echo "$1 --help does not list --$2"
    ((++failed))
  fi
}
for program in "${!sources[@]}"; do
  if [[ ${PYRAMID_NO_BENCHMARKS:-0} == 1 && $program == bench_* ]]; then
    continue
  fi
  help=$("$bin/$program" --help 2>&1 || true)
  flags=$(grep -o 'ABSL_FLAG([^,]*, *[a-z_0-9]*' "${sources[$program]}" |
    sed 's/.*, *//')
  [[ -n $flags ]] || { echo "$program: no flags found in ${sources[$program]}"; ((++failed)); continue; }
  for flag in $flags; do expect_flag "$program" "$flag" "$help" " "; done
done
# bench_tlog takes its own two flags before Google Benchmark's.
if [[ ${PYRAMID_NO_BENCHMARKS:-0} != 1 ]]; then
  bench_help=$("$bin/bench_tlog" --help 2>&1 || true)
  for flag in leaves dir; do expect_flag bench_tlog "$flag" "$bench_help" "="; done
fi
echo "$passed passed, $failed failed"
((failed == 0))
