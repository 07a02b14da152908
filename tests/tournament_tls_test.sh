#!/usr/bin/env bash
# The tournament runner against a running referee that serves TLS
# (docs/tournament.md, --tls_ca):
#
#  1. With --tls_ca naming the referee's certificate, a tournament of one
#     round of three bots (each given the same roots) plays its three
#     matches, fetches their logs and verifies them: exit 0.
#  2. Without --tls_ca the runner speaks plaintext and never reaches the
#     referee: it gives up after --referee_retry_s, exit 1, its message the
#     admin token's check that could not be made (UNAVAILABLE).
#  3. --tls_ca naming a file that cannot be read is refused (exit 2), naming
#     it; --tls_ca without a running referee is refused (exit 2).
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=$(realpath "${PYRAMID_BIN:-build/bin}")
LIMIT=60 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee bot tournament

start_tls_referee
ca=$tmp/tls/cert.pem
remote=(--referee="$tls_addr" --referee_key="$tmp/tls/data/referee.key.pub"
  --admin_token_file="$tmp/tls/data/admin.token")
bots=()
for name in a b c; do
  bots+=(-- "$name" "$BIN/bot" "--tls_ca=$ca" --quiet)
done

# --- 1. With the roots
write_tournament "$tmp/tls-cup.textproto" rock_paper_pyramid seats=3 \
  rounds=1 output_dir="$tmp/out" "${bots[@]}"
expect_exit played 0 '^3/3 matches' -- \
  "$BIN/tournament" "$tmp/tls-cup.textproto" "${remote[@]}" --tls_ca="$ca"
grep -q "^tls-cup (rock_paper_pyramid): 3 of 3 match logs verified" \
  "$tmp/played.out" || fail "the logs did not verify: $(cat "$tmp/played.out")"
logs=("$tmp"/out/logs/*.pyrlog)
((${#logs[@]} == 3)) || fail "not three logs fetched: ${logs[*]}"

# --- 2. Without them
write_tournament "$tmp/plain-cup.textproto" rock_paper_pyramid seats=3 \
  rounds=1 output_dir="$tmp/out-plain" "${bots[@]}"
expect_exit plaintext 1 \
  '^tournament: checking the admin token: failed to connect' -- \
  "$BIN/tournament" "$tmp/plain-cup.textproto" "${remote[@]}" \
  --referee_retry_s=1

# --- 3. Mistakes
expect_exit unreadable 2 "tls_ca: cannot open $tmp/no-such.pem" -- \
  "$BIN/tournament" "$tmp/plain-cup.textproto" "${remote[@]}" \
  --tls_ca="$tmp/no-such.pem"
expect_exit embedded 2 \
  '--tls_ca is for a running referee.s TLS, and no referee is set' -- \
  "$BIN/tournament" "$tmp/plain-cup.textproto" --tls_ca="$ca"

echo "tournament_tls_test: PASS"
