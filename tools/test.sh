#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): installs what is missing,
# checks the formatting (tools/format.sh --check), builds (build/) and runs
# every test; then builds again with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, clang-14) and runs every test
# there too, fuzz targets' regression inputs included; then runs every fuzz
# target for FUZZ_SECONDS (default 10) each (tools/fuzz.sh). Prints the time
# of each step; fails at the first that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
step() {
  echo
  echo "== test: $1 ($(($(date +%s) - start)) s so far)"
}
step setup
tools/setup.sh
step "format check"
tools/format.sh --check
step "build"
tools/build.sh
step "tests"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
step "sanitizer build (ASan + UBSan)"
SANITIZE=1 tools/build.sh
step "tests under ASan + UBSan"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)"
step "fuzzing, ${FUZZ_SECONDS:-10} s per target"
tools/fuzz.sh --all "${FUZZ_SECONDS:-10}"
echo
echo "test: all passed in $(($(date +%s) - start)) s"
