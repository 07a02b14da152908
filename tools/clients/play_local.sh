#!/usr/bin/env bash
# Plays your bot against C++ reference bots on a local referee, in one
# command, and verifies every log.
#
#   tools/clients/play_local.sh [--game=GAME] [--seats=N] [--rounds=R]
#       [--strategy=random|heuristic] [--out=DIR] -- COMMAND [ARG...]
#
# COMMAND is your bot, as you would start it (it gets --referee=ADDRESS
# --token_file=FILE appended, as every kit bot and the C++ bot take them).
# Writes a GAUNTLET tournament of your bot against N-1 C++ bots (--strategy,
# default random) in every seat rotation, R times, and runs
# build/bin/tournament on it (which records it in DIR/tournament.txt): the runner starts its own referee on a
# free loopback port, plays, verifies every log against the referee's key
# and prints the standings. Your bot's output is in DIR/bots/mine.log; the
# first time your bot exits with a failure (the runner restarts it, up to 6
# times), its last lines are printed here too. A DIR
# that an earlier play_local run wrote is replaced once the runner has
# accepted the command (until then it is set aside beside DIR, and put back
# when the runner refuses the command: a mistyped --seats costs nothing);
# any other non-empty DIR is refused.
# Defaults: rock_paper_pyramid, 3 seats, 1 round, out/play-local. Exit
# status: the runner's (0 when every match was played and every log
# verified). PYRAMID_BIN names the built binaries (default: build/bin of the
# repository this script is in, wherever it is run from).
set -euo pipefail

BIN=${PYRAMID_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin}
game=rock_paper_pyramid seats=3 rounds=1 strategy=random out=out/play-local
usage() {
  sed -n '5,6p' "$0" | sed 's/^# *//' >&2
  exit 2
}
while (($#)); do
  case $1 in
    --game=*) game=${1#*=} ;;
    --seats=*) seats=${1#*=} ;;
    --rounds=*) rounds=${1#*=} ;;
    --strategy=*) strategy=${1#*=} ;;
    --out=*) out=${1#*=} ;;
    --) shift; break ;;
    *) usage ;;
  esac
  shift
done
(($# > 0)) || usage
[[ $seats =~ ^[0-9]+$ && $seats -ge 2 && $rounds =~ ^[0-9]+$ ]] || usage
[[ -x $BIN/tournament && -x $BIN/bot ]] ||
  { echo "play_local: build first (tools/build.sh): no $BIN/tournament" >&2; exit 1; }

# A protobuf text string: backslashes and double quotes escaped.
quote() {
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}

# The runner keeps its own record of the tournament in DIR/tournament.txt;
# a DIR whose tournament is named local-* is an earlier play_local run's.
# It is set aside, not removed: the runner checks everything (the game, the
# seats, the bot's command) before it makes its output directory, so a DIR
# it did not make again means it refused the command, and the earlier run
# goes back in place (settle).
previous=
if [[ -f $out/tournament.txt ]] && grep -q '^name: "local-' "$out/tournament.txt"; then
  previous=$(mktemp -d "${out%/}.previous.XXXXXX")
  mv "$out" "$previous/run"
elif [[ -d $out && -n $(ls -A "$out") ]]; then
  echo "play_local: $out is not empty and not from play_local; use --out=DIR" >&2
  exit 2
fi
# settle: once the runner is done (or this script is stopped), the earlier
# run set aside goes: removed when the runner made DIR anew, else put back.
settle() {
  [[ -n $previous ]] || return 0
  if [[ -e $out ]]; then
    rm -rf "$previous"
  else
    mv "$previous/run" "$out" && rmdir "$previous"
  fi
  previous=
}
file=$(mktemp --suffix=.txt)
trap 'rm -f "$file"; settle' EXIT
{
  echo "name: $(quote "local-$game")"
  echo "game { game: $(quote "$game") }"
  echo "seats: $seats"
  printf 'bots { name: "mine"'
  for arg in "$@"; do printf ' command: %s' "$(quote "$arg")"; done
  echo ' }'
  for ((i = 1; i < seats; i++)); do
    echo "bots { name: \"cpp-$strategy-$i\" command: $(quote "$BIN/bot")" \
      "command: \"--strategy=$strategy\" command: \"--quiet\" }"
  done
  echo "format: GAUNTLET"
  echo "rounds: $rounds"
  echo "output_dir: $(quote "$out")"
} >"$file"
# The runner's notes (its standard error) pass through report_exits, which
# prints the last lines of your bot's output the first time the runner says
# it ended with a failure ("bot mine ended (exit status 1); restarting
# ..."): a bot that cannot start (a ModuleNotFoundError, a bad flag) says
# why at once rather than only in its log, 35 s of restarts later. It
# ignores SIGINT and SIGTERM, so that the runner's last notes after a ^C
# still get through.
report_exits() {
  trap '' INT TERM
  local line shown=no log=$out/bots/mine.log
  while IFS= read -r line; do
    printf '%s\n' "$line" >&2
    if [[ $shown == no && $line == "bot mine ended ("* &&
      $line != "bot mine ended (exit status 0)"* ]]; then
      shown=yes
      sleep 0.1 # Its last output on its way to the log.
      echo "play_local: your bot failed; the last lines of its output ($log):" >&2
      tail -n 8 "$log" 2>/dev/null | sed 's/^/play_local: | /' >&2 || true
    fi
  done
}
if { "$BIN/tournament" "$file" 2>&1 1>&3 3>&- | report_exits; } 3>&1; then
  status=0
else
  status=${PIPESTATUS[0]}
fi
# The runner refuses a bad tournament (an unknown game, ...) before it
# starts any bot or writes anything: no DIR then (or the earlier run's,
# put back).
made=no
[[ -f $out/tournament.txt ]] && made=yes
restored=$([[ -n $previous && $made == no ]] && echo yes || echo no)
settle
if [[ $made == yes ]]; then
  echo "play_local: your bot's output: $out/bots/mine.log; the tournament: $out/tournament.txt"
elif [[ $restored == yes ]]; then
  echo "play_local: $out is left as the earlier run wrote it" >&2
fi
exit $status
