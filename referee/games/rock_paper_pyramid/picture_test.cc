// Rock, Paper, Pyramid!'s picture: its layout, checked on the coordinates of
// the SVG it writes (the viewer QA found a red pool slot in the round's
// column, headings running into each other, captured pieces on top of each
// other and long names over the pool).
#include "referee/games/rock_paper_pyramid/picture.h"

#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// A box drawn in the picture: a text (its estimated extent) or a piece.
struct Box {
  double x0, y0, x1, y1;
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

// Every text's extent, estimated generously for a sans-serif font (0.62 em
// a character, 0.68 bold): the classes' sizes from the game's CSS.
std::vector<Box> Texts(const std::string& svg) {
  std::vector<Box> out;
  const std::regex text("<text([^>]*)>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text);
       it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1], content = (*it)[2];
    const std::string cls = Attr(attrs, "class");
    double px = 13;
    bool bold = false;
    if (cls == "rpp-h") bold = true;
    if (cls == "rpp-score") px = 15;
    if (cls == "rpp-fate") px = 12;
    const double x = std::stod(Attr(attrs, "x"));
    const double y = std::stod(Attr(attrs, "y"));
    const double w = Chars(content) * px * (bold ? 0.68 : 0.62);
    out.push_back({x, y - px * 0.8, x + w, y + px * 0.2, content});
  }
  return out;
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

bool Overlap(const Box& a, const Box& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

std::string Show(const Box& b) {
  return absl::StrCat("[", b.x0, "..", b.x1, "]x[", b.y0, "..", b.y1, "] ",
                      b.what);
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

std::string Svg(const Picture& picture) {
  return absl::StrJoin(picture.parts, "");
}

double TextX(const std::vector<Box>& texts, const std::string& what) {
  for (const Box& t : texts) {
    if (t.what == what) return t.x0;
  }
  ADD_FAILURE() << "no text " << what;
  return 0;
}

TEST(RockPaperPyramidPictureTest, ThePoolNeverReachesTheRoundsColumn) {
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

TEST(RockPaperPyramidPictureTest, NothingOverlapsOrPassesTheEdge) {
  for (bool red : {false, true}) {
    Match match(red);
    const Picture picture = rpp::kPicture.draw(match.moment);
    const std::string svg = Svg(picture);
    std::vector<Box> boxes = Texts(svg);
    const size_t texts = boxes.size();
    for (const Box& piece : Pieces(svg)) boxes.push_back(piece);
    ASSERT_GT(boxes.size(), texts + 3 * 12);
    for (size_t i = 0; i < boxes.size(); ++i) {
      EXPECT_GE(boxes[i].x0, 0) << Show(boxes[i]);
      EXPECT_LE(boxes[i].x1, picture.width) << Show(boxes[i]);
      for (size_t j = i + 1; j < boxes.size(); ++j) {
        EXPECT_FALSE(Overlap(boxes[i], boxes[j]))
            << "red " << red << ": " << Show(boxes[i]) << " and "
            << Show(boxes[j]);
      }
    }
  }
}

TEST(RockPaperPyramidPictureTest, ALongNameIsCutToItsRoom) {
  Match match(true);
  const std::string svg = Svg(rpp::kPicture.draw(match.moment));
  EXPECT_NE(svg.find("seat 0 (www"), std::string::npos);
  EXPECT_EQ(svg.find(std::string(64, 'w')), std::string::npos);
  EXPECT_NE(svg.find("w…)"), std::string::npos);
}

TEST(RockPaperPyramidPictureTest, TheSameMomentGivesTheSameBytes) {
  Match match(true);
  EXPECT_EQ(rpp::kPicture.draw(match.moment).parts,
            rpp::kPicture.draw(match.moment).parts);
}

}  // namespace
}  // namespace pyramid
