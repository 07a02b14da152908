// Pyramid Scheme's picture: a seat's frame, checked on the SVG it writes
// (the viewer QA found long names over "hand: seen by seat N only" and an
// eliminated seat's frame still marked active at the end).
#include "referee/games/pyramid_scheme/picture.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "referee/games/picture_testing.h"

namespace pyramid::scheme::testing {
namespace {

namespace v1 = ::pyramid::referee::v1;

using picture_testing::Box;
using picture_testing::Font;

// The classes' fonts, from the game's CSS; a card's label (no class) left
// out.
std::optional<Font> FontOf(const std::string& cls) {
  if (cls.empty()) return std::nullopt;
  Font font;
  font.bold = cls == "ps-h";
  font.px =
      cls.find("ps-small") != std::string::npos || cls == "ps-secret" ? 11 : 13;
  font.anchor = cls == "ps-secret"                        ? Font::kEnd
                : cls.find("ps-mid") != std::string::npos ? Font::kMiddle
                                                          : Font::kStart;
  return font;
}

// Every text outside a card, its extent estimated (picture_testing.h).
std::vector<Box> Texts(const std::string& svg) {
  return picture_testing::TextBoxes(svg, FontOf);
}

// Four seats with 64-character names; seat 1 eliminated and the last
// active seat; `over` after the game ended.
struct Match {
  v1::Header header;
  v1::Observation view;
  Moment moment;

  explicit Match(bool over) {
    v1::PyramidSchemeObservation& game = *view.mutable_pyramid_scheme();
    v1::PssBoard& board = *game.mutable_board();
    for (int seat = 0; seat < 4; ++seat) {
      header.add_seats()->set_name(std::string(64, 'w'));
      v1::PssSeatView& s = *board.add_seats();
      s.set_live(seat != 1);
      if (seat == 1) s.set_eliminated_order(1);
    }
    board.set_active_seat(1);
    board.set_turn(999);
    board.set_max_turns(999);
    if (over) game.mutable_decision()->set_phase(v1::PSS_PHASE_GAME_OVER);
    moment.header = &header;
    moment.view = &view;
  }
};

std::string Svg(const Match& match) {
  return picture_testing::Svg(scheme::kPicture.draw(match.moment));
}

TEST(PssPictureTest, ALongNameStopsBeforeTheHandsNote) {
  Match match(false);
  const Picture picture = scheme::kPicture.draw(match.moment);
  const std::vector<Box> texts = Texts(picture_testing::Svg(picture));
  int names = 0;
  for (const Box& a : texts) {
    picture_testing::ExpectWithin(a, picture.width, std::nullopt, "4 seats");
    if (a.what.rfind("seat ", 0) != 0) continue;
    ++names;
    for (const Box& b : texts) {
      // The note's line.
      if (&a == &b || b.baseline != a.baseline - 4) continue;
      // At least 8 apart: touching texts read as one.
      EXPECT_TRUE(a.x1 + 8 <= b.x0 || b.x1 + 8 <= a.x0)
          << a.what << " [" << a.x0 << ".." << a.x1 << "] and " << b.what
          << " [" << b.x0 << ".." << b.x1 << "]";
    }
  }
  EXPECT_EQ(names, 4);
}

TEST(PssPictureTest, AnEliminatedSeatIsNotActive) {
  for (bool over : {false, true}) {
    Match match(over);
    EXPECT_EQ(Svg(match).find("ps-active"), std::string::npos) << over;
  }
  // A live seat is, until the game is over.
  Match match(false);
  match.view.mutable_pyramid_scheme()->mutable_board()->set_active_seat(2);
  EXPECT_NE(Svg(match).find("ps-active"), std::string::npos);
  match.view.mutable_pyramid_scheme()->mutable_decision()->set_phase(
      v1::PSS_PHASE_GAME_OVER);
  EXPECT_EQ(Svg(match).find("ps-active"), std::string::npos);
}

TEST(PssPictureTest, TheSameMomentGivesTheSameBytes) {
  Match match(true);
  EXPECT_EQ(Svg(match), Svg(match));
}

}  // namespace
}  // namespace pyramid::scheme::testing
