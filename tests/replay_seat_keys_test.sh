#!/usr/bin/env bash
# `replay verify --seat_keys=ROSTER` and `replay verify-tournament
# --seat_keys=ROSTER` on the command line (README.md, "Verify a log";
# replay/seat_roster.h), on the golden logs and the transparency example:
#
#  1. A golden log with keyed and unkeyed seats and a roster of its keys:
#     genuine, its line ending "3 seats match the roster"; the same line as
#     without the flag but for that. Several logs against one roster.
#  2. A seat with another key, a seat keyed in the roster that the header
#     gives none, a seat the roster lacks: NOT GENUINE at record 0 (exit
#     1), naming the seat and both keys; with --level=chain too.
#  3. A roster that cannot be used (a line that is not NAME KEY, a name
#     twice, a bad key, no roster, a directory, over 1 MiB, a secret key
#     file): exit 2, naming the file and line, before any log is read.
#  4. verify-tournament: the example directory with a roster of its bots
#     checks out ("their 9 seats match the roster"); a bot keyed in the
#     roster: exit 1, naming each log; html and consistency do not take
#     the flag.
#  5. verify-tournament refuses a schedule.json with a key twice.
#  6. What a roster names is read without waiting and within bounds: a
#     300 MB key file (in the roster or as --key) refused unread; a FIFO
#     with no writer refused at once (it hung), while `<(...)` and a FIFO
#     with a writer are read; a FIFO as a key file refused. --key and
#     --tlog_key take a pipe (`<(...)`), at most 4 KiB, as the bot's
#     --key_file does; a FIFO with no writer is refused at once.
#  7. Names that need quotes ("#x", "seat 0"); --seat_keys or --key given
#     twice is a usage error (the last one won).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

# shellcheck source=tests/replay_cli_lib.sh
source "${BASH_SOURCE%/*}/replay_cli_lib.sh"

KEY=testdata/golden/referee.pub
LOG=testdata/golden/rock_paper_pyramid/signed_seed_timeout_restarts.pyrlog
# Its seats, as `replay show` prints them: golden-0 and golden-2 sign their
# commits, golden-1 does not.
KEY0=acd87e5d3be94506219b659be014d189f0eb325446121ce8687270e8481fdf42
KEY2=af43dfbffbc9f78ca0806117cbaf08bc7102e19eadf42dd064d2ce0f65268fea
# named_header.pyrlog's golden-0 key.
OTHER=f076907101ebcf0943b55792d107d6db2f3aa3d4b6575071aa7871e4200159dd

# --- 1. A genuine log and its roster.
cat >"$tmp/roster" <<EOF
# The bots of the golden logs, as an auditor knows them.
golden-0 $KEY0   # keyed
golden-1 none

golden-2 ${KEY2^^}
EOF
run 0 verify --key="$KEY" --seat_keys="$tmp/roster" "$LOG"
has out "$LOG: genuine ("
has out "; referee key pinned; 3 seats match the roster)"
cp "$tmp/out" "$tmp/pinned"
run 0 verify --key="$KEY" "$LOG"
[[ $(sed 's/; 3 seats match the roster)$/)/' "$tmp/pinned") == $(cat "$tmp/out") ]] ||
  fail "the line with --seat_keys is not the line without it and the roster's words"
# Several logs, each checked: the unkeyed random-N bots of the golden logs.
printf 'random-%d none\n' 0 1 2 3 4 5 6 7 8 9 >"$tmp/random"
run 0 verify --seat_keys "$tmp/random" testdata/golden/*/{classic,three_seats,ten_seats}.pyrlog
[[ $(grep -c 'seats match the roster)$' "$tmp/out") == 4 ]] ||
  fail "not every log's line says its seats match the roster"
has out "; 10 seats match the roster)"

# --- 2. Seats that are not the roster's.
sed "s/^golden-0 .*/golden-0 $OTHER/" "$tmp/roster" >"$tmp/other-key"
run 1 verify --key="$KEY" --seat_keys="$tmp/other-key" "$LOG"
has out "$LOG: NOT GENUINE: record 0: seat 0 \"golden-0\" has key $KEY0 in the header; the roster's is $OTHER"
sed "s/^golden-1 none/golden-1 $OTHER/" "$tmp/roster" >"$tmp/keyed"
run 1 verify --seat_keys="$tmp/keyed" "$LOG"
has out "NOT GENUINE: record 0: seat 1 \"golden-1\" has key none in the header; the roster's is $OTHER"
run 1 verify --level=chain --seat_keys="$tmp/keyed" "$LOG"
has out "NOT GENUINE: record 0: seat 1 \"golden-1\""
grep -v '^golden-2' "$tmp/roster" >"$tmp/missing"
run 1 verify --key="$KEY" --seat_keys="$tmp/missing" "$LOG"
has out "NOT GENUINE: record 0: seat 2 \"golden-2\" (key $KEY2 in the header) is not in the roster"
# The worst of several: one log's seats are not the roster's.
run 1 verify --seat_keys="$tmp/roster" "$LOG" \
  testdata/golden/rock_paper_pyramid/named_header.pyrlog
has out "$LOG: genuine ("
has out "named_header.pyrlog: NOT GENUINE: record 0: seat 0 \"golden-0\" has key $OTHER in the header; the roster's is $KEY0"

# --- 3. Rosters that cannot be used: exit 2, nothing verified.
bad() { # bad TEXT MESSAGE: a roster of TEXT is refused with MESSAGE.
  printf '%s' "$1" >"$tmp/bad"
  run 2 verify --seat_keys="$tmp/bad" "$LOG"
  has err "--seat_keys: $tmp/bad $2"
  [[ ! -s $tmp/out ]] || fail "a log was verified with a bad roster"
}
bad $'golden-0\n' "line 1: want NAME KEY"
bad $'# bots\ngolden-0 none extra\n' "line 2: want NAME KEY"
bad $'golden-0 none\ngolden-1 none\ngolden-0 none\n' \
  "line 3: golden-0 is listed twice (first on line 1)"
bad "golden-0 ${KEY0:1}"$'\n' "line 1: golden-0: bad key: 63 hex digits"
bad $'golden-0 zz\n' "line 1: golden-0: bad key \"zz\""
bad $'# nothing\n' "names no bot"
run 2 verify --seat_keys="$tmp/no-such-roster" "$LOG"
has err "--seat_keys: "
has err "no-such-roster"
run 2 verify --seat_keys="$tmp" "$LOG"
has err "it is a directory"
{
  echo "golden-0 none"
  head -c $((1024 * 1024)) /dev/zero | tr '\0' '#'
} >"$tmp/large"
run 2 verify --seat_keys="$tmp/large" "$LOG"
has err "--seat_keys: cannot read $tmp/large"
# A key file beside the roster, and a secret key file in its place.
"$BIN/keygen" --out="$tmp/bot.key" >/dev/null 2>&1 || fail "keygen"
printf 'golden-0 bot.key.pub\n' >"$tmp/with-file"
run 1 verify --seat_keys="$tmp/with-file" "$LOG"
has out "the roster's is $(cat "$tmp/bot.key.pub")"
printf 'golden-0 bot.key\n' >"$tmp/with-secret"
run 2 verify --seat_keys="$tmp/with-secret" "$LOG"
has err "holds a secret key; give the public key ($tmp/bot.key.pub)"

# --- 4. verify-tournament with a roster.
EXAMPLE=testdata/tlog/example
printf 'b1 none\nb2 none\nb3 none\n' >"$tmp/bots"
run 0 verify-tournament --key="$EXAMPLE/referee.pub" --seat_keys="$tmp/bots" "$EXAMPLE"
has out "$EXAMPLE: 3 matches, all included in checkpoint 6 f7fabef3e6eb30a292073ec68a926bb524f32dab3af525f446909a5ec775e258 as leaves 3..5: tournament \"example\", run \"434764977a9d6e1d\", game rock_paper_pyramid; their 9 seats match the roster"
printf 'b1 none\nb2 %s\nb3 none\n' "$OTHER" >"$tmp/b2-keyed"
run 1 verify-tournament --seat_keys="$tmp/b2-keyed" "$EXAMPLE"
[[ $(grep -c 'NOT GENUINE: record 0: seat [0-2] "b2" has key none in the header' "$tmp/out") == 3 ]] ||
  fail "not every log with b2 is named"
has out "$EXAMPLE: 9 problems"
grep -qF "seats match the roster" "$tmp/out" && fail "a directory with problems said its seats match"
run 2 html --seat_keys="$tmp/roster" "$LOG"
has err "replay html does not take --seat_keys"
run 2 consistency --seat_keys="$tmp/roster" --key="$KEY" a b c
has err "replay consistency does not take --seat_keys"

# --- 5. A schedule.json with a key twice.
cp -r "$EXAMPLE" "$tmp/example"
sed -i 's/"name": "example",/"name": "other", "name": "example",/' "$tmp/example/schedule.json"
run 1 verify-tournament "$tmp/example"
has out "schedule.json: the key \"name\" appears twice in one object"

# --- 6. Files read within bounds and without waiting.
truncate -s 300M "$tmp/big.pub"
printf 'golden-0 big.pub\ngolden-1 none\n' >"$tmp/big-roster"
run 2 verify --seat_keys="$tmp/big-roster" "$LOG"
has err "--seat_keys: $tmp/big-roster line 1: golden-0: cannot read $tmp/big.pub: it is 314572800 bytes, more than 4096 (not read)"
run 2 verify --key="$tmp/big.pub" "$LOG"
has err "--key: cannot read $tmp/big.pub: it is 314572800 bytes, more than 4096 (not read)"
run 2 verify-tournament --tlog_key="$tmp/big.pub" "$EXAMPLE"
has err "--tlog_key: cannot read $tmp/big.pub: it is 314572800 bytes"
# A named FIFO with no writer: refused at once, not waited on.
mkfifo "$tmp/fifo"
status=0
timeout 20 "$REPLAY" verify --seat_keys="$tmp/fifo" "$LOG" >"$tmp/out" 2>"$tmp/err" || status=$?
((status == 2)) || fail "a FIFO with no writer as the roster: exit $status, not 2"
has err "--seat_keys: cannot read $tmp/fifo: a FIFO or pipe with no writer and nothing in it"
# With a writer, and as <(...): read.
cat "$tmp/roster" >"$tmp/fifo" &
writer=$!
run 0 verify --key="$KEY" --seat_keys="$tmp/fifo" "$LOG"
wait "$writer"
has out "; 3 seats match the roster)"
run 0 verify --key="$KEY" --seat_keys=<(sleep 0.3; grep -v '^#' "$tmp/roster") "$LOG"
has out "; 3 seats match the roster)"
run 2 verify --key="$KEY" --seat_keys=/dev/null "$LOG"
has err "--seat_keys: cannot read /dev/null: it is not a regular file (a character device)"
printf 'golden-0 fifo\n' >"$tmp/fifo-key"
status=0
timeout 20 "$REPLAY" verify --seat_keys="$tmp/fifo-key" "$LOG" >"$tmp/out" 2>"$tmp/err" || status=$?
((status == 2)) || fail "a FIFO as a key file: exit $status, not 2"
has err "(cannot read $tmp/fifo: it is not a regular file (a FIFO or pipe))"
# --key and --tlog_key take a pipe, as a key file of crypto's is read (the
# bot's --key_file); they took a regular file only: read to its end, at
# most 4 KiB; a FIFO with no writer refused at once.
run 0 verify --key=<(sleep 0.3; cat "$KEY") --seat_keys="$tmp/roster" "$LOG"
has out "; referee key pinned; 3 seats match the roster)"
run 0 verify-tournament --tlog_key=<(cat testdata/tlog/tlog.vkey) "$EXAMPLE"
has out "$EXAMPLE: 3 matches, all included in checkpoint 6 "
run 0 verify-tournament --key=<(cat "$EXAMPLE/referee.pub") \
  --tlog_key=<(cat testdata/tlog/tlog.vkey) "$EXAMPLE"
run 2 verify --key=<(head -c 5000 /dev/zero | tr '\0' 0) "$LOG"
has err "--key: cannot read /dev/fd/"
has err ": it holds more than 4096 bytes"
run 2 verify --key=<(printf 'not a key\n') "$LOG"
has err "--key: /dev/fd/"
has err ": bad referee key \"not a key\": want 64 hex digits"
status=0
timeout 20 "$REPLAY" verify --key="$tmp/fifo" "$LOG" >"$tmp/out" 2>"$tmp/err" || status=$?
((status == 2)) || fail "a FIFO with no writer as --key: exit $status, not 2"
has err "--key: cannot read $tmp/fifo: a FIFO or pipe with no writer and nothing in it"
run 0 --help
has out "--key, --tlog_key FILE: a regular file or a pipe"

# --- 7. Quoted names, and each flag once.
sed -e 's/^golden-1 none/"golden-1" "none"/' -e 's/^golden-0 /"golden\x2d0"\t/' "$tmp/roster" >"$tmp/quoted"
run 0 verify --key="$KEY" --seat_keys="$tmp/quoted" "$LOG"
has out "; 3 seats match the roster)"
printf '"#x" none\n"seat 0" none\n' >"$tmp/odd-names"
run 1 verify --seat_keys="$tmp/odd-names" "$LOG"
has out "NOT GENUINE: record 0: seat 0 \"golden-0\" (key $KEY0 in the header) is not in the roster"
run 2 verify --seat_keys="$tmp/roster" --seat_keys="$tmp/keyed" "$LOG"
has err "--seat_keys given twice"
[[ ! -s $tmp/out ]] || fail "a log was verified with --seat_keys twice"
run 2 verify --key="$KEY" --key="$OTHER" "$LOG"
has err "--key given twice"
run 2 verify-tournament --seat_keys "$tmp/bots" --seat_keys "$tmp/bots" "$EXAMPLE"
has err "--seat_keys given twice"

echo "replay_seat_keys_test: all passed"
