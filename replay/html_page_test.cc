// The match viewer page (replay/html_page.h) on every golden log of
// testdata/golden/: the verdict, the step count (the start, one step per
// Applied record, and one for a decision that ended in a forfeit), each
// game's board at the first and the last step, same bytes every time, the
// 1 MiB bound on the four-seat Pyramid Scheme page; a tampered log says NOT
// GENUINE with its record; strings from the log are escaped; the steps read
// with the verifier's positions are the ones the viewer's own replay reads.
#include "replay/html_page.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/games/picture.h"
#include "referee/games/registry.h"
#include "replay/match_steps.h"
#include "replay/pictures.h"
#include "replay/step_panel.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Goldens() {
  std::vector<std::string> logs;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator("testdata/golden")) {
    if (entry.path().extension() == ".pyrlog") {
      logs.push_back(entry.path().string());
    }
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> file = ReadFileToString(path);
  EXPECT_TRUE(file.ok()) << path;
  return file.ok() ? *file : "";
}

std::vector<v1::LogRecord> Records(std::string_view file) {
  std::vector<v1::LogRecord> records;
  for (const RawRecord& raw : SplitLog(file).records) {
    records.emplace_back().ParseFromArray(raw.bytes.data(),
                                          static_cast<int>(raw.bytes.size()));
  }
  return records;
}

// The steps the page must show, counted from the records directly.
size_t ExpectedSteps(std::string_view file) {
  size_t steps = 1;  // The start.
  bool forfeit = false;
  for (const v1::LogRecord& r : Records(file)) {
    if (r.has_applied()) ++steps;
    if (r.has_fault() && r.fault().consequence() == v1::FAULT_FORFEIT) {
      forfeit = true;
    }
  }
  return steps + (forfeit ? 1 : 0);
}

// The log with its records replaced by `records` (stored as given).
std::string Reframe(const std::vector<v1::LogRecord>& records) {
  std::string out(log_format::kMagic);
  for (const v1::LogRecord& r : records) {
    std::string bytes = r.SerializeAsString();
    uint64_t n = bytes.size();
    while (n >= 0x80) {
      out += static_cast<char>(0x80 | (n & 0x7f));
      n >>= 7;
    }
    out += static_cast<char>(n);
    out += bytes;
  }
  return out;
}

// Occurrences of `needle` in `haystack`.
size_t Count(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(HtmlPageTest, EveryGoldenLogIsGenuineWithEveryStep) {
  const std::vector<std::string> logs = Goldens();
  ASSERT_GE(logs.size(), 18u);
  for (const std::string& path : logs) {
    SCOPED_TRACE(path);
    const std::string file = Read(path);
    const MatchPage page = RenderMatchPage(file, VerifyOptions());
    EXPECT_EQ(page.verdict.kind, Verdict::Kind::kGenuine);
    EXPECT_THAT(page.html, HasSubstr(">GENUINE (key not pinned)</p>"));
    EXPECT_THAT(page.html, Not(HasSubstr("NOT GENUINE")));
    EXPECT_EQ(page.steps, ExpectedSteps(file));
    EXPECT_THAT(page.html, HasSubstr(absl::StrCat("<span id=\"steps\">",
                                                  page.steps, "</span>")));
    EXPECT_THAT(page.html, Not(HasSubstr("id=\"stopped\"")));
    EXPECT_THAT(page.html, HasSubstr("The match is over"));
    EXPECT_THAT(page.html, HasSubstr("<meta name=\"viewport\""));
    const std::string game = page.verdict.header.game().game();
    // The board is drawn into the page at step 0, and is the first part of
    // every step's picture in the data.
    EXPECT_THAT(page.html,
                HasSubstr(absl::StrCat("<g class=\"board-", game, "\">")));
    EXPECT_THAT(page.html, HasSubstr("<h3>The end</h3>"));
    // What the score counts, from the game's description.
    EXPECT_THAT(page.html, HasSubstr(absl::StrCat(
                               "<p id=\"score-meaning\">Score: ",
                               std::string(FindGame(game)->score), ".</p>")));
    EXPECT_FALSE(FindGame(game)->score.empty());
    // Titled with the game's name, not its id.
    EXPECT_THAT(page.html, HasSubstr(absl::StrCat(
                               "<h1>", std::string(FindGame(game)->title),
                               " match</h1>")));
    // Deterministic.
    EXPECT_EQ(RenderMatchPage(file, VerifyOptions()).html, page.html);
  }
}

// A page made without a pinned key checks the log against the key in its
// own header, which anyone can sign a forged log with: its badge says so
// and is not the green one a pinned key earns.
TEST(HtmlPageTest, AnUnpinnedKeyGivesADifferentBadge) {
  const std::string file =
      Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const MatchPage unpinned = RenderMatchPage(file, VerifyOptions());
  ASSERT_EQ(unpinned.verdict.kind, Verdict::Kind::kGenuine);
  EXPECT_THAT(unpinned.html,
              HasSubstr("<p class=\"verdict unpinned\" id=\"verdict\">"
                        "GENUINE (key not pinned)</p>"));
  EXPECT_THAT(unpinned.html, Not(HasSubstr("verdict genuine")));
  EXPECT_THAT(unpinned.html, Not(HasSubstr(">GENUINE</p>")));
  EXPECT_THAT(unpinned.html, HasSubstr(".unpinned{"));

  VerifyOptions pinned_options;
  pinned_options.pinned_key = unpinned.verdict.header.referee_public_key();
  const MatchPage pinned = RenderMatchPage(file, pinned_options);
  ASSERT_EQ(pinned.verdict.kind, Verdict::Kind::kGenuine);
  EXPECT_THAT(pinned.html,
              HasSubstr("<p class=\"verdict genuine\" id=\"verdict\">"
                        "GENUINE</p>"));
  EXPECT_THAT(pinned.html, HasSubstr("signed by the pinned referee key"));
  EXPECT_THAT(pinned.html, Not(HasSubstr("key not pinned")));
}

// The ranks and scores are shown once, at the end of the page (the last
// step's panel points there), enums and a 0 meaning "none" are words, and
// a step is not called a move.
TEST(HtmlPageTest, TheOutcomeIsShownOnceInWords) {
  for (const std::string& path : Goldens()) {
    SCOPED_TRACE(path);
    const std::string file = Read(path);
    const MatchPage page = RenderMatchPage(file, VerifyOptions());
    EXPECT_EQ(Count(page.html, "<table class=\"outcome\">"), 1u);
    EXPECT_THAT(page.html, Not(HasSubstr("TERMINATION_")));
    EXPECT_THAT(page.html, Not(HasSubstr("FORFEIT_POLICY_")));
    EXPECT_THAT(page.html, HasSubstr("<p id=\"ended\">Ended: "));
    EXPECT_THAT(page.html, HasSubstr("<h2 id=\"outcome\">Outcome</h2>"));
    EXPECT_THAT(page.html, HasSubstr("<a href=\"#outcome\">Outcome</a>"));
    EXPECT_THAT(page.html, Not(HasSubstr(" 0 ms,")));
    EXPECT_THAT(page.html, HasSubstr("move through them"));
    // Steps are decisions; moves (the verdict's count) are every seat's.
    EXPECT_THAT(page.html, HasSubstr("the start, then one per decision or "
                                     "automatic move"));
    EXPECT_THAT(page.html, HasSubstr(" moves (every seat's) replayed"));
  }
  // A match with no deadlines and no bank, ended by the rules.
  std::vector<v1::LogRecord> records =
      Records(Read("testdata/golden/rock_paper_pyramid/classic.pyrlog"));
  v1::ClockSettings* clocks = records[0].mutable_header()->mutable_clocks();
  clocks->set_commit_timeout_ms(0);
  clocks->set_reveal_timeout_ms(0);
  clocks->set_time_bank_ms(0);
  const std::string html =
      RenderMatchPage(Reframe(records), VerifyOptions()).html;
  EXPECT_THAT(html, HasSubstr("commit: no deadline, reveal: no deadline, "));
  EXPECT_THAT(html, HasSubstr("no time bank; forfeit policy: a fault"));
  EXPECT_THAT(html, Not(HasSubstr("commit 0 ms")));
  EXPECT_THAT(html, HasSubstr("The match ended here: normal end"));
}

TEST(HtmlPageTest, EveryStepOfEveryGoldenDrawsTheBoard) {
  for (const std::string& path : Goldens()) {
    SCOPED_TRACE(path);
    const std::string file = Read(path);
    const MatchSteps match = ReadMatchSteps(file);
    EXPECT_TRUE(match.stopped.empty()) << match.stopped;
    const GamePicture* picture = PictureFor(match.header.game().game());
    ASSERT_NE(picture, nullptr);
    for (const MatchStep& step : match.steps) {
      const Moment moment{&match.header, &step.view, &step.seat_views,
                          step.kind == MatchStep::Kind::kMove
                              ? &step.applied.result()
                              : nullptr};
      const Picture drawn = picture->draw(moment);
      ASSERT_FALSE(drawn.parts.empty());
      EXPECT_THAT(drawn.parts[0],
                  HasSubstr(absl::StrCat("<g class=\"board-",
                                         match.header.game().game(), "\">")));
      EXPECT_GT(drawn.width, 0);
      EXPECT_GT(drawn.height, 0);
    }
  }
}

// Everything ReadMatchSteps reads, as bytes.
std::string Describe(const MatchSteps& match) {
  std::string out = absl::StrCat(
      match.has_header, match.header.SerializeAsString(), match.stopped, "@",
      match.stopped_at, "|",
      match.outcome.has_value() ? match.outcome->SerializeAsString()
                                : "no outcome");
  for (const MatchStep& step : match.steps) {
    absl::StrAppend(&out, "|", static_cast<int>(step.kind), ",", step.record,
                    ",", step.decision.opened, step.decision.first_record,
                    step.decision.decision.SerializeAsString(),
                    step.decision.commits.size(), step.decision.reveals.size(),
                    step.decision.faults.size(), step.decision.restarts.size(),
                    step.applied.SerializeAsString(),
                    step.view.SerializeAsString());
    for (const v1::Observation& seat_view : step.seat_views) {
      absl::StrAppend(&out, ",", seat_view.SerializeAsString());
    }
  }
  return out;
}

// VerifyAndReadMatchSteps gives VerifyLog's verdict and ReadMatchSteps'
// steps: from the verifier's positions on a genuine log (with and without
// seat views), from the reader's own replay on one that stops verifying
// (read on past the bad record) or is cut short.
TEST(HtmlPageTest, VerifiedStepsAreTheStepsReadAlone) {
  const WantsSeatViews none = [](const v1::Header&) { return false; };
  int genuine = 0, past_the_bad_record = 0;
  for (const std::string& path : Goldens()) {
    const std::string log = Read(path);
    std::vector<std::string> files = {log, log.substr(0, log.size() / 2),
                                      log.substr(0, log.size() - 3)};
    for (size_t at : {size_t{200}, log.size() / 3, log.size() - 40}) {
      files.push_back(log);
      files.back()[at] = static_cast<char>(files.back()[at] ^ 0x01);
    }
    for (size_t i = 0; i < files.size(); ++i) {
      SCOPED_TRACE(absl::StrCat(path, " variant ", i));
      for (WantsSeatViews wants : {WantsSeatViews(nullptr), none}) {
        Verdict verdict;
        const MatchSteps verified =
            VerifyAndReadMatchSteps(files[i], VerifyOptions(), verdict, wants);
        const Verdict alone = VerifyLog(files[i], VerifyOptions());
        EXPECT_EQ(verdict.kind, alone.kind);
        EXPECT_EQ(verdict.bad_record, alone.bad_record);
        EXPECT_EQ(verdict.reason, alone.reason);
        const MatchSteps read = ReadMatchSteps(files[i], wants);
        EXPECT_EQ(Describe(verified), Describe(read));
        genuine += verdict.kind == Verdict::Kind::kGenuine;
        past_the_bad_record +=
            verdict.kind == Verdict::Kind::kNotGenuine &&
            !verified.steps.empty() &&
            verified.steps.back().record > verdict.bad_record;
      }
    }
  }
  EXPECT_EQ(genuine, 2 * static_cast<int>(Goldens().size()));
  EXPECT_GT(past_the_bad_record, 0);
}

// The positions VerifyAndReadMatchSteps collects from the verifier's
// replay hold Pyramid Scheme's card table (about 3 KB) once, in the first
// position's public view, as the steps do: not once per position and seat
// (a 4-seat log near the step cap held some 300 MB at its peak).
TEST(HtmlPageTest, CollectedPositionsHoldTheCardTableOnce) {
  const std::string file =
      Read("testdata/golden/pyramid_scheme/four_seats.pyrlog");
  MatchPositionCollector collector;
  ASSERT_EQ(VerifyLog(file, VerifyOptions(), &collector).kind,
            Verdict::Kind::kGenuine);
  const std::vector<MatchPosition>& positions = collector.positions();
  ASSERT_GT(positions.size(), 2u);
  int tables = 0;
  for (size_t k = 0; k < positions.size(); ++k) {
    SCOPED_TRACE(absl::StrCat("position ", k));
    ASSERT_TRUE(positions[k].view.has_pyramid_scheme());
    EXPECT_EQ(positions[k].view.pyramid_scheme().has_cards(), k == 0);
    EXPECT_EQ(positions[k].seat_views.size(), 4u);
    for (const v1::Observation& seat_view : positions[k].seat_views) {
      ASSERT_TRUE(seat_view.has_pyramid_scheme());
      tables += seat_view.pyramid_scheme().has_cards();
    }
  }
  EXPECT_EQ(tables, 0);
  // And the steps read from them are the steps read alone.
  Verdict verdict;
  EXPECT_EQ(Describe(VerifyAndReadMatchSteps(file, VerifyOptions(), verdict)),
            Describe(ReadMatchSteps(file)));
}

TEST(HtmlPageTest, SeatViewsAreKeptOnlyWhenWanted) {
  const std::string file =
      Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const MatchSteps with = ReadMatchSteps(file);
  const MatchSteps without =
      ReadMatchSteps(file, [](const v1::Header&) { return false; });
  ASSERT_EQ(with.steps.size(), without.steps.size());
  for (size_t k = 0; k < with.steps.size(); ++k) {
    EXPECT_EQ(with.steps[k].seat_views.size(), 3u);
    EXPECT_TRUE(without.steps[k].seat_views.empty());
    EXPECT_EQ(with.steps[k].view.SerializeAsString(),
              without.steps[k].view.SerializeAsString());
  }
}

TEST(HtmlPageTest, FourSeatSchemePageIsUnderOneMebibyte) {
  const MatchPage page =
      RenderMatchPage(Read("testdata/golden/pyramid_scheme/four_seats.pyrlog"),
                      VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kGenuine);
  EXPECT_LT(page.html.size(), 1u << 20);
  EXPECT_GT(page.steps, 50u);
}

// Every <use> of a page (in the step drawn into it and in the parts of
// every step) places a shape the page defines, and each id is defined once.
TEST(HtmlPageTest, EveryUseRefersToAShapeThePageDefines) {
  for (const std::string& path : Goldens()) {
    SCOPED_TRACE(path);
    const std::string html = RenderMatchPage(Read(path), VerifyOptions()).html;
    std::map<std::string, int> ids;
    for (size_t at = html.find(" id=\""); at != std::string::npos;
         at = html.find(" id=\"", at + 1)) {
      const size_t start = at + 5;
      ++ids[html.substr(start, html.find('"', start) - start)];
    }
    for (const auto& [id, count] : ids) EXPECT_EQ(count, 1) << id;
    int uses = 0;
    for (size_t at = html.find("<use href=\"#"); at != std::string::npos;
         at = html.find("<use href=\"#", at + 1)) {
      const size_t start = at + 12;
      const std::string id = html.substr(start, html.find('"', start) - start);
      EXPECT_TRUE(ids.contains(id)) << id;
      ++uses;
    }
    const std::string game = ReadMatchSteps(Read(path)).header.game().game();
    if (game == "rock_paper_pyramid" || game == "flaming_pyramids") {
      EXPECT_GT(uses, 0);
      EXPECT_THAT(html, HasSubstr("<svg id=\"defs\""));
    }
  }
}

// The pages of the golden logs stay within a bound set from their sizes
// (the largest of each game, plus 3 to 8%: 36,904, 193,528, 135,602 and
// 284,436 bytes since session 46's viewer fixes, 35,334, 190,705, 132,642
// and 282,947 before them; before shared shapes and finer parts, 74,735,
// 255,777, 180,321 and 302,510): a change that makes pages grow fails here.
// Whether a rule of `css` selects a shape of class `name` itself: the last
// compound of one of its selectors holds `.name` (or `[class^=PREFIX]`
// with a prefix of it). A class only in an ancestor's place (`.x rect`)
// selects nothing on a shape, which has no element inside it to style.
bool CssSelectsClass(std::string_view css, std::string_view name) {
  for (size_t start = 0; start < css.size();) {
    const size_t open = css.find('{', start);
    if (open == std::string_view::npos) break;
    const size_t close = css.find('}', open);
    std::string_view selectors = css.substr(start, open - start);
    start = close == std::string_view::npos ? css.size() : close + 1;
    if (selectors.find('@') != std::string_view::npos) continue;
    while (!selectors.empty()) {
      const size_t comma = selectors.find(',');
      std::string_view selector = selectors.substr(0, comma);
      selectors = comma == std::string_view::npos ? std::string_view()
                                                  : selectors.substr(comma + 1);
      while (!selector.empty() && isspace(selector.back())) {
        selector.remove_suffix(1);
      }
      const size_t space = selector.find_last_of(" >+~\n");
      std::string_view last = space == std::string_view::npos
                                  ? selector
                                  : selector.substr(space + 1);
      const std::string dotted = "." + std::string(name);
      for (size_t at = last.find(dotted); at != std::string_view::npos;
           at = last.find(dotted, at + 1)) {
        const size_t end = at + 1 + name.size();
        if (end == last.size() || last[end] == '.' || last[end] == ':' ||
            last[end] == '[') {
          return true;
        }
      }
      const std::string_view prefix = "[class^=";
      const size_t attr = last.find(prefix);
      if (attr != std::string_view::npos) {
        const size_t end = last.find(']', attr);
        const std::string_view value =
            last.substr(attr + prefix.size(), end - attr - prefix.size());
        if (name.starts_with(value)) return true;
      }
    }
  }
  return false;
}

// Every class a picture puts on a shape (rect, text, path, ...) has a rule
// that selects it: a Flaming Pyramids tile waiting to fall was drawn as a
// black box, its class styled only as `.fp-falling rect`, a rect inside it.
TEST(HtmlPageTest, EveryClassOnAShapeHasARuleThatSelectsIt) {
  EXPECT_TRUE(CssSelectsClass(".a{x:1}.b rect{x:1}", "a"));
  EXPECT_FALSE(CssSelectsClass(".a{x:1}.b rect{x:1}", "b"));
  EXPECT_TRUE(CssSelectsClass("[class^=fp-k] rect,.c:hover{x:1}", "c"));
  EXPECT_TRUE(CssSelectsClass("g [class^=fp-k]{x:1}", "fp-k2"));
  EXPECT_FALSE(CssSelectsClass(".ab{x:1}", "a"));
  const std::vector<std::string> shapes = {"rect",     "circle", "ellipse",
                                           "line",     "path",   "polygon",
                                           "polyline", "text",   "use"};
  for (const std::string& path : Goldens()) {
    SCOPED_TRACE(path);
    const std::string html = RenderMatchPage(Read(path), VerifyOptions()).html;
    const size_t style = html.find("<style>");
    ASSERT_NE(style, std::string::npos);
    const std::string_view css =
        std::string_view(html).substr(style, html.find("</style>") - style);
    std::set<std::string> checked;
    for (const std::string& shape : shapes) {
      const std::string tag = absl::StrCat("<", shape, " ");
      for (size_t at = html.find(tag); at != std::string::npos;
           at = html.find(tag, at + 1)) {
        const size_t end = html.find('>', at);
        const size_t cls = html.find(" class=\"", at);
        if (cls == std::string::npos || cls > end) continue;
        const size_t from = cls + 8;
        std::string_view names =
            std::string_view(html).substr(from, html.find('"', from) - from);
        while (!names.empty()) {
          const size_t space = names.find(' ');
          const std::string name(names.substr(0, space));
          names = space == std::string_view::npos ? std::string_view()
                                                  : names.substr(space + 1);
          if (name.empty() || !checked.insert(name).second) continue;
          EXPECT_TRUE(CssSelectsClass(css, name))
              << "<" << shape << " class=\"" << name << "\">";
        }
      }
    }
  }
}

// The pictures count in words that agree with the count ("1 pip", not
// "1 pips"), and name a tile as its players know it, not by its id.
TEST(HtmlPageTest, PicturesSayOneThingInTheSingularAndNameTiles) {
  std::string all;
  for (const std::string& path : Goldens()) {
    all += RenderMatchPage(Read(path), VerifyOptions()).html;
  }
  for (const std::string plural :
       {" 1 pips", ">1 pips", " 1 tiles", "1 smart-asses", ">1</span> steps"}) {
    EXPECT_THAT(all, Not(HasSubstr(plural)));
  }
  for (const std::string singular :
       {"1 of 1 pip due", ">1 pip<", " 1 pip", "\">1 tile out of the game",
        ">1 smart-ass;"}) {
    EXPECT_THAT(all, HasSubstr(singular));
  }
  EXPECT_THAT(all, Not(HasSubstr("chooses where tile ")));
  EXPECT_THAT(all, HasSubstr("chooses where the blue 100 stone falls"));
}

// Flaming Pyramids rules version 2 moves a collapse's supports under the
// chooser's pile when the collapse is found: the game's text says so at
// that step, as its picture shows it (here the chooser then forfeits, and
// the fall that would list them never comes); version 1 moves them with
// the fall, and says nothing of them before it.
TEST(HtmlPageTest, CollapseSupportsAreSaidWhereTheyMove) {
  const std::string v2 =
      RenderMatchPage(Read("testdata/golden/flaming_pyramids/"
                           "forfeit_at_collapse_fall.pyrlog"),
                      VerifyOptions())
          .html;
  EXPECT_THAT(v2, HasSubstr("its supports go under seat 1&#39;s pile now, "
                            "before the fall:\n      G4 (0,0) -&gt; under "
                            "seat 1&#39;s pile\n"));
  const std::string v1 =
      RenderMatchPage(Read("testdata/golden/flaming_pyramids/two_seats.pyrlog"),
                      VerifyOptions())
          .html;
  EXPECT_THAT(v1, HasSubstr("next: collapse"));
  EXPECT_THAT(v1, Not(HasSubstr("its supports go under")));
}

TEST(HtmlPageTest, GoldenPagesStayWithinTheirSizeBounds) {
  const std::map<std::string, size_t> bound = {
      {"rock_paper_pyramid", 38'000},
      {"pyramid_shambo", 206'000},
      {"flaming_pyramids", 144'000},
      {"pyramid_scheme", 306'000},
  };
  for (const std::string& path : Goldens()) {
    SCOPED_TRACE(path);
    const MatchPage page = RenderMatchPage(Read(path), VerifyOptions());
    EXPECT_LT(page.html.size(), bound.at(page.verdict.header.game().game()));
  }
}

TEST(HtmlPageTest, SchemeHandsAreShownAndMarkedAsSeenByTheirSeatOnly) {
  const MatchPage page =
      RenderMatchPage(Read("testdata/golden/pyramid_scheme/four_seats.pyrlog"),
                      VerifyOptions());
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_THAT(page.html,
                HasSubstr(absl::StrCat("hand: seen by seat ", seat, " only")));
  }
  EXPECT_THAT(page.html, HasSubstr("<g class=\"ps-k"));  // Victim cards.
  EXPECT_THAT(page.html, HasSubstr("ps-hand"));
}

TEST(HtmlPageTest, FlippedByteSaysNotGenuineWithTheRecord) {
  std::string file = Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const std::vector<RawRecord> raw = SplitLog(file).records;
  ASSERT_GT(raw.size(), 5u);
  // A byte in the middle of record 5.
  file[raw[5].offset + 1 + raw[5].bytes.size() / 2] ^= 0x01;
  const MatchPage page = RenderMatchPage(file, VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kNotGenuine);
  EXPECT_THAT(page.html, HasSubstr(">NOT GENUINE</p>"));
  EXPECT_THAT(page.html,
              HasSubstr(absl::StrCat("id=\"reason\">Record ",
                                     page.verdict.bad_record, ": ")));
}

// A log that goes on after its seal, as ReadLog keeps it (replay/
// log_file.h: through the record after the seal, the file's size known):
// the page says what `replay verify` says, how many bytes follow the seal
// and from where. It said "record after the seal" alone.
TEST(HtmlPageTest, ATailAfterTheSealIsSaidWithItsBytes) {
  const std::string golden =
      Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const uint64_t records = SplitLog(golden).records.size();
  // An empty record, then 4 GiB that ReadLog does not read.
  const std::string kept = golden + std::string(1, '\0');
  const uint64_t file_size = kept.size() + (uint64_t{4} << 30);
  const std::string said =
      absl::StrCat("record after the seal (", file_size - golden.size(),
                   " bytes follow it, from byte ", golden.size(),
                   " to the end of the file)");
  MatchPage page = RenderMatchPage(kept, file_size, VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kNotGenuine);
  EXPECT_EQ(page.verdict.reason, said);
  EXPECT_EQ(page.verdict.reason,
            VerifyLog(kept, file_size, VerifyOptions()).reason);
  EXPECT_THAT(page.html, HasSubstr(absl::StrCat("id=\"reason\">Record ",
                                                records, ": ", said, "</p>")));
  // A tail shorter than a record, read whole.
  const std::string cut_short = golden +
                                "\x05"
                                "ab";
  page = RenderMatchPage(cut_short, cut_short.size(), VerifyOptions());
  EXPECT_THAT(page.html,
              HasSubstr(absl::StrCat("id=\"reason\">Record ", records,
                                     ": bytes after the seal (3 bytes follow "
                                     "it, from byte ",
                                     golden.size(), " to the end of the file)",
                                     "</p>")));
  // Its size not known (a pipe cut short): no count.
  EXPECT_THAT(RenderMatchPage(kept, VerifyOptions()).html,
              HasSubstr(absl::StrCat("id=\"reason\">Record ", records,
                                     ": record after the seal</p>")));
}

// A seal whose signature does not verify vouches for no record: every step
// says it is not verified, not only those from the seal on (none).
TEST(HtmlPageTest, ABadSealSignatureLeavesNoStepVerified) {
  std::string file = Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const std::vector<v1::LogRecord> records = Records(file);
  ASSERT_TRUE(records.back().has_seal());
  file.back() ^= 0x01;  // The seal's last field: its signature.
  const MatchPage page = RenderMatchPage(file, VerifyOptions());
  ASSERT_EQ(page.verdict.kind, Verdict::Kind::kNotGenuine);
  EXPECT_TRUE(page.verdict.signature_failed) << page.verdict.reason;
  EXPECT_EQ(page.verdict.bad_record, records.size() - 1);
  EXPECT_EQ(page.steps, ExpectedSteps(file));
  // Every step's panel, and step 0's again where the page draws it.
  EXPECT_EQ(Count(page.html, "this step is not verified.</p>"), page.steps + 1);
  EXPECT_THAT(page.html,
              HasSubstr(absl::StrCat("The referee's signature over the log "
                                     "(record ",
                                     records.size() - 1, ") does not verify")));
}

TEST(HtmlPageTest, ShowsFaultsDefaultActionsAndForfeits) {
  const MatchPage forfeit = RenderMatchPage(
      Read("testdata/golden/rock_paper_pyramid/forfeit_mismatch.pyrlog"),
      VerifyOptions());
  EXPECT_EQ(forfeit.verdict.kind, Verdict::Kind::kGenuine);
  EXPECT_THAT(forfeit.html, HasSubstr("ended the match by forfeit"));
  EXPECT_THAT(forfeit.html,
              HasSubstr("the reveal does not match the commitment &rarr; "
                        "<b>forfeit</b></td>"));              // Said once.
  EXPECT_THAT(forfeit.html, HasSubstr("<td>yes</td></tr>"));  // Forfeited.
  const MatchPage timeouts = RenderMatchPage(
      Read("testdata/golden/rock_paper_pyramid/default_action_timeout.pyrlog"),
      VerifyOptions());
  EXPECT_THAT(timeouts.html,
              HasSubstr("no commit in time &rarr; default action"));
  EXPECT_THAT(timeouts.html,
              HasSubstr("no reveal in time &rarr; default action"));
  EXPECT_THAT(timeouts.html, HasSubstr("the default action (after its fault)"));
  EXPECT_THAT(timeouts.html, HasSubstr("1000 ms to commit, 1000 ms to reveal"));
}

// A bot that never connects forfeits in the seed decision (decision 0):
// the match ends before its start. That decision is a step, with its
// fault and the outcome, and no position; "No step could be read" is only
// for a log where nothing could be read.
TEST(HtmlPageTest, ForfeitInTheSeedDecisionIsAStepWithoutAPosition) {
  const std::vector<v1::LogRecord> golden =
      Records(Read("testdata/golden/rock_paper_pyramid/classic.pyrlog"));
  std::vector<v1::LogRecord> records(1, golden[0]);  // The header.
  v1::DecisionOpened* opened = records.emplace_back().mutable_decision_opened();
  opened->set_decision_id(0);
  opened->add_seats(0);
  opened->add_seats(1);
  opened->set_simultaneous(true);
  records.emplace_back().mutable_commit()->set_seat(0);
  v1::Fault* fault = records.emplace_back().mutable_fault();
  fault->set_decision_id(0);
  fault->set_seat(1);
  fault->set_reason(v1::FAULT_COMMIT_TIMEOUT);
  fault->set_consequence(v1::FAULT_FORFEIT);
  v1::Outcome* outcome = records.emplace_back().mutable_outcome();
  outcome->set_termination(v1::TERMINATION_FORFEIT);
  outcome->add_seats()->set_rank(1);
  v1::SeatOutcome* loser = outcome->add_seats();
  loser->set_rank(2);
  loser->set_forfeited(true);
  const std::string file = Reframe(records);

  const MatchSteps steps = ReadMatchSteps(file);
  EXPECT_EQ(steps.stopped, "");
  ASSERT_EQ(steps.steps.size(), 1u);
  EXPECT_EQ(steps.steps[0].kind, MatchStep::Kind::kForfeit);
  EXPECT_FALSE(steps.steps[0].has_position);
  EXPECT_EQ(steps.steps[0].decision.faults.size(), 1u);
  EXPECT_TRUE(steps.outcome.has_value());

  const MatchPage page = RenderMatchPage(file, VerifyOptions());
  EXPECT_EQ(page.steps, 1u);
  EXPECT_THAT(page.html, HasSubstr("<span id=\"steps\">1</span> step ("));
  EXPECT_THAT(page.html, Not(HasSubstr("No step could be read")));
  EXPECT_THAT(page.html, HasSubstr("decision 0 ended the match by forfeit"));
  EXPECT_THAT(page.html, HasSubstr("no commit in time &rarr; <b>forfeit</b>"));
  EXPECT_THAT(page.html, HasSubstr("before it started"));
  EXPECT_THAT(page.html, HasSubstr("<h3>The end</h3>"));
  EXPECT_THAT(page.html, HasSubstr("<td>yes</td></tr>"));  // Forfeited.
  // One step: nothing to move through, and no "Step 0 of 0".
  EXPECT_THAT(page.html, Not(HasSubstr("move through them")));
  EXPECT_THAT(page.html, HasSubstr("n==1?'The only step'"));
  EXPECT_THAT(page.html, HasSubstr("Ended: forfeit (a seat forfeited).</p>"));
  EXPECT_THAT(RenderMatchPage("not a log at all", VerifyOptions()).html,
              HasSubstr("No step could be read"));
}

TEST(HtmlPageTest, UnsealedPrefixIsShownAsFarAsItGoes) {
  const std::string file =
      Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const std::vector<RawRecord> raw = SplitLog(file).records;
  const std::vector<v1::LogRecord> records = Records(file);
  // Cut after the last checkpoint before the outcome.
  size_t cut = 0;
  for (size_t i = 0; i < records.size() && !records[i].has_outcome(); ++i) {
    if (records[i].has_checkpoint()) cut = i;
  }
  ASSERT_GT(cut, 0u);
  const std::string prefix = file.substr(0, raw[cut + 1].offset);
  const MatchPage page = RenderMatchPage(prefix, VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kUnsealedPrefix);
  EXPECT_THAT(page.html, HasSubstr("NOT GENUINE (UNSEALED PREFIX)"));
  EXPECT_THAT(page.html, HasSubstr("The log holds no outcome."));
  // Not over: what the log holds was not public while it ran.
  EXPECT_THAT(page.html, Not(HasSubstr("The match is over")));
  EXPECT_THAT(page.html, HasSubstr("the match had not ended"));
  EXPECT_GT(page.steps, 1u);
  EXPECT_LT(page.steps, ExpectedSteps(file));
}

// An unsealed prefix verifies up to its last checkpoint: the steps before
// it are not marked, only those after it (which no signature covers). A
// prefix cut at its checkpoint has no step marked at all.
TEST(HtmlPageTest, UnsealedPrefixMarksOnlyTheStepsAfterItsLastCheckpoint) {
  const std::string file =
      Read("testdata/golden/rock_paper_pyramid/classic.pyrlog");
  const std::vector<RawRecord> raw = SplitLog(file).records;
  const std::vector<v1::LogRecord> records = Records(file);
  // The last checkpoint with two moves after it.
  size_t checkpoint = 0, moves_after = 0;
  for (size_t i = records.size(); i-- > 1 && checkpoint == 0;) {
    if (records[i].has_applied()) ++moves_after;
    if (records[i].has_checkpoint() && moves_after >= 2) checkpoint = i;
  }
  ASSERT_GT(checkpoint, 0u);
  const std::string marked = "not verified.</p>";

  const MatchPage at_checkpoint = RenderMatchPage(
      file.substr(0, raw[checkpoint + 1].offset), VerifyOptions());
  ASSERT_EQ(at_checkpoint.verdict.kind, Verdict::Kind::kUnsealedPrefix);
  EXPECT_GT(at_checkpoint.steps, 1u);
  EXPECT_EQ(Count(at_checkpoint.html, marked), 0u);

  // Two moves more, after the checkpoint.
  size_t end = checkpoint + 1, applied = 0;
  while (end < records.size() && applied < 2) {
    if (records[end++].has_applied()) ++applied;
  }
  ASSERT_EQ(applied, 2u);
  ASSERT_LT(end, raw.size());
  const std::string prefix = file.substr(0, raw[end].offset);
  const MatchPage page = RenderMatchPage(prefix, VerifyOptions());
  ASSERT_EQ(page.verdict.kind, Verdict::Kind::kUnsealedPrefix);
  EXPECT_EQ(page.verdict.signed_records, checkpoint);
  EXPECT_EQ(page.steps, at_checkpoint.steps + 2);
  // One panel per step (step 0's is also drawn into the page): exactly the
  // two steps after the checkpoint are marked.
  EXPECT_EQ(Count(page.html, marked), 2u);
  EXPECT_THAT(page.html,
              HasSubstr(absl::StrCat("after the log's last signed checkpoint "
                                     "(record ",
                                     checkpoint, "): it is not verified")));
  EXPECT_THAT(page.html, Not(HasSubstr("where verification failed")));
}

// The banks shown are the ones the referee keeps (Match::ChargeTimeBank):
// the seed decision is charged against its own seed_timeout_ms when the
// match sets one, and a restart reopens the commit phase, so the time
// before it is charged to no seat (docs/protocol.md, "Deadlines";
// docs/durability.md).
TEST(HtmlPageTest, TimeBanksFollowTheSeedTimeoutAndRestarts) {
  v1::Header header;
  header.add_seats();
  header.add_seats();
  v1::ClockSettings* clocks = header.mutable_clocks();
  clocks->set_commit_timeout_ms(1000);
  clocks->set_seed_timeout_ms(60000);
  clocks->set_time_bank_ms(5000);
  clocks->set_time_bank_increment_ms(100);
  TimeBanks banks(header);
  const int64_t t = 1'800'000'000'000;
  auto commit = [](uint32_t seat, int64_t at) {
    v1::Commit c;
    c.set_seat(seat);
    c.set_received_unix_ms(at);
    return c;
  };
  // The seed decision: seat 0 connects 3 s after the creation, within the
  // seed timeout; seat 1 at 61.5 s, 1.5 s beyond it.
  DecisionRecords seed;
  seed.opened = true;
  seed.decision.set_decision_id(0);
  seed.decision.add_seats(0);
  seed.decision.add_seats(1);
  seed.decision.set_opened_unix_ms(t);
  seed.commits = {commit(0, t + 3000), commit(1, t + 61500)};
  EXPECT_EQ(banks.Charge(seed), (std::vector<int64_t>{5100, 3600}));
  // Decision 1: the referee is down from +200 ms to +10 s; seat 0 commits
  // 500 ms after the restart (no overrun), seat 1 1,700 ms after it (700
  // ms beyond the commit timeout).
  DecisionRecords one;
  one.opened = true;
  one.decision.set_decision_id(1);
  one.decision.add_seats(0);
  one.decision.add_seats(1);
  const int64_t opened = t + 100'000;
  one.decision.set_opened_unix_ms(opened);
  v1::Restart restart;
  restart.set_last_record_unix_ms(opened + 200);
  restart.set_restarted_unix_ms(opened + 10'000);
  one.restarts = {restart};
  one.commits = {commit(0, opened + 10'500), commit(1, opened + 11'700)};
  EXPECT_EQ(banks.Charge(one), (std::vector<int64_t>{5200, 3000}));
  // The seed decision's row shows its own timeout.
  MatchStep step;
  step.decision = seed;
  EXPECT_THAT(StepPanelHtml(header, step, 0, 2, {5100, 3600}),
              HasSubstr("60000 ms to commit"));
}

// A decision's first ten restarts are listed, then how many more and how
// long they were down in all: a forged log of a million restarts made a
// page of a million lines.
TEST(HtmlPageTest, ADecisionsRestartsPastTheTenthAreCounted) {
  v1::Header header;
  header.add_seats();
  header.add_seats();
  MatchStep step;
  step.decision.opened = true;
  step.decision.decision.set_decision_id(1);
  step.decision.decision.add_seats(0);
  const int64_t t = 1'800'000'000'000;
  step.decision.decision.set_opened_unix_ms(t);
  for (int i = 0; i < 1000; ++i) {
    v1::Restart& r = step.decision.restarts.emplace_back();
    r.set_last_record_unix_ms(t + 100 * i);
    r.set_restarted_unix_ms(t + 100 * i + 7);
  }
  const std::string panel = StepPanelHtml(header, step, 1, 2, {0, 0});
  std::vector<std::string> listed;
  for (size_t at = panel.find("The referee restarted"); at != std::string::npos;
       at = panel.find("The referee restarted", at + 1)) {
    listed.push_back(panel.substr(at, 60));
  }
  EXPECT_EQ(listed.size(), 10u);
  EXPECT_THAT(panel, HasSubstr("And 990 more restarts of the referee in this "
                               "decision, down for 6930 ms in all"));
  // Sums beyond an int64 are said so.
  step.decision.restarts[10].set_last_record_unix_ms(
      std::numeric_limits<int64_t>::min());
  step.decision.restarts[10].set_restarted_unix_ms(
      std::numeric_limits<int64_t>::max());
  EXPECT_THAT(StepPanelHtml(header, step, 1, 2, {0, 0}),
              HasSubstr("down for an impossible span in all"));
}

// A missed commit deadline empties the bank, as the referee does
// (Match::CheckDeadlinesNow): the seat used the timeout and the whole bank,
// and earns no increment until it commits again. The fault's cell says the
// reason once, not again as the referee's detail.
TEST(HtmlPageTest, AMissedCommitDeadlineEmptiesTheBankShown) {
  v1::Header header;
  header.add_seats();
  header.add_seats();
  v1::ClockSettings* clocks = header.mutable_clocks();
  clocks->set_commit_timeout_ms(300);
  clocks->set_time_bank_ms(1000);
  clocks->set_time_bank_increment_ms(50);
  header.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  TimeBanks banks(header);
  const int64_t t = 1'800'000'000'000;
  DecisionRecords missed;
  missed.opened = true;
  missed.decision.set_decision_id(1);
  missed.decision.add_seats(0);
  missed.decision.add_seats(1);
  missed.decision.set_opened_unix_ms(t);
  v1::Commit commit;
  commit.set_seat(0);
  commit.set_received_unix_ms(t + 100);
  missed.commits = {commit};
  v1::Fault fault;
  fault.set_seat(1);
  fault.set_decision_id(1);
  fault.set_reason(v1::FAULT_COMMIT_TIMEOUT);
  fault.set_consequence(v1::FAULT_DEFAULT_ACTION);
  fault.set_detail("no commit in time");
  fault.set_at_unix_ms(t + 1300);
  missed.faults = {fault};
  EXPECT_EQ(banks.Charge(missed), (std::vector<int64_t>{1050, 0}));
  // The next decision: seat 1 commits within the timeout, earning 50 ms.
  DecisionRecords next = missed;
  next.decision.set_decision_id(2);
  commit.set_seat(1);
  next.commits.push_back(commit);
  next.faults.clear();
  EXPECT_EQ(banks.Charge(next), (std::vector<int64_t>{1100, 50}));

  MatchStep step;
  step.decision = missed;
  const std::string panel = StepPanelHtml(header, step, 1, 3, {1050, 0});
  EXPECT_THAT(panel, HasSubstr("no commit in time &rarr; default action"));
  EXPECT_THAT(panel, Not(HasSubstr("(no commit in time)")));
}

TEST(HtmlPageTest, UnreadableLogStillGivesAPage) {
  const MatchPage page = RenderMatchPage("not a log at all", VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kNotGenuine);
  EXPECT_EQ(page.steps, 0u);
  EXPECT_THAT(page.html, HasSubstr(">NOT GENUINE</p>"));
  EXPECT_THAT(page.html, HasSubstr("<span id=\"steps\">0</span>"));
  EXPECT_THAT(page.html, HasSubstr("</html>"));
}

TEST(HtmlPageTest, StringsFromTheLogAreEscaped) {
  std::vector<v1::LogRecord> records =
      Records(Read("testdata/golden/rock_paper_pyramid/classic.pyrlog"));
  const std::string evil = "<script>alert(\"x\")</script>&'";
  records[0].mutable_header()->mutable_seats(1)->set_name(evil);
  records[0].mutable_header()->set_label(evil);
  const MatchPage page = RenderMatchPage(Reframe(records), VerifyOptions());
  EXPECT_EQ(page.verdict.kind, Verdict::Kind::kNotGenuine);
  EXPECT_GT(page.steps, 1u);  // Still drawn: the rules do not read names.
  EXPECT_THAT(page.html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(page.html, Not(HasSubstr("alert(\"x\")")));
  EXPECT_THAT(page.html,
              HasSubstr("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
                        "&amp;&#39;"));
  // Exactly the page's own two script elements.
  size_t scripts = 0;
  for (size_t at = page.html.find("<script"); at != std::string::npos;
       at = page.html.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 2u);
}

// Names and labels are shown through PrintableText: a right-to-left
// override or a zero-width space shows as its escape, not reversing or
// hiding text; whether a seat signs its commits is a badge no name can
// imitate. Names in other scripts are shown as they are.
TEST(HtmlPageTest, SpoofingCharactersInNamesAndLabelsShowAsEscapes) {
  std::vector<v1::LogRecord> records =
      Records(Read("testdata/golden/rock_paper_pyramid/classic.pyrlog"));
  v1::Header& header = *records[0].mutable_header();
  ASSERT_EQ(header.seats_size(), 3);
  header.mutable_seats(0)->set_name("heuristic\u200B");
  header.mutable_seats(1)->set_name("\u202Eevil\x1b[2J");
  header.mutable_seats(2)->set_name("alice (signs its commits)");
  for (v1::Seat& seat : *header.mutable_seats()) seat.clear_public_key();
  header.mutable_seats(0)->set_public_key(std::string(32, 'k'));
  header.set_label("t/\u202E1/gnp.exe");
  const MatchPage page = RenderMatchPage(Reframe(records), VerifyOptions());
  EXPECT_THAT(page.html, HasSubstr("heuristic\\u{200B}"));
  EXPECT_THAT(page.html, HasSubstr("\\u{202E}evil\\x1B[2J"));
  EXPECT_THAT(page.html, HasSubstr("t/\\u{202E}1/gnp.exe"));
  for (const std::string hidden : {"\u200B", "\u202E", "\x1b"}) {
    EXPECT_THAT(page.html, Not(HasSubstr(hidden)));
  }
  EXPECT_EQ(Count(page.html, "<span class=\"key\">"), 1u);
  EXPECT_THAT(page.html,
              HasSubstr("alice (signs its commits)<span class=\"nokey\">"));

  header.mutable_seats(0)->set_name("Zoë");
  header.mutable_seats(1)->set_name("名人");
  header.mutable_seats(2)->set_name("لاعب");
  const std::string page2 =
      RenderMatchPage(Reframe(records), VerifyOptions()).html;
  for (const std::string name : {"Zoë", "名人", "لاعب"}) {
    EXPECT_THAT(page2, HasSubstr(absl::StrCat("<td>", name, "<span")));
  }
}

// The verifier does not judge times: a forged log can hold any int64. The
// panel and the time banks say what they can of INT64_MIN and INT64_MAX
// instead of overflowing (the sanitizer build aborted).
TEST(HtmlPageTest, TimesAtTheEndsOfInt64DoNotOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  v1::Header header;
  header.add_seats();
  header.add_seats();
  v1::ClockSettings* clocks = header.mutable_clocks();
  clocks->set_commit_timeout_ms(1000);
  clocks->set_time_bank_ms(5000);
  TimeBanks banks(header);
  DecisionRecords d;
  d.opened = true;
  d.decision.set_decision_id(1);
  d.decision.add_seats(0);
  d.decision.add_seats(1);
  d.decision.set_opened_unix_ms(kMin);
  d.decision.set_commit_deadline_unix_ms(kMax);
  v1::Commit late, early;
  late.set_seat(0);
  late.set_received_unix_ms(kMax);
  early.set_seat(1);
  early.set_received_unix_ms(kMin);
  d.commits = {late, early};
  // Seat 0's overrun is beyond any bank; seat 1 committed as the decision
  // opened.
  const std::vector<int64_t> after = banks.Charge(d);
  EXPECT_EQ(after, (std::vector<int64_t>{0, 5000}));
  v1::Restart restart;
  restart.set_last_record_unix_ms(kMin);
  restart.set_restarted_unix_ms(kMax);
  MatchStep step;
  step.decision = d;
  step.decision.restarts = {restart};
  const std::string panel = StepPanelHtml(header, step, 1, 2, after);
  EXPECT_THAT(panel, HasSubstr("commit deadline at an impossible time"));
  EXPECT_THAT(panel, HasSubstr("<td>at an impossible time</td>"));
  EXPECT_THAT(panel, HasSubstr("<td>+0 ms</td>"));
  EXPECT_THAT(panel, HasSubstr("for an impossible span, charged to no seat"));
  // Opened at INT64_MAX, a commit at INT64_MIN: the other way round.
  d.decision.set_opened_unix_ms(kMax);
  d.commits = {early};
  EXPECT_THAT(banks.Charge(d), (std::vector<int64_t>{0, 5000}));
}

TEST(HtmlPageTest, SvgTextEscapesMarkup) {
  EXPECT_EQ(SvgText("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
}

// Px prints the tenths with integer arithmetic; these are the values the
// printf form ("%.1f" unless whole) gave.
TEST(HtmlPageTest, PxPrintsAtMostOneDecimal) {
  EXPECT_EQ(Px(0), "0");
  EXPECT_EQ(Px(-0.04), "0");
  EXPECT_EQ(Px(12), "12");
  EXPECT_EQ(Px(41.6), "41.6");
  EXPECT_EQ(Px(440.8), "440.8");
  EXPECT_EQ(Px(2.25), "2.3");
  EXPECT_EQ(Px(9.96), "10");
  EXPECT_EQ(Px(-0.5), "-0.5");
  EXPECT_EQ(Px(-12.34), "-12.3");
  EXPECT_EQ(Px(-20), "-20");
}

}  // namespace
}  // namespace pyramid
