# shellcheck shell=bash
# The harness of the end-to-end shell tests that run real referees over
# loopback or run tournaments (python_bot_test.sh, closed_output_test.sh,
# fd_exhaustion_test.sh, tools/tournament/bot_hosting_test.sh and others).
# Sourced, not run: the test sets BIN (the built binaries) and LIMIT (the
# seconds any one wait may take) first, and runs from the source root.
#
#   $tmp                 a temporary directory; at exit every process spawn
#                        started is killed and reaped, and $tmp removed
#   fail MESSAGE         prints MESSAGE and the tail of every $tmp/*.out,
#                        then exits 1
#   need_built TOOL...   fails unless each $BIN/TOOL is built
#   spawn NAME CMD...    runs CMD in the background, its output in
#                        $tmp/NAME.out; sets $last_pid
#   wait_for PID...      each must exit 0 within $LIMIT seconds
#   poll CMD...          runs CMD every 50 ms until it succeeds, at most
#                        $LIMIT seconds
#   start_referee ADDR   the referee under test on ADDR (127.0.0.1:0: any
#                        free port), its data in $tmp/data; sets
#                        $referee_pid and $addr. Called again with the same
#                        address after a SIGKILL, it restarts the referee
#                        on the same data.
#   refctl ARGS...       refctl against it, with its admin token
#   start_tls_referee    a second referee serving TLS with a certificate
#                        for 127.0.0.1 made here ($tmp/tls/cert.pem, which
#                        clients pass as --tls_ca), its data in
#                        $tmp/tls/data; sets $tls_addr
#   tls_refctl ARGS...   refctl against that one
#   verify_log MATCH [CLIENT DATA]
#                        fetches MATCH's log with CLIENT (default refctl)
#                        into $tmp/MATCH.pyrlog; `replay verify` with the
#                        key in DATA (default $tmp/data) must say genuine;
#                        prints its verdict
#   expect_clean NAME N  the client kit bot NAME (Python or Node) ended N
#                        matches, none by forfeit, with no error
#   expect_exit NAME STATUS PATTERN -- COMMAND...
#                        runs COMMAND, its standard output in $tmp/NAME.out
#                        and its standard error in $tmp/NAME.err: it must
#                        exit with STATUS (2: a refusal), and a line of its
#                        standard error match PATTERN (grep's)
#   write_tournament FILE GAME [FIELD=VALUE...] [-- BOT [key_file=KEY] ARG...]...
#                        writes a tournament file to FILE for GAME, named
#                        after FILE (its base name less its extension), with
#                        each FIELD (seats, rounds, format, output_dir...;
#                        a VALUE of digits (with a sign) or capitals as is,
#                        a number or an enum, any other as a string) and,
#                        after each --, a bot BOT whose command is ARG...
#                        and whose key_file is KEY if given. Every string
#                        is a literal (text_string): ARG is the very
#                        argument the bot gets.

tmp=$(mktemp -d)
pids=()
declare -A names # pid -> name, for messages
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.out; do
    [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}

need_built() {
  local tool
  for tool in "$@"; do
    [[ -x $BIN/$tool ]] || fail "$BIN/$tool is not built"
  done
}

spawn() {
  local name=$1
  shift
  "$@" >"$tmp/$name.out" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
  names[$last_pid]=$name
}

# reap PID [DEADLINE]: waits until PID (a child of this shell) exits, failing
# if it still runs at DEADLINE (in $SECONDS; default $LIMIT seconds from
# now); sets $status to its exit status.
reap() {
  local deadline=${2:-$((SECONDS + LIMIT))}
  while kill -0 "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "${names[$1]} still running after ${LIMIT}s"
    sleep 0.05
  done
  status=0
  wait "$1" || status=$?
}

# wait_for PID...: waits for every PID to exit with status 0 within $LIMIT
# seconds in all.
wait_for() {
  local deadline=$((SECONDS + LIMIT)) pid status
  for pid in "$@"; do
    reap "$pid" "$deadline"
    ((status == 0)) || fail "${names[$pid]} exited with status $status"
  done
}

poll() {
  local deadline=$((SECONDS + LIMIT))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out waiting for: $*"
    sleep 0.05
  done
}

# seat0_connected MATCH: whether seat 0 of MATCH has a stream now.
seat0_connected() {
  local info re='"seats":\[\{[^}]*"connected":true'
  info=$(refctl get-match "$1" 2>/dev/null) || return 1
  [[ $info =~ $re ]]
}

# expect_older_stops NAME MATCH LINE COMMAND...: two processes run COMMAND,
# a bot on seat 0 of MATCH. Once the first ($tmp/NAME-old.out) holds the
# seat, the second (NAME-new) connects with the same token: the first must
# exit 1, saying LINE (a whole line of its output), without reconnecting,
# and the second still run a second later. Leaves the second's pid in
# $new_pid, running.
expect_older_stops() {
  local name=$1 match=$2 line=$3 old
  shift 3
  spawn "$name-old" "$@"
  old=$last_pid
  poll seat0_connected "$match"
  spawn "$name-new" "$@"
  new_pid=$last_pid
  reap "$old"
  ((status == 1)) || fail "$name: the replaced bot exited with status $status"
  grep -qxF -- "$line" "$tmp/$name-old.out" ||
    fail "$name: the replaced bot did not say why it stopped: $(cat "$tmp/$name-old.out")"
  ! grep -q "reconnecting" "$tmp/$name-old.out" ||
    fail "$name: the replaced bot reconnected"
  sleep 1
  kill -0 "$new_pid" 2>/dev/null || fail "$name: the newer bot stopped"
}

# Starts the referee on the address $1 and $tmp/data; sets addr to where
# it serves: 127.0.0.1:PORT (the port bound, for 127.0.0.1:0), or $1 for a
# Unix socket (unix:PATH). A test that stops the referee and starts it
# again on "$addr" uses a socket in $tmp: a freed loopback port may be
# taken by another test's process meanwhile, a socket of its own cannot.
start_referee() {
  rm -f "$tmp/port"
  spawn referee "$BIN/referee" --listen="$1" --port_file="$tmp/port" \
    --data_dir="$tmp/data"
  # shellcheck disable=SC2034  # For the test, to kill it.
  referee_pid=$last_pid
  poll test -s "$tmp/port"
  if [[ $1 == unix:* ]]; then
    addr=$1
  else
    addr=127.0.0.1:$(cat "$tmp/port")
  fi
}

refctl() {
  "$BIN/refctl" --referee="$addr" --admin_token_file="$tmp/data/admin.token" "$@"
}

start_tls_referee() {
  mkdir -p "$tmp/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" -days 2 \
    -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1" \
    >/dev/null 2>&1 || fail "openssl req"
  spawn tls-referee "$BIN/referee" --listen=127.0.0.1:0 \
    --port_file="$tmp/tls/port" --data_dir="$tmp/tls/data" \
    --tls_cert="$tmp/tls/cert.pem" --tls_key="$tmp/tls/key.pem"
  poll test -s "$tmp/tls/port"
  tls_addr=127.0.0.1:$(cat "$tmp/tls/port")
}

tls_refctl() {
  "$BIN/refctl" --referee="$tls_addr" --tls_ca="$tmp/tls/cert.pem" \
    --admin_token_file="$tmp/tls/data/admin.token" "$@"
}

verify_log() {
  local match=$1 client=${2:-refctl} data=${3:-$tmp/data} out
  "$client" get-log "$match" --out="$tmp/$match.pyrlog" 2>/dev/null ||
    fail "get-log $match"
  out=$("$BIN/replay" verify --key="$data/referee.key.pub" \
    "$tmp/$match.pyrlog") || fail "replay verify $match: $out"
  [[ $out == *": genuine ("* ]] || fail "replay verify $match: $out"
  echo "$out"
}

# verify_log, and every seat of the match named its header: each seat's seed
# contribution copied the request's header_hash, and `replay verify` says
# "N of N seats named this header".
verify_named() {  # MATCH [CLIENT DATA_DIR], as verify_log
  local out re='; ([0-9]+) of ([0-9]+) seats named this header[;,]'
  out=$(verify_log "$@")
  [[ $out =~ $re ]] && ((BASH_REMATCH[1] == BASH_REMATCH[2])) ||
    fail "not every seat of $1 named its log header: $out"
  echo "$out"
}

expect_clean() {
  local out=$tmp/$1.out
  grep -q "^pyramid_kit: $2 match(es) ended, 0 error(s)" "$out" ||
    fail "$1 did not end $2 match(es) without error"
  ! grep -q "(forfeited)\|TERMINATION_FORFEIT" "$out" || fail "$1 saw a forfeit"
}

expect_exit() {
  local name=$1 expected=$2 pattern=$3 status=0
  [[ ${4:-} == -- ]] || fail "expect_exit $name: no -- before the command"
  shift 4
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || status=$?
  ((status == expected)) ||
    fail "$name: exited with status $status, not $expected: $(tail -c 600 "$tmp/$name.err")"
  grep -q -- "$pattern" "$tmp/$name.err" ||
    fail "$name: no line of its standard error matches '$pattern': $(tail -c 600 "$tmp/$name.err")"
}

# The protobuf text format's string literal of $1: \, ", newline, tab and
# carriage return escaped (other control characters, which no test passes,
# as they are).
text_string() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  printf '"%s"' "$s"
}

write_tournament() {
  local file=$1 game=$2 name field
  shift 2
  name=${file##*/}
  {
    printf 'name: %s\ngame { game: %s }\n' "$(text_string "${name%.*}")" \
      "$(text_string "$game")"
    while (($# > 0)) && [[ $1 != -- ]]; do
      field=${1#*=}
      [[ $field =~ ^(-?[0-9]+|[A-Z_]+)$ ]] || field=$(text_string "$field")
      printf '%s: %s\n' "${1%%=*}" "$field"
      shift
    done
    while (($# > 1)); do # "--" BOT ...
      printf 'bots { name: %s' "$(text_string "$2")"
      shift 2
      if [[ ${1:-} == key_file=* ]]; then
        field=" key_file: $(text_string "${1#key_file=}")"
        shift
      else
        field=
      fi
      while (($# > 0)) && [[ $1 != -- ]]; do
        printf ' command: %s' "$(text_string "$1")"
        shift
      done
      printf '%s }\n' "$field"
    done
  } >"$file"
}
