#!/usr/bin/env bash
# Makes the README's match viewer screenshots, docs/images/<game>.png, from
# golden logs of testdata/golden/: `replay html` writes each page and
# headless chromium photographs it at a chosen step. Deterministic input
# (the golden logs, the pages); run by hand after a change to the viewer,
# and commit the images. Needs the built `replay` (tools/build.sh) and
# chromium (tools/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PYRAMID_BIN:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p docs/images

# GAME LOG STEP: the position each screenshot shows.
shots=(
  "rock_paper_pyramid classic 6"
  "pyramid_shambo three_seats 16"
  "flaming_pyramids four_seats_curse 77"
  "pyramid_scheme four_seats 48"
)
for shot in "${shots[@]}"; do
  read -r game log step <<<"$shot"
  "$bin/replay" html --key testdata/golden/referee.pub \
    --out "$work/$game.html" "testdata/golden/$game/$log.pyrlog" >/dev/null
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --disable-dev-shm-usage \
    --user-data-dir="$work/profile" --window-size=1150,1250 \
    --screenshot="docs/images/$game.png" "file://$work/$game.html#step=$step" \
    2>/dev/null >/dev/null
  echo "docs/images/$game.png: $log, step $step"
done
