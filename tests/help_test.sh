#!/usr/bin/env bash
# `--help` of every program lists every flag it defines, with its help text
# (Abseil alone printed "No flags matched"). For each program, every flag
# its sources define with ABSL_FLAG must appear as --NAME in its --help.
# A program that takes flags only (all but refctl and tournament) refuses a
# positional argument with status 2, naming it, before it does anything.
# --help exits 0, and --version, printing the program, the log format
# version and the build (Abseil's own said "Debug build" of every build);
# an unknown flag, a value a flag's type does not take, and an empty value
# for a text flag that has a default (keygen --out=, the referee's
# --data_dir=, refctl's --token_dir=: a path of nothing, once "cannot
# create : No such file or directory", status 1)
# are usage errors like the programs' own: status 2, one line naming it.
# So are bad values that only the program can judge (arena's unknown game,
# a seat count without one strategy per seat, refctl's negative seat
# count, consistency sizes (a negative one too, not read as a flag),
# --size and inclusion names no referee takes, the
# bot's unknown game or unreadable token file, and the benchmarks' values
# out of range, each refused before any work). The
# Google Benchmark programs (bench_rules, bench_tlog) refuse their command
# line's mistakes the same way, Google Benchmark's flags' included (a
# value that is no number in one line, ours alone). refctl's
# --help lists its commands. tournament's flags that override a field of
# the tournament file say what leaving them unset means; the bot's --matches
# and --reconnect_for_s say what 0 does, as docs/writing-a-bot.md does.
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
# argument as a program that takes flags only does: "PROGRAM: takes no
# positional arguments (...)", prefixed as its other errors (it once said
# "PROGRAM takes ...").
expect_refused() {
  local out status=0
  out=$("$bin/$1" stray-argument 2>&1) || status=$?
  if ((status == 2)) &&
    [[ $out == "$1: takes no positional arguments (got \"stray-argument\")"* ]]; then
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
# expect_only PROGRAM STATUS LINE ARGS...: counts whether PROGRAM ARGS
# exits STATUS, saying LINE and nothing else (stdout and stderr).
expect_only() {
  local program=$1 want=$2 line=$3 out status=0
  shift 3
  out=$("$bin/$program" "$@" 2>&1) || status=$?
  if ((status == want)) && [[ $out == "$line" ]]; then
    ((++passed))
  else
    echo "$program $*: status $status (want $want), said: ${out:0:300}"
    echo "  (want only: $line)"
    ((++failed))
  fi
}
# expect_says WHAT TEXT PART: counts whether TEXT, what WHAT says, holds
# PART.
expect_says() {
  if [[ $2 == *"$3"* ]]; then
    ((++passed))
  else
    echo "$1 does not say \"$3\": $2"
    ((++failed))
  fi
}
for program in "${!sources[@]}"; do
  if [[ ${PYRAMID_NO_BENCHMARKS:-0} == 1 && $program == bench_* ]]; then
    continue
  fi
  [[ $program == refctl || $program == tournament ]] || expect_refused "$program"
  expect_status "$program" 0 "--help" --help
  expect_status "$program" 0 "$program (Pyramid referee): log format version 1; " --version
  expect_status "$program" 2 "unknown flag --no_such_flag" --no_such_flag=1
  help=$("$bin/$program" --help 2>&1 || true)
  flags=$(grep -o 'ABSL_FLAG([^,]*, *[a-z_0-9]*' "${sources[$program]}" |
    sed 's/.*, *//')
  [[ -n $flags ]] || { echo "$program: no flags found in ${sources[$program]}"; ((++failed)); continue; }
  for flag in $flags; do expect_flag "$program" "$flag" "$help" " "; done
done
expect_status replay 0 "replay (Pyramid referee): log format version 1; " --version
expect_status tournament 2 "--rounds: Illegal value 'x'" --rounds=x
# A device as the tournament file is refused unread (it was read until the
# machine's memory ran out).
expect_status tournament 2 "cannot read /dev/zero: it is not a regular file" /dev/zero
expect_status selfplay 2 "--matches needs a value" --matches
expect_status referee 2 "unknown flag --nolisten" --nolisten
expect_only keygen 2 \
  "keygen: --out needs a value (default referee.key) (see keygen --help)" --out=
expect_status referee 2 "--data_dir needs a value (default referee-data)" \
  --data_dir=
expect_status refctl 2 "--token_dir needs a value (default .)" \
  --token_dir= create-match --game=rock_paper_pyramid --seats=3
expect_status selfplay 2 "--out needs a value" --out ""
expect_status arena 2 "give one strategy per seat: 4 seats, 2 strategies" \
  --game=pyramid_shambo --seats=4 --strategies=heuristic,random
expect_status arena 2 "nosuch" --game=nosuch
expect_status arena 2 "multiple of the seats" --games=3
# Unset, each flag that overrides a field of the tournament file leaves the
# file's value, and its --help says so (absl showed an unset std::optional
# as "default: ;" and an unset std::string as 'default: "";'); a flag with
# its own default (--referee_retry_s) or no field in the file (--tls_ca)
# keeps its own.
help=$("$bin/tournament" --help 2>&1 | tr -s ' \n' ' ')
entries=$(sed 's/ --\([a-z_0-9]*\) (/\n--\1 (/g' <<<"$help")
file="the tournament file's value"
for flag_default in "concurrency=$file" "rounds=$file" "output_dir=$file" \
  "seed=$file" "format=$file" "sprt=$file" "referee=$file" \
  "referee_key=$file" "admin_token_file=$file" "signing_key_file=$file" \
  "referee_retry_s=300" 'tls_ca=""'; do
  flag=${flag_default%%=*} default=${flag_default#*=}
  entry=$(grep -- "^--$flag (" <<<"$entries" || true)
  expect_says "tournament --help: --$flag" "$entry" "; default: $default;"
done
defaults=$(grep -o "default: $file;" <<<"$help" | wc -l || true)
if ((defaults == 10)) && [[ $help != *'default: ;'* ]]; then
  ((++passed))
else
  echo "tournament --help: $defaults flags say \"default: $file\" (want 10): $help"
  ((++failed))
fi
# The bot's --matches and --reconnect_for_s say what 0 does, as
# docs/writing-a-bot.md's flag table does (a seat token's stream ends once
# its match ends; a bot token's stays open).
help=$("$bin/bot" --help 2>&1 | tr -s ' \n' ' ')
for says in \
  "--matches (Exit after this many matches have ended (0: with a seat token, when its match ends; with a bot token, run until stopped).)" \
  "--reconnect_for_s (Reconnect for at most this many seconds without a referee:" \
  "(0: exit at once when the stream breaks, with status 1).)"; do
  expect_says "bot --help" "$help" "$says"
done
# refctl's --help lists its commands, not only its flags; a negative seat
# count is named as such.
for command in register-bot create-match get-match list watch get-log \
  health checkpoint inclusion consistency; do
  expect_status refctl 0 "  $command " --help
done
expect_status refctl 2 "--seats must be positive, not -1" create-match \
  --game=rock_paper_pyramid --seats=-1
# Sizes, bot names and log names no referee takes are refused before any call (no
# referee listens on port 1): they reached it, and its INVALID_ARGUMENT or
# NOT_FOUND exited 1.
expect_only refctl 2 "refctl: consistency: the old size (4) is larger than the new one (1): swapped? The older size comes first" \
  --referee=127.0.0.1:1 consistency 4 1
expect_only refctl 2 'refctl: consistency: OLD is a tree size, a whole number 1 or more, not "0"' \
  --referee=127.0.0.1:1 consistency 0 3
expect_only refctl 2 'refctl: consistency: NEW is a tree size, a whole number 1 or more, not "x"' \
  --referee=127.0.0.1:1 consistency 1 x
# A negative number is an argument, not a flag ("unknown flag --1" before),
# wherever it stands, and a flag's value when it follows one.
expect_only refctl 2 'refctl: consistency: OLD is a tree size, a whole number 1 or more, not "-1"' \
  --referee=127.0.0.1:1 consistency -1 3
expect_only refctl 2 'refctl: consistency: NEW is a tree size, a whole number 1 or more, not "-3"' \
  --referee=127.0.0.1:1 consistency --out /nonexistent/proof 1 -3
expect_only refctl 2 'refctl: inclusion: "-1" is neither a match id (32 hex digits) nor a log'"'"'s SHA-256 (64 hex digits)' \
  --referee=127.0.0.1:1 inclusion -1
expect_only refctl 2 "refctl: --size is a tree size, a whole number 1 or more (0: the latest), not -1" \
  --referee=127.0.0.1:1 checkpoint --size=-1
expect_only refctl 2 "refctl: --size is a tree size, a whole number 1 or more (0: the latest), not -2" \
  --referee=127.0.0.1:1 inclusion 0123456789abcdef0123456789abcdef --size -2
expect_only refctl 2 "refctl: register-bot: a bot's name is 1 to 64 bytes, not 0" \
  --referee=127.0.0.1:1 register-bot ''
expect_only refctl 2 "refctl: register-bot: a bot's name is 1 to 64 bytes, not 65" \
  --referee=127.0.0.1:1 register-bot "$(printf 'n%.0s' {1..65})"
expect_only refctl 2 "refctl: inclusion: \"nothex\" is neither a match id (32 hex digits) nor a log's SHA-256 (64 hex digits)" \
  --referee=127.0.0.1:1 inclusion nothex
expect_only refctl 2 "refctl: inclusion: \"0123456789abcdef0123456789abcdeg\" is neither a match id (32 hex digits) nor a log's SHA-256 (64 hex digits)" \
  --referee=127.0.0.1:1 inclusion 0123456789abcdef0123456789abcdeg
expect_status bot 2 'unknown --game "nosuch": the games are flaming_pyramids, pyramid_scheme, pyramid_shambo, rock_paper_pyramid' \
  --game=nosuch
expect_status bot 2 "--token_file: cannot open /nonexistent/seat.token" \
  --token_file=/nonexistent/seat.token
# bench_tlog takes its own two flags before Google Benchmark's.
if [[ ${PYRAMID_NO_BENCHMARKS:-0} != 1 ]]; then
  bench_help=$("$bin/bench_tlog" --help 2>&1 || true)
  for flag in leaves dir; do expect_flag bench_tlog "$flag" "$bench_help" "="; done
  # The Google Benchmark programs: no benchmark runs in any of these.
  for program in bench_rules bench_tlog; do
    expect_refused "$program"
    expect_status "$program" 2 "unknown flag --no_such_flag" --no_such_flag
    expect_status "$program" 2 '--benchmark_format is console, json or csv, not "xml"' \
      --benchmark_format=xml
    # A value that is no number: one line, ours (Google Benchmark's own
    # "The value of flag ... is expected to be a double" came before it).
    expect_only "$program" 2 \
      "$program: --benchmark_repetitions is a whole number of times, not \"x\" (see $program --help)" \
      --benchmark_repetitions=x
    expect_only "$program" 2 \
      "$program: --benchmark_repetitions is a whole number of times, not \"1.5\" (see $program --help)" \
      --benchmark_repetitions=1.5
    expect_only "$program" 2 \
      "$program: --benchmark_min_time is a number of seconds, not \"abc\" (see $program --help)" \
      --benchmark_min_time=abc
    expect_only "$program" 2 \
      "$program: --benchmark_min_warmup_time is a number of seconds, not \"2x\" (see $program --help)" \
      --benchmark_min_warmup_time=2x
    expect_status "$program" 2 "--benchmark_repetitions must be positive, not 0" \
      --benchmark_repetitions=0
    expect_status "$program" 2 "names no benchmark" \
      --benchmark_filter=no_such_benchmark
    expect_status "$program" 2 "--benchmark_out=/nonexistent/out.json" \
      --benchmark_out=/nonexistent/out.json
    expect_status "$program" 2 "--benchmark_out=/tmp: is a directory" \
      --benchmark_out=/tmp
    expect_status "$program" 0 "$program (Pyramid referee): log format version 1; " \
      --version
  done
  # A filter that matches nothing, or is no regex, is said once, ours
  # (Google Benchmark's own "Failed to match any benchmarks" came first).
  for program in bench_rules bench_tlog; do
    expect_only "$program" 2 \
      "$program: --benchmark_filter=none names no benchmark; --benchmark_list_tests lists them (see $program --help)" \
      --benchmark_filter=none
  done
  expect_only bench_rules 2 \
    "bench_rules: --benchmark_filter=(: Could not compile benchmark re: Mismatched '(' and ')' in regular expression (see bench_rules --help)" \
    '--benchmark_filter=('
  expect_status bench_tlog 2 "--dir=/nonexistent: No such file or directory" \
    --dir=/nonexistent
  expect_status bench_tlog 2 '--leaves is a positive number, not "0"' --leaves=0
  expect_status bench_load 2 "--bots is 0 to 100 (0: no bots), not 101" --bots=101
  expect_status bench_load 2 \
    '--fsync is never, checkpoints or every_record, not "sometimes"' \
    --fsync=sometimes
  expect_status bench_load 2 "--play_queues is 1 to 64, not 0" --play_queues=0
  expect_status bench_load 2 "--tmp_dir=/nonexistent: No such file or directory" \
    --tmp_dir=/nonexistent
  expect_status bench_html 2 "--seats: pyramid_scheme takes 2 to 4 seats, not 99" \
    --seats=99 --game=pyramid_scheme
  expect_status bench_html 2 "--seats: rock_paper_pyramid takes 3 seats, not -1" \
    --seats=-1
  expect_status bench_verify 2 \
    '--phases takes letters among a, b, c and d (one phase at least), not "xyz"' \
    --phases=xyz
  expect_status bench_verify 2 "--logs must be positive, not 0" --logs=0
fi
echo "$passed passed, $failed failed"
((failed == 0))
