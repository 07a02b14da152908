#!/usr/bin/env bash
# The tournament program hosting bots (docs/tournament.md, "Bots" and
# "Hosting bots you do not trust"), end to end:
#
# 1. A bot whose command leaves a process in a session of its own (setsid)
#    and prints 100 MiB before it plays (all of it: a writer left running
#    in the background could be stopped by the run's end before it wrote
#    it all, on a loaded machine): the run ends with status 0, that
#    process gone; the bot's log holds the default cap (16 MiB) of its
#    output, then one line counting the bytes dropped.
# 2. A runner started with standard input and output closed: a bot's
#    standard input is /dev/null and its output the pipe to its log all
#    the same. A bot restarted (by the runner's supervisor thread) gets
#    SIGTERM at the end, not the SIGKILL of its parent-death signal.
# 3. As root only (skipped otherwise): --bot_uids. A process of a bot's uid
#    left from before is killed at the start; bot number i runs as uid
#    FIRST+i and can neither read another bot's token nor list the tokens
#    directory, nor read a bot's log (its own, which exists), and its
#    environment has PATH but not the runner's admin token or other
#    variables; the tournament plays and verifies; no process of those uids
#    is left; the bot has no descriptor but 0, 1 and 2. A key_file the
#    bot's uid does not own alone, a signing key the bots' uids can read,
#    ids an account or group has or SUDO_UID, and --bot_uids from a runner
#    that is not root, are refused (status 2).
# 4. As root only, --bot_uids again: a bot that opens 1,000 connections to
#    the embedded referee and holds them, before the two others start,
#    under a runner open-file limit of 1024 (connections below descriptor
#    896, the accept guard's ceiling). It keeps its quota of them (149: half
#    of 896 shared out among 3 bots), the rest are reset and said, and the
#    others connect and play, none of their seats forfeited. Without the
#    quota it held every descriptor below the ceiling, every connection of
#    the others was reset, and they never played. The same with the hog's
#    sockets bound to the loopback device, and bound to another address of
#    this host when it has one (both were admitted uncounted once).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=$(cd "${PYRAMID_BIN:-build/bin}" && pwd)

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/../../tests/e2e_lib.sh"
# Bots run as other users must reach the output directory under it.
chmod 0755 "$tmp"
# In place of e2e_lib.sh's fail, which shows $tmp/*.out: the tails of what
# the runners and the bots wrote.
fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.err "$tmp"/*/bots/*.log; do
    [[ -f $f ]] && { echo "--- $f" >&2; tail -c 600 "$f" >&2; echo >&2; }
  done
  exit 1
}
# Whether process $1 runs (not a zombie, not gone).
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ ${stat##*) } != Z* ]]
}

# --- 1. An orphan in its own session, and a log past its cap.
mark=$((7000000 + $$))  # The left process's sleep argument, this test's own.
write_tournament "$tmp/loud.txt" pyramid_shambo seats=2 rounds=2 \
  output_dir="$tmp/loud" \
  -- loud /bin/sh -c "setsid sleep $mark & echo left=\$!; head -c 104857600 /dev/zero | tr '\\0' x; echo; exec $BIN/bot --quiet --referee={referee} --token_file={token_file}" \
  -- plain "$BIN/bot" --quiet
start=$(date +%s%N)
"$BIN/tournament" "$tmp/loud.txt" > "$tmp/loud.out" 2> "$tmp/loud.err" ||
  fail "the tournament with a loud bot exited $?"
echo "loud tournament: $(( ($(date +%s%N) - start) / 1000000 )) ms"
log="$tmp/loud/bots/loud.log"
left=$(grep -a -o -m1 'left=[0-9]*' "$log" | cut -d= -f2) ||
  fail "the bot did not say its left process"
running "$left" && fail "the setsid'd process $left outlived the tournament"
grep -q "stopped 1 process the bots left running" "$tmp/loud.err" ||
  fail "the runner did not say it stopped the left process"
cap=$((16 << 20))
size=$(stat -c %s "$log")
note=$(tail -n 1 "$log")
[[ $note =~ ^tournament:\ ([0-9]+)\ more\ bytes\ of\ bot\ loud\'s\ output\ were\ dropped:\ its\ log\ keeps\ $cap\ bytes\ per\ run$ ]] ||
  fail "the log's last line is not the note: ${note:0:200}"
dropped=${BASH_REMATCH[1]}
# The cap, then a newline (the cut fell inside a line of x's), then the note.
(( size == cap + 1 + ${#note} + 1 )) ||
  fail "the log has $size bytes, not the cap $cap + the note"
(( cap + dropped >= 104857600 )) ||
  fail "kept $cap and dropped $dropped: less than the 100 MiB written"
echo "loud bot: log $size bytes, $dropped bytes dropped"

# --- 2. A runner started with its standard input and output closed: its
# bots still get /dev/null and the pipe to their log as theirs.
write_tournament "$tmp/closed.txt" pyramid_shambo seats=2 \
  output_dir="$tmp/closed" \
  -- stdio /bin/sh -c "echo stdin=\$(readlink /proc/\$\$/fd/0); echo stdout=\$(readlink /proc/\$\$/fd/1); exec $BIN/bot --quiet --referee={referee} --token_file={token_file}" \
  -- restarted /bin/sh -c "if [ ! -e $tmp/first-run ]; then touch $tmp/first-run; exit 1; fi; trap 'echo got-term > $tmp/term; exit 0' TERM; $BIN/bot --quiet --referee={referee} --token_file={token_file} & wait"
"$BIN/tournament" "$tmp/closed.txt" <&- >&- 2> "$tmp/closed.err" ||
  fail "the tournament with stdin and stdout closed exited $?"
grep -qx "stdin=/dev/null" "$tmp/closed/bots/stdio.log" ||
  fail "the bot's standard input is not /dev/null"
grep -q "^stdout=pipe:" "$tmp/closed/bots/stdio.log" ||
  fail "the bot's standard output is not the pipe to its log"
grep -q "bot restarted ended (exit status 1); restarting in" "$tmp/closed.err" ||
  fail "the bot that exits at its first run was not restarted"
[[ $(cat "$tmp/term" 2>/dev/null) == got-term ]] ||
  fail "the restarted bot got no SIGTERM at the end (killed outright)"

# --- 3. --bot_uids.
if [[ $(id -u) != 0 ]]; then
  echo "SKIP: --bot_uids needs root"
  exit 0
fi
# Uids no one uses, different for runs at the same time.
first=$((4000000 + ($$ % 100000) * 4))
tokens="$tmp/confined/tokens"
write_tournament "$tmp/confined.txt" pyramid_shambo seats=2 rounds=2 \
  output_dir="$tmp/confined" \
  -- honest1 "$BIN/bot" --quiet -- honest2 "$BIN/bot" --quiet \
  -- snoop /bin/sh -c "echo uid=\$(id -u); echo admin=\${PYRAMID_ADMIN_TOKEN:-none} secret=\${OPERATOR_SECRET:-none} path=\${PATH:+set}; echo fds-begin; ls /proc/\$\$/fd; echo fds-end; cat $tokens/honest1.token && echo STOLEN || echo refused; ls $tokens && echo LISTED || echo unlisted; head -c 1 $tmp/confined/bots/snoop.log >/dev/null && echo PEEKED || echo unpeeked; exec $BIN/bot --quiet --referee={referee} --token_file={token_file}"
# A process of bot 0's uid left from an earlier run.
setpriv --reuid=$first --regid=$first --clear-groups sleep $((mark + 1)) &
leftover=$!
disown "$leftover"  # Its death is expected: no "Killed" line.
sleep 0.2
running "$leftover" || fail "could not start a process as uid $first"
# An admin token and a secret of the operator's in the runner's environment.
PYRAMID_ADMIN_TOKEN=admin-secret OPERATOR_SECRET=cloud-secret \
  "$BIN/tournament" "$tmp/confined.txt" --bot_uids=$first \
  > "$tmp/confined.out" 2> "$tmp/confined.err" ||
  fail "the tournament under --bot_uids exited $?"
running "$leftover" && fail "the process of uid $first from before survived the run"
snoop="$tmp/confined/bots/snoop.log"
grep -qx "uid=$((first + 2))" "$snoop" || fail "snoop did not run as uid $((first + 2))"
grep -qx refused "$snoop" || fail "snoop read honest1's token"
grep -qx unlisted "$snoop" || fail "snoop listed the tokens directory"
grep -q "STOLEN\|LISTED" "$snoop" && fail "snoop got at the tokens"
# Its own log exists (it is writing to it), yet OUTPUT/bots is not its.
grep -qx unpeeked "$snoop" || fail "snoop read the bots' logs"
grep -qx "admin=none secret=none path=set" "$snoop" ||
  fail "snoop's environment held the runner's secrets, or no PATH"
# The runner's descriptors (the match journal, open before the bots start)
# stay the runner's: the bot has its standard input, output and error only.
fds=$(sed -n '/^fds-begin$/,/^fds-end$/p' "$snoop" | tr '\n' ' ')
[[ $fds == "fds-begin 0 1 2 fds-end " ]] ||
  fail "snoop had descriptors besides 0, 1 and 2: $fds"
grep -Eq "^confined \(pyramid_shambo\): ([0-9]+) of \1 match logs verified" \
  "$tmp/confined.out" || fail "not every match verified"
"$BIN/replay" verify-tournament "$tmp/confined" > "$tmp/verify.out" 2>&1 ||
  fail "replay verify-tournament failed"
for uid in $first $((first + 1)) $((first + 2)); do
  left=$(ps -o pid= -u "$uid" || true)
  [[ -z $left ]] || fail "processes of uid $uid left: $left"
done

# Refused: a key_file the bot's uid does not own alone; a runner not root.
"$BIN/keygen" --out="$tmp/signed.key" > /dev/null 2>&1
write_tournament "$tmp/keyed.txt" pyramid_shambo seats=2 output_dir="$tmp/keyed" \
  -- plain "$BIN/bot" --quiet \
  -- signed key_file="$tmp/signed.key" "$BIN/bot" --quiet "--key_file={key_file}"
chmod 0644 "$tmp/keyed.txt"
expect_exit keyed 2 "bot signed runs as uid $((first + 1)) (--bot_uids): its key_file $tmp/signed.key must belong to that uid and be readable by it alone (chown $((first + 1)):$((first + 1)) $tmp/signed.key && chmod 0400 $tmp/signed.key); it belongs to uid 0, mode 0600" \
  -- "$BIN/tournament" "$tmp/keyed.txt" --bot_uids=$first
[[ -e $tmp/keyed ]] && fail "the refused run made its output directory"
chown $((first + 1)):$((first + 1)) "$tmp/signed.key"
chmod 0400 "$tmp/signed.key"
"$BIN/tournament" "$tmp/keyed.txt" --bot_uids=$first > "$tmp/keyed.out" \
  2> "$tmp/keyed.err" || fail "the tournament with an owned key_file exited $?"
# Refused: the embedded referee's signing key, readable by the bots.
key="$tmp/keyed.referee.key"
[[ -f $key ]] || fail "no signing key at $key"
chmod 0644 "$key"
expect_exit readable-key 2 "bot plain runs as uid $first (--bot_uids) and could read the signing_key_file (the embedded referee's key) $key: make it readable by its owner alone (chmod 0600 $key)" \
  -- "$BIN/tournament" "$tmp/keyed.txt" --bot_uids=$first
chmod 0600 "$key"
# Refused: ids an account or a group has, and the id of the user who ran
# sudo (every process of a bot's uid is killed; a group's rights are the
# bot's).
if taken=$(getent passwd 65534); then
  expect_exit taken 2 "^tournament: --bot_uids=65533 runs the bots as uids and gids 65533 to 65534, and some are taken (uid 65534 is user ${taken%%:*}" \
    -- "$BIN/tournament" "$tmp/keyed.txt" --bot_uids=65533
fi
expect_exit sudo 2 "uid $((first + 1)) is the one sudo ran as" \
  -- env SUDO_UID=$((first + 1)) "$BIN/tournament" "$tmp/keyed.txt" --bot_uids=$first
# A runner not root.
expect_exit nobody 2 "^tournament: --bot_uids needs the tournament to run as root (it runs as uid 65534)" \
  -- setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BIN/tournament" "$tmp/keyed.txt" --bot_uids=$first

# --- 4. A bot holding every connection it can leaves the others theirs,
# however it makes them: plainly, bound to the loopback device
# (SO_BINDTODEVICE, which an exact sock_diag lookup without the device
# missed), or from another address of this host (a peer off loopback,
# which the quota did not ask about).
marks="$tmp/marks"
mkdir -m 1777 "$marks"  # The bots' uids make and read their marks here.
cat > "$tmp/hog.py" <<'EOF'
import socket, sys, time
mode = sys.argv[2]  # "plain", "dev-lo", or an address of this host to bind.
referee = next(a[len("--referee="):] for a in sys.argv if a.startswith("--referee="))
host, port = referee.rsplit(":", 1)
held = []
while len(held) < 1000:
    try:
        s = socket.socket()
    except OSError:  # No descriptor left to this process (1024).
        break
    s.settimeout(2)
    try:
        if mode == "dev-lo":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"lo")
        elif mode != "plain":
            s.bind((mode, 0))
        s.connect((host, int(port)))
        held.append(s)
    except OSError:
        s.close()
# Made, as the kernel completes them; the runner resets those over the quota.
print(f"hog: made {len(held)} connections", flush=True)
open(sys.argv[1], "w").close()  # The others connect now.
time.sleep(3600)  # Holding them until the runner stops it.
EOF
# Its quota: 1024 less the reserve of 128, halved, shared out among 3.
quota=$(( (1024 - 128) / 2 / 3 ))

# hog_run MODE: the tournament with a hog making its connections so.
hog_run() {
  local mode=$1 out="$tmp/hogged-$1" flag="$marks/flooded-$1" status=0
  local honest="i=0; while [ ! -e $flag ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done; exec $BIN/bot --quiet --referee={referee} --token_file={token_file}"
  write_tournament "$out.txt" pyramid_shambo seats=2 output_dir="$out" \
    -- hog /usr/bin/python3 "$tmp/hog.py" "$flag" "$mode" "--referee={referee}" \
    -- honest1 /bin/sh -c "$honest" -- honest2 /bin/sh -c "$honest"
  # The hog's matches end when it misses the seed decision's deadline; the
  # others have 20 s from each match's creation to connect (the 30 s
  # default made the run longer).
  echo 'clocks { seed_timeout_ms: 20000 commit_timeout_ms: 5000 reveal_timeout_ms: 5000 }' \
    >> "$out.txt"
  prlimit --nofile=1024:1024 "$BIN/tournament" "$out.txt" \
    --bot_uids=$first > "$out.out" 2> "$out.err" || status=$?
  # 1: the hog never played.
  (( status == 1 )) || fail "$mode: the tournament with a hog exited $status, not 1"
  grep -qx "hog: made 1000 connections" "$out/bots/hog.log" ||
    fail "$mode: the hog did not make its 1,000 connections"
  grep -q "^tournament: warning: bot hog never played" "$out.err" ||
    fail "$mode: the hog played"
  grep -q "^tournament: warning: bot honest" "$out.err" &&
    fail "$mode: an honest bot never played: its connections were reset"
  grep -Eq "^tournament: reset [0-9]+ connections? .*[(; ][0-9]+ from a local uid holding its quota of $quota connections: uid $first the most, " "$out.err" ||
    fail "$mode: the runner did not say it reset the hog's connections over its quota of $quota"
  # Every seat of an honest bot played: none forfeited, and their matches
  # against each other ended normally.
  /usr/bin/python3 - "$out/results.json" <<'EOF' || fail "$mode: an honest bot's seat forfeited"
import json, sys
results = json.load(open(sys.argv[1]))
between = 0
for match in results["matches"]:
    for bot, seat in zip(match["seats"], match["outcome"]["seats"]):
        if bot != "hog" and seat.get("forfeited"):
            sys.exit(f"{bot} forfeited in match {match['index']}")
    if "hog" not in match["seats"]:
        between += 1
        if match["outcome"]["termination"] != "TERMINATION_NORMAL":
            sys.exit(f"match {match['index']} ended {match['outcome']['termination']}")
if between != 2:
    sys.exit(f"{between} matches between the honest bots, not 2")
EOF
  echo "hog ($mode): kept to its quota of $quota connections; the other bots played"
}
hog_run plain
hog_run dev-lo
# An IPv4 address of this host off loopback, if it has one.
if address=$(ip -4 -o addr show scope global 2>/dev/null |
             awk '{ sub("/.*", "", $4); print $4; exit }') &&
   [[ -n $address ]]; then
  hog_run "$address"
else
  echo "hog (another address): this host has no IPv4 address off loopback"
fi
echo PASS
