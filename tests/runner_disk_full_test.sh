#!/usr/bin/env bash
# The tournament runner's own output directory fills up (docs/tournament.md,
# "Progress and output"): the embedded referee and the journal are on a
# small tmpfs. The run must stop starting matches once it cannot record
# them (said once), end with exit status 1 naming how many were not played,
# and keep what it recorded: once space returns, the same command resumes,
# plays the rest, and the output verifies.
#
# Without the halt every scheduled match was tried, refused and journaled
# in turn: a line of stderr per match ("cannot append to journal.jsonl: No
# space left on device") and a summary calling them "not verified".
#
# Then the same against a running referee (its data elsewhere): the
# matches still play, and their logs cannot be fetched into the full
# directory. Each such match is said as it is recorded, with its reason
# ("match N (ID) not counted: log not fetched: ... No space left on
# device"), and the summary counts them as such ("N whose log was not
# fetched or not written"), not as "not verified (the match broke, or its
# log did not verify)": none broke, and no line said why before. Once
# space returns, the same command fetches them and the output verifies.
# Needs root (it mounts a tmpfs), as CI has.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
dir=$(mktemp -d)
full=$dir/small
mkdir -p "$full"
referee_pid=
cleanup() {
  if [[ -n $referee_pid ]]; then
    kill "$referee_pid" 2>/dev/null || true
    wait "$referee_pid" 2>/dev/null || true
  fi
  umount "$full" 2>/dev/null || umount -l "$full" 2>/dev/null || true
  rm -rf "$dir" || true
}
trap cleanup EXIT
fail() { echo "runner_disk_full_test: FAILED: $*" >&2; exit 1; }

mount -t tmpfs -o size=1m tmpfs "$full" || fail "cannot mount a tmpfs (root?)"
# 120 matches, some 50 KB each with their pages: far more than 1 MiB.
cat >"$dir/t.txt" <<TXT
name: "runner-full" game { game: "rock_paper_pyramid" } seats: 3
rounds: 10 concurrency: 4 output_dir: "$full/out"
bots { name: "r1" command: "$bin/bot" command: "--quiet" }
bots { name: "r2" command: "$bin/bot" command: "--quiet" }
bots { name: "r3" command: "$bin/bot" command: "--quiet" }
bots { name: "r4" command: "$bin/bot" command: "--quiet" }
TXT
status=0
timeout 120 "$bin/tournament" "$dir/t.txt" >"$dir/first.out" \
  2>"$dir/first.err" || status=$?
((status != 124)) || fail "the run hung"
((status == 1)) || fail "exit status $status, not 1: $(tail -3 "$dir/first.err")"
halts=$(grep -c 'starting no more matches (those in flight finish)' \
  "$dir/first.err" || true)
((halts == 1)) || fail "the halt was said $halts times: $(tail -5 "$dir/first.err")"
last=$(tail -1 "$dir/first.err")
[[ $last == *" not played"* && $last == *"run the same command again to resume from $full/out"* ]] ||
  fail "the last line does not say what was not played and how to resume: $last"
# The last progress line: matches done (recorded, "not played" ones
# included) stopped well short of the 120, which a run that went on trying
# each match reaches.
done=$(grep -oE '^[0-9]+/120 matches' "$dir/first.err" | tail -1 | cut -d/ -f1)
[[ -n $done ]] || fail "no progress line: $(tail -3 "$dir/first.err")"
((done < 100)) || fail "$done of 120 matches were tried after the disk filled"
# Each match in flight may say its own failure; not every match left.
nospace=$(grep -c 'No space left on device' "$dir/first.err" || true)
((nospace <= 30)) || fail "$nospace lines of 'No space left on device'"

mount -o remount,size=64m "$full"
timeout 300 "$bin/tournament" "$dir/t.txt" >"$dir/second.out" \
  2>"$dir/second.err" || fail "the resume failed: $(tail -3 "$dir/second.err")"
"$bin/replay" verify-tournament --key="$full/out/referee.key.pub" "$full/out" \
  >"$dir/verify.out" 2>&1 || fail "verify-tournament: $(tail -3 "$dir/verify.out")"
grep -q ': 120 matches, all included in checkpoint 120 ' "$dir/verify.out" ||
  fail "not every match is in the output: $(cat "$dir/verify.out")"

# --- Against a running referee.
rm -rf "${full:?}/out"
mount -o remount,size=1m "$full" || fail "cannot shrink the tmpfs again"
"$bin/referee" --listen=127.0.0.1:0 --port_file="$dir/port" \
  --data_dir="$dir/referee" >"$dir/referee.out" 2>&1 &
referee_pid=$!
for ((i = 0; i < 200; ++i)); do [[ -s $dir/port ]] && break; sleep 0.05; done
[[ -s $dir/port ]] || fail "the referee did not start: $(cat "$dir/referee.out")"
remote=(--referee="127.0.0.1:$(cat "$dir/port")"
  --referee_key="$dir/referee/referee.key.pub"
  --admin_token_file="$dir/referee/admin.token")
status=0
timeout 120 "$bin/tournament" "$dir/t.txt" "${remote[@]}" \
  >"$dir/remote.out" 2>"$dir/remote.err" || status=$?
((status == 1)) ||
  fail "remote: exit status $status, not 1: $(tail -3 "$dir/remote.err")"
last=$(tail -1 "$dir/remote.err")
[[ $last != *"the match broke"* ]] ||
  fail "remote: matches whose log was not written called not verified: $last"
unfetched=$(grep -oE '[0-9]+ whose log was not fetched or not written' \
  <<<"$last" | cut -d' ' -f1)
[[ -n $unfetched ]] ||
  fail "remote: the last line counts no log not fetched: $last"
said=$(grep -cE '^match [0-9]+ \([0-9a-f]{32}\) not counted: log not fetched: .*No space left on device' \
  "$dir/remote.err" || true)
((said == unfetched)) ||
  fail "remote: $unfetched logs not fetched, $said said with their reason: $(tail -5 "$dir/remote.err")"
mount -o remount,size=64m "$full"
timeout 300 "$bin/tournament" "$dir/t.txt" "${remote[@]}" \
  >"$dir/remote-second.out" 2>"$dir/remote-second.err" ||
  fail "remote: the resume failed: $(tail -3 "$dir/remote-second.err")"
"$bin/replay" verify-tournament --key="$dir/referee/referee.key.pub" \
  "$full/out" >"$dir/remote-verify.out" 2>&1 ||
  fail "remote: verify-tournament: $(tail -3 "$dir/remote-verify.out")"
grep -q ': 120 matches, all included in checkpoint 120 ' \
  "$dir/remote-verify.out" ||
  fail "remote: not every match is in the output: $(cat "$dir/remote-verify.out")"
echo "runner_disk_full_test: passed (halted after $done matches, $nospace lines of no space; resumed to 120 of 120; against a running referee $unfetched logs not fetched, each said, then fetched)"
