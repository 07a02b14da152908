#!/usr/bin/env bash
# The match viewer in a real browser (issue 15): Debian's chromium, headless,
# loads the `replay html` page of every golden log of testdata/golden/ at its
# first step (#step=0) and its last (#step=last) and prints the DOM the
# page's script built (--dump-dom). Each must show the verdict GENUINE, the
# step count (counted here from the log's records: the start, one per
# Applied record, one more for a decision that ended in a forfeit), and an
# SVG at that step holding the game's board. One screenshot per game goes
# to the output directory. A golden log with one byte flipped must give a
# page that says NOT GENUINE with the record, and `replay html` exit 1.
# Last, the demo's Rock, Paper, Pyramid! tournament: its report must link
# every match to its viewer page, and the first link must open a genuine
# match drawn at its last step. A Flaming Pyramids page at 390 and 1280 px
# wide: no sideways scrolling of the page, the picture scaled to fit the
# phone with a Full size button that shows it whole in its scrolling box,
# and the tile waiting to fall not filled black. And a report of 120
# matches: its HTML holds the first 100, its script shows match 119 on
# page 2 (#match-119), each seat's bot with its rank. The report at 390 px:
# no sideways scrolling, the rating chart no narrower than its minimum,
# no bot's name broken across lines.
#
# Installs chromium (apt) when it is missing. PYRAMID_BIN: the binaries
# (default build/bin); BROWSER_TEST_OUT: where pages and screenshots go
# (default PYRAMID_BIN/../browser-test).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${PYRAMID_BIN:-build/bin}")
out=${BROWSER_TEST_OUT:-$bin/../browser-test}
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
start=$SECONDS

if ! command -v chromium >/dev/null; then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "browser_test: installing chromium"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends chromium >/dev/null
fi

# browser PROFILE_DIR ARGS...: headless chromium, its own profile (so that
# several can run at once), no noise on stderr.
browser() {
  local profile=$1
  shift
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --disable-dev-shm-usage \
    --user-data-dir="$profile" "$@" 2>/dev/null
}

# fail MESSAGE: reports and marks the run failed.
fail() {
  echo "browser_test: FAIL: $*" >&2
  touch "$out/FAILED"
  return 1
}

# check LOG: its page at the first and the last step.
check() {
  local log=$1
  local game name page expected last
  game=$(basename "$(dirname "$log")")
  name="$game-$(basename "$log" .pyrlog)"
  page="$out/$name.html"
  "$bin/replay" html --key testdata/golden/referee.pub --out "$page" "$log" \
    >/dev/null || { fail "$log: replay html exits $?"; return 1; }
  local json applied forfeit
  json=$("$bin/replay" export --json "$log")
  applied=$(grep -c '"applied":' <<<"$json" || true)
  forfeit=$(grep -c '"FAULT_FORFEIT"' <<<"$json" || true)
  expected=$((1 + applied + (forfeit > 0 ? 1 : 0)))
  last=$((expected - 1))
  local step dom
  for step in 0 last; do
    dom=$(browser "$out/profile-$name" --dump-dom "file://$page#step=$step") ||
      { fail "$name: chromium failed at #step=$step"; return 1; }
    local want_step=$step
    if [[ $step == last ]]; then want_step=$last; fi
    grep -q 'id="verdict">GENUINE<' <<<"$dom" ||
      { fail "$name#step=$step: no GENUINE verdict"; return 1; }
    grep -q "<span id=\"steps\">$expected</span>" <<<"$dom" ||
      { fail "$name#step=$step: not $expected steps"; return 1; }
    grep -q "<svg id=\"board\"[^>]*data-step=\"$want_step\"" <<<"$dom" ||
      { fail "$name#step=$step: the picture is not at step $want_step"; return 1; }
    # The picture shown: the <svg id="board"> element, drawn by the script
    # from the page's parts for this step.
    local shown
    shown=$(perl -0ne 'print $1 if /(<svg id="board".*?<\/svg>)/s' <<<"$dom")
    grep -q "^<svg id=\"board\"[^>]*data-game=\"$game\"" <<<"$shown" ||
      { fail "$name#step=$step: no picture"; return 1; }
    grep -q "<g class=\"board-$game\">" <<<"$shown" ||
      { fail "$name#step=$step: the picture has no $game board"; return 1; }
    grep -q "id=\"where\">Step $want_step of $last" <<<"$dom" ||
      { fail "$name#step=$step: the panel is not at step $want_step"; return 1; }
  done
  rm -rf "$out/profile-$name"
  echo "browser_test: $name: $expected steps, first and last step drawn"
}
export -f check browser fail
export bin out

find testdata/golden -name '*.pyrlog' | sort >"$out/logs"
count=$(wc -l <"$out/logs")
xargs -P 3 -I{} bash -c 'check "$1"' _ {} <"$out/logs" || true
[[ ! -e $out/FAILED ]] || exit 1

# One screenshot per game: the last step of its first golden log.
for game in rock_paper_pyramid pyramid_shambo flaming_pyramids pyramid_scheme; do
  page=$(ls "$out/$game"-*.html | head -n 1)
  browser "$out/profile-shot" --window-size=1150,1300 \
    --screenshot="$out/$game.png" "file://$page#step=last" >/dev/null
  [[ -s $out/$game.png ]] || { echo "browser_test: FAIL: no screenshot of $game" >&2; exit 1; }
done

# Layout, measured by a script added to a copy of a Flaming Pyramids page at
# step 2 (a tile waiting to fall), shown in a frame 390 px wide (a phone;
# headless chromium's window is never narrower than 500 px) and 1280 px:
# the page itself never scrolls sideways (a wide table or picture scrolls in
# its own box), and the tile waiting to fall is outlined, not filled black
# (its rule selects its rect). At 390 px the picture, wider than the
# screen, is scaled to fit it, with a visible "Full size" button; pressed,
# the picture is at its full size, scrolled in its box to its middle, and
# the page still does not scroll sideways. At 1280 px it fits: no button.
# Alt+→ (the browser's own) leaves the step, → alone moves on (at 390 px
# after the button was pressed). The frame posts what it measured to the
# page around it.
measure='<script>addEventListener("load",function(){
var b=document.getElementById("board"),f=document.querySelector("#board .fp-falling");
var fit=document.getElementById("fit"),box=b.parentNode;
var w=function(){return Math.round(b.getBoundingClientRect().width);};
var ow=function(){return document.documentElement.scrollWidth>innerWidth?1:0;};
var s="overflow="+ow()+" board="+w()+"/"+b.getAttribute("width")+"/"+innerWidth+
" fit="+(fit.hidden?"hidden":fit.getBoundingClientRect().width>0?"shown":"invisible");
if(!fit.hidden){fit.click();s+=" full="+w()+"/"+(box.scrollLeft>0?"centred":"left")+
"/"+ow();}else{s+=" full=none";}
parent.postMessage(s+" falling="+(f?getComputedStyle(f).fill:"absent")+" keys="+keys(b)+" end","*");});
function keys(b){var k=function(alt){document.body.dispatchEvent(new KeyboardEvent(
"keydown",{key:"ArrowRight",altKey:alt,bubbles:true}));return b.getAttribute("data-step");};
var alt=k(true),plain=k(false);return alt=="2"&&plain=="3"?"ok":"alt:"+alt+",plain:"+plain;}
</script>'
MEASURE=$measure perl -0pe 's{</body>}{$ENV{MEASURE}</body>}' \
  "$out/flaming_pyramids-two_seats.html" >"$out/measure.html"
for width in 390 1280; do
  cat >"$out/frame-$width.html" <<EOF
<!DOCTYPE html><html><body style="margin:0"><pre id="measure"></pre><iframe
src="measure.html#step=2" width="$width" height="1800" style="border:0"></iframe>
<script>addEventListener("message",function(e){
document.getElementById("measure").textContent=e.data;});</script></body></html>
EOF
  dom=$(browser "$out/profile-shot" --window-size=$((width + 120)),1900 \
    --virtual-time-budget=5000 --dump-dom "file://$out/frame-$width.html")
  read -r overflow board fit full falling keys < <(grep -o 'id="measure">[^<]*' <<<"$dom" |
    sed 's/.*overflow=\([0-9]*\) board=\([0-9/]*\) fit=\([a-z]*\) full=\([^ ]*\) falling=\(.*\) keys=\(.*\) end/\1 \2 \3 \4 \5 \6/')
  if [[ $overflow != 0 ]]; then
    echo "browser_test: FAIL: at $width px the page scrolls sideways" >&2
    exit 1
  fi
  IFS=/ read -r shown natural viewport <<<"$board"
  if [[ -z $viewport || $shown -gt $viewport ]]; then
    echo "browser_test: FAIL: at $width px the picture is $board px (shown/natural/window), wider than the window" >&2
    exit 1
  fi
  if [[ $width == 390 ]]; then
    if [[ $natural -le $viewport || $fit != shown ]]; then
      echo "browser_test: FAIL: at 390 px a picture of $natural px shows no Full size button ($fit)" >&2
      exit 1
    fi
    if [[ $full != "$natural/centred/0" ]]; then
      echo "browser_test: FAIL: at 390 px, Full size gives $full (width/scroll/page overflow), not $natural/centred/0" >&2
      exit 1
    fi
  elif [[ $fit != hidden || $shown != "$natural" ]]; then
    echo "browser_test: FAIL: at $width px the picture is $board px, button $fit: not at full size without a button" >&2
    exit 1
  fi
  if [[ $falling != none ]]; then
    echo "browser_test: FAIL: the tile waiting to fall is filled $falling" >&2
    exit 1
  fi
  if [[ $keys != ok ]]; then
    echo "browser_test: FAIL: Alt+ArrowRight, then ArrowRight, from step 2: $keys" >&2
    exit 1
  fi
  browser "$out/profile-shot" --window-size=$((width + 120)),1900 \
    --virtual-time-budget=5000 --screenshot="$out/width-$width.png" \
    "file://$out/frame-$width.html" >/dev/null
done

# A golden log with one byte flipped in the middle of a record.
tampered="$out/tampered.pyrlog"
cp testdata/golden/rock_paper_pyramid/classic.pyrlog "$tampered"
size=$(stat -c %s "$tampered")
offset=$((size / 2))
byte=$(od -An -tu1 -j "$offset" -N1 "$tampered" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 1)))" |
  dd of="$tampered" bs=1 seek="$offset" conv=notrunc status=none
status=0
"$bin/replay" html --key testdata/golden/referee.pub --out "$out/tampered.html" \
  "$tampered" >/dev/null || status=$?
if [[ $status != 1 ]]; then
  echo "browser_test: FAIL: replay html on a tampered log exits $status, not 1" >&2
  exit 1
fi
dom=$(browser "$out/profile-shot" --dump-dom "file://$out/tampered.html")
grep -q 'id="verdict">NOT GENUINE<' <<<"$dom" ||
  { echo "browser_test: FAIL: the tampered log's page does not say NOT GENUINE" >&2; exit 1; }
grep -q 'id="reason">Record [0-9]*: ' <<<"$dom" ||
  { echo "browser_test: FAIL: the tampered log's page names no record" >&2; exit 1; }
browser "$out/profile-shot" --window-size=1150,700 \
  --screenshot="$out/tampered.png" "file://$out/tampered.html" >/dev/null

# A tournament (the demo's, embedded referee): its report links every match
# to its viewer page, which opens on the match's last step, genuine.
"$bin/tournament" tools/demo/rock_paper_pyramid.txt \
  --output_dir="$out/tournament" >/dev/null ||
  { echo "browser_test: FAIL: the demo tournament failed" >&2; exit 1; }
logs=$(ls "$out"/tournament/logs/*.pyrlog | wc -l)
links=$(grep -o 'href="matches/[^"]*\.html"' "$out/tournament/report.html" |
  sort -u | wc -l)
if [[ $links != "$logs" || $logs == 0 ]]; then
  echo "browser_test: FAIL: the report links $links viewer pages for $logs logs" >&2
  exit 1
fi
link=$(grep -o 'href="matches/[^"]*\.html"' "$out/tournament/report.html" |
  head -n 1 | cut -d'"' -f2)
dom=$(browser "$out/profile-shot" --dump-dom "file://$out/tournament/$link#step=last")
grep -q 'id="verdict">GENUINE<' <<<"$dom" &&
  grep -q 'signed by the pinned referee key' <<<"$dom" &&
  perl -0ne 'print $1 if /(<svg id="board".*?<\/svg>)/s' <<<"$dom" |
  grep -q '<g class="board-rock_paper_pyramid">' ||
  { echo "browser_test: FAIL: the report's link $link does not open a genuine match" >&2; exit 1; }
# The report on a phone: in a frame 390 px wide, the page does not scroll
# sideways, the rating chart is no narrower than its minimum (420 px, its
# text readable) and scrolls in its own box, and no bot's name is broken
# across lines (each name in the standings is one line high).
rmeasure='<script>addEventListener("load",function(){
var c=document.querySelector(".chart svg"),names=document.querySelectorAll("td.name .bot"),broken=0;
Array.prototype.forEach.call(names,function(n){if(n.getClientRects().length>1)broken++;});
parent.postMessage("overflow="+(document.documentElement.scrollWidth>innerWidth?1:0)+
" chart="+Math.round(c.getBoundingClientRect().width)+" names="+names.length+" broken="+broken+" end","*");});
</script>'
RMEASURE=$rmeasure perl -0pe 's{</body>}{$ENV{RMEASURE}</body>}' \
  "$out/tournament/report.html" >"$out/tournament/measure.html"
cat >"$out/tournament/frame-390.html" <<EOF
<!DOCTYPE html><html><body style="margin:0"><pre id="measure"></pre><iframe
src="measure.html" width="390" height="1800" style="border:0"></iframe>
<script>addEventListener("message",function(e){
document.getElementById("measure").textContent=e.data;});</script></body></html>
EOF
dom=$(browser "$out/profile-shot" --window-size=510,1900 \
  --virtual-time-budget=5000 --dump-dom "file://$out/tournament/frame-390.html")
read -r overflow chart names broken < <(grep -o 'id="measure">[^<]*' <<<"$dom" |
  sed 's/.*overflow=\([0-9]*\) chart=\([0-9]*\) names=\([0-9]*\) broken=\([0-9]*\) end/\1 \2 \3 \4/')
if [[ $overflow != 0 || -z $chart || $chart -lt 420 || -z $names || $names == 0 || $broken != 0 ]]; then
  echo "browser_test: FAIL: the report at 390 px: page overflow $overflow, chart ${chart:-?} px (at least 420), ${broken:-?} of ${names:-?} names broken" >&2
  exit 1
fi
# A report of more matches than a page (100) holds: its HTML has the first
# page, and its script makes the others from the match data; "#match-N"
# opens match N's page, with the match's row linked to its viewer page.
"$bin/tournament" tools/demo/rock_paper_pyramid.txt --rounds=10 \
  --output_dir="$out/paged" >/dev/null ||
  { echo "browser_test: FAIL: the 120-match tournament failed" >&2; exit 1; }
grep -q '<tr id="match-99">' "$out/paged/report.html" &&
  ! grep -q '<tr id="match-119">' "$out/paged/report.html" ||
  { echo "browser_test: FAIL: the report's HTML does not hold the first page alone" >&2; exit 1; }
dom=$(browser "$out/profile-shot" --dump-dom "file://$out/paged/report.html#match-119")
grep -q '<tr id="match-119"><td>119</td><td class="name"><a href="matches/[^"]*\.html"><code>' <<<"$dom" &&
  grep -q '<tr id="match-119">.*<td class="name"><div class="seat"><a href="#bot-[0-9]*" class="bot">[^<]*</a> <span class="rank">rank [0-9]*</span></div><div class="seat">' <<<"$dom" &&
  grep -q 'Page 2 of 2 (120 rows)' <<<"$dom" &&
  ! grep -q '<tr id="match-0">' <<<"$dom" ||
  { echo "browser_test: FAIL: the report's script does not show match 119 on page 2 of 2" >&2; exit 1; }
rm -rf "$out/profile-shot"
echo "browser_test: $count golden logs, a tampered one, a tournament's $links viewer links and a paged report in $((SECONDS - start)) s; pages and screenshots in $out"
