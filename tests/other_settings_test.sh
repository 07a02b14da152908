#!/usr/bin/env bash
# Two guards against a host who replays a scheduled match until its result
# suits them (docs/protocol.md, "One match per label"; docs/tournament.md).
#
# 1. A standalone referee (default flags, --unique_labels on) refuses a
#    second match under one label: `refctl create-match --label=cup/x/0`
#    twice, the second is refused ALREADY_EXISTS naming the first match's
#    id; a referee run with --unique_labels=false creates both.
# 2. `replay verify-tournament` names a log played under other settings: a
#    small tournament on a referee run with --unique_labels=false verifies
#    (exit 0); then match 0 is played again under its label, with its seats'
#    names but other clocks, and its log and inclusion proof (against a new
#    checkpoint, with every proof of the directory fetched again against it)
#    replace match 0's in the output directory. Every signature and
#    inclusion proof then checks out, and the schedule is complete; only the
#    settings check tells: exit 1, with a line naming the new log and
#    commit_timeout_ms.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
dir=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$dir" || true
}
trap cleanup EXIT
fail() { echo "other_settings_test: FAILED: $*" >&2; exit 1; }

# start_referee NAME [FLAGS...]: a referee with its data in $dir/NAME;
# sets address, data, refctl and referee_pid.
start_referee() {
  local name=$1
  shift
  data=$dir/$name
  "$bin/referee" --listen=127.0.0.1:0 --port_file="$dir/$name.port" \
    --data_dir="$data" "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  referee_pid=$!
  pids+=("$referee_pid")
  for _ in $(seq 1000); do
    [[ -s $dir/$name.port ]] && break
    kill -0 "$referee_pid" 2>/dev/null || break
    sleep 0.02
  done
  [[ -s $dir/$name.port ]] ||
    fail "the referee $name did not start: $(cat "$dir/$name.err")"
  address=127.0.0.1:$(cat "$dir/$name.port")
  refctl=("$bin/refctl" --referee="$address"
    --admin_token_file="$data/admin.token")
}
stop_referee() {
  kill "$referee_pid" 2>/dev/null || true
  wait "$referee_pid" 2>/dev/null || true
}
# match_id FILE: the match id create-match printed into FILE.
match_id() {
  local id
  id=$(grep -E '^[0-9a-f]{32}$' "$1" || true)
  [[ -n $id ]] || fail "no match id in: $(cat "$1")"
  echo "$id"
}

# --- 1. One match per label. ----------------------------------------------
start_referee unique
"${refctl[@]}" create-match --seats=3 --label=cup/x/0 \
  --token_dir="$dir/unique.tok1" >"$dir/u1.out" 2>&1 ||
  fail "the first match of a label was refused: $(cat "$dir/u1.out")"
first=$(match_id "$dir/u1.out")
! "${refctl[@]}" create-match --seats=3 --label=cup/x/0 \
  --token_dir="$dir/unique.tok2" >"$dir/u2.out" 2>&1 ||
  fail "a second match under the label was created: $(cat "$dir/u2.out")"
grep -q ALREADY_EXISTS "$dir/u2.out" ||
  fail "the second match was not refused ALREADY_EXISTS: $(cat "$dir/u2.out")"
grep -q "$first" "$dir/u2.out" ||
  fail "the refusal does not name the first match $first: $(cat "$dir/u2.out")"
grep -q 'cup/x/0' "$dir/u2.out" ||
  fail "the refusal does not name the label: $(cat "$dir/u2.out")"
stop_referee

start_referee shared --unique_labels=false
for n in 1 2; do
  "${refctl[@]}" create-match --seats=3 --label=cup/x/0 \
    --token_dir="$dir/shared.tok$n" >"$dir/s$n.out" 2>&1 ||
    fail "--unique_labels=false refused match $n of a label: $(cat "$dir/s$n.out")"
done
[[ $(match_id "$dir/s1.out") != $(match_id "$dir/s2.out") ]] ||
  fail "--unique_labels=false gave the same match twice"
stop_referee

# --- 2. A log played under other settings. ---------------------------------
start_referee open --unique_labels=false
out=$dir/out
cat >"$dir/t.txt" <<TXT
name: "cup" game { game: "rock_paper_pyramid" } seats: 3
rounds: 1 concurrency: 8 output_dir: "$out"
clocks { commit_timeout_ms: 2000 reveal_timeout_ms: 2000 seed_timeout_ms: 20000 }
referee: "$address"
admin_token_file: "$data/admin.token"
referee_key: "$data/referee.key.pub"
bots { name: "r1" command: "$bin/bot" command: "--quiet" }
bots { name: "r2" command: "$bin/bot" command: "--quiet" }
bots { name: "r3" command: "$bin/bot" command: "--quiet" }
TXT
timeout 120 "$bin/tournament" "$dir/t.txt" >"$dir/tournament.out" \
  2>"$dir/tournament.err" ||
  fail "the tournament failed: $(tail -5 "$dir/tournament.err")"
key=$data/referee.key.pub
"$bin/replay" verify-tournament --key="$key" "$out" >"$dir/v0.out" 2>&1 ||
  fail "the tournament's directory does not verify: $(cat "$dir/v0.out")"

# Match 0 of the schedule: its label, its seats' names, its log.
schedule=$out/schedule.json
read -r label seats < <(python3 - "$schedule" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["matches"]
zero = [e for e in m if e.get("index", 0) == 0][0]
print(zero["label"], ",".join(zero["seats"]))
PY
) || fail "cannot read match 0 from $schedule"
[[ $label == cup/*/0 && $seats == *,*,* ]] ||
  fail "match 0 of $schedule: label '$label', seats '$seats'"
old=$("${refctl[@]}" list | awk -v l="$label" '$4 == l { print $1 }')
[[ $old =~ ^[0-9a-f]{32}$ ]] || fail "no one match of label $label: '$old'"
old_log=$out/logs/rock_paper_pyramid-$old.pyrlog
[[ -f $old_log ]] || fail "no log $old_log"

# The same match again, its label and seats, other clocks.
"${refctl[@]}" create-match --seats=3 --label="$label" --names="$seats" \
  --commit_timeout_ms=3000 --reveal_timeout_ms=2000 --seed_timeout_ms=20000 \
  --token_dir="$dir/again.tok" >"$dir/again.out" 2>&1 ||
  fail "the match again under $label was refused: $(cat "$dir/again.out")"
again=$(match_id "$dir/again.out")
bots=()
for seat in 0 1 2; do
  timeout 60 "$bin/bot" --referee="$address" \
    --token_file="$dir/again.tok/seat-$seat.token" --matches=1 --quiet \
    2>>"$dir/again.bots.err" &
  bots+=($!)
  pids+=($!)
done
for pid in "${bots[@]}"; do
  wait "$pid" || fail "a bot of the match played again failed: $(cat "$dir/again.bots.err")"
done
new_name=rock_paper_pyramid-$again.pyrlog
"${refctl[@]}" get-log "$again" --out="$dir/$new_name" >"$dir/getlog.out" 2>&1 ||
  fail "get-log: $(cat "$dir/getlog.out")"
"$bin/replay" verify --key="$key" "$dir/$new_name" | grep -q ': genuine' ||
  fail "the match played again is not genuine"

# Its log replaces match 0's, and a checkpoint covering both replaces the
# directory's, with every log's proof against it.
rm "$old_log" "$out/proofs/rock_paper_pyramid-$old.tlog-proof"
mv "$dir/$new_name" "$out/logs/"
"${refctl[@]}" checkpoint --out="$dir/checkpoint" >"$dir/cp.out" 2>&1 ||
  fail "checkpoint: $(cat "$dir/cp.out")"
size=$(sed -n 2p "$dir/checkpoint")
[[ $size =~ ^[0-9]+$ ]] || fail "no tree size in the checkpoint: $(cat "$dir/checkpoint")"
rm -f "$out"/proofs/*.tlog-proof
for log in "$out"/logs/*.pyrlog; do
  name=$(basename "$log" .pyrlog)
  id=${name##*-}
  "${refctl[@]}" inclusion "$id" --size="$size" \
    --out="$out/proofs/$name.tlog-proof" >"$dir/inclusion.out" 2>&1 ||
    fail "inclusion $id: $(cat "$dir/inclusion.out")"
done
cp "$dir/checkpoint" "$out/checkpoint"
# results.json, which now disagrees with match 0's log, goes too: a host
# would write it again from the logs kept (verify-tournament names each
# difference between it and the logs: replay/results_check.h).
rm "$out/results.json"

# Every log is signed and included; only its settings tell.
"$bin/replay" verify --key="$key" \
  --inclusion="$out/proofs/rock_paper_pyramid-$again.tlog-proof" \
  "$out/logs/$new_name" >"$dir/inclusion-verify.out" 2>&1 ||
  fail "the new log is not in the new checkpoint: $(cat "$dir/inclusion-verify.out")"
status=0
"$bin/replay" verify-tournament --key="$key" "$out" >"$dir/v1.out" 2>&1 ||
  status=$?
((status == 1)) ||
  fail "verify-tournament exited $status, not 1: $(cat "$dir/v1.out")"
line=$(grep 'played under other settings than' "$dir/v1.out" || true)
[[ -n $line ]] ||
  fail "no log is named as played under other settings: $(cat "$dir/v1.out")"
[[ $line == *"logs/$new_name: played under other settings than"* &&
   $line == *commit_timeout_ms* ]] ||
  fail "the line does not name $new_name and commit_timeout_ms: $line"
[[ $(grep -c 'played under other settings than' "$dir/v1.out") == 1 ]] ||
  fail "more than one log named: $(cat "$dir/v1.out")"
# The settings are its one problem: the rest of the directory (every
# signature, every inclusion proof, the schedule) checks out, so without
# the settings check the directory would verify.
grep -qE ': 1 problem$' "$dir/v1.out" ||
  fail "other problems than the settings: $(cat "$dir/v1.out")"
stop_referee

echo "other_settings_test: a second match under a label was refused" \
  "ALREADY_EXISTS naming $first (with --unique_labels=false both were" \
  "created);" \
  "a tournament's match 0 played again under other clocks, signed and" \
  "included in a new checkpoint, was named by verify-tournament (exit 1):" \
  "${line:0:200}"
