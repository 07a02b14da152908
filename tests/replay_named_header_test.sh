#!/usr/bin/env bash
# `replay verify`'s account of the seats that named the log's header
# (docs/log-format.md, "What a log proves against its referee"): a seat
# without a key proves nothing by naming it (nothing signs its
# commitments: the referee could have written them), so unless every seat
# has a key the line says how many of those with keys named it.
#
#  1. Every seat has a key: "N of M seats named this header" (named_header:
#     2 of 3).
#  2. Some seats have keys: "N of M seats named this header, K of the J with
#     keys (only those vouch)" (signed_seed_timeout_restarts: 2 seats of 3
#     have keys, none named it).
#  3. No seat has a key: "N of M seats named this header, none with a key
#     to vouch" (classic). Both said only "0 of 3 seats named this header",
#     as if seats without keys vouched.
#
# Runs from the source root. PYRAMID_BIN names the built binaries (default
# build/bin).
set -euo pipefail

# shellcheck source=tests/replay_cli_lib.sh
source "${BASH_SOURCE%/*}/replay_cli_lib.sh"

GOLDEN=testdata/golden/rock_paper_pyramid

run 0 verify "$GOLDEN/named_header.pyrlog"
has out "; 2 of 3 seats named this header; "

run 0 verify "$GOLDEN/signed_seed_timeout_restarts.pyrlog"
has out "; 0 of 3 seats named this header, 0 of the 2 with keys (only those vouch); "

run 0 verify "$GOLDEN/classic.pyrlog"
has out "; 0 of 3 seats named this header, none with a key to vouch; "

echo "replay_named_header_test: ok"
