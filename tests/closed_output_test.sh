#!/usr/bin/env bash
# A referee and a tournament whose output is piped into a program that
# ends first (`referee | head`, `tournament ... | head`, a pager quit
# early) are not killed by SIGPIPE at their next line: the referee stops
# cleanly on SIGTERM (status 0, where it died with 141 in its shutdown
# message), and the tournament plays every match and writes its results.
# And a referee whose output pipe is full, its reader stalled, still stops
# serving and checkpoints its matches on SIGTERM (it waited to say that it
# was shutting down first, before stopping anything).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=${PYRAMID_BIN:-build/bin}
LIMIT=30 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee tournament bot

# --- the referee: its banner's first line read, the pipe closed.
(
  "$BIN/referee" --listen=127.0.0.1:0 --port_file="$tmp/port" \
    --data_dir="$tmp/data" 2>&1 &
  echo $! >"$tmp/referee.pid"
  status=0
  wait $! || status=$?
  echo "$status" >"$tmp/referee.status"
) | head -n 1 >"$tmp/head.out" &
poll test -s "$tmp/port"
poll test -s "$tmp/head.out"
sleep 0.2 # head has ended: the pipe has no reader.
kill -TERM "$(cat "$tmp/referee.pid")"
poll test -s "$tmp/referee.status"
status=$(cat "$tmp/referee.status")
((status == 0)) || fail "the referee whose output pipe closed exited with status $status on SIGTERM (141: SIGPIPE)"
echo "1. referee | head -n 1: stopped on SIGTERM with status 0"

# --- the referee: its stdout and stderr one pipe that no one reads any
# more, full (`referee 2>&1 | collector`, the collector stalled). SIGTERM
# still stops its server and checkpoints its running matches; the line it
# says then waits for the reader, which drains the pipe at last, and the
# referee exits 0.
python3 - "$BIN" "$tmp" "$LIMIT" <<'PY' || fail "a stalled output pipe kept the referee from shutting down"
import fcntl, os, signal, socket, subprocess, sys, time

bin_dir, tmp, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
port_file = os.path.join(tmp, "stalled.port")
r, w = os.pipe()
referee = subprocess.Popen(
    [os.path.join(bin_dir, "referee"), "--listen=127.0.0.1:0",
     "--port_file=" + port_file, "--data_dir=" + os.path.join(tmp, "stalled")],
    stdin=subprocess.DEVNULL, stdout=w, stderr=w)
fcntl.fcntl(r, fcntl.F_SETFL, os.O_NONBLOCK)
# The pipe's write end again, a file description of its own: O_NONBLOCK
# set on the referee's would make its writes fail, not wait.
filler = os.open("/proc/self/fd/%d" % w, os.O_WRONLY | os.O_NONBLOCK)


def wait_for(what, done):
    deadline = time.monotonic() + limit
    while not done():
        if time.monotonic() > deadline or referee.poll() is not None:
            sys.exit("waited in vain for " + what)
        time.sleep(0.02)


# The banner read whole (its last line ends "... is closed" or "... is
# never closed"), so that the referee waits for its signal.
said = b""


def banner_read():
    global said
    try:
        said += os.read(r, 65536)
    except BlockingIOError:
        pass
    return b"a connection beyond is reset; one idle" in said and \
        said.endswith(b"closed\n")


wait_for("the banner", banner_read)
# Written after the banner, as the start's last step (--port_file).
wait_for("the port file", lambda: os.path.exists(port_file))
port = int(open(port_file).read())
# The pipe filled through this process's own end, to its last byte (a
# write of a page waits while less than a page is free): the referee's
# next write waits.
for size in (4096, 1):
    try:
        while True:
            os.write(filler, b"x" * size)
    except BlockingIOError:
        pass
referee.send_signal(signal.SIGTERM)


def not_serving():
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return False
    except OSError:
        return True


wait_for("the server to stop with the output pipe full", not_serving)
# Drained: the line it waits to say goes, and it exits.
os.close(w)
os.close(filler)
fcntl.fcntl(r, fcntl.F_SETFL, 0)
rest = b""
while chunk := os.read(r, 65536):
    rest += chunk
status = referee.wait(timeout=limit)
if status != 0:
    sys.exit("the referee exited %d" % status)
if b"referee: stopped (signal 15); running matches checkpointed\n" not in rest:
    sys.exit("no stop line: %r" % rest[-300:])
PY
echo "3. referee 2>&1 | stalled reader: stopped serving on SIGTERM, exited 0 once drained"

# --- the tournament: its first progress line read, the pipe closed.
write_tournament "$tmp/closed-output.txt" rock_paper_pyramid seats=3 \
  format=ROUND_ROBIN rounds=2 concurrency=3 \
  -- a "$BIN/bot" --quiet -- b "$BIN/bot" --quiet -- c "$BIN/bot" --quiet
{
  status=0
  timeout "$LIMIT" "$BIN/tournament" "$tmp/closed-output.txt" \
    --output_dir="$tmp/out" 2>&1 || status=$?
  echo "$status" >"$tmp/tournament.status"
} | head -n 1 >/dev/null
status=$(cat "$tmp/tournament.status")
((status == 0)) || fail "the tournament whose output pipe closed exited with status $status (141: SIGPIPE)"
grep -q '"verified": *6' "$tmp/out/results.json" ||
  fail "results.json does not say 6 matches verified"
echo "2. tournament | head -n 1: every match played, status 0"

echo "PASS: a closed output pipe kills neither the referee nor the tournament, and a stalled one does not keep the referee from shutting down"
