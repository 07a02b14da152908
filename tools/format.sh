#!/usr/bin/env bash
# Formats every C++ file the repository tracks with clang-format-14 and the
# root .clang-format (Google style).
#
#   tools/format.sh           rewrite the files in place
#   tools/format.sh --check   change nothing; list the files that differ and
#                             fail if any does (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format-14 >/dev/null || tools/setup.sh
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [[ ${1:-} == --check ]]; then
  drift=()
  for file in "${files[@]}"; do
    clang-format-14 --dry-run --Werror "$file" >/dev/null 2>&1 || drift+=("$file")
  done
  if ((${#drift[@]} > 0)); then
    printf 'format: %s is not clang-format clean\n' "${drift[@]}" >&2
    echo "format: ${#drift[@]} of ${#files[@]} files differ; run tools/format.sh" >&2
    exit 1
  fi
  echo "format: all ${#files[@]} C++ files are clang-format clean"
elif [[ $# == 0 ]]; then
  clang-format-14 -i "${files[@]}"
else
  echo "usage: $0 [--check]" >&2
  exit 2
fi
