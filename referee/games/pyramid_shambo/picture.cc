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
constexpr int kNameX = 30;            // A seat's label.
constexpr int kChipsX = 320;          // Where a seat's chips start.
constexpr int kPanelX = 680;          // The step panel's left edge.
constexpr int kTextX = kPanelX + 10;  // The panel's lines.
constexpr int kRight = kWidth - 10;   // No text or chip passes it.
constexpr int kPipsW = 60;    // Room for "60 pips" (12px) after the chips.
constexpr int kMinTop = 140;  // The step's heading, at least.

// A generous estimate of the width of `text` in a sans-serif font of
// `font_px`: a character of UTF-8 (its lead bytes) at most 0.62 em, 0.68
// bold.
double TextWidth(absl::string_view text, double font_px, bool bold = false) {
  size_t chars = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  return static_cast<double>(chars) * font_px * (bold ? 0.68 : 0.62);
}

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

// Chips side by side from `x0` on a line centred at `y`, wrapping at `x1`
// to lines `pitch` below; `x` and `y` end after the last chip.
void Chips(const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces,
           double x0, double x1, double pitch, double& x, double& y,
           std::string& out) {
  x = x0;
  for (const v1::ShamboPiece& piece : pieces) {
    const double r = Radius(piece.size());
    if (x + 2 * r > x1 && x > x0) {
      x = x0;
      y += pitch;
    }
    absl::StrAppend(&out, Chip(piece, x + r, y));
    x += 2 * r + 2;
  }
}

// The class's font: (size, bold).
std::pair<double, bool> Font(absl::string_view cls) {
  if (cls == "sh-h" || cls == "sh-throw" || cls == "sh-role") {
    return {13, true};
  }
  if (cls == "sh-small") return {11, false};
  if (cls == "sh-pips") return {12, false};
  return {13, false};
}

// One line of the panel at `y`, wrapped at its spaces to the panel's right
// edge: y moves past the last.
void Line(absl::string_view text, double& y, std::string& out,
          absl::string_view cls = "") {
  const auto [px, bold] = Font(cls);
  const double room = kRight - kTextX;
  while (!text.empty()) {
    size_t cut = text.size();
    if (TextWidth(text, px, bold) > room) {
      // The last space that leaves a line in the room; else a hard cut.
      cut = 0;
      for (size_t i = 1; i < text.size(); ++i) {
        if (text[i] == ' ' && TextWidth(text.substr(0, i), px, bold) <= room) {
          cut = i;
        }
      }
      if (cut == 0) {
        cut = 1;
        while (cut < text.size() &&
               TextWidth(text.substr(0, cut + 1), px, bold) <= room) {
          ++cut;
        }
        while (cut < text.size() &&
               (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
          --cut;  // Never inside a character.
        }
      }
    }
    absl::StrAppend(&out, "<text", cls.empty() ? "" : " class=\"", cls,
                    cls.empty() ? "" : "\"", " x=\"", kTextX, "\" y=\"", Px(y),
                    "\">", text.substr(0, cut), "</text>");
    y += 20;
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
}

// A label at the panel's left and chips after it, wrapping; y moves past
// them.
void ChipsLine(
    absl::string_view label,
    const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces,
    double& y, std::string& out) {
  absl::StrAppend(&out, "<text x=\"", kTextX, "\" y=\"", Px(y), "\">", label,
                  "</text>");
  double x = 0, chip_y = y - 5;
  Chips(pieces, kTextX + 46, kRight, 20, x, chip_y, out);
  y = chip_y + 5 + 22;
}

// The board: the table, the panel's rule and heading, the legend (the same
// at every step of a match of this height).
std::string Board(int height) {
  return absl::StrCat(
      "<g class=\"board-pyramid_shambo\"><rect class=\"sh-table\" x=\"0\" "
      "y=\"0\" width=\"",
      kWidth, "\" height=\"", height, "\"/><text class=\"sh-h\" x=\"", kTextX,
      "\" y=\"24\">At stake</text><text class=\"sh-small\" "
      "x=\"12\" y=\"",
      height - 8,
      "\">Chips: a piece's colour is its first owner's (the dot by each "
      "seat), its size its pips (1, 2, 3). A: active, T: target, D: decides "
      "the payment.</text><line class=\"sh-rule\" x1=\"",
      kPanelX, "\" y1=\"0\" x2=\"", kPanelX, "\" y2=\"", height - 22,
      "\"/></g>");
}

// The throw count, the phase, and the open challenge's stakes; `y` ends
// below them.
std::string Stakes(const v1::PyramidShamboObservation& game, double& y) {
  std::string heading;
  switch (game.phase()) {
    case v1::SHAMBO_PHASE_THROW:
      // The throw being made is the next one.
      heading = absl::StrCat("Throw ", game.throws_made() + 1, " of at most ",
                             game.max_throws(), ": seat ", game.active(),
                             " and seat ", game.target(), " throw at once");
      break;
    case v1::SHAMBO_PHASE_CHALLENGE:
      heading =
          absl::StrCat("seat ", game.active(), " picks whom to challenge");
      break;
    case v1::SHAMBO_PHASE_PAYMENT:
      heading = absl::StrCat("seat ", game.decider(), " decides a payment");
      break;
    case v1::SHAMBO_PHASE_OVER:
      heading = "game over";
      break;
    default:
      break;
  }
  if (game.phase() != v1::SHAMBO_PHASE_THROW) {
    heading = absl::StrCat(game.throws_made(), " of at most ",
                           game.max_throws(), " throws made; ", heading);
  }
  std::string out = absl::StrCat("<g><text class=\"sh-h\" x=\"12\" y=\"24\">",
                                 heading, "</text>");
  // The stakes: ties of this challenge (the fee grows with each), counted
  // by shape, and the payment due, with its method.
  y = 46;
  if (game.phase() == v1::SHAMBO_PHASE_THROW) {
    Line(absl::StrCat("Challenge: seat ", game.active(), " vs seat ",
                      game.target(), "; ties so far ", game.ties()),
         y, out);
    int count[4] = {0, 0, 0, 0};
    for (const auto& t : game.tied_throws()) {
      const int hand = static_cast<int>(t.hand());
      ++count[hand >= 1 && hand <= 3 ? hand : 0];
    }
    std::vector<std::string> tied;
    for (int hand : {1, 2, 3, 0}) {
      if (count[hand] > 0) {
        tied.push_back(absl::StrCat(HandName(static_cast<v1::ShamboHand>(hand)),
                                    "\u00a0×", count[hand]));  // Never apart.
      }
    }
    if (!tied.empty()) {
      Line(absl::StrCat("tied on: ", absl::StrJoin(tied, ", ")), y, out);
    }
  }
  if (game.phase() == v1::SHAMBO_PHASE_PAYMENT) {
    const v1::ShamboPendingPayment& p = game.payment();
    Line(absl::StrCat(p.kind() == v1::SHAMBO_BONUS ? "Knock-Out bonus" : "Fee",
                      ": seat ", p.payer(), " owes seat ", p.payee(), " ",
                      p.amount(), " pip", p.amount() == 1 ? "" : "s"),
         y, out, "sh-due");
    Line(absl::StrCat(MethodName(p.method()), "; ", p.options(), " option",
                      p.options() == 1 ? "" : "s"),
         y, out);
  }
  if (!game.bonus_due().empty()) {
    Line(absl::StrCat("bonus still due from seats ",
                      absl::StrJoin(game.bonus_due(), ", ")),
         y, out);
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

// How many bytes of a seat's name its label holds: from kNameX to the role
// marker (13px), "seat N (" and "…)" around the name.
size_t NameRoom(int seat) {
  const std::string around = absl::StrCat("seat ", seat, " (.)");
  const double chars = (kChipsX - 36 - 8 - kNameX) / TextWidth("x", 13);
  const double room = chars - static_cast<double>(around.size());
  return room < 1 ? 1 : static_cast<size_t>(room);
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
                   "\" cx=\"18\" cy=\"", Px(y + 14), "\" r=\"6\"/><text x=\"",
                   kNameX, "\" y=\"", Px(y + 19), "\">",
                   SeatLabel(header, seat, NameRoom(seat)), "</text></g>"));
  add(absl::StrCat("<text class=\"sh-role\" x=\"", kChipsX - 36, "\" y=\"",
                   Px(y + 19), "\">", roles, "</text>"));
  std::string holding = "<g>";
  if (view.live()) {
    // Chips on a line, a second below it when they are many (the pips
    // after the last).
    double x = 0, chip_y = y + 14;
    Chips(view.holding(), kChipsX, kPanelX - 16 - kPipsW, 18, x, chip_y,
          holding);
    absl::StrAppend(&holding, "<text class=\"sh-pips\" x=\"", Px(x + 6),
                    "\" y=\"", Px(chip_y + 5), "\">", view.pips(),
                    view.pips() == 1 ? " pip" : " pips", "</text>");
  } else {
    absl::StrAppend(&holding, "<text x=\"", kChipsX, "\" y=\"", Px(y + 19),
                    "\">out (elimination group ", view.elimination_group(),
                    ")</text>");
  }
  absl::StrAppend(&holding, "</g>");
  add(std::move(holding));
  if (view.hands_thrown_size() == 3) {
    add(absl::StrCat("<text class=\"sh-small\" x=\"", kNameX, "\" y=\"",
                     Px(y + 34), "\">threw R", view.hands_thrown(0), " P",
                     view.hands_thrown(1), " S", view.hands_thrown(2),
                     "</text>"));
  }
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
    Line(absl::StrCat("change with seat ", e.provider(), ":"), y, out);
    ChipsLine("gives", e.payer_gives(), y, out);
    ChipsLine("for", e.provider_gives(), y, out);
  }
  ChipsLine("paid:", p.payment().pay(), y, out);
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

// The step just applied, below the stakes from `top`; `y` ends below it.
std::string Step(const v1::PyramidShamboResult& r, double top, double& y) {
  std::string out =
      absl::StrCat("<g class=\"sh-step\"><text class=\"sh-h\" x=\"", kTextX,
                   "\" y=\"", Px(top), "\">This step</text>");
  y = top + 22;
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
  double panel_end = 0;
  std::string stakes = Stakes(game, panel_end);
  std::string step;
  if (moment.result != nullptr && moment.result->has_pyramid_shambo()) {
    step = Step(moment.result->pyramid_shambo(),
                std::max<double>(kMinTop, panel_end + 16), panel_end);
  }
  // The rows or the panel, whichever is longer, then the legend.
  picture.height = std::max(
      {kTop + kRowHeight * seats + 24, static_cast<int>(panel_end) + 24, 300});
  picture.parts.push_back(Board(picture.height));
  picture.parts.push_back(std::move(stakes));
  for (int seat = 0; seat < seats; ++seat) {
    SeatRow(*moment.header, game, seat, picture.parts);
  }
  if (!step.empty()) picture.parts.push_back(std::move(step));
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
