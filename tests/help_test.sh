#!/usr/bin/env bash
# `--help` of every program lists every flag it defines, with its help text
# (Abseil alone printed "No flags matched"). For each program, every flag
# its sources define with ABSL_FLAG must appear as --NAME in its --help.
# A program that takes flags only (all but refctl and tournament) refuses a
# positional argument with status 2, naming it, before it does anything.
# --help exits 0; an unknown flag, and a value a flag's type does not take,
# are usage errors like the programs' own: status 2, one line naming it.
# So are bad values that only the program can judge (arena's unknown game,
# a seat count without one strategy per seat, refctl's negative seat
# count). refctl's --help lists its commands. tournament's number flags
# that override the tournament file say what leaving them unset means.
# PYRAMID_NO_BENCHMARKS=1 (the sanitizer build, which does not build them)
# leaves out the bench_* programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
declare -A sources=(
  [referee]=referee/main.cc [bot]=tools/bot/bot_main.cc
  [tournament]=tools/tournament/tournament_main.cc [refctl]=tools/refctl.cc
  [keygen]=tools/keygen.cc [selfplay]=tools/selfplay.cc
  [arena]=tools/bot/arena.cc [bench_load]=tools/bench_load/bench_load_main.cc
  [bench_verify]=tools/bench_verify.cc [make_golden]=tools/make_golden.cc
  [bench_html]=tools/bench_html.cc
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
# expect_refused PROGRAM: counts whether PROGRAM refuses a positional
# argument as a program that takes flags only does.
expect_refused() {
  local out status=0
  out=$("$bin/$1" stray-argument 2>&1) || status=$?
  if ((status == 2)) &&
    [[ $out == *'takes no positional arguments (got "stray-argument")'* ]]; then
    ((++passed))
  else
    echo "$1 stray-argument: status $status, said: $out"
    ((++failed))
  fi
}
# expect_status PROGRAM STATUS TEXT ARGS...: counts whether PROGRAM ARGS
# exits STATUS, saying TEXT (on stdout or stderr).
expect_status() {
  local program=$1 want=$2 text=$3 out status=0
  shift 3
  out=$("$bin/$program" "$@" 2>&1) || status=$?
  if ((status == want)) && [[ $out == *"$text"* ]]; then
    ((++passed))
  else
    echo "$program $*: status $status (want $want), said: ${out:0:300}"
    ((++failed))
  fi
}
for program in "${!sources[@]}"; do
  if [[ ${PYRAMID_NO_BENCHMARKS:-0} == 1 && $program == bench_* ]]; then
    continue
  fi
  [[ $program == refctl || $program == tournament ]] || expect_refused "$program"
  expect_status "$program" 0 "--help" --help
  expect_status "$program" 2 "unknown flag --no_such_flag" --no_such_flag=1
  help=$("$bin/$program" --help 2>&1 || true)
  flags=$(grep -o 'ABSL_FLAG([^,]*, *[a-z_0-9]*' "${sources[$program]}" |
    sed 's/.*, *//')
  [[ -n $flags ]] || { echo "$program: no flags found in ${sources[$program]}"; ((++failed)); continue; }
  for flag in $flags; do expect_flag "$program" "$flag" "$help" " "; done
done
expect_status tournament 2 "--rounds: Illegal value 'x'" --rounds=x
expect_status selfplay 2 "--matches needs a value" --matches
expect_status referee 2 "unknown flag --nolisten" --nolisten
expect_status arena 2 "give one strategy per seat: 4 seats, 2 strategies" \
  --game=pyramid_shambo --seats=4 --strategies=heuristic,random
expect_status arena 2 "nosuch" --game=nosuch
expect_status arena 2 "multiple of the seats" --games=3
# Unset, --concurrency, --rounds and --seed leave the file's value (absl
# showed an unset std::optional as "default: ;").
help=$("$bin/tournament" --help 2>&1 | tr -s ' \n' ' ')
defaults=$(grep -o "default: the tournament file's value;" <<<"$help" | wc -l || true)
if ((defaults == 3)) && [[ $help != *'default: ;'* ]]; then
  ((++passed))
else
  echo "tournament --help: $defaults flags say \"default: the tournament file's value\": $help"
  ((++failed))
fi
# refctl's --help lists its commands, not only its flags; a negative seat
# count is named as such.
for command in register-bot create-match get-match list watch get-log \
  health checkpoint inclusion consistency; do
  expect_status refctl 0 "  $command " --help
done
expect_status refctl 2 "--seats must be positive, not -1" create-match \
  --game=rock_paper_pyramid --seats=-1
# bench_tlog takes its own two flags before Google Benchmark's.
if [[ ${PYRAMID_NO_BENCHMARKS:-0} != 1 ]]; then
  bench_help=$("$bin/bench_tlog" --help 2>&1 || true)
  for flag in leaves dir; do expect_flag bench_tlog "$flag" "$bench_help" "="; done
fi
echo "$passed passed, $failed failed"
((failed == 0))
