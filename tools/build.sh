#!/usr/bin/env bash
# Configures and builds the project into build/ (executables in build/bin/).
# BUILD_TYPE (default Release) and BUILD_DIR (default build) may be overridden.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$build_dir" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}"
fi
cmake --build "$build_dir" --parallel "$(nproc)"
