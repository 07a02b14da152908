# shellcheck shell=bash
# Sourced by the tests of the replay command (tests/replay_*_test.sh), which
# run from the source root, after `set -euo pipefail`. PYRAMID_BIN names the
# built binaries (default build/bin). Sets REPLAY (fails unless it is
# built) and tmp, a directory removed on exit, and defines:
#
#   fail MESSAGE...    says FAIL: MESSAGE, then $tmp/out and $tmp/err, exit 1
#   run STATUS ARGS... runs replay ARGS into $tmp/out and $tmp/err; fails
#                      unless it exits with STATUS
#   has FILE TEXT      fails unless FILE ($tmp/out or $tmp/err) holds TEXT

BIN=${PYRAMID_BIN:-build/bin}
REPLAY=$BIN/replay
[[ -x $REPLAY ]] || {
  echo "FAIL: $REPLAY is not built" >&2
  exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/out "$tmp"/err; do
    [[ -f $f ]] && { echo "--- $f" >&2; cat "$f" >&2; }
  done
  exit 1
}

run() {
  local want=$1 status=0
  shift
  "$REPLAY" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  ((status == want)) || fail "replay $* exited $status, not $want"
}

has() {
  grep -qF -- "$2" "$tmp/$1" || fail "$1 lacks: $2"
}
