#include "referee/games/pyramid_shambo/picture.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using shambo::HandName;

constexpr int kWidth = 1040;
constexpr int kTop = 44;
constexpr int kRowHeight = 40;
constexpr int kChipsX = 250;  // Where a seat's chips start.
constexpr int kPanelX = 740;  // The step panel's left edge.

const char* MethodName(v1::ShamboPaymentMethod m) {
  switch (m) {
    case v1::SHAMBO_EXACT:
      return "exact";
    case v1::SHAMBO_PAY_ALL:
      return "pays all it holds";
    case v1::SHAMBO_CHANGE:
      return "with change";
    case v1::SHAMBO_OVERPAY:
      return "overpays";
    default:
      return "?";
  }
}

double Radius(v1::ShamboSize s) {
  return s == v1::SHAMBO_LARGE ? 9 : s == v1::SHAMBO_MEDIUM ? 7 : 5;
}

// One chip centred at (x, y): its colour and size are its classes (the
// radius comes from the page's CSS).
std::string Chip(const v1::ShamboPiece& piece, double x, double y) {
  return absl::StrCat("<circle class=\"sh-c", static_cast<int>(piece.colour()),
                      " sh-s", static_cast<int>(piece.size()), "\" cx=\"",
                      Px(x), "\" cy=\"", Px(y), "\"/>");
}

// A row of chips from `x` at height `y`; returns the x after the last.
double Chips(const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces,
             double x, double y, std::string& out) {
  for (const v1::ShamboPiece& piece : pieces) {
    const double r = Radius(piece.size());
    absl::StrAppend(&out, Chip(piece, x + r, y));
    x += 2 * r + 2;
  }
  return x;
}

// The board: the table, the panel's rule and heading, the legend (the same
// at every step).
std::string Board(int height) {
  return absl::StrCat(
      "<g class=\"board-pyramid_shambo\"><rect class=\"sh-table\" x=\"0\" "
      "y=\"0\" width=\"",
      kWidth, "\" height=\"", height, "\"/><text class=\"sh-h\" x=\"",
      kPanelX + 10,
      "\" y=\"24\">At stake</text><text class=\"sh-small\" "
      "x=\"12\" y=\"",
      height - 8,
      "\">Chips: a piece's colour is its first owner's (the dot by each "
      "seat), its size its pips (1, 2, 3). A: active, T: target, D: decides "
      "the payment.</text><line class=\"sh-rule\" x1=\"",
      kPanelX, "\" y1=\"0\" x2=\"", kPanelX, "\" y2=\"", height, "\"/></g>");
}

// The throw count, the phase, and the open challenge's stakes.
std::string Stakes(const v1::PyramidShamboObservation& game) {
  std::string phase;
  switch (game.phase()) {
    case v1::SHAMBO_PHASE_CHALLENGE:
      phase = absl::StrCat("seat ", game.active(), " picks whom to challenge");
      break;
    case v1::SHAMBO_PHASE_THROW:
      phase = absl::StrCat("seat ", game.active(), " and seat ", game.target(),
                           " throw at once");
      break;
    case v1::SHAMBO_PHASE_PAYMENT:
      phase = absl::StrCat("seat ", game.decider(), " decides a payment");
      break;
    case v1::SHAMBO_PHASE_OVER:
      phase = "game over";
      break;
    default:
      break;
  }
  std::string out = absl::StrCat(
      "<g><text class=\"sh-h\" x=\"12\" y=\"24\">Throw ", game.throws_made(),
      " of at most ", game.max_throws(), "; ", phase, "</text>");
  // The stakes: ties of this challenge (the fee grows with each) and the
  // payment due, with its method.
  double y = 46;
  if (game.phase() == v1::SHAMBO_PHASE_THROW) {
    absl::StrAppend(&out, "<text x=\"", kPanelX + 10, "\" y=\"", Px(y),
                    "\">Challenge: seat ", game.active(), " vs seat ",
                    game.target(), "; ties so far ", game.ties(), "</text>");
    y += 18;
    std::vector<std::string> tied;
    for (const auto& t : game.tied_throws()) tied.push_back(HandName(t.hand()));
    if (!tied.empty()) {
      absl::StrAppend(&out, "<text x=\"", kPanelX + 10, "\" y=\"", Px(y),
                      "\">tied: ", absl::StrJoin(tied, ", "), "</text>");
      y += 18;
    }
  }
  if (game.phase() == v1::SHAMBO_PHASE_PAYMENT) {
    const v1::ShamboPendingPayment& p = game.payment();
    absl::StrAppend(
        &out, "<text class=\"sh-due\" x=\"", kPanelX + 10, "\" y=\"", Px(y),
        "\">", p.kind() == v1::SHAMBO_BONUS ? "Knock-Out bonus" : "Fee",
        ": seat ", p.payer(), " owes seat ", p.payee(), " ", p.amount(), " pip",
        p.amount() == 1 ? "" : "s", "</text><text x=\"", kPanelX + 10,
        "\" y=\"", Px(y + 18), "\">", MethodName(p.method()), "; ", p.options(),
        " option", p.options() == 1 ? "" : "s", "</text>");
    y += 36;
  }
  if (!game.bonus_due().empty()) {
    absl::StrAppend(&out, "<text x=\"", kPanelX + 10, "\" y=\"", Px(y),
                    "\">bonus still due from seats ",
                    absl::StrJoin(game.bonus_due(), ", "), "</text>");
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

// Seat `seat`'s row as parts: its name, its role now, its chips and pips,
// its throws so far (each changes at its own pace; an eliminated seat's
// parts are all faint).
void SeatRow(const v1::Header& header, const v1::PyramidShamboObservation& game,
             int seat, std::vector<std::string>& parts) {
  const v1::ShamboSeatView& view = game.seats(seat);
  const double y = kTop + kRowHeight * seat;
  const bool over = game.phase() == v1::SHAMBO_PHASE_OVER;
  std::string roles;
  if (!over && static_cast<int>(game.active()) == seat) roles += "A";
  if (!over && game.phase() != v1::SHAMBO_PHASE_CHALLENGE &&
      static_cast<int>(game.target()) == seat) {
    roles += "T";
  }
  if (!over && game.phase() == v1::SHAMBO_PHASE_PAYMENT &&
      static_cast<int>(game.decider()) == seat) {
    roles += "D";
  }
  auto add = [&](std::string part) {
    parts.push_back(view.live()
                        ? std::move(part)
                        : absl::StrCat("<g class=\"sh-out\">", part, "</g>"));
  };
  add(absl::StrCat("<g class=\"sh-seat\"><circle class=\"sh-c", seat + 1,
                   "\" cx=\"18\" cy=\"", Px(y + 14),
                   "\" r=\"6\"/><text x=\"30\" y=\"", Px(y + 19), "\">",
                   SeatLabel(header, seat), "</text></g>"));
  add(absl::StrCat("<text class=\"sh-role\" x=\"", kChipsX - 36, "\" y=\"",
                   Px(y + 19), "\">", roles, "</text>"));
  std::string holding = "<g>";
  if (view.live()) {
    const double end = Chips(view.holding(), kChipsX, y + 14, holding);
    absl::StrAppend(&holding, "<text class=\"sh-pips\" x=\"", Px(end + 6),
                    "\" y=\"", Px(y + 19), "\">", view.pips(),
                    view.pips() == 1 ? " pip" : " pips", "</text>");
  } else {
    absl::StrAppend(&holding, "<text x=\"", kChipsX, "\" y=\"", Px(y + 19),
                    "\">out (elimination group ", view.elimination_group(),
                    ")</text>");
  }
  absl::StrAppend(&holding, "</g>");
  add(std::move(holding));
  if (view.hands_thrown_size() == 3) {
    add(absl::StrCat("<text class=\"sh-small\" x=\"30\" y=\"", Px(y + 34),
                     "\">threw R", view.hands_thrown(0), " P",
                     view.hands_thrown(1), " S", view.hands_thrown(2),
                     "</text>"));
  }
}

// One line of the step panel at `y`, which moves to the next line.
void Line(const std::string& text, double& y, std::string& out,
          absl::string_view cls = "") {
  absl::StrAppend(&out, "<text", cls.empty() ? "" : " class=\"", cls,
                  cls.empty() ? "" : "\"", " x=\"", kPanelX + 10, "\" y=\"",
                  Px(y), "\">", text, "</text>");
  y += 20;
}

void ThrowStep(const v1::ShamboThrowResult& t, double& y, std::string& out) {
  Line(absl::StrCat("throw ", t.throw_number(), ": seat ", t.active(), " ",
                    HandName(t.active_hand()), ", seat ", t.target(), " ",
                    HandName(t.target_hand())),
       y, out, "sh-throw");
  if (t.tie()) {
    Line(absl::StrCat("tie (", t.ties() + 1, " in this challenge)"), y, out);
  } else if (t.limit_reached()) {
    Line(absl::StrCat("seat ", t.winner(), " wins; move limit reached, no fee"),
         y, out);
  } else {
    Line(absl::StrCat("seat ", t.winner(), " wins; seat ", t.loser(), " owes ",
                      t.fee(), t.fee() == 1 ? " pip" : " pips",
                      t.doubled() ? " (doubled)" : ""),
         y, out);
  }
}

void PaymentStep(const v1::ShamboPaymentResult& p, double& y,
                 std::string& out) {
  Line(absl::StrCat(p.kind() == v1::SHAMBO_BONUS ? "Knock-Out bonus" : "fee",
                    ": seat ", p.payer(), " pays seat ", p.payee()),
       y, out);
  Line(absl::StrCat(p.paid(), " of ", p.amount(),
                    p.amount() == 1 ? " pip due (" : " pips due (",
                    MethodName(p.method()), p.canonical() ? ", canonical" : "",
                    ")"),
       y, out);
  if (p.payment().has_exchange()) {
    const v1::ShamboExchange& e = p.payment().exchange();
    absl::StrAppend(&out, "<text x=\"", kPanelX + 10, "\" y=\"", Px(y),
                    "\">change with seat ", e.provider(), ":</text>");
    double x = Chips(e.payer_gives(), kPanelX + 160, y - 5, out);
    absl::StrAppend(&out, "<text x=\"", Px(x + 2), "\" y=\"", Px(y),
                    "\">for</text>");
    Chips(e.provider_gives(), x + 28, y - 5, out);
    y += 22;
  }
  absl::StrAppend(&out, "<text x=\"", kPanelX + 10, "\" y=\"", Px(y),
                  "\">paid:</text>");
  Chips(p.payment().pay(), kPanelX + 50, y - 5, out);
  y += 22;
  for (const v1::ShamboElimination& e : p.eliminations()) {
    Line(absl::StrCat("seat ", e.seat(),
                      e.cause() == v1::SHAMBO_KNOCKED_OUT ? " knocked out"
                                                          : " cascades out",
                      " (group ", e.group(), ")"),
         y, out, "sh-due");
    Line(absl::StrCat("  ", e.removed_size(), " ",
                      e.removed_size() == 1 ? "piece" : "pieces",
                      " of its colour leave the game"),
         y, out);
  }
  if (p.bonus_cancelled()) Line("remaining bonus payments cancelled", y, out);
  if (p.game_over()) {
    Line("game over", y, out);
  } else if (p.turn_over()) {
    Line(absl::StrCat("turn over; seat ", p.next_active(), " is next"), y, out);
  }
}

// The step just applied, below the stakes.
std::string Step(const v1::PyramidShamboResult& r, double top) {
  std::string out =
      absl::StrCat("<g class=\"sh-step\"><text class=\"sh-h\" x=\"",
                   kPanelX + 10, "\" y=\"", Px(top), "\">This step</text>");
  double y = top + 22;
  if (r.has_challenge()) {
    Line(absl::StrCat("seat ", r.challenge().active(), " challenges seat ",
                      r.challenge().target()),
         y, out);
  } else if (r.has_throw_result()) {
    ThrowStep(r.throw_result(), y, out);
  } else if (r.has_payment()) {
    PaymentStep(r.payment(), y, out);
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

Picture Draw(const Moment& moment) {
  const v1::PyramidShamboObservation& game = moment.view->pyramid_shambo();
  const int seats = game.seats_size();
  Picture picture;
  picture.width = kWidth;
  picture.height = std::max(kTop + kRowHeight * seats + 24, 300);
  picture.parts.push_back(Board(picture.height));
  picture.parts.push_back(Stakes(game));
  for (int seat = 0; seat < seats; ++seat) {
    SeatRow(*moment.header, game, seat, picture.parts);
  }
  if (moment.result != nullptr && moment.result->has_pyramid_shambo()) {
    picture.parts.push_back(Step(moment.result->pyramid_shambo(), 140));
  }
  return picture;
}

constexpr std::string_view kCss =
    ".sh-table{fill:#eef3ea}.sh-rule{stroke:#b9c6b0}.sh-h{font-weight:"
    "bold}.sh-out{opacity:.45}.sh-role{font-weight:bold;fill:#a03}"
    ".sh-small{font-size:11px;fill:#555}.sh-due{fill:#a03}"
    ".sh-throw{font-weight:bold}.sh-pips{font-size:12px}"
    "[class^=sh-c]{stroke:#333;stroke-width:1}"
    ".sh-c1{fill:#d33}.sh-c2{fill:#f1c40f}.sh-c3{fill:#27ae60}"
    ".sh-c4{fill:#2e6fd8}.sh-c5{fill:#222}.sh-c6{fill:#fff}"
    ".sh-c7{fill:#e67e22}.sh-c8{fill:#8e44ad}.sh-c9{fill:#1abc9c}"
    ".sh-c10{fill:#e8eef2;stroke-dasharray:2 1}"
    ".sh-s1{r:5px}.sh-s2{r:7px}.sh-s3{r:9px}";

}  // namespace

namespace shambo {

constexpr GamePicture kPicture = {&Draw, kCss, nullptr,
                                  /*seat_views=*/false};

}  // namespace shambo

}  // namespace pyramid
