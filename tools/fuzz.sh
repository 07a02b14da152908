#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz/ (docs/fuzzing.md), from the sanitizer
# build (build-asan/, made here with SANITIZE=1 tools/build.sh if needed).
#
#   tools/fuzz.sh --list              the targets, one per line
#   tools/fuzz.sh TARGET SECONDS      fuzz one target for SECONDS
#   tools/fuzz.sh --all SECONDS       every target for SECONDS, as many at
#                                     once as there are cores (FUZZ_JOBS)
#
# Each run starts from the target's seeds (testdata/ and tests/fuzz/seeds/)
# and kept regression inputs (tests/fuzz/regressions/TARGET/), with its
# dictionary when it has one, and grows a working corpus in
# out/fuzz/TARGET/corpus. A crash, leak, timeout or sanitizer finding stops
# the run, is saved in out/fuzz/TARGET/ and fails the script: fix it and
# keep the input in tests/fuzz/regressions/TARGET/, where the test suite
# replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ASAN_BUILD_DIR:-build-asan}

# The targets and their seed directories: tests/fuzz/targets.txt (which the
# build reads too).
targets_file=tests/fuzz/targets.txt
mapfile -t targets < <(grep -E '^[a-z_]+ ' "$targets_file" | cut -d' ' -f1)

# seeds TARGET: the seed corpus directories of TARGET.
seeds() {
  grep -E "^$1 " "$targets_file" | cut -d' ' -f2-
}

usage() {
  echo "usage: $0 --list | TARGET SECONDS | --all SECONDS" >&2
  exit 2
}

run() {
  local target=$1 seconds=$2
  local binary="$build/bin/${target}_fuzzer" work="out/fuzz/$target"
  mkdir -p "$work/corpus"
  local dict=()
  [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")
  echo "== fuzz $target for ${seconds} s"
  # -rss_limit_mb: the default 2 GiB; -timeout: no single input may take
  # more than 10 s; -print_final_stats: the figures for the notes. The
  # seed directories are words.
  # shellcheck disable=SC2046
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$binary" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "tests/fuzz/regressions/$target" $(seeds "$target") \
    2>"$work/log" || {
      tail -n 60 "$work/log" >&2
      echo "fuzz: $target FAILED; the input is in $work/ (see $work/log)" >&2
      return 1
    }
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|cov: .*ft:" "$work/log" | tail -n 4
}

case ${1:-} in
  --list) printf '%s\n' "${targets[@]}"; exit 0 ;;
  --all) [[ $# == 2 ]] || usage ;;
  "") usage ;;
  *) [[ $# == 2 ]] || usage
     [[ " ${targets[*]} " == *" $1 "* ]] || { echo "fuzz: no target $1 (--list)" >&2; exit 2; } ;;
esac
[[ ${2:-} =~ ^[0-9]+$ ]] || usage
at_once=${FUZZ_JOBS:-$(nproc)}
[[ $at_once =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_JOBS must be a positive number" >&2; exit 2; }
if [[ ! -x $build/bin/verify_log_fuzzer ]]; then SANITIZE=1 BUILD_DIR=$build tools/build.sh; fi
if [[ $1 != --all ]]; then
  run "$1" "$2"
  exit
fi
# --all: each libFuzzer process uses one core, so FUZZ_JOBS (default: the
# number of cores) targets fuzz at once, each for the full SECONDS. Each
# target's output is held in out/fuzz/TARGET/summary and printed whole, in
# the order of targets.txt, once every target has finished.
declare -A pids
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= at_once)); do wait -n || true; done
  mkdir -p "out/fuzz/$target"
  run "$target" "$2" >"out/fuzz/$target/summary" 2>&1 &
  pids[$target]=$!
done
status=0
for target in "${targets[@]}"; do
  wait "${pids[$target]}" || status=1
  cat "out/fuzz/$target/summary"
done
exit $status
