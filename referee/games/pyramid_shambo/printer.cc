#include "referee/games/pyramid_shambo/printer.h"

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid::shambo {
namespace {

namespace v1 = ::pyramid::referee::v1;

using PieceList = google::protobuf::RepeatedPtrField<v1::ShamboPiece>;

constexpr std::array<const char*, 10> kColours = {
    "red",   "yellow", "green",  "blue", "black",
    "white", "orange", "purple", "cyan", "clear"};

std::string ColourName(int colour_value) {
  const int index = colour_value - 1;
  return index >= 0 && index < static_cast<int>(kColours.size())
             ? kColours[index]
             : "?";
}

std::string Seat(uint32_t seat) {
  return absl::StrCat("seat ", seat, " (", ColourName(seat + 1), ")");
}

std::string PieceName(const v1::ShamboPiece& piece) {
  static constexpr const char* kSizes[] = {"?", "Small", "Medium", "Large"};
  const int size = piece.size() >= 1 && piece.size() <= 3 ? piece.size() : 0;
  return absl::StrCat(ColourName(piece.colour()), " ", kSizes[size]);
}

std::string Pieces(const PieceList& pieces) {
  if (pieces.empty()) return "nothing";
  std::vector<std::string> names;
  for (const v1::ShamboPiece& piece : pieces) names.push_back(PieceName(piece));
  return absl::StrJoin(names, ", ");
}

int Pips(const PieceList& pieces) {
  int pips = 0;
  for (const v1::ShamboPiece& piece : pieces) pips += piece.size();
  return pips;
}

std::string MethodName(v1::ShamboPaymentMethod method) {
  switch (method) {
    case v1::SHAMBO_EXACT:
      return "exact";
    case v1::SHAMBO_PAY_ALL:
      return "pays everything";
    case v1::SHAMBO_CHANGE:
      return "with change";
    case v1::SHAMBO_OVERPAY:
      return "overpaying, nobody can make change";
    default:
      return "?";
  }
}

void PrintHoldings(
    const google::protobuf::RepeatedPtrField<v1::ShamboSeatHolding>& holdings,
    std::ostream& out) {
  out << "    holdings:\n";
  for (int seat = 0; seat < holdings.size(); ++seat) {
    const PieceList& pieces = holdings.Get(seat).pieces();
    out << "      " << Seat(seat) << ": ";
    if (pieces.empty()) {
      out << "out\n";
    } else {
      out << Pieces(pieces) << " (" << Pips(pieces) << " pips)\n";
    }
  }
}

void PrintThrow(const v1::ShamboThrowResult& t, const std::string& source,
                std::ostream& out) {
  out << "  throw " << t.throw_number() << ": " << Seat(t.active()) << " "
      << HandName(t.active_hand()) << ", " << Seat(t.target()) << " "
      << HandName(t.target_hand()) << source << " -> ";
  if (t.tie()) {
    out << "tie (" << t.ties() + 1 << " so far)";
  } else {
    out << Seat(t.winner()) << " wins";
    if (!t.limit_reached()) {
      out << "; fee " << t.fee() << " pip" << (t.fee() == 1 ? "" : "s");
      if (t.doubled()) out << " (" << t.fee() / 2 << " doubled: showdown)";
    }
  }
  out << "\n";
  if (t.limit_reached()) {
    out << "    move limit reached: game over, no fee paid\n";
  }
}

void PrintPayment(const v1::ShamboPaymentResult& p, const std::string& source,
                  std::ostream& out) {
  out << "  " << (p.kind() == v1::SHAMBO_BONUS ? "bonus" : "fee") << ": "
      << Seat(p.payer()) << " owes " << Seat(p.payee()) << " " << p.amount()
      << " pip" << (p.amount() == 1 ? "" : "s") << " ("
      << MethodName(p.method()) << "), decided by " << Seat(p.decider())
      << (p.canonical() ? " [canonical]" : "") << source << "\n";
  if (p.payment().has_exchange()) {
    const v1::ShamboExchange& e = p.payment().exchange();
    out << "    change: " << Seat(p.payer()) << " gives "
        << Pieces(e.payer_gives()) << " to " << Seat(e.provider()) << " for "
        << Pieces(e.provider_gives()) << "\n";
  }
  out << "    pays " << Pieces(p.payment().pay()) << " (" << p.paid() << " pip"
      << (p.paid() == 1 ? "" : "s") << ")\n";
  for (const v1::ShamboElimination& e : p.eliminations()) {
    out << "    " << Seat(e.seat())
        << (e.cause() == v1::SHAMBO_KNOCKED_OUT ? " knocked out"
                                                : " eliminated (cascade)")
        << ", elimination group " << e.group();
    std::vector<std::string> removed;
    for (const v1::ShamboHeldPiece& held : e.removed()) {
      removed.push_back(
          absl::StrCat(PieceName(held.piece()), " from seat ", held.holder()));
    }
    out << "; " << ColourName(e.seat() + 1) << " removed: "
        << (removed.empty() ? "none" : absl::StrJoin(removed, ", ")) << "\n";
  }
  if (!p.bonus_due().empty()) {
    std::vector<std::string> payers;
    for (uint32_t seat : p.bonus_due()) payers.push_back(Seat(seat));
    out << "    Knock-Out bonus: 1 pip each to " << Seat(p.payee()) << " from "
        << absl::StrJoin(payers, ", ") << "\n";
  }
  if (p.bonus_cancelled()) {
    out << "    the winner is out: bonus payments not yet made are "
           "cancelled\n";
  }
  if (p.turn_over()) PrintHoldings(p.holdings(), out);
  if (p.game_over()) {
    out << "    game over\n";
  } else if (p.turn_over()) {
    out << "    next turn: " << Seat(p.next_active()) << "\n";
  }
}

void PrintView(const v1::Observation& view, std::ostream& out) {
  const v1::PyramidShamboObservation& o = view.pyramid_shambo();
  out << "  " << o.seats_size() << " seats; move limit " << o.max_throws()
      << " throws; first player " << Seat(o.first_player()) << "\n";
  for (int seat = 0; seat < o.seats_size(); ++seat) {
    out << "  " << Seat(seat) << ": " << Pieces(o.seats(seat).holding())
        << "\n";
  }
}

void PrintApplied(const v1::Applied& applied, std::ostream& out) {
  const v1::PyramidShamboResult& r = applied.result().pyramid_shambo();
  const std::string source = MoveSourceNotes(applied);
  switch (r.step_case()) {
    case v1::PyramidShamboResult::kChallenge:
      out << "  " << Seat(r.challenge().active()) << " challenges "
          << Seat(r.challenge().target()) << source << "\n";
      break;
    case v1::PyramidShamboResult::kThrowResult:
      PrintThrow(r.throw_result(), source, out);
      break;
    case v1::PyramidShamboResult::kPayment:
      PrintPayment(r.payment(), source, out);
      break;
    case v1::PyramidShamboResult::STEP_NOT_SET:
      out << "  (empty result)\n";
      break;
  }
}

}  // namespace

constexpr GamePrinter kPrinter = {&PrintView, &PrintApplied};

}  // namespace pyramid::shambo
