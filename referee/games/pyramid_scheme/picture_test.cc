// Pyramid Scheme's picture: a seat's frame, checked on the SVG it writes
// (the viewer QA found long names over "hand: seen by seat N only" and an
// eliminated seat's frame still marked active at the end).
#include "referee/games/pyramid_scheme/picture.h"

#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

struct Box {
  double x0, x1, y;
  std::string what;
};

std::string Attr(const std::string& attrs, const std::string& name) {
  std::smatch m;
  if (std::regex_search(attrs, m,
                        std::regex("(^|\\s)" + name + "=\"([^\"]*)\""))) {
    return m[2];
  }
  return "";
}

// Characters of SVG text: UTF-8 lead bytes, an entity as one.
size_t Chars(const std::string& text) {
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if (c == '&') {
      i = text.find(';', i);
    } else if ((c & 0xC0) == 0x80) {
      continue;
    }
    ++n;
  }
  return n;
}

// Every text outside a card, its extent estimated generously for a
// sans-serif font (0.62 em a character, 0.68 bold; ps-secret ends at x).
std::vector<Box> Texts(const std::string& svg) {
  std::vector<Box> out;
  const std::regex text("<text([^>]*)>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text);
       it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1], content = (*it)[2];
    const std::string cls = Attr(attrs, "class");
    if (cls.empty()) continue;  // A card's label.
    const bool bold = cls == "ps-h";
    const double px =
        cls.find("ps-small") != std::string::npos || cls == "ps-secret" ? 11
                                                                        : 13;
    const double x = std::stod(Attr(attrs, "x"));
    const double w = Chars(content) * px * (bold ? 0.68 : 0.62);
    const double x0 = cls == "ps-secret"                        ? x - w
                      : cls.find("ps-mid") != std::string::npos ? x - w / 2
                                                                : x;
    out.push_back({x0, x0 + w, std::stod(Attr(attrs, "y")), content});
  }
  return out;
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
  return absl::StrJoin(scheme::kPicture.draw(match.moment).parts, "");
}

TEST(PyramidSchemePictureTest, ALongNameStopsBeforeTheHandsNote) {
  Match match(false);
  const Picture picture = scheme::kPicture.draw(match.moment);
  const std::vector<Box> texts = Texts(absl::StrJoin(picture.parts, ""));
  int names = 0;
  for (const Box& a : texts) {
    EXPECT_GE(a.x0, 0) << a.what;
    EXPECT_LE(a.x1, picture.width) << a.what;
    if (a.what.rfind("seat ", 0) != 0) continue;
    ++names;
    for (const Box& b : texts) {
      if (&a == &b || b.y != a.y - 4) continue;  // The note's line.
      // At least 8 apart: touching texts read as one.
      EXPECT_TRUE(a.x1 + 8 <= b.x0 || b.x1 + 8 <= a.x0)
          << a.what << " [" << a.x0 << ".." << a.x1 << "] and " << b.what
          << " [" << b.x0 << ".." << b.x1 << "]";
    }
  }
  EXPECT_EQ(names, 4);
}

TEST(PyramidSchemePictureTest, AnEliminatedSeatIsNotActive) {
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

TEST(PyramidSchemePictureTest, TheSameMomentGivesTheSameBytes) {
  Match match(true);
  EXPECT_EQ(Svg(match), Svg(match));
}

}  // namespace
}  // namespace pyramid
