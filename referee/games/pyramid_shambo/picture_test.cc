// Pyramid Shambo's picture: its layout, checked on the coordinates of the
// SVG it writes (the viewer QA found the panel's lines past the picture's
// edge, long names over the chips and the throw counted wrong).
#include "referee/games/pyramid_shambo/picture.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/games/picture_testing.h"

namespace pyramid::shambo::testing {
namespace {

namespace v1 = ::pyramid::referee::v1;

using picture_testing::Attr;
using picture_testing::Box;
using picture_testing::Font;

// The classes' fonts, from the game's CSS.
std::optional<Font> FontOf(const std::string& cls) {
  Font font;
  font.bold = cls == "sh-h" || cls == "sh-throw" || cls == "sh-role";
  if (cls == "sh-small") font.px = 11;
  if (cls == "sh-pips") font.px = 12;
  return font;
}

// Every text's extent (picture_testing.h), and every chip and seat dot.
std::vector<Box> Boxes(const std::string& svg) {
  std::vector<Box> out = picture_testing::TextBoxes(svg, FontOf);
  const std::regex circle("<circle([^>]*)/>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle);
       it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1];
    const std::string cls = Attr(attrs, "class");
    double r = Attr(attrs, "r").empty() ? 0 : std::stod(Attr(attrs, "r"));
    if (cls.find("sh-s1") != std::string::npos) r = 5;
    if (cls.find("sh-s2") != std::string::npos) r = 7;
    if (cls.find("sh-s3") != std::string::npos) r = 9;
    const double x = std::stod(Attr(attrs, "cx"));
    const double y = std::stod(Attr(attrs, "cy"));
    out.push_back({x - r, y - r, x + r, y + r, "chip " + cls});
  }
  return out;
}

// Every box inside the picture's width and height, none over another.
void ExpectLaidOut(const Picture& picture, const std::string& where) {
  const std::vector<Box> boxes = Boxes(picture_testing::Svg(picture));
  ASSERT_GT(boxes.size(), 10u);
  picture_testing::ExpectLaidOut(boxes, picture.width, picture.height, where);
}

v1::ShamboPiece Piece(int colour, int size) {
  v1::ShamboPiece p;
  p.set_colour(static_cast<v1::ShamboColour>(colour));
  p.set_size(static_cast<v1::ShamboSize>(size));
  return p;
}

// A match of `seats` seats with 64-character names, the largest numbers,
// one seat holding every piece and the longest lists.
struct Match {
  v1::Header header;
  v1::Observation view;
  v1::Result result;
  Moment moment;

  explicit Match(int seats) {
    v1::PyramidShamboObservation& game = *view.mutable_pyramid_shambo();
    for (int seat = 0; seat < seats; ++seat) {
      header.add_seats()->set_name(std::string(64, 'w'));
      v1::ShamboSeatView& s = *game.add_seats();
      s.set_live(true);
      s.set_pips(seat == 0 ? 6 * seats : 0);
      for (int i = 0; i < 3; ++i) s.add_hands_thrown(9999);
    }
    for (int size = 1; size <= 3; ++size) {
      for (int colour = 1; colour <= seats; ++colour) {
        *game.mutable_seats(0)->add_holding() = Piece(colour, size);
      }
    }
    game.set_active(seats - 1);
    game.set_target(seats - 2);
    game.set_decider(seats - 1);
    game.set_throws_made(9999);
    game.set_max_throws(10000);
    for (int seat = 0; seat < seats - 2; ++seat) game.add_bonus_due(seat);
    moment.header = &header;
    moment.view = &view;
    moment.result = &result;
  }

  // The throw phase after 9999 ties of every shape, after a tied throw.
  void Throwing() {
    v1::PyramidShamboObservation& game = *view.mutable_pyramid_shambo();
    game.set_phase(v1::SHAMBO_PHASE_THROW);
    game.set_ties(9999);
    for (int i = 0; i < 9999; ++i) {
      game.add_tied_throws()->set_hand(static_cast<v1::ShamboHand>(1 + i % 3));
    }
    v1::ShamboThrowResult& t =
        *result.mutable_pyramid_shambo()->mutable_throw_result();
    t.set_active(game.active());
    t.set_target(game.target());
    t.set_active_hand(v1::SHAMBO_SCISSORS);
    t.set_target_hand(v1::SHAMBO_SCISSORS);
    t.set_throw_number(9999);
    t.set_tie(true);
    t.set_ties(9998);
  }

  // The payment phase after a payment with change, every piece paid and
  // every other seat eliminated.
  void Paying() {
    v1::PyramidShamboObservation& game = *view.mutable_pyramid_shambo();
    const int seats = game.seats_size();
    game.set_phase(v1::SHAMBO_PHASE_PAYMENT);
    v1::ShamboPendingPayment& due = *game.mutable_payment();
    due.set_kind(v1::SHAMBO_BONUS);
    due.set_payer(seats - 1);
    due.set_payee(seats - 2);
    due.set_amount(99999);
    due.set_method(v1::SHAMBO_CHANGE);
    due.set_options(~uint64_t{0});
    v1::ShamboPaymentResult& p =
        *result.mutable_pyramid_shambo()->mutable_payment();
    p.set_kind(v1::SHAMBO_BONUS);
    p.set_payer(seats - 1);
    p.set_payee(seats - 2);
    p.set_amount(99999);
    p.set_paid(99999);
    p.set_method(v1::SHAMBO_OVERPAY);
    p.set_canonical(true);
    v1::ShamboExchange& e = *p.mutable_payment()->mutable_exchange();
    e.set_provider(seats - 1);
    *e.mutable_payer_gives() = game.seats(0).holding();
    *e.mutable_provider_gives() = game.seats(0).holding();
    *p.mutable_payment()->mutable_pay() = game.seats(0).holding();
    for (int seat = 1; seat < seats; ++seat) {
      v1::ShamboElimination& out = *p.add_eliminations();
      out.set_seat(seat);
      out.set_cause(v1::SHAMBO_CASCADE);
      out.set_group(seat);
    }
    p.set_bonus_cancelled(true);
    p.set_turn_over(true);
    p.set_next_active(seats - 1);
  }
};

TEST(ShamboPictureTest, NoTextPassesThePicturesEdgeAtAnySeatCount) {
  for (int seats = 2; seats <= 10; ++seats) {
    Match throwing(seats);
    throwing.Throwing();
    ExpectLaidOut(shambo::kPicture.draw(throwing.moment),
                  absl::StrCat(seats, " seats, throwing"));
    Match paying(seats);
    paying.Paying();
    ExpectLaidOut(shambo::kPicture.draw(paying.moment),
                  absl::StrCat(seats, " seats, paying"));
  }
}

TEST(ShamboPictureTest, TheTiesAreCountedByShape) {
  Match match(10);
  match.Throwing();
  const std::string svg =
      picture_testing::Svg(shambo::kPicture.draw(match.moment));
  // "\u00a0": a no-break space.
  for (const char* shape : {"Rock", "Paper", "Scissors"}) {
    EXPECT_NE(svg.find(absl::StrCat(shape, "\u00a0×3333")), std::string::npos)
        << svg;
  }
  EXPECT_EQ(svg.find("Paper, Rock"), std::string::npos);
}

TEST(ShamboPictureTest, TheHeaderNamesTheThrowBeingMade) {
  Match match(3);
  match.Throwing();
  match.view.mutable_pyramid_shambo()->set_throws_made(2);
  std::string svg = picture_testing::Svg(shambo::kPicture.draw(match.moment));
  EXPECT_NE(svg.find(">Throw 3 of at most 10000: seat 2 and seat 1 throw at "
                     "once<"),
            std::string::npos)
      << svg;
  match.view.mutable_pyramid_shambo()->set_phase(v1::SHAMBO_PHASE_CHALLENGE);
  svg = picture_testing::Svg(shambo::kPicture.draw(match.moment));
  EXPECT_NE(svg.find(">2 of at most 10000 throws made; seat 2 picks whom to "
                     "challenge<"),
            std::string::npos)
      << svg;
}

TEST(ShamboPictureTest, TheSameMomentGivesTheSameBytes) {
  Match match(10);
  match.Paying();
  EXPECT_EQ(shambo::kPicture.draw(match.moment).parts,
            shambo::kPicture.draw(match.moment).parts);
}

}  // namespace
}  // namespace pyramid::shambo::testing
