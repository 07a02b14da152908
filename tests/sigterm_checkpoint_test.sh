#!/usr/bin/env bash
# SIGTERM during a tournament (docs/transparency-log.md, "When it signs"):
# the checkpoint the referee signs at shutdown covers every sealed log. A
# tournament of the reference bots plays against a referee that is stopped
# with SIGTERM three times mid-play, and started again on the same data
# directory each time. After each stop the latest checkpoint (in
# tlog.sqlite3, and in DATA_DIR/checkpoint) must be of the tree's size,
# the tree must hold every match the registry records as finished, and the
# referee must have exited 0. (The referee used to sign it before its
# server stopped: matches still sealed after it, and their logs were
# entered in the tree after its last checkpoint.)
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin). Needs python3 (its sqlite3 module reads the databases).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
stops=3
dir=$(mktemp -d)
data=$dir/data
referee_pid='' tournament_pid=''
cleanup() {
  local pid
  for pid in $tournament_pid $referee_pid; do
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$dir"/referee.out "$dir"/tournament.err; do
    [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}

# start_referee LISTEN: starts the referee on $data, waits until it serves.
start_referee() {
  rm -f "$dir/port"
  # Checkpoints only on time (rarely) and at shutdown.
  "$bin/referee" --listen="$1" --port_file="$dir/port" --data_dir="$data" \
    --checkpoint_every_matches=0 >>"$dir/referee.out" 2>&1 &
  referee_pid=$!
  for _ in $(seq 500); do [[ -s $dir/port ]] && return 0; sleep 0.02; done
  fail "the referee did not start"
}

# query DB SQL: the one value SQL selects from DB (read only).
query() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute(sys.argv[2]).fetchone()[0])
PY
}

# await_finished N: waits until the registry records N matches as finished
# (at most 60 s).
await_finished() {
  python3 - "$data/registry.sqlite3" "$1" <<'PY' || fail "no $1 matches in 60 s"
import sqlite3, sys, time
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
give_up = time.monotonic() + 60
while db.execute("SELECT COUNT(*) FROM matches WHERE status = 2").fetchone()[0] < int(sys.argv[2]):
    if time.monotonic() > give_up:
        sys.exit(1)
    time.sleep(0.01)
PY
}

start_referee 127.0.0.1:0
port=$(cat "$dir/port")
# Rock, Paper, Pyramid! between 4 bots, 3 seats: 12 matches a round, 64
# played at once (many end together), far more than are played before the
# last stop.
cat >"$dir/t.txt" <<TXT
name: "sigterm" game { game: "rock_paper_pyramid" } seats: 3
rounds: 50 concurrency: 64 output_dir: "$dir/out"
clocks { commit_timeout_ms: 5000 reveal_timeout_ms: 5000 }
bots { name: "r1" command: "$bin/bot" command: "--quiet" }
bots { name: "r2" command: "$bin/bot" command: "--quiet" }
bots { name: "r3" command: "$bin/bot" command: "--quiet" }
bots { name: "r4" command: "$bin/bot" command: "--quiet" }
TXT
"$bin/tournament" "$dir/t.txt" --referee="127.0.0.1:$port" \
  --referee_key="$data/referee.key.pub" \
  --admin_token_file="$data/admin.token" --referee_retry_s=60 \
  >"$dir/tournament.out" 2>"$dir/tournament.err" &
tournament_pid=$!

covered=0
for stop in $(seq "$stops"); do
  # Mid-play: as a round's matches end, a random 0-60 ms after the first.
  await_finished $((covered + 1))
  sleep "$(printf '0.%03d' $((RANDOM % 60)))"
  kill -0 "$tournament_pid" 2>/dev/null || fail "the tournament ended"
  kill -TERM "$referee_pid"
  status=0
  wait "$referee_pid" || status=$?
  referee_pid=''
  ((status == 0)) || fail "stop $stop: the referee exited $status after SIGTERM"

  leaves=$(query "$data/tlog.sqlite3" "SELECT COUNT(*) FROM leaves")
  signed=$(query "$data/tlog.sqlite3" \
    "SELECT COALESCE(MAX(size), 0) FROM checkpoints")
  finished=$(query "$data/registry.sqlite3" \
    "SELECT COUNT(*) FROM matches WHERE status = 2")
  in_file=$(sed -n 2p "$data/checkpoint")
  echo "stop $stop: $finished matches finished, $leaves sealed logs in the" \
    "tree, the last checkpoint covers $signed ($in_file in DATA_DIR/checkpoint)"
  ((signed == leaves)) ||
    fail "stop $stop: the last checkpoint covers $signed of $leaves sealed logs"
  ((in_file == signed)) ||
    fail "stop $stop: DATA_DIR/checkpoint is of size $in_file, not $signed"
  ((finished == leaves)) ||
    fail "stop $stop: $finished matches finished, $leaves in the tree"
  ((signed > covered)) || fail "stop $stop: no match sealed since the last"
  covered=$signed
  start_referee "127.0.0.1:$port"
done
echo "sigterm_checkpoint_test: passed"
