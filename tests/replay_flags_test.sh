#!/usr/bin/env bash
# replay's command line (replay/command_line.cc): one table of flags makes
# the parser, its errors and the usage.
#
#  1. A dash and an underscore in a flag's name are one: --allow_unsealed
#     (documented) and --allow-unsealed (what scripts use) give the same
#     output and status, and so do --seat-keys, --tlog-key and their
#     underscore spellings; a flag's value is left as given
#     (--out=a-b_c.html). One flag in both spellings is one flag given
#     twice.
#  2. Errors name a flag as it was given, first line on stderr, then one
#     line of the command's usage (not all of --help), status 2, nothing on
#     stdout: an unknown flag; a flag the command does not take (with the
#     ones it takes, as documented); a flag without the value it needs; a
#     value given to a flag that takes none. No command, or an unknown one:
#     the commands in one line.
#  3. --help lists every flag in its documented spelling and states the
#     rule, and every command's exit statuses.
#  5. --json (replay/verdict_json.h): verify prints one JSON object a line
#     per LOG in the order given, which python3's json parses, with the
#     verdicts of a genuine log, a tampered copy, an unsealed prefix and a
#     missing file, and the same status as without it; verify-tournament
#     one object, ok and 3 matches for the example directory; consistency
#     one object, ok.
#  4. verify of several logs: status 1 when any is not genuine, even beside
#     a file that cannot be read (2 only when nothing else is wrong); the
#     summary on stderr counts each verdict ("1 log", "1 thread"); one
#     thread per CPU of the process's affinity mask (taskset -c 0: 1).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

# shellcheck source=tests/replay_cli_lib.sh
source "${BASH_SOURCE%/*}/replay_cli_lib.sh"

# same ARGS_A -- ARGS_B: fails unless replay ARGS_A and replay ARGS_B exit
# alike and print the same (both streams).
same() {
  local a=() status_a=0 status_b=0
  while [[ $1 != -- ]]; do
    a+=("$1")
    shift
  done
  shift
  "$REPLAY" "${a[@]}" >"$tmp/a.out" 2>"$tmp/a.err" || status_a=$?
  "$REPLAY" "$@" >"$tmp/b.out" 2>"$tmp/b.err" || status_b=$?
  ((status_a == status_b)) ||
    fail "replay ${a[*]} exited $status_a, replay $* $status_b"
  if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
    fail "replay ${a[*]} and replay $* print differently"
  fi
}

# refused TEXT ARGS...: replay ARGS is a usage error whose first line is
# TEXT, followed by one line of the command's usage (not the whole usage,
# --help's ~50 lines, which buried the reason), with nothing on stdout.
refused() {
  local text=$1
  shift
  run 2 "$@"
  [[ ! -s $tmp/out ]] || fail "replay $* printed on stdout"
  [[ $(head -n 1 "$tmp/err") == "$text" ]] ||
    fail "replay $*: first line is not: $text"
  [[ $(sed -n 2p "$tmp/err") == "usage: replay $1 "*" (see replay --help)" ]] ||
    fail "replay $*: no one-line usage of $1"
  (($(wc -l <"$tmp/err") == 2)) || fail "replay $*: more than two lines"
}

KEY=testdata/golden/referee.pub
LOG=testdata/golden/rock_paper_pyramid/classic.pyrlog
EXAMPLE=testdata/tlog/example

# --- 1. Both spellings of each multi-word flag.
head -c -1 "$LOG" >"$tmp/cut.pyrlog" # An unsealed prefix.
run 1 verify "$tmp/cut.pyrlog"
has out "$tmp/cut.pyrlog: unsealed prefix: "
run 0 verify --allow_unsealed "$tmp/cut.pyrlog"
same verify --allow_unsealed "$tmp/cut.pyrlog" -- \
  verify --allow-unsealed "$tmp/cut.pyrlog"
same html --allow_unsealed --out="$tmp/a.html" "$tmp/cut.pyrlog" -- \
  html --allow-unsealed --out="$tmp/a.html" "$tmp/cut.pyrlog"
printf 'random-%d none\n' 0 1 2 >"$tmp/roster"
run 0 verify --key="$KEY" --seat_keys="$tmp/roster" "$LOG"
has out "; 3 seats match the roster)"
# At chain level no seat's commit signature is checked: the line says so.
run 0 verify --level=chain --key="$KEY" --seat_keys="$tmp/roster" "$LOG"
has out "; referee key pinned; 3 seats match the roster, seat signatures not checked)"
same verify --key="$KEY" --seat_keys="$tmp/roster" "$LOG" -- \
  verify --key="$KEY" --seat-keys "$tmp/roster" "$LOG"
same verify-tournament --tlog_key=testdata/tlog/tlog.vkey "$EXAMPLE" -- \
  verify-tournament --tlog-key testdata/tlog/tlog.vkey "$EXAMPLE"
# Only a name is respelled, never a value.
run 0 html --key="$KEY" --out="$tmp/a-b_c.html" "$LOG"
[[ -s $tmp/a-b_c.html ]] || fail "--out=a-b_c.html wrote another file"
refused "--seat-keys given twice" \
  verify --seat_keys="$tmp/roster" --seat-keys="$tmp/roster" "$LOG"

# --- 2. Errors name the flag as given.
refused "unknown flag --bogus" verify --bogus "$LOG"
refused "unknown flag --allow-sealed" verify --allow-sealed=1 "$LOG"
refused "unknown flag --" verify -- "$LOG"
refused "replay verify-tournament does not take --allow-unsealed (it takes \
--key, --seat_keys, --tlog_key, --referee, --json)" verify-tournament --allow-unsealed "$EXAMPLE"
refused "replay html does not take --seat-keys (it takes --key, \
--allow_unsealed, --out)" html --seat-keys "$tmp/roster" "$LOG"
refused "replay show does not take --allow_unsealed (it takes no flag)" \
  show --allow_unsealed "$LOG"
refused "replay export does not take --key (it takes --json only)" \
  export --json --key="$KEY" "$LOG"
refused "--seat-keys needs a value" verify --seat-keys
refused "--allow_unsealed takes no value (got \"true\"); give it alone" \
  verify --allow_unsealed=true "$LOG"
refused "--allow-unsealed takes no value (got \"\"); give it alone" \
  verify --allow-unsealed= "$LOG"
# A value's error names the flag as documented.
refused "--level: full or chain, not \"rules\"" verify --level=rules "$LOG"
# The usage line names what the command cannot do without.
refused "export needs --json (the one format it writes)" export "$LOG"
[[ $(sed -n 2p "$tmp/err") == "usage: replay export --json LOG (see replay --help)" ]] ||
  fail "export's usage line"
refused "show takes one LOG (got 0)" show
[[ $(sed -n 2p "$tmp/err") == "usage: replay show LOG (see replay --help)" ]] ||
  fail "show's usage line"
# No command, or an unknown one: the commands, in one line.
run 2 bogus
[[ $(cat "$tmp/err") == 'unknown command "bogus"
usage: replay COMMAND [flags] ARGS... (COMMAND: verify, consistency, verify-tournament, html, show, export, games; see replay --help)' ]] ||
  fail "an unknown command's usage"
run 2
[[ $(cat "$tmp/err") == "usage: replay COMMAND "*" (COMMAND: verify, "*"; see replay --help)" ]] ||
  fail "replay alone"

# verify-tournament says whether DIR is missing or not a directory (a
# missing one was "not a directory").
run 2 verify-tournament "$tmp/nonexistent"
[[ $(cat "$tmp/err") == "$tmp/nonexistent: no such directory" ]] ||
  fail "a missing DIR"
run 2 verify-tournament "$LOG"
[[ $(cat "$tmp/err") == "$LOG: not a directory" ]] || fail "a file as DIR"

# --- 3. The usage.
run 0 --help
for flag in --key --allow_unsealed --level --seat_keys --inclusion \
  --tlog_key --referee --out --json --markdown; do
  grep -qE -- "^  $flag( |$)" "$tmp/out" || fail "--help does not list $flag"
done
has out "a - and an _ in NAME are one"
has out "(--allow-unsealed is --allow_unsealed, --seat-keys is --seat_keys)"
has out "replay verify [--key HEX|FILE] [--allow_unsealed] [--level full|chain]"
# A flag a command cannot do without stands without brackets.
has out "replay export --json LOG"
# Every command's exit statuses (only html's were given).
has out "exit status (--help, --version: 0):"
for command in verify consistency verify-tournament html show export games; do
  grep -qE "^  $command: (0 |as )" "$tmp/out" ||
    fail "--help gives no exit status of $command"
done
has out "even if a file could not be read as well (a forged log"

# --- 4. Several logs: one status for them all, and a summary that counts
# each verdict. A NOT GENUINE log exits 1 even beside a file that cannot
# be read (it exited 2, which hid the forgery from a script); a file that
# cannot be read beside genuine logs alone exits 2.
cp "$LOG" "$tmp/bad.pyrlog"
printf '\x01' | dd of="$tmp/bad.pyrlog" bs=1 seek=200 conv=notrunc 2>/dev/null
run 1 verify "$LOG" "$tmp/bad.pyrlog" "$tmp/cut.pyrlog" "$tmp/missing.pyrlog"
has err "$tmp/missing.pyrlog: cannot open "
grep -qE '^replay: 3 logs in [0-9.]+ s, [0-9.]+ logs/s \([0-9]+ threads?\): 1 genuine, 1 NOT GENUINE, 1 unsealed prefix; 1 of 4 files could not be read$' \
  "$tmp/err" || fail "the summary does not count each verdict"
run 1 verify "$tmp/missing.pyrlog" "$tmp/bad.pyrlog"
has err ": 0 genuine, 1 NOT GENUINE, 0 unsealed prefixes; 1 of 2 files could not be read"
run 2 verify "$LOG" "$tmp/missing.pyrlog"
grep -qE '^replay: 1 log in [0-9.]+ s, .*: 1 genuine, 0 NOT GENUINE, 0 unsealed prefixes; 1 of 2 files could not be read$' \
  "$tmp/err" || fail "the summary of one log and one missing file"
# An unsealed prefix is counted as such, allowed or not.
run 0 verify --allow_unsealed "$tmp/cut.pyrlog" "$LOG"
has err ": 1 genuine, 0 NOT GENUINE, 1 unsealed prefix"
# One thread per CPU this process may run on (its affinity mask: it said
# 2 threads under taskset -c 0 on a machine of 2).
if command -v taskset >/dev/null; then
  taskset -c 0 "$REPLAY" verify "$LOG" "$LOG" >"$tmp/out" 2>"$tmp/err" ||
    fail "taskset -c 0 replay verify LOG LOG failed"
  has err " (1 thread): 2 genuine,"
fi

# --- 5. --json: machine-readable verdicts.
# json_check PYTHON [ARGS...]: runs PYTHON (given `lines`, the JSON objects
# of $tmp/out, and ARGS as sys.argv[2:]) or fails; a line that is not JSON
# fails it.
json_check() {
  /usr/bin/python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
'"$1" "$tmp/out" "${@:2}" || fail "replay --json: $1"
}
run 1 verify --json --key="$KEY" --seat_keys="$tmp/roster" "$LOG" \
  "$tmp/bad.pyrlog" "$tmp/cut.pyrlog" "$tmp/missing.pyrlog"
json_check '
assert [l["verdict"] for l in lines] == [
    "genuine", "not_genuine", "unsealed_prefix", "unreadable"], lines
assert [l["ok"] for l in lines] == [True, False, False, False], lines
assert lines[0]["file"] == sys.argv[2] and lines[0]["key_pinned"] is True
assert lines[0]["game"] == "rock_paper_pyramid" and lines[0]["level"] == "full"
assert [s["name"] for s in lines[0]["seats"]] == ["random-0", "random-1", "random-2"]
assert [s["rank"] for s in lines[0]["outcome"]["seats"]] == [2, 1, 2], lines[0]
assert lines[0]["seats_match_roster"] is True
assert isinstance(lines[1]["record"], int) and lines[1]["reason"]
assert "match_id" not in lines[1]
assert "cannot open" in lines[3]["reason"]
' "$LOG"
# The summary on standard error, as without --json.
has err ": 1 genuine, 1 NOT GENUINE, 1 unsealed prefix; 1 of 4 files could not be read"
run 0 verify --json --allow_unsealed "$tmp/cut.pyrlog"
json_check 'assert lines[0]["verdict"] == "unsealed_prefix" and lines[0]["ok"], lines'
run 0 verify-tournament --json "$EXAMPLE"
json_check '
assert len(lines) == 1, lines
t = lines[0]
assert t["ok"] is True and t["matches"] == 3 and t["problems"] == [], t
assert t["checkpoint"]["size"] == 6 and t["referee_key_files"] == "referee.pub", t
'
run 0 consistency --json --tlog_key=testdata/tlog/tlog.vkey \
  testdata/tlog/checkpoint-3 "$EXAMPLE/checkpoint" testdata/tlog/consistency-3-6
json_check 'assert lines == [dict(lines[0], ok=True)] and len(lines) == 1, lines'

echo "replay_flags_test: all passed"
