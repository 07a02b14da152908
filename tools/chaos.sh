#!/usr/bin/env bash
# Chaos run of the durable referee (docs/durability.md): a tournament of the
# reference bots against a running referee that is SIGKILLed at random
# moments and restarted on the same data directory. Passes only if every
# scheduled match finishes, every log verifies against the referee's key
# and is included in the referee's transparency log (replay
# verify-tournament on the output directory), and no log holds a fault
# (so no forfeit and no default action): the restarts cost nobody anything.
# Prints its figures, and the same tournament without kills as the
# baseline.
#
#   tools/chaos.sh [--matches=500] [--kills=10] [--out=out/chaos] [--seed=N]
#
# Needs the built binaries (PYRAMID_BIN, default build/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
matches=500 kills=10 out=out/chaos seed=$RANDOM
for arg in "$@"; do
  case $arg in
    --matches=*) matches=${arg#*=} ;;
    --kills=*) kills=${arg#*=} ;;
    --out=*) out=${arg#*=} ;;
    --seed=*) seed=${arg#*=} ;;
    *) echo "usage: $0 [--matches=N] [--kills=K] [--out=DIR] [--seed=N]" >&2; exit 2 ;;
  esac
done
RANDOM=$seed
rm -rf "$out"
mkdir -p "$out"
referee_pid=
tournament_pid=
cleanup() {
  [[ -n $tournament_pid ]] && kill -9 "$tournament_pid" 2>/dev/null || true
  [[ -n $referee_pid ]] && kill -9 "$referee_pid" 2>/dev/null || true
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

# start_referee DATA_DIR LISTEN: starts the referee, waits until it serves.
start_referee() {
  rm -f "$out/port"
  "$bin/referee" --listen="$2" --port_file="$out/port" --data_dir="$1" \
    --checkpoint_interval=16 >>"$out/referee.out" 2>&1 &
  referee_pid=$!
  for _ in $(seq 300); do [[ -s $out/port ]] && return 0; sleep 0.02; done
  echo "chaos: the referee did not start" >&2
  tail "$out/referee.out" >&2
  exit 1
}

# Rock, Paper, Pyramid! between 4 random bots, 3 seats: 12 matches a round.
rounds=$(((matches + 11) / 12))
scheduled=$((rounds * 12))

# run_tournament NAME KILLS: plays the tournament; prints its wall time (ms).
run_tournament() {
  local name=$1 kills=$2 dir="$out/$1"
  mkdir -p "$dir"
  start_referee "$dir/referee" 127.0.0.1:0
  local port
  port=$(cat "$out/port")
  cat >"$dir/t.txt" <<TXT
name: "chaos-$name" game { game: "rock_paper_pyramid" } seats: 3
rounds: $rounds concurrency: 8 output_dir: "$dir/out"
clocks { commit_timeout_ms: 5000 reveal_timeout_ms: 5000 }
bots { name: "r1" command: "$bin/bot" command: "--quiet" }
bots { name: "r2" command: "$bin/bot" command: "--quiet" }
bots { name: "r3" command: "$bin/bot" command: "--quiet" }
bots { name: "r4" command: "$bin/bot" command: "--quiet" }
TXT
  local start
  start=$(now_ms)
  "$bin/tournament" "$dir/t.txt" --referee="127.0.0.1:$port" \
    --referee_key="$dir/referee/referee.key.pub" \
    --admin_token_file="$dir/referee/admin.token" --referee_retry_s=120 \
    >"$dir/tournament.out" 2>"$dir/tournament.err" &
  tournament_pid=$!
  local down_ms=0
  # Kill k comes once about k/(kills+1) of the matches have finished (the
  # runner's journal counts them), plus a random 0-60 ms: a random moment
  # inside a match, and always before the tournament can end.
  : >"$dir/kills"
  for k in $(seq "$kills"); do
    local target=$((k * scheduled / (kills + 1)))
    while kill -0 "$tournament_pid" 2>/dev/null &&
      (($({ wc -l <"$dir/out/journal.jsonl"; } 2>/dev/null || echo 0) < target)); do
      sleep 0.01
    done
    sleep "$(printf '0.%03d' $((RANDOM % 60)))"
    kill -0 "$tournament_pid" 2>/dev/null || break
    kill -9 "$referee_pid"
    wait "$referee_pid" 2>/dev/null || true
    local killed
    killed=$(now_ms)
    sleep "$(printf '0.%03d' $((RANDOM % 500)))"  # Down up to 0.5 s.
    start_referee "$dir/referee" "127.0.0.1:$port"
    down_ms=$((down_ms + $(now_ms) - killed))
    echo "kill $k" >>"$dir/kills"
  done
  local status=0
  wait "$tournament_pid" || status=$?
  tournament_pid=
  local wall=$(($(now_ms) - start))
  kill -TERM "$referee_pid"
  wait "$referee_pid" 2>/dev/null || true
  referee_pid=
  if ((status != 0)); then
    echo "chaos: the $name tournament failed (exit $status):" >&2
    tail -n 20 "$dir/tournament.err" "$dir/tournament.out" >&2
    exit 1
  fi
  echo "$wall $down_ms"
}

base_ms=
read -r base_ms _ < <(run_tournament baseline 0)
read -r chaos_ms down_ms < <(run_tournament chaos "$kills")
killed=$(wc -l <"$out/chaos/kills")

logs=("$out"/chaos/out/logs/*.pyrlog)
verified=$("$bin/replay" verify --key="$out/chaos/referee/referee.key.pub" \
  "${logs[@]}" | grep -c ': genuine' || true)
faults=0 restarts=0
for log in "${logs[@]}"; do
  shown=$("$bin/replay" show "$log")
  faults=$((faults + $(grep -c 'FAULT' <<<"$shown" || true)))
  restarts=$((restarts + $(grep -c 'referee restarted' <<<"$shown" || true)))
done

# The transparency log survived the kills: every match is in the
# referee's signed checkpoint, none missing, none twice.
evidence=0
"$bin/replay" verify-tournament --key="$out/chaos/referee/referee.key.pub" \
  "$out/chaos/out" >"$out/verify-tournament.out" 2>&1 || evidence=$?
echo "chaos: $scheduled matches scheduled, ${#logs[@]} logs, $verified genuine"
echo "chaos: transparency: $(head -n 4 "$out/verify-tournament.out")"
echo "chaos: $killed referee SIGKILLs, total downtime ${down_ms} ms," \
  "$restarts Restart records in the logs"
echo "chaos: faults in the logs (forfeits, default actions): $faults"
echo "chaos: wall time ${chaos_ms} ms with kills, ${base_ms} ms without;" \
  "slowdown $(awk -v a="$chaos_ms" -v b="$base_ms" 'BEGIN{printf "%.2f", a/b}')x"
lost=$((scheduled - verified))
echo "chaos: matches=$scheduled kills=$killed lost=$lost faults=$faults" \
  "downtime_ms=$down_ms wall_ms=$chaos_ms baseline_ms=$base_ms"
if ((lost != 0 || faults != 0 || killed < kills || evidence != 0)); then
  echo "chaos: FAILED" >&2
  exit 1
fi
echo "chaos: passed"
