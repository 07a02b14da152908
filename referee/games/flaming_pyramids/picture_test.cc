// Flaming Pyramids' picture (picture.h): what the viewer QA found on real
// pages, drawn from hand-made moments.
#include "referee/games/flaming_pyramids/picture.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid::fp::testing {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;
using ::testing::Not;

// A placement phase of two seats with `pyramid` on the table.
v1::Observation Table(const std::vector<v1::FpCell>& pyramid) {
  v1::Observation view;
  v1::FlamingPyramidsObservation& game = *view.mutable_flaming_pyramids();
  game.set_phase(v1::FP_PLACE);
  game.set_max_turns(2000);
  for (const v1::FpCell& c : pyramid) *game.add_pyramid() = c;
  for (int seat = 0; seat < 2; ++seat) {
    v1::FpSeatView& s = *game.add_seats();
    s.set_hand_size(3);
    s.set_pile_size(2);
    s.set_dealt_left(2);
  }
  return view;
}

v1::FpCell Cell(uint32_t tile, uint32_t row, int x) {
  v1::FpCell c;
  c.set_tile(tile);
  c.set_row(row);
  c.set_x(x);
  return c;
}

v1::FpTileMove Move(uint32_t tile, uint32_t row, int x, v1::FpDestination to,
                    uint32_t to_row = 0, int to_x = 0) {
  v1::FpTileMove m;
  m.set_tile(tile);
  m.set_from_row(row);
  m.set_from_x(x);
  m.set_to(to);
  m.set_to_row(to_row);
  m.set_to_x(to_x);
  return m;
}

std::string Drawn(const v1::Header& header, const v1::Observation& view,
                  const v1::Result* result = nullptr) {
  const std::vector<v1::Observation> seat_views;
  const Moment moment{&header, &view, &seat_views, result};
  return absl::StrJoin(fp::kPicture.draw(moment).parts, "\n");
}

v1::Header TwoSeats(const std::string& name = "") {
  v1::Header header;
  header.add_seats()->set_name(name);
  header.add_seats();
  return header;
}

// A collapse took G60 (tile 27) from (0,0) and R40 (tile 16) from (0,1)
// under the chooser's pile, and B4 (tile 31) fell from (1,0) into (0,0):
// (0,0) holds B4 now, drawn alone; only (0,1), left empty, shows its ghost.
TEST(FpPictureTest, NoGhostWhereALiveTileNowStands) {
  const v1::Observation view = Table({Cell(31, 0, 0), Cell(38, 0, 2)});
  v1::Result result;
  v1::FpEvent& event = *result.mutable_flaming_pyramids()->add_events();
  event.set_kind(v1::FP_COLLAPSE);
  event.set_direction(v1::FP_LEFT);
  *event.add_moves() = Move(27, 0, 0, v1::FP_TO_PILE);
  *event.add_moves() = Move(16, 0, 1, v1::FP_TO_PILE);
  *event.add_moves() = Move(31, 1, 0, v1::FP_TO_TABLE, 0, 0);
  const std::string svg = Drawn(TwoSeats(), view, &result);
  EXPECT_THAT(svg, HasSubstr("<use href=\"#fp-t31\" x=\"468\""));
  EXPECT_THAT(svg, Not(HasSubstr("#fp-t27")));
  EXPECT_THAT(svg,
              HasSubstr("<use href=\"#fp-t16\" class=\"fp-ghost\" x=\"512\""));
  // A fire's flame is not drawn over a live tile either.
  event.set_kind(v1::FP_FIRE);
  const std::string fire = Drawn(TwoSeats(), view, &result);
  EXPECT_THAT(fire, Not(HasSubstr("#fp-t27")));
  EXPECT_EQ(fire.find("fp-flame"), fire.rfind("fp-flame"));  // (0,1)'s only.
}

// The face of tile `tile` at table size in the defs.
std::string Face(uint32_t tile) {
  const std::string& defs = fp::kPicture.defs();
  const size_t at = defs.find(absl::StrCat("<g id=\"fp-t", tile, "\""));
  return at == std::string::npos ? ""
                                 : defs.substr(at, defs.find("</g>", at) - at);
}

// The value of `property` in the CSS rule whose selector is `selector`.
std::string Rule(const std::string& selector, const std::string& property) {
  const std::string css = "}" + std::string(fp::kPicture.css);
  const size_t at = css.find(absl::StrCat("}", selector, "{"));
  if (at == std::string::npos) return "";
  const std::string rule = css.substr(at, css.find('}', at + 1) - at);
  const size_t p = rule.find(property + ":");
  if (p == std::string::npos) return "";
  const size_t start = p + property.size() + 1;
  return rule.substr(start, rule.find_first_of(";}", start) - start);
}

// The incendiaries' colour decides the building rule: each has a class of
// its own that draws it (border and stripe), and their weights are light
// and centred.
TEST(FpPictureTest, IncendiariesShowTheirColour) {
  const char* const kClass[4] = {"fp-coal fp-green", "fp-coal fp-yellow",
                                 "fp-torch fp-red", "fp-torch fp-blue"};
  const char* const kColour[4] = {"#4dbb74", "#f7d44c", "#e5604f", "#5b8ee0"};
  const char* const kName[4] = {"green", "yellow", "red", "blue"};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(kName[i]);
    EXPECT_THAT(Face(41 + i), HasSubstr(absl::StrCat("class=\"", kClass[i],
                                                     "\"><title>", kName[i])));
    EXPECT_THAT(Face(41 + i), HasSubstr("class=\"fp-band\""));
    const std::string cls = absl::StrCat(".fp-", kName[i]);
    EXPECT_EQ(Rule(cls + " rect", "stroke"), kColour[i]);
    EXPECT_EQ(Rule(cls + " .fp-band", "fill"), kColour[i]);
  }
  const std::string css(fp::kPicture.css);
  EXPECT_THAT(css, HasSubstr(".fp-coal text,.fp-torch text{font-size:11px;"
                             "text-anchor:middle}"));
  EXPECT_EQ(Rule(".fp-coal text,.fp-torch text", "fill"), "#fff");
}

// Relative luminance of "#rrggbb" (WCAG).
double Luminance(const std::string& colour) {
  unsigned rgb[3] = {0, 0, 0};
  EXPECT_EQ(
      std::sscanf(colour.c_str(), "#%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]), 3)
      << colour;
  double l[3];
  for (int i = 0; i < 3; ++i) {
    const double c = rgb[i] / 255.0;
    l[i] = c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  }
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

double Contrast(const std::string& a, const std::string& b) {
  const double x = Luminance(a), y = Luminance(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

// A straw tile's border shows on a yellow tile and on the table.
TEST(FpPictureTest, StrawBordersAreVisible) {
  const std::string straw = Rule(".fp-straw rect", "stroke");
  EXPECT_GE(Contrast(straw, Rule(".fp-k0 rect", "fill")), 2.0) << straw;
  EXPECT_GE(Contrast(straw, Rule(".fp-table", "fill")), 2.5) << straw;
}

// A long name is cut to the room before the hand (x = 220) and clipped
// there, whatever its characters' widths.
TEST(FpPictureTest, ASeatNameNeverReachesItsHand) {
  const std::string svg =
      Drawn(TwoSeats("random-5-with-a-rather-long-name"), Table({}));
  EXPECT_THAT(svg, HasSubstr("clip-path=\"url(#fp-name-room)\" x=\"12\" "
                             "y=\"242\">&#9654; seat 0 (random-5-wit…)<"));
  EXPECT_THAT(fp::kPicture.defs(),
              HasSubstr("<clipPath id=\"fp-name-room\"><rect width=\"214\""));
}

// The tiles a seat holds are its score, and fewer is better.
TEST(FpPictureTest, TilesHeldAreLabelledAsTheScore) {
  const std::string svg = Drawn(TwoSeats(), Table({}));
  EXPECT_THAT(svg, HasSubstr(">hand 3, pile 2: 5 held<"));
  EXPECT_THAT(svg, HasSubstr(">(the score: fewer is better)<"));
}

TEST(FpPictureTest, TheSameMomentGivesTheSameBytes) {
  const v1::Observation view = Table({Cell(41, 0, 0), Cell(44, 0, 1)});
  EXPECT_EQ(Drawn(TwoSeats("ann"), view), Drawn(TwoSeats("ann"), view));
  EXPECT_EQ(fp::kPicture.defs(), fp::kPicture.defs());
}

}  // namespace
}  // namespace pyramid::fp::testing
