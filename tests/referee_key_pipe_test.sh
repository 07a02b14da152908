#!/usr/bin/env bash
# The referee's --key_file given as a pipe, as docs/protocol.md and the
# referee's --help allow (`--key_file=<(pass show referee-key)`): the key is
# read once, before DATA_DIR is touched, and that key signs (the banner
# names its public key; a match's log verifies against it). Before, the
# flag check read the pipe to its end and the start found it empty
# ("expected 64 hex digits, found nothing").
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=20 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee keygen

"$BIN/keygen" --out="$tmp/referee.key" >/dev/null 2>&1
public=$(cat "$tmp/referee.key.pub")
spawn referee "$BIN/referee" --listen=127.0.0.1:0 --port_file="$tmp/port" \
  --data_dir="$tmp/data" --key_file=<(cat "$tmp/referee.key")
referee_pid=$last_pid
deadline=$((SECONDS + LIMIT))
until [[ -s $tmp/port ]]; do
  kill -0 "$referee_pid" 2>/dev/null || fail "the referee did not start"
  ((SECONDS < deadline)) || fail "the referee did not listen"
  sleep 0.05
done
grep -q "referee key:  /dev/fd/[0-9]* (public $public)" "$tmp/referee.out" ||
  fail "the referee does not sign with the key its --key_file pipe gave"
[[ ! -e $tmp/data/referee.key ]] || fail "a key was made in DATA_DIR"
echo "PASS: --key_file=<(...) is read once, and its key signs"
