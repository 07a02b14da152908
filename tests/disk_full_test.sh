#!/usr/bin/env bash
# A full disk during a tournament (docs/durability.md).
#
#   tests/disk_full_test.sh [logs|journal]
#
# logs (the default): the referee's log directory is a small tmpfs that
# fills up mid-tournament. The tournament must end (no hang) and name the
# matches that broke, with their reason; the referee must answer health
# checks throughout and refuse new matches with RESOURCE_EXHAUSTED; once
# space returns it must play a new match to a genuine end.
# journal: the logs have room but the checkpoint journal (DATA_DIR/journal)
# is a tmpfs of 1.5 MiB, which a journal file fills after about a mebibyte
# of checkpoints; the matches whose checkpoint could not be made durable
# break, named with the journal's reason, the journal moves on to a new
# file, and the rest is as above (whether a new match is refused meanwhile
# depends on timing, and is not required).
# Needs root (it mounts a tmpfs), as CI has.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
mode=${1:-logs}
[[ $mode == logs || $mode == journal ]] || { echo "usage: $0 [logs|journal]" >&2; exit 2; }
dir=$(mktemp -d)
logs=$dir/logs
mkdir -p "$logs"
# The tmpfs that fills up.
full=$logs size=256k
if [[ $mode == journal ]]; then
  full=$dir/data/journal size=1536k
  mkdir -p "$full"
fi
referee_pid= health_pid=
cleanup() {
  [[ -n $health_pid ]] && kill "$health_pid" 2>/dev/null || true
  if [[ -n $referee_pid ]]; then
    kill -9 "$referee_pid" 2>/dev/null || true
    # Reaped, so that its files are closed before the unmount.
    wait "$referee_pid" 2>/dev/null || true
  fi
  umount "$full" 2>/dev/null || umount -l "$full" 2>/dev/null || true
  rm -rf "$dir" || true
}
trap cleanup EXIT
fail() { echo "disk_full_test: FAILED: $*" >&2; exit 1; }

mount -t tmpfs -o "size=$size" tmpfs "$full" || fail "cannot mount a tmpfs (root?)"
"$bin/referee" --listen=127.0.0.1:0 --port_file="$dir/port" \
  --data_dir="$dir/data" --log_dir="$logs" >"$dir/referee.out" 2>"$dir/referee.err" &
referee_pid=$!
for _ in $(seq 200); do [[ -s $dir/port ]] && break; sleep 0.02; done
[[ -s $dir/port ]] || fail "the referee did not start"
address=127.0.0.1:$(cat "$dir/port")
refctl=("$bin/refctl" --referee="$address" --admin_token_file="$dir/data/admin.token")

# Health, every 100 ms, from start to end: each answer must be SERVING.
(while true; do
   "${refctl[@]}" health >>"$dir/health" 2>&1 || echo "health check failed" >>"$dir/health"
   sleep 0.1
 done) &
health_pid=$!

cat >"$dir/t.txt" <<TXT
name: "disk-full" game { game: "rock_paper_pyramid" } seats: 3
rounds: 20 concurrency: 8 output_dir: "$dir/out"
bots { name: "r1" command: "$bin/bot" command: "--quiet" }
bots { name: "r2" command: "$bin/bot" command: "--quiet" }
bots { name: "r3" command: "$bin/bot" command: "--quiet" }
bots { name: "r4" command: "$bin/bot" command: "--quiet" }
TXT
status=0
timeout 120 "$bin/tournament" "$dir/t.txt" --referee="$address" \
  --referee_key="$dir/data/referee.key.pub" \
  --admin_token_file="$dir/data/admin.token" \
  >"$dir/tournament.out" 2>"$dir/tournament.err" || status=$?
((status != 124)) || fail "the tournament hung"
((status != 0)) || fail "every match verified: the disk never filled"
results=$dir/out/results.json
[[ -s $results ]] || fail "no results.json"
# Whether the disk filled inside a running match (it broke) or as a new
# one was created (refused) depends on timing; either way the result names
# the reason, and new matches are refused until space returns.
grep -q 'No space left on device' "$results" ||
  fail "the reason (no space) is not named: $(head -c 600 "$results")"
if [[ $mode == logs ]]; then
  grep -q 'cannot write match logs now' "$results" ||
    fail "new matches were not refused while the disk was full"
else
  grep -q 'the journal could not make a checkpoint durable' "$results" ||
    fail "no match names the journal's reason: $(head -c 600 "$results")"
fi
broken=$({ grep -o 'match is broken\|the match broke' "$results" || true; } | wc -l)
if ((broken > 0)); then
  grep -q 'broken: .*No space left on device' "$dir/referee.err" ||
    fail "no stderr line names a broken match and its reason"
  # `refctl list --status=broken` lists them, and only them.
  "${refctl[@]}" list --status=broken >"$dir/broken.out" 2>&1 ||
    fail "refctl list --status=broken: $(cat "$dir/broken.out")"
  grep -q ' MATCH_BROKEN$' "$dir/broken.out" ||
    fail "refctl list --status=broken lists no broken match"
  ! grep -v ' MATCH_BROKEN$' "$dir/broken.out" ||
    fail "refctl list --status=broken lists another match"
fi
verified=$({ grep -o '"verdict": *"genuine"' "$results" || true; } | wc -l)
# What was written stays valid: every log, the broken ones included,
# verifies at least up to its last checkpoint.
"$bin/replay" verify --allow-unsealed --key="$dir/data/referee.key.pub" \
  "$logs"/*.pyrlog >"$dir/verify.out" ||
  fail "a log does not verify: $(grep -v ': genuine' "$dir/verify.out" | head -3)"

# Space returns: a new match is played to a genuine end.
mount -o remount,size=16m "$full"
"${refctl[@]}" create-match --game=rock_paper_pyramid --seats=3 \
  --token_dir="$dir/tok" >"$dir/create.out" 2>&1 || fail "$(cat "$dir/create.out")"
match=$(grep -E '^[0-9a-f]{32}$' "$dir/create.out" || true)
[[ -n $match ]] || fail "no match id in: $(cat "$dir/create.out")"
bots=()
for seat in 0 1 2; do
  timeout 60 "$bin/bot" --referee="$address" \
    --token_file="$dir/tok/seat-$seat.token" --matches=1 --quiet &
  bots+=($!)
done
for pid in "${bots[@]}"; do wait "$pid" || fail "a bot of the new match failed"; done
"$bin/replay" verify --key="$dir/data/referee.key.pub" "$logs"/*"$match".pyrlog \
  | grep -q ': genuine' || fail "the match after the disk filled is not genuine"

kill "$health_pid"
health_pid=
checks=$(grep -c '' "$dir/health")
bad=$(grep -vc '^SERVING$' "$dir/health" || true)
((bad == 0)) || fail "$bad of $checks health checks did not answer SERVING"
echo "disk_full_test ($mode): $verified matches verified before the disk filled;" \
  "$broken broke, named with their reason (every log verifies up to its last" \
  "checkpoint); $checks health checks, all SERVING;" \
  "a new match played to a genuine end once space returned"
