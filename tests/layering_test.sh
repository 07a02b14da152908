#!/usr/bin/env bash
# Layering (issue 16): programs that only read and write the protocol's
# messages link protobuf, never gRPC. The arena plays bot strategies
# against each other in process on the requests the referee would send; it
# needs neither a server nor a client. Checked on the built binary, so a
# dependency that creeps in through any library is caught.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
failed=0
for program in arena selfplay make_golden keygen; do
  if ! libs=$(ldd "$bin/$program"); then
    echo "$program: ldd failed"
    failed=1
  elif grep -q 'libgrpc' <<<"$libs"; then
    echo "$program links gRPC:"
    grep 'libgrpc' <<<"$libs"
    failed=1
  else
    echo "$program: no gRPC"
  fi
done
exit $failed
