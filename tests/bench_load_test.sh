#!/usr/bin/env bash
# bench_load's own acceptance test (issue 18), not timed: a small run in
# each mode, one Play stream per seat and bot mode (--bots=20, and again
# with the referee's SQLite registry, --registry), must hold
# every requested match live at once (peak_live=500 on its last line, the
# key=value line scripts read) and end with no timeout. Nothing about speed
# is asserted; the deadlines are long (10 s) so that a busy CI machine
# cannot turn a slow run into timeouts: a timeout here means a lost or
# unanswered message. Those runs skip the echo phase (--echo_seconds=0:
# echo_ratio=-); a last, smaller pair of runs, one per mode, plays it
# briefly and checks the echo report (see echo_report below).
#
# PYRAMID_BIN: the binaries (default build/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
matches=500
failed=0

# value KEY LINE: the value of KEY in a line of key=value pairs.
value() {
  tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

for mode in "" "--bots=20" "--bots=20 --registry"; do
  name=${mode:-streams}
  out=$("$bin/bench_load" --matches=$matches --echo_seconds=0 \
    --verify_logs=2 --deadline_ms=10000 --max_seconds=120 $mode 2>&1) || {
    echo "$name: bench_load failed"
    tail -20 <<<"$out"
    ((++failed))
    continue
  }
  last=$(tail -n 1 <<<"$out")
  peak=$(value peak_live "$last")
  timeouts=$(value timeouts "$last")
  ratio=$(value echo_ratio "$last")
  if [[ $peak == "$matches" && $timeouts == 0 && $ratio == - ]] &&
    grep -q '^  skipped  *--echo_seconds=0$' <<<"$out"; then
    echo "$name: ok ($last)"
  else
    echo "$name: want peak_live=$matches timeouts=0 echo_ratio=- and the" \
      "echo phase skipped, got: $last"
    ((++failed))
  fi
done

# section TITLE REPORT: the rows of the report's section TITLE (each
# section follows an empty line and runs to the next).
section() {
  awk -v t="  $1" '/^$/ { getline; on = index($0, t) == 1; next } on' <<<"$2"
}

# cell NAME ROWS [NTH]: the first word of the value of the NTH (default
# the first) row named NAME.
cell() {
  awk -v name="$1" -v nth="${3:-1}" '
    { row = $0; sub(/^ +/, "", row) }
    index(row, name "  ") == 1 && ++seen == nth {
      rest = substr(row, length(name) + 1)
      split(rest, words, " ")
      print words[1]
      exit
    }' <<<"$2"
}

# is EXPRESSION: whether an awk expression of numbers holds.
is() {
  awk "BEGIN { exit !($1) }"
}

# echo_report MATCHES ROUNDS BOTS REPORT: what report.cc promises of a run
# with the echo phase, said of each broken promise (status 1 if any).
# Nothing about speed: only that the figures exist, are positive and agree.
echo_report() {
  local m=$1 rounds=$2 bots=$3 out=$4 bad=0
  local last referee echo_rows summary memory quotient
  last=$(tail -n 1 <<<"$out")
  referee=$(section "Referee phase" "$out")
  echo_rows=$(section "Echo phase" "$out")
  summary=$(section "Summary" "$out")
  memory=$(section "Server memory" "$out")
  complain() {
    echo "  $*"
    bad=1
  }

  # The key=value line: the run itself, and a numeric ratio above 0.
  local ratio
  ratio=$(value echo_ratio "$last")
  [[ $(value peak_live "$last") == "$m" && $(value timeouts "$last") == 0 &&
    $(value stream_errors "$last") == 0 ]] ||
    complain "want peak_live=$m timeouts=0 stream_errors=0: $last"
  if [[ $ratio =~ ^[0-9]+\.[0-9]{3}$ ]] && is "$ratio > 0"; then :; else
    complain "echo_ratio not a number above 0: $last"
  fi

  # The echo phase: a stream per seat, all of them answering, the race and
  # the steady window each with messages at a positive rate, no failure.
  local streams trips race_msgs referee_msgs
  streams=$(cell streams "$echo_rows")
  [[ $streams == $((3 * m)) ]] || complain "echo streams: $streams, want $((3 * m))"
  grep -q 'as many as seats; request/response ping-pong' <<<"$echo_rows" ||
    complain "not every echo stream answered at the start"
  trips=$(cell "race: round trips" "$echo_rows")
  race_msgs=$(cell messages "$echo_rows" 1)
  referee_msgs=$(cell messages "$referee")
  # The race makes the referee phase's message count: every stream the
  # same round trips, rounded to the nearest (so within one per stream).
  [[ $trips =~ ^[0-9]+$ && $race_msgs == $((2 * trips * streams)) ]] ||
    complain "race: $race_msgs messages, want 2 x $trips round trips x $streams streams"
  is "$race_msgs - $referee_msgs <= $streams && $referee_msgs - $race_msgs <= $streams" ||
    complain "race: $race_msgs messages for the referee phase's $referee_msgs"
  grep -q "messages/s (echo)  *[1-9][0-9]*  *the ratio's baseline" <<<"$echo_rows" ||
    complain "the race has no positive rate or did not finish"
  is "$(cell "steady window" "$echo_rows") >= $echo_seconds" ||
    complain "steady window shorter than --echo_seconds=$echo_seconds"
  is "$(cell messages "$echo_rows" 2) > 0 && $(cell "messages/s (echo)" "$echo_rows" 2) > 0" ||
    complain "the steady window moved no message"
  [[ $(cell "stream failures" "$echo_rows") == 0 ]] || complain "echo stream failures"
  [[ $(grep -c '^  round [0-9]*: referee / race ' <<<"$echo_rows") == $((rounds - 1)) ]] ||
    complain "want $((rounds - 1)) further rounds in the echo phase"
  grep -q '^  RSS after echo phase ' <<<"$memory" ||
    complain "no RSS after the echo phase"

  # The summary: the ratio is the median of the rounds' (the lower middle
  # of an even count), the first round's the referee phase's messages/s
  # over the race's.
  local ratios median first
  ratios=$(sed -n 's/^  msgs\/s referee \/ echo  *[0-9.]*  *//p' <<<"$summary" |
    sed 's/;.*//; s/^the median of //')
  [[ $(cell "msgs/s referee / echo" "$summary") == "$ratio" ]] ||
    complain "the summary's ratio is not echo_ratio=$ratio"
  [[ $(tr -cd , <<<"$ratios" | wc -c) == $((rounds - 1)) ]] ||
    complain "want $rounds ratios, got: $ratios"
  median=$(tr -d , <<<"$ratios" | tr ' ' '\n' | sort -g |
    sed -n "$(((rounds + 1) / 2))p")
  [[ $median == "$ratio" ]] ||
    complain "echo_ratio=$ratio is not the median of $ratios"
  first=${ratios%%,*}
  quotient="$(cell "messages/s (referee)" "$referee") / $(cell "messages/s (echo)" "$echo_rows" 1)"
  # Within the rounding of the printed rates and ratio.
  is "($first) - $quotient <= 0.001 + 0.01 * $quotient &&
      $quotient - ($first) <= 0.001 + 0.01 * $quotient" ||
    complain "the first ratio $first is not referee / race messages/s ($quotient)"
  is "$(cell "first pair per CPU-second" "$summary") > 0 &&
      $(cell "first phase / steady window" "$summary") > 0" ||
    complain "the per-CPU-second or steady-window ratio is not above 0"
  # In stream mode (an echo stream per seat) the report adds what raw
  # gRPC allows at that many streams; a bot's batched stream has no twin.
  local bounds
  bounds=$(grep -c "^    echo's \(latency floor\|rate / deadlines need\) " <<<"$summary")
  if ((bots == 0)); then
    ((bounds == 2)) || complain "stream mode: want the echo's latency floor and rate"
  else
    ((bounds == 0)) || complain "bot mode: the echo's bounds are stream mode's"
  fi
  return $bad
}

# The echo phase, briefly, in both modes: 50 matches, a 0.5 s steady
# window, 3 rounds with a stream per seat and 2 (an even count) with bots.
echo_matches=50
echo_seconds=0.5
for run in "streams 3 0" "bots 2 10"; do
  read -r kind rounds bots <<<"$run"
  name="echo $kind"
  out=$("$bin/bench_load" --matches=$echo_matches --bots="$bots" \
    --ratio_rounds="$rounds" --echo_seconds=$echo_seconds --verify_logs=1 \
    --deadline_ms=10000 --max_seconds=60 2>&1) || {
    echo "$name: bench_load failed"
    tail -20 <<<"$out"
    ((++failed))
    continue
  }
  if complaints=$(echo_report $echo_matches "$rounds" "$bots" "$out"); then
    echo "$name: ok ($(tail -n 1 <<<"$out"))"
  else
    echo "$name: the echo report breaks its promises:"
    echo "$complaints"
    ((++failed))
  fi
done
((failed == 0))
