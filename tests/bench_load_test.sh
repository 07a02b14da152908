#!/usr/bin/env bash
# bench_load's own acceptance test (issue 18), not timed: a small run in
# each mode, one Play stream per seat and bot mode (--bots=20, and again
# with the referee's SQLite registry, --registry), must hold
# every requested match live at once (peak_live=500 on its last line, the
# key=value line scripts read) and end with no timeout. Nothing about speed
# is asserted; the deadlines are long (10 s) so that a busy CI machine
# cannot turn a slow run into timeouts: a timeout here means a lost or
# unanswered message.
#
# PYRAMID_BIN: the binaries (default build/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
matches=500
failed=0

# value KEY LINE: the value of KEY in a line of key=value pairs.
value() {
  tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

for mode in "" "--bots=20" "--bots=20 --registry"; do
  name=${mode:-streams}
  out=$("$bin/bench_load" --matches=$matches --echo_seconds=0 \
    --verify_logs=2 --deadline_ms=10000 --max_seconds=120 $mode 2>&1) || {
    echo "$name: bench_load failed"
    tail -20 <<<"$out"
    ((++failed))
    continue
  }
  last=$(tail -n 1 <<<"$out")
  peak=$(value peak_live "$last")
  timeouts=$(value timeouts "$last")
  if [[ $peak == "$matches" && $timeouts == 0 ]]; then
    echo "$name: ok ($last)"
  else
    echo "$name: want peak_live=$matches timeouts=0, got: $last"
    ((++failed))
  fi
done
((failed == 0))
