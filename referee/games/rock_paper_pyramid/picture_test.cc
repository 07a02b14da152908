// Rock, Paper, Pyramid!'s picture: its layout, checked on the coordinates of
// the SVG it writes (the viewer QA found a red pool slot in the round's
// column, headings running into each other, captured pieces on top of each
// other and long names over the pool).
#include "referee/games/rock_paper_pyramid/picture.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/games/picture_testing.h"

namespace pyramid::rpp::testing {
namespace {

namespace v1 = ::pyramid::referee::v1;

using picture_testing::Attr;
using picture_testing::Box;
using picture_testing::Font;
using picture_testing::Show;
using picture_testing::Svg;

// The classes' fonts, from the game's CSS.
std::optional<Font> FontOf(const std::string& cls) {
  Font font;
  if (cls == "rpp-h") font.bold = true;
  if (cls == "rpp-score") font.px = 15;
  if (cls == "rpp-fate") font.px = 12;
  return font;
}

std::vector<Box> Texts(const std::string& svg) {
  return picture_testing::TextBoxes(svg, FontOf);
}

// Every piece placed from the defs: id rpp-COLOUR-SIZE[b], standing on y.
std::vector<Box> Pieces(const std::string& svg) {
  std::vector<Box> out;
  const std::regex use("<use href=\"#rpp-(\\d)-(\\d)(b?)\"([^>]*)/>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), use);
       it != std::sregex_iterator(); ++it) {
    const int size = std::stoi((*it)[2]);
    const double h = (size == 1   ? 30
                      : size == 2 ? 22
                                  : 14) *
                     ((*it)[3].length() > 0 ? 1.5 : 1);
    const std::string attrs = (*it)[4];
    const double x = std::stod(Attr(attrs, "x"));
    const double y = std::stod(Attr(attrs, "y"));
    out.push_back({x - h / 2, y - h, x + h / 2, y,
                   absl::StrCat("piece ", (*it)[0].str())});
  }
  return out;
}

v1::RppPiece P(v1::RppColour colour, v1::RppSize size) {
  v1::RppPiece p;
  p.set_colour(colour);
  p.set_size(size);
  return p;
}

// A `red` match after its last round with three seats of long names, full
// pools (red ones included), many captured pieces each, and a round whose
// texts are the longest.
struct Match {
  v1::Header header;
  v1::Observation view;
  v1::Result result;
  Moment moment;

  explicit Match(bool red) {
    header.mutable_game()->mutable_rock_paper_pyramid()->set_red(red);
    v1::RockPaperPyramidObservation& game = *view.mutable_rock_paper_pyramid();
    game.set_rounds_played(10);
    game.set_total_rounds(10);
    v1::RockPaperPyramidRoundResult& round =
        *result.mutable_rock_paper_pyramid();
    round.set_round(10);
    round.set_resolution(v1::RPP_WISHBONE);
    for (int seat = 0; seat < 3; ++seat) {
      header.add_seats()->set_name(std::string(64, 'w'));
      v1::RppSeatView& s = *game.add_seats();
      s.set_score(100);
      for (int c = v1::RPP_BLACK; c <= (red ? v1::RPP_RED : v1::RPP_CRYSTAL);
           ++c) {
        for (int z = v1::RPP_LARGE; z <= v1::RPP_SMALL; ++z) {
          *s.add_pool() =
              P(static_cast<v1::RppColour>(c), static_cast<v1::RppSize>(z));
        }
      }
      for (int i = 0; i < 12 + 4 * seat; ++i) {
        *s.add_scored() =
            P(v1::RPP_BLACK, i % 3 == 2 ? v1::RPP_SMALL : v1::RPP_LARGE);
      }
      *round.add_played() = P(v1::RPP_RED, v1::RPP_LARGE);
    }
    moment.header = &header;
    moment.view = &view;
    moment.result = &result;
  }
};

double TextX(const std::vector<Box>& texts, const std::string& what) {
  for (const Box& t : texts) {
    if (t.what == what) return t.x0;
  }
  ADD_FAILURE() << "no text " << what;
  return 0;
}

TEST(RppPictureTest, ThePoolNeverReachesTheRoundsColumn) {
  for (bool red : {false, true}) {
    Match match(red);
    const std::string svg = Svg(rpp::kPicture.draw(match.moment));
    const std::vector<Box> texts = Texts(svg);
    const double round_x = TextX(texts, "This round");
    const double captured_x = TextX(texts, "Captured");
    int pool = 0;
    for (const Box& piece : Pieces(svg)) {
      // The round's pieces are big; the captured ones right of "Captured".
      if (piece.what.find("b\"") != std::string::npos ||
          piece.x0 >= captured_x) {
        continue;
      }
      ++pool;
      EXPECT_LT(piece.x1, round_x) << "red " << red << ": " << Show(piece);
    }
    EXPECT_EQ(pool, 3 * (red ? 12 : 9));
  }
}

TEST(RppPictureTest, NothingOverlapsOrPassesTheEdge) {
  for (bool red : {false, true}) {
    Match match(red);
    const Picture picture = rpp::kPicture.draw(match.moment);
    const std::string svg = Svg(picture);
    std::vector<Box> boxes = Texts(svg);
    const size_t texts = boxes.size();
    for (const Box& piece : Pieces(svg)) boxes.push_back(piece);
    ASSERT_GT(boxes.size(), texts + 3 * 12);
    picture_testing::ExpectLaidOut(boxes, picture.width, std::nullopt,
                                   absl::StrCat("red ", red));
  }
}

TEST(RppPictureTest, ALongNameIsCutToItsRoom) {
  Match match(true);
  const std::string svg = Svg(rpp::kPicture.draw(match.moment));
  EXPECT_NE(svg.find("seat 0 (www"), std::string::npos);
  EXPECT_EQ(svg.find(std::string(64, 'w')), std::string::npos);
  EXPECT_NE(svg.find("w…)"), std::string::npos);
}

TEST(RppPictureTest, TheSameMomentGivesTheSameBytes) {
  Match match(true);
  EXPECT_EQ(rpp::kPicture.draw(match.moment).parts,
            rpp::kPicture.draw(match.moment).parts);
}

}  // namespace
}  // namespace pyramid::rpp::testing
