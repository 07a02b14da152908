#!/usr/bin/env bash
# Configures and builds the project into build/ (executables in build/bin/).
# BUILD_TYPE (default Release) and BUILD_DIR (default build) may be overridden.
# SANITIZE=1 makes the sanitizer build instead (clang-14, AddressSanitizer +
# UndefinedBehaviorSanitizer, the fuzz targets) in BUILD_DIR, default
# build-asan.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=()
if [[ ${SANITIZE:-0} == 1 ]]; then
  build_dir=${BUILD_DIR:-build-asan}
  sanitize=(-DCMAKE_CXX_COMPILER=clang++-14 -DPYRAMID_SANITIZE=ON)
else
  build_dir=${BUILD_DIR:-build}
fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# ccache, when installed, with the sloppiness its manual asks for to cache
# files compiled with a precompiled header (all but a few of ours).
launcher=()
if command -v ccache >/dev/null; then
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros;ccache")
fi
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$build_dir" "${generator[@]}" "${launcher[@]}" "${sanitize[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}"
fi
cmake --build "$build_dir" --parallel "$(nproc)"
