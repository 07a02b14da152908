#include "replay/html_page.h"

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "referee/crypto/bytes.h"
#include "referee/games/picture.h"
#include "referee/games/printable_text.h"
#include "referee/games/registry.h"
#include "replay/match_steps.h"
#include "replay/pictures.h"
#include "replay/step_panel.h"
#include "replay/time_span.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr absl::string_view kStyle = R"css(
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{margin:0 0 .2em}h3{margin:.6em 0 .3em}
.verdict{font-size:1.4em;font-weight:bold;padding:.4em .6em;border-radius:4px}
.genuine{background:#dff3df;color:#185c18}.notgenuine{background:#fbe0e0;color:#9b1111}
.unpinned{background:#fff3d6;color:#6b4500;border:2px dashed #b07800}
.bad{color:#9b1111}
table{border-collapse:collapse;margin:.4em 0}
th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left;font-size:.9em}
th{background:#f2f2f2}
.controls{margin:.6em 0;display:flex;gap:.5em;align-items:center}
#slider{flex:1}
svg.board{max-width:100%;height:auto;border:1px solid #ccc;display:block;box-sizing:border-box}
.boardbox.full svg.board{max-width:none}
.fitbar{margin:.2em 0;font-size:.85em;color:#555}
#fit{font-size:1em}
svg text{font:13px sans-serif;fill:#222}
pre{background:#f7f7f7;padding:.4em;max-height:18em;overflow:auto;font-size:.85em}
.seen{font-size:.85em;color:#7a4b00}
.boardbox{overflow-x:auto;max-width:100%}
code{word-break:break-all}
.key,.nokey{font-size:.8em;padding:0 .4em;margin-left:.4em;border-radius:3px;white-space:nowrap}
.key{background:#dff3df;color:#185c18;border:1px solid #185c18}
.nokey{background:#f2f2f2;color:#555;border:1px dashed #999}
@media (max-width:700px){
body{margin:.5em}
table{display:block;overflow-x:auto;max-width:100%}
}
)css";

// The small script: draws step k from the page's data.
constexpr absl::string_view kScript = R"js(
(function(){
var D=JSON.parse(document.getElementById('match-data').textContent);
var P=document.getElementById('parts').content.firstElementChild.children;
var I=document.getElementById('panels').content.children;
var n=D.steps.length,cur=0;
var svg=document.getElementById('board'),info=document.getElementById('info');
var slider=document.getElementById('slider'),where=document.getElementById('where');
var box=svg.parentNode,fit=document.getElementById('fit'),note=document.getElementById('fitnote'),full=false;
function fitBox(){
 var w=+svg.getAttribute('width'),bw=box.clientWidth,over=w>bw+1;
 fit.hidden=!over;box.classList.toggle('full',full&&over);
 fit.textContent=full?'Fit to width':'Full size';
 fit.setAttribute('aria-pressed',full&&over?'true':'false');
 note.textContent=!over?'':full?' scroll the picture sideways \u21c6':' the picture is shown at '+Math.round(100*bw/w)+'% to fit';
}
fit.addEventListener('click',function(){
 full=!full;fitBox();
 if(full)box.scrollLeft=(box.scrollWidth-box.clientWidth)/2;
});
window.addEventListener('resize',fitBox);
function show(k){
 if(!n)return;
 k=Math.max(0,Math.min(n-1,k));cur=k;var s=D.steps[k];
 svg.setAttribute('viewBox','0 0 '+s[0]+' '+s[1]);
 svg.setAttribute('width',s[0]);svg.setAttribute('height',s[1]);fitBox();
 var f=document.createDocumentFragment();
 s[2].forEach(function(i){f.appendChild(P[i].cloneNode(true));});
 svg.replaceChildren(f);info.replaceChildren(I[k].cloneNode(true));
 svg.setAttribute('data-step',k);slider.value=k;
 where.textContent=n==1?'The only step':'Step '+k+' of '+(n-1)+(k==n-1?' (the end)':'');
 var h='#step='+k;
 if(location.hash!==h){try{history.replaceState(null,'',h);}catch(e){}}
}
function fromHash(){
 var m=/step=(\d+|last)/.exec(location.hash);
 show(!m?cur:m[1]==='last'?n-1:parseInt(m[1],10));
}
slider.addEventListener('input',function(){show(parseInt(slider.value,10));});
document.getElementById('prev').addEventListener('click',function(){show(cur-1);});
document.getElementById('next').addEventListener('click',function(){show(cur+1);});
document.addEventListener('keydown',function(e){
 if(e.altKey||e.ctrlKey||e.metaKey||e.shiftKey)return;
 if(e.target&&e.target.tagName==='INPUT'&&e.target!==slider)return;
 var k={ArrowLeft:cur-1,ArrowRight:cur+1,Home:0,End:n-1}[e.key];
 if(k!==undefined){e.preventDefault();show(k);}
});
window.addEventListener('hashchange',fromHash);
fromHash();
})();
)js";

// How the match ended, in words.
std::string TerminationText(v1::Termination termination) {
  switch (termination) {
    case v1::TERMINATION_NORMAL:
      return "normal end (the rules ended the game)";
    case v1::TERMINATION_MOVE_LIMIT:
      return "move limit (the game's move-limit option ended it)";
    case v1::TERMINATION_FORFEIT:
      return "forfeit (a seat forfeited)";
    case v1::TERMINATION_UNSPECIFIED:
      return "not stated";
    default:
      return absl::StrCat("unknown (", static_cast<int>(termination), ")");
  }
}

// What a fault costs under the log's forfeit policy, in words.
std::string ForfeitPolicyText(v1::ForfeitPolicy policy) {
  switch (policy) {
    case v1::FORFEIT_POLICY_UNSPECIFIED:
    case v1::FORFEIT_POLICY_FORFEIT:
      return "a fault forfeits the match";
    case v1::FORFEIT_POLICY_DEFAULT_ACTION:
      return "a fault gets the seat's default action";
    default:
      return absl::StrCat("unknown (", static_cast<int>(policy), ")");
  }
}

// A timeout in milliseconds, 0 being none.
std::string TimeoutText(uint32_t ms) {
  return ms == 0 ? std::string("no deadline") : absl::StrCat(ms, " ms");
}

// The outcome, shown once at the end of the page: each seat's rank, score
// and forfeit, and how the match ended.
std::string OutcomeSectionHtml(const v1::Header& header,
                               const v1::Outcome& outcome) {
  std::string out = absl::StrCat(
      "<table class=\"outcome\"><tr><th>Seat</th><th>Rank</th><th>Score</th>"
      "<th>Forfeited</th></tr>");
  for (int seat = 0; seat < outcome.seats_size(); ++seat) {
    const v1::SeatOutcome& s = outcome.seats(seat);
    absl::StrAppend(&out, "<tr><td>", SeatLabel(header, seat), "</td><td>",
                    s.rank(), "</td><td>", s.score(), "</td><td>",
                    s.forfeited() ? "yes" : "", "</td></tr>");
  }
  absl::StrAppend(&out, "</table>");
  // What the score counts, as the game's rules page says.
  if (const GameDescription* game = FindGame(header.game().game());
      game != nullptr && !game->score.empty()) {
    absl::StrAppend(
        &out, "<p id=\"score-meaning\">Score: ", SvgText(game->score), ".</p>");
  }
  absl::StrAppend(&out, "<p id=\"ended\">Ended: ",
                  TerminationText(outcome.termination()), ".</p>");
  return out;
}

std::string VerdictHtml(const Verdict& v) {
  switch (v.kind) {
    case Verdict::Kind::kGenuine:
      // Without a pinned key, the log is checked against the key its own
      // header names: anyone can sign a forged log with a key of their own
      // and pass. The badge itself says so, in its own colour.
      if (v.key_from_header) {
        return absl::StrCat(
            "<p class=\"verdict unpinned\" id=\"verdict\">GENUINE (key not "
            "pinned)</p><p class=\"unpinned-why\">Every check passed: ",
            v.records, " records, ", v.moves,
            " moves (every seat's) replayed under the rules; but signed by the "
            "referee key "
            "in the log itself, not one pinned with <code>--key</code>: anyone "
            "can sign a log of their own making with a "
            "key of their own. Compare the referee key (under \"The match\") "
            "with the one you trust, or make the page again with "
            "<code>--key</code>.</p>");
      }
      return absl::StrCat(
          "<p class=\"verdict genuine\" id=\"verdict\">GENUINE</p><p>Every "
          "check passed: ",
          v.records, " records, ", v.moves,
          " moves (every seat's) replayed under the rules; signed by the "
          "pinned referee "
          "key.</p>");
    case Verdict::Kind::kUnsealedPrefix:
      return absl::StrCat(
          "<p class=\"verdict notgenuine\" id=\"verdict\">NOT GENUINE "
          "(UNSEALED PREFIX)</p><p class=\"bad\">",
          SvgText(PrintableText(v.reason)),
          ". The records up to the last checkpoint verify, but the match has "
          "no sealed outcome.</p>");
    case Verdict::Kind::kNotGenuine:
      break;
  }
  return absl::StrCat(
      "<p class=\"verdict notgenuine\" id=\"verdict\">NOT GENUINE</p><p "
      "class=\"bad\" id=\"reason\">Record ",
      v.bad_record, ": ", SvgText(PrintableText(v.reason)), "</p>");
}

std::string MatchInfoHtml(const MatchSteps& match) {
  if (!match.has_header) return "<p>The log has no readable header.</p>";
  const v1::Header& h = match.header;
  const std::string options = OptionsText(h.game());
  std::string out = absl::StrCat(
      "<details><summary>The match: game, options, seats, clocks, referee "
      "key</summary><table><tr><th>Game</th><td>",
      SvgText(PrintableText(h.game().game())), " (rules v", h.rules_version(),
      "), options: ", options.empty() ? "defaults" : SvgText(options),
      "</td></tr><tr><th>Match</th><td><code>", ToHex(h.match_id()), "</code>",
      h.label().empty() ? ""
                        : absl::StrCat(" ", SvgText(QuotedText(h.label()))),
      ", created ", UtcTime(h.created_unix_ms()),
      "</td></tr><tr><th>Clocks</th><td>commit: ",
      TimeoutText(h.clocks().commit_timeout_ms()),
      ", reveal: ", TimeoutText(h.clocks().reveal_timeout_ms()), ", ",
      h.clocks().seed_timeout_ms() == 0
          ? ""
          : absl::StrCat("seed decision: ", h.clocks().seed_timeout_ms(),
                         " ms, "),
      h.clocks().time_bank_ms() == 0
          ? std::string("no time bank")
          : absl::StrCat("time bank ", h.clocks().time_bank_ms(), " ms (+",
                         h.clocks().time_bank_increment_ms(),
                         " ms a decision)"),
      "; forfeit policy: ", ForfeitPolicyText(h.forfeit_policy()),
      "</td></tr><tr><th>Referee key</th><td><code>",
      ToHex(h.referee_public_key()), "</code></td></tr>");
  // Every game seats at most 10; a log claiming more is cut short here.
  constexpr int kMaxSeatRows = 16;
  // A name is text (PrintableText, then SvgText); whether the seat signs
  // its commits is a badge after it, an element no name can make: a seat
  // named "alice (signs its commits)" still shows "no key".
  for (int seat = 0; seat < h.seats_size() && seat < kMaxSeatRows; ++seat) {
    absl::StrAppend(&out, "<tr><th>Seat ", seat, "</th><td>",
                    SvgText(PrintableText(h.seats(seat).name())),
                    h.seats(seat).public_key().empty()
                        ? "<span class=\"nokey\">no key</span>"
                        : "<span class=\"key\">signs its commits</span>",
                    "</td></tr>");
  }
  if (h.seats_size() > kMaxSeatRows) {
    absl::StrAppend(
        &out, "<tr><th>&hellip;</th><td>and ", h.seats_size() - kMaxSeatRows,
        h.seats_size() - kMaxSeatRows == 1 ? " more seat" : " more seats",
        "</td></tr>");
  }
  absl::StrAppend(&out, "</table></details>");
  return out;
}

// The steps as pictures and panels, each distinct part stored once.
struct PageData {
  std::deque<std::string> parts;    // A deque: the index keeps views of them.
  std::vector<std::string> panels;  // One per step.
  std::string steps_json;           // [[width, height, [part, ...]], ...].
  std::string first_svg;            // Step 0, drawn into the page itself.
  int first_width = 0, first_height = 0;
};

PageData BuildData(const MatchSteps& match, const Verdict& verdict) {
  PageData data;
  const GamePicture* picture = PictureFor(match.header.game().game());
  // (std::hash: pyramid_html links no Abseil hash library.)
  std::unordered_map<std::string_view, int> part_index;
  TimeBanks banks(match.header);
  const size_t count = match.steps.size();
  std::string steps_json = "[";
  for (size_t k = 0; k < count; ++k) {
    const MatchStep& step = match.steps[k];
    Picture drawn;
    if (!step.has_position) {
      // A forfeit in the seed decision: the match never started.
      drawn.width = 600;
      drawn.height = 40;
      drawn.parts.push_back(
          "<text x=\"10\" y=\"24\">No position: the match ended by "
          "forfeit in its seed decision, before it started.</text>");
    } else if (picture != nullptr) {
      const Moment moment{&match.header, &step.view, &step.seat_views,
                          step.kind == MatchStep::Kind::kMove
                              ? &step.applied.result()
                              : nullptr};
      drawn = picture->draw(moment);
    } else {
      drawn.width = 600;
      drawn.height = 40;
      drawn.parts.push_back(
          absl::StrCat("<text x=\"10\" y=\"24\">No picture for the game ",
                       SvgText(match.header.game().game()), "</text>"));
    }
    if (k == 0) {
      data.first_width = drawn.width;
      data.first_height = drawn.height;
      data.first_svg = absl::StrJoin(drawn.parts, "");
    }
    absl::StrAppend(&steps_json, k == 0 ? "[" : ",\n[", drawn.width, ",",
                    drawn.height, ",[");
    for (size_t i = 0; i < drawn.parts.size(); ++i) {
      auto it = part_index.find(drawn.parts[i]);
      if (it == part_index.end()) {
        data.parts.push_back(std::move(drawn.parts[i]));
        it = part_index
                 .emplace(data.parts.back(),
                          static_cast<int>(data.parts.size() - 1))
                 .first;
      }
      absl::StrAppend(&steps_json, i == 0 ? "" : ",", it->second);
    }
    absl::StrAppend(&steps_json, "]]");
    std::string panel = StepPanelHtml(match.header, step, k, count,
                                      banks.Charge(step.decision));
    if (verdict.kind == Verdict::Kind::kNotGenuine &&
        verdict.signature_failed) {
      // The signature that fails is the one that vouches for every record
      // before it: no step is the referee's.
      absl::StrAppend(&panel,
                      "<p class=\"bad\">The referee's signature over the "
                      "log (record ",
                      verdict.bad_record,
                      ") does not verify: this step is not verified.</p>");
    } else if (verdict.kind == Verdict::Kind::kNotGenuine &&
               step.record >= verdict.bad_record) {
      absl::StrAppend(&panel,
                      "<p class=\"bad\">This step is at or after "
                      "the record where verification failed: it is "
                      "not verified.</p>");
    } else if (verdict.kind == Verdict::Kind::kUnsealedPrefix &&
               step.record > verdict.signed_records) {
      // The prefix verifies up to its last checkpoint (the record at index
      // signed_records); what follows it is signed by nothing.
      absl::StrAppend(&panel,
                      "<p class=\"bad\">This step is after the log's last "
                      "signed checkpoint (record ",
                      verdict.signed_records, "): it is not verified.</p>");
    }
    if (k + 1 == count && match.outcome.has_value()) {
      // The ranks and scores close the page (#outcome), shown once.
      absl::StrAppend(&panel, "<h3>The end</h3><p>The match ended here: ",
                      TerminationText(match.outcome->termination()),
                      ". Ranks and scores: <a href=\"#outcome\">Outcome</a>, "
                      "below.</p>");
    }
    data.panels.push_back(std::move(panel));
  }
  absl::StrAppend(&steps_json, "]");
  data.steps_json = std::move(steps_json);
  return data;
}

}  // namespace

namespace {

// Whether `part` is one element with no content, such as <use .../>.
bool IsOneEmptyElement(std::string_view part) {
  return part.size() > 3 && part.front() == '<' && part[1] != '/' &&
         part.ends_with("/>") && part.find('<', 1) == std::string_view::npos;
}

// Every distinct picture part, in a template (inert until the script
// copies it into the picture), each in a <g> unless it is one empty
// element; then every step's panel; then the steps and the script.
void AppendStepData(const PageData& data, std::string& out) {
  absl::StrAppend(&out,
                  "<template id=\"parts\"><svg "
                  "xmlns=\"http://www.w3.org/2000/svg\">");
  for (const std::string& part : data.parts) {
    // The script copies one child of the template per part: a part that is
    // one empty element (a <use>, most of them) needs no <g> around it.
    if (IsOneEmptyElement(part)) {
      absl::StrAppend(&out, part, "\n");
    } else {
      absl::StrAppend(&out, "<g>", part, "</g>\n");
    }
  }
  absl::StrAppend(&out, "</svg></template>\n<template id=\"panels\">");
  for (const std::string& panel : data.panels) {
    absl::StrAppend(&out, "<div>", panel, "</div>\n");
  }
  absl::StrAppend(&out,
                  "</template>\n<script type=\"application/json\" "
                  "id=\"match-data\">{\"steps\":",
                  data.steps_json, "}</script>\n<script>", kScript,
                  "</script>\n</body>\n</html>\n");
}

}  // namespace

MatchPage RenderMatchPage(std::string_view file, const VerifyOptions& options) {
  return RenderMatchPage(file, 0, options);
}

MatchPage RenderMatchPage(std::string_view file, uint64_t file_size,
                          const VerifyOptions& options) {
  MatchPage page;
  const MatchSteps match = VerifyAndReadMatchSteps(
      file, file_size, options, page.verdict, [](const v1::Header& header) {
        const GamePicture* picture = PictureFor(header.game().game());
        return picture == nullptr || picture->seat_views;
      });
  page.steps = match.steps.size();
  const std::string game =
      match.has_header ? SvgText(PrintableText(match.header.game().game()))
                       : "unknown game";
  // The game's title ("Flaming Pyramids") for people; its id for a game
  // this build does not know.
  const GameDescription* known = FindGame(match.header.game().game());
  const std::string title =
      match.has_header && known != nullptr ? SvgText(known->title) : game;
  const GamePicture* picture = PictureFor(match.header.game().game());
  const PageData data = BuildData(match, page.verdict);
  std::string& out = page.html;
  size_t size = 8192 + data.steps_json.size() + data.first_svg.size();
  for (const std::string& part : data.parts) size += part.size() + 8;
  for (const std::string& panel : data.panels) size += panel.size() + 12;
  out.reserve(size);
  absl::StrAppend(&out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n",
                  "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
                  "content=\"width=device-width, initial-scale=1\">\n"
                  "<title>Match viewer: ",
                  title, "</title>\n<style>", kStyle,
                  picture != nullptr ? std::string(picture->css) : "",
                  "\n</style>\n", "</head>\n<body data-steps=\"", page.steps,
                  "\">\n<h1>", title, " match</h1>\n",
                  VerdictHtml(page.verdict), "\n", MatchInfoHtml(match), "\n");
  if (!match.stopped.empty()) {
    absl::StrAppend(&out,
                    "<p class=\"bad\" id=\"stopped\">The viewer read "
                    "the log up to record ",
                    match.stopped_at, " and stopped there: ",
                    SvgText(PrintableText(match.stopped)), ".</p>\n");
  }
  absl::StrAppend(
      &out, "<h2>The match, step by step</h2>\n<p><span id=\"steps\">",
      page.steps, "</span> ", page.steps == 1 ? "step" : "steps",
      match.steps.empty() || match.steps.front().has_position
          ? " (the start, then one per decision or automatic move: the "
            "moves of all the seats a decision asks are one step)"
          : " (the match ended by forfeit in its seed decision, before it "
            "started: there is no position to draw)",
      page.steps > 1 ? " &middot; arrow keys, Home and End move through them."
                     : "",
      "</p>\n<p class=\"seen\">",
      match.outcome.has_value()
          ? "The match is over, so everything in its log is public and shown "
            "here. "
          : "The log holds no outcome: the match had not ended (or broke) "
            "where it stops, and what it holds was not public then. While a "
            "match runs, the referee shows watchers only its decisions, which "
            "seat committed (never what), faults and the public view after "
            "each move; never a hand, a salt, the seed or a reveal before the "
            "end. This page shows everything the log holds. ",
      "Each picture is the position as it stood; "
      "what only one seat could see then is marked \"seen by seat N only\", "
      "what no seat could see \"seen by nobody\".</p>\n",
      "<div class=\"controls\"><button id=\"prev\" title=\"previous "
      "(&larr;)\">&#9664;</button><input type=\"range\" id=\"slider\" "
      "min=\"0\" max=\"",
      page.steps == 0 ? 0 : page.steps - 1,
      "\" value=\"0\" aria-label=\"step\"><button id=\"next\" title=\"next "
      "(&rarr;)\">&#9654;</button><span id=\"where\">",
      page.steps == 0 ? "No step could be read" : "Step 0", "</span></div>\n",
      picture != nullptr && picture->defs != nullptr
          ? absl::StrCat("<svg id=\"defs\" width=\"0\" height=\"0\" "
                         "aria-hidden=\"true\" style=\"position:absolute\" "
                         "xmlns=\"http://www.w3.org/2000/svg\"><defs>",
                         picture->defs(), "</defs></svg>\n")
          : "",
      // A picture wider than its box is scaled to fit it (CSS); the script
      // shows a button to see it at full size, scrolling in its box.
      "<div class=\"fitbar\"><button id=\"fit\" type=\"button\" hidden "
      "aria-pressed=\"false\">Full size</button><span "
      "id=\"fitnote\"></span></div>\n<div class=\"boardbox\"><svg id=\"board\" "
      "class=\"board\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
      "aria-label=\"the position at this step\" data-game=\"",
      game, "\" data-step=\"0\" width=\"", data.first_width, "\" height=\"",
      data.first_height, "\" viewBox=\"0 0 ", data.first_width, " ",
      data.first_height, "\">", data.first_svg,
      "</svg></div>\n<div id=\"info\">",
      data.panels.empty() ? "" : data.panels.front(),
      "</div>\n<h2 id=\"outcome\">Outcome</h2>\n",
      page.verdict.kind == Verdict::Kind::kGenuine || !match.outcome.has_value()
          ? ""
          : "<p class=\"bad\">As the log states it: not verified.</p>",
      match.outcome.has_value()
          ? OutcomeSectionHtml(match.header, *match.outcome)
          : "<p class=\"bad\">The log holds no outcome.</p>",
      "\n");
  AppendStepData(data, out);
  return page;
}

}  // namespace pyramid
