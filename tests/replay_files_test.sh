#!/usr/bin/env bash
# The files replay reads (replay/log_file.h): a device is refused at once,
# a file that is not a log is judged at its first bytes without reading the
# rest, and a proof or checkpoint is read within 1 MiB.
#
#  1. `replay verify /dev/zero` (and show, html, --inclusion=/dev/zero,
#     consistency of /dev/zero) end at once, status 2, naming the device.
#     They read it until memory ran out.
#  2. A sparse non-log file of 1 GiB is NOT GENUINE at record 0 ("not a
#     pyramid log (magic) at byte 0"), status 1, with a max RSS far below
#     the file (under 256 MiB, sanitizers included); so is a pipe of zeros that never ends.
#  3. A golden log through a pipe verifies as the file does.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

# shellcheck source=tests/replay_cli_lib.sh
source "${BASH_SOURCE%/*}/replay_cli_lib.sh"

LOG=testdata/golden/rock_paper_pyramid/red.pyrlog

# within SECONDS STATUS ARGS...: as run, but fails if replay has not ended
# within SECONDS.
within() {
  local seconds=$1 want=$2 status=0
  shift 2
  timeout "$seconds" "$REPLAY" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  ((status != 124)) || fail "replay $* still ran after $seconds s"
  ((status == want)) || fail "replay $* exited $status, not $want"
}

# 1.
device="cannot read /dev/zero: it is not a regular file (a character device)"
within 10 2 verify /dev/zero
has err "/dev/zero: $device"
within 10 2 verify "$LOG" /dev/zero
has out "$LOG: genuine"
has err "1 of 2 files could not be read"
within 10 2 show /dev/zero
has err "$device"
within 10 2 export --json /dev/zero
has err "$device"
within 10 2 html --out="$tmp/page.html" /dev/zero
has err "$device"
within 10 2 verify --inclusion=/dev/zero "$LOG"
has err "--inclusion: $device"
within 10 2 consistency --key="$(cat testdata/tlog/example/referee.pub)" \
  /dev/zero /dev/zero /dev/zero
has err "$device"
within 10 2 verify "$tmp"
has err "it is a directory"

# 2.
truncate -s 1G "$tmp/big.pyrlog"
/usr/bin/time -f %M -o "$tmp/rss" "$REPLAY" verify "$tmp/big.pyrlog" \
  >"$tmp/out" 2>"$tmp/err" && fail "a non-log file verified"
has out "$tmp/big.pyrlog: NOT GENUINE: record 0: not a pyramid log (magic) at byte 0"
rss_kb=$(tail -1 "$tmp/rss")
((rss_kb < 256 * 1024)) ||
  fail "verifying a 1 GiB non-log file took $rss_kb KB: it was read"
within 10 1 show "$tmp/big.pyrlog"
has out "NOT GENUINE: record 0: not a pyramid log (magic) at byte 0"
# A pipe that never ends, of zeros.
within 10 1 verify <(cat /dev/zero)
has out "NOT GENUINE: record 0: not a pyramid log (magic) at byte 0"

# 3.
run 0 verify "$LOG"
sed "s|^$LOG:||" "$tmp/out" >"$tmp/file"
within 10 0 verify <(cat "$LOG")
sed "s|^/dev/fd/[0-9]*:||" "$tmp/out" >"$tmp/pipe"
cmp -s "$tmp/file" "$tmp/pipe" || fail "a log through a pipe verifies otherwise"

echo PASS
