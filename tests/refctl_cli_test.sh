#!/usr/bin/env bash
# refctl's command line against a real referee over loopback:
#
#  1. The admin token (FindAdminToken, referee/cli/token_text.h): an empty
#     $PYRAMID_ADMIN_TOKEN counts as unset, as the referee and the runner
#     take it. `PYRAMID_ADMIN_TOKEN= refctl list` in a directory without
#     referee-data/ lists (no token needed); register-bot so says "no admin
#     token" (status 1); the token in the variable registers a bot.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

BIN=$(realpath "${PYRAMID_BIN:-build/bin}")
LIMIT=20 # Seconds any one wait may take.

# shellcheck source=tests/e2e_lib.sh
source "${BASH_SOURCE%/*}/e2e_lib.sh"
need_built referee refctl

start_referee 127.0.0.1:0
mkdir -p "$tmp/cwd"

# --- 1. The admin token
# (cd "$tmp/cwd"; refctl without --admin_token_file, ARGS...)
bare_refctl() {
  (cd "$tmp/cwd" && exec "$BIN/refctl" --referee="$addr" "$@")
}
PYRAMID_ADMIN_TOKEN= bare_refctl list >"$tmp/empty-list.out" 2>&1 ||
  fail "PYRAMID_ADMIN_TOKEN= refctl list: $(cat "$tmp/empty-list.out")"
PYRAMID_ADMIN_TOKEN= expect_exit empty-register 1 \
  '^refctl: no admin token: give --admin_token_file or \$PYRAMID_ADMIN_TOKEN' \
  -- bare_refctl register-bot nobody --token_out="$tmp/nobody.token"
[[ ! -e $tmp/nobody.token ]] || fail "a token file without a bot"
PYRAMID_ADMIN_TOKEN=$(cat "$tmp/data/admin.token") expect_exit env-register 0 \
  'bot token written to' -- bare_refctl register-bot envbot \
  --token_out="$tmp/envbot.token"

echo "refctl_cli_test: PASS"
