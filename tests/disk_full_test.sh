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
# depends on timing, and is not required). Once the tournament is over and
# nothing runs, the journal must let go of its file (a second copy of bytes
# the logs hold) by itself, within 10 s of the last checkpoint, and the new
# match after it is played with no space made for it.
# logs also runs a second referee whose data directory (the registry) and
# log directory are two small tmpfs: with the registry's full, a new match
# and a new bot are refused RESOURCE_EXHAUSTED (not UNAVAILABLE, which a
# tournament runner retries at once), and (started without a journal, which
# would be on the registry's disk) the next new match is refused at once
# though the logs have room; with both full, a match created with
# a request_id breaks and its end cannot be recorded: a retry of the
# request_id is refused RESOURCE_EXHAUSTED (no replacement yet), and once
# space returns and the referee is stopped (SIGTERM) and started again the
# match is still broken, not resumed, its log untouched, and the retry then
# creates the replacement. The replacement breaks the same way, and the
# referee is killed (SIGKILL) while the disks are still full. With the
# logs' disk emptied and the registry's still full, the next start
# succeeds (it once failed writing tlog.vkey, unchanged): it resumes a
# match waiting for its seeds, finds the replacement broken by its log's
# mode (0444) and refuses its retry, as it cannot record its end yet. Once
# space returns the start after finds it broken the same way, does not
# resume it, leaves its log as it was, and a retry creates a third match.
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
mounts=()
cleanup() {
  [[ -n $health_pid ]] && kill "$health_pid" 2>/dev/null || true
  if [[ -n $referee_pid ]]; then
    kill -9 "$referee_pid" 2>/dev/null || true
    # Reaped, so that its files are closed before the unmount.
    wait "$referee_pid" 2>/dev/null || true
  fi
  for mounted in "$full" "${mounts[@]}"; do
    umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null || true
  done
  rm -rf "$dir" || true
}
trap cleanup EXIT
fail() { echo "disk_full_test: FAILED: $*" >&2; exit 1; }

mount -t tmpfs -o "size=$size" tmpfs "$full" || fail "cannot mount a tmpfs (root?)"
"$bin/referee" --listen=127.0.0.1:0 --port_file="$dir/port" \
  --data_dir="$dir/data" --log_dir="$logs" >"$dir/referee.out" 2>"$dir/referee.err" &
referee_pid=$!
for _ in $(seq 500); do
  [[ -s $dir/port ]] && break
  kill -0 "$referee_pid" 2>/dev/null || break
  sleep 0.02
done
[[ -s $dir/port ]] || fail "the referee did not start: $(cat "$dir/referee.err")"
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
# A refusal for want of space is waited out as long as the tournament's
# matches go on ending, and for --referee_retry_s after the last: 2 s here.
timeout 120 "$bin/tournament" "$dir/t.txt" --referee="$address" \
  --referee_key="$dir/data/referee.key.pub" --referee_retry_s=2 \
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
  grep -qE 'cannot (write match logs|record new matches) now' "$results" ||
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
  grep -qE ' MATCH_BROKEN(  |$)' "$dir/broken.out" ||
    fail "refctl list --status=broken lists no broken match"
  # Each line: ID  GAME  STATUS  LABEL (the tournament's).
  grep -qE ' MATCH_BROKEN  disk-full/[0-9a-f]+/[0-9]+$' "$dir/broken.out" ||
    fail "refctl list does not give the label: $(head -3 "$dir/broken.out")"
  ! grep -vE ' MATCH_BROKEN(  |$)' "$dir/broken.out" ||
    fail "refctl list --status=broken lists another match"
fi
verified=$({ grep -o '"verdict": *"genuine"' "$results" || true; } | wc -l)
# What was written stays valid: every log, the broken ones included,
# verifies at least up to its last checkpoint.
"$bin/replay" verify --allow-unsealed --key="$dir/data/referee.key.pub" \
  "$logs"/*.pyrlog >"$dir/verify.out" ||
  fail "a log does not verify: $(grep -v ': genuine' "$dir/verify.out" | head -3)"

# Space returns: a new match is played to a genuine end. A full journal
# disk is made room on by the journal itself: nothing runs now, and it
# retires its file 10 s after the last checkpoint (it once kept it until
# the referee was restarted, refusing every new match meanwhile).
if [[ $mode == journal ]]; then
  for _ in $(seq 300); do
    [[ -z $(ls -A "$full") ]] && break
    sleep 0.1
  done
  [[ -z $(ls -A "$full") ]] ||
    fail "the journal kept its files with nothing running: $(ls -l "$full")"
else
  mount -o remount,size=16m "$full"
fi
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

also=
if [[ $mode == logs ]]; then
  kill -9 "$referee_pid"
  wait "$referee_pid" 2>/dev/null || true
  # The second referee: its registry and its logs each on a tmpfs that the
  # test fills (a file of zeros) and empties again.
  reg=$dir/reg2 lg=$dir/logs2
  mkdir -p "$reg" "$lg"
  for fs in "$reg" "$lg"; do
    mount -t tmpfs -o size=2m tmpfs "$fs" || fail "cannot mount a tmpfs"
    mounts+=("$fs")
  done
  # start_referee N [FLAGS...]: the Nth start, output in $dir/rN.*
  start_referee() {
    local n=$1 data=$reg/data logs=$lg/logs
    shift
    [[ $n != 0 ]] || data=$reg/data0 logs=$lg/logs0
    rm -f "$dir/port"
    "$bin/referee" --listen=127.0.0.1:0 --port_file="$dir/port" \
      --data_dir="$data" --log_dir="$logs" "$@" \
      >"$dir/r$n.out" 2>"$dir/r$n.err" &
    referee_pid=$!
    for _ in $(seq 500); do
      [[ -s $dir/port ]] && break
      kill -0 "$referee_pid" 2>/dev/null || break
      sleep 0.02
    done
    [[ -s $dir/port ]] ||
      fail "the second referee did not start (start $n): $(cat "$dir/r$n.err")"
    address=127.0.0.1:$(cat "$dir/port")
    refctl=("$bin/refctl" --referee="$address"
      --admin_token_file="$data/admin.token")
  }
  fill() { dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null || true; }
  # refused CODE WHAT ARGS...: refctl ARGS must fail with CODE.
  refused() {
    local code=$1 what=$2
    shift 2
    ! "${refctl[@]}" "$@" >"$dir/refused.out" 2>&1 ||
      fail "$what was not refused: $(cat "$dir/refused.out")"
    grep -q "$code" "$dir/refused.out" ||
      fail "$what was not refused $code: $(cat "$dir/refused.out")"
  }
  # Start 0, without a journal (which would share the registry's disk):
  # the registry's disk alone is full, and after the first match it cannot
  # record, the next is refused at once, though the logs have room.
  start_referee 0 --journal=false
  fill "$reg"
  refused RESOURCE_EXHAUSTED "a match the full registry cannot record" \
    create-match --seats=3
  refused RESOURCE_EXHAUSTED "a match after the registry's disk filled" \
    create-match --seats=3
  grep -q 'new matches are refused until space returns' "$dir/refused.out" ||
    fail "the registry's full disk was not noted: $(cat "$dir/refused.out")"
  kill "$referee_pid"
  wait "$referee_pid" 2>/dev/null || true
  rm -f "$reg/fill"
  start_referee 1
  # Each retry writes the tokens of the match it is answered with (a
  # replacement's) over those of the first.
  retry=(create-match --seats=3 --seed_timeout_ms=60000 --request_id=held
    --token_dir="$dir/tok2" --replace_tokens)
  "${refctl[@]}" "${retry[@]}" >"$dir/c1.out" 2>&1 || fail "$(cat "$dir/c1.out")"
  stuck=$(grep -E '^[0-9a-f]{32}$' "$dir/c1.out" || true)
  [[ -n $stuck ]] || fail "no match id in: $(cat "$dir/c1.out")"

  fill "$reg"
  refused RESOURCE_EXHAUSTED "a match the full registry cannot record" \
    create-match --seats=3 --request_id=other
  refused RESOURCE_EXHAUSTED "a bot the full registry cannot record" \
    register-bot full --token_out="$dir/full.token"

  # Its log's disk full too: the match breaks at its next write.
  fill "$lg"
  play_seats() {  # The seats of the match tok2 holds the tokens of.
    local bots=() pid seat
    : >"$dir/bots2.err"
    for seat in 0 1 2; do
      timeout 30 "$bin/bot" --referee="$address" \
        --token_file="$dir/tok2/seat-$seat.token" --matches=1 --quiet \
        2>>"$dir/bots2.err" &
      bots+=($!)
    done
    for pid in "${bots[@]}"; do wait "$pid" || true; done
    grep -q 'the match is broken and stopped' "$dir/bots2.err" ||
      fail "the match did not break: $(head -c 600 "$dir/bots2.err")"
  }
  play_seats
  grep -q "end match: database or disk is full" "$dir/r1.err" ||
    fail "the registry recorded the end on a full disk: $(cat "$dir/r1.err")"
  refused RESOURCE_EXHAUSTED "the retry of a broken match not recorded" \
    "${retry[@]}"
  grep -q 'cannot be recorded yet' "$dir/refused.out" ||
    fail "the refusal does not say why: $(cat "$dir/refused.out")"

  # Space returns; a clean stop records the end; the start after it finds
  # the match broken, and leaves its log as it was.
  rm "$reg/fill" "$lg/fill"
  log=$(echo "$lg"/logs/*"$stuck".pyrlog)
  cp "$log" "$dir/broken.pyrlog"
  kill -TERM "$referee_pid"
  wait "$referee_pid" || fail "the referee did not stop cleanly"
  start_referee 2
  grep -q ' 0 resumed' "$dir/r2.out" ||
    fail "a match was resumed: $(grep registry: "$dir/r2.out")"
  cmp -s "$log" "$dir/broken.pyrlog" ||
    fail "the broken match's log changed: $("$bin/replay" show "$log" | tail -3)"
  "${refctl[@]}" get-match "$stuck" >"$dir/get.out" 2>&1 ||
    fail "$(cat "$dir/get.out")"
  grep -q '"status":"MATCH_BROKEN"' "$dir/get.out" ||
    fail "the broken match is not broken after a restart: $(cat "$dir/get.out")"
  "${refctl[@]}" list --status=broken | grep -q "^$stuck " ||
    fail "refctl list --status=broken does not list the broken match"
  # The retry now creates its replacement.
  "${refctl[@]}" "${retry[@]}" >"$dir/c2.out" 2>&1 || fail "$(cat "$dir/c2.out")"
  replacement=$(grep -E '^[0-9a-f]{32}$' "$dir/c2.out" || true)
  [[ -n $replacement && $replacement != "$stuck" ]] ||
    fail "the retry did not create a replacement: $(cat "$dir/c2.out")"

  # Again with the replacement, but the referee is killed (SIGKILL) while
  # the disk is still full, before the end could be recorded: the registry
  # still says running, and the log's mode (0444, marked broken, which
  # needs no space) is what tells the next start that the match broke.
  # A match waiting for its seeds, running across the restarts below.
  "${refctl[@]}" create-match --seats=3 --seed_timeout_ms=600000 \
    --token_dir="$dir/tok3" >"$dir/cw.out" 2>&1 || fail "$(cat "$dir/cw.out")"
  waiting=$(grep -E '^[0-9a-f]{32}$' "$dir/cw.out" || true)
  [[ -n $waiting ]] || fail "no match id in: $(cat "$dir/cw.out")"
  fill "$reg"
  fill "$lg"
  play_seats
  "${refctl[@]}" get-match "$replacement" >"$dir/get.out" 2>&1 ||
    fail "$(cat "$dir/get.out")"
  grep -q '"status":"MATCH_BROKEN"' "$dir/get.out" ||
    fail "the replacement did not break: $(cat "$dir/get.out")"
  grep -q "end match: database or disk is full" "$dir/r2.err" ||
    fail "the registry recorded the end on a full disk: $(cat "$dir/r2.err")"
  log=$(echo "$lg"/logs/*"$replacement".pyrlog)
  cp "$log" "$dir/broken.pyrlog"
  kill -9 "$referee_pid"
  wait "$referee_pid" 2>/dev/null || true
  # A start while the data directory's disk is still full (the logs have
  # room again): it needs no space of its own there (tlog.vkey, unchanged,
  # is not rewritten; it once failed on that), resumes the waiting match,
  # finds the replacement broken by its log's mode, and keeps its end, which
  # it cannot record, for later: its retry is refused meanwhile.
  rm "$lg/fill"
  start_referee 3
  grep -q ' 1 resumed, 1 found broken (not resumed)' "$dir/r3.out" ||
    fail "the start on a full disk did not resume the waiting match and" \
      "find the replacement broken: $(grep registry: "$dir/r3.out")"
  "${refctl[@]}" get-match "$waiting" >"$dir/get.out" 2>&1 ||
    fail "$(cat "$dir/get.out")"
  grep -q '"status":"MATCH_RUNNING"' "$dir/get.out" ||
    fail "the waiting match is not running on a full disk: $(cat "$dir/get.out")"
  "${refctl[@]}" get-match "$replacement" >"$dir/get.out" 2>&1 ||
    fail "$(cat "$dir/get.out")"
  grep -q '"status":"MATCH_BROKEN"' "$dir/get.out" ||
    fail "the replacement is not broken on a full disk: $(cat "$dir/get.out")"
  refused RESOURCE_EXHAUSTED \
    "the retry of a broken match not recorded (a start on a full disk)" \
    "${retry[@]}"
  kill -9 "$referee_pid"
  wait "$referee_pid" 2>/dev/null || true
  rm "$reg/fill"
  start_referee 4
  grep -q ' 1 resumed, 1 found broken (not resumed)' "$dir/r4.out" ||
    fail "the match broken before a SIGKILL was resumed:" \
      "$(grep registry: "$dir/r4.out")"
  cmp -s "$log" "$dir/broken.pyrlog" ||
    fail "the log broken before a SIGKILL changed:" \
      "$("$bin/replay" show "$log" | tail -3)"
  [[ $(stat -c %a "$log") == 444 ]] ||
    fail "the log broken before a SIGKILL is mode $(stat -c %a "$log"), not 444"
  "${refctl[@]}" get-match "$replacement" >"$dir/get.out" 2>&1 ||
    fail "$(cat "$dir/get.out")"
  grep -q '"status":"MATCH_BROKEN"' "$dir/get.out" ||
    fail "the match broken before a SIGKILL is not broken: $(cat "$dir/get.out")"
  "${refctl[@]}" "${retry[@]}" >"$dir/c3.out" 2>&1 || fail "$(cat "$dir/c3.out")"
  third=$(grep -E '^[0-9a-f]{32}$' "$dir/c3.out" || true)
  [[ -n $third && $third != "$stuck" && $third != "$replacement" ]] ||
    fail "the retry after a SIGKILL did not create a new match: $(cat "$dir/c3.out")"
  also="; a full registry refused RESOURCE_EXHAUSTED; a broken match"
  also+=" whose end it could not record stayed broken across a restart,"
  also+=" after a clean stop and after a SIGKILL"
fi
echo "disk_full_test ($mode): $verified matches verified before the disk filled;" \
  "$broken broke, named with their reason (every log verifies up to its last" \
  "checkpoint); $checks health checks, all SERVING;" \
  "a new match played to a genuine end once space returned$also"
