#include "referee/games/rock_paper_pyramid/printer.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pyramid::rpp {
namespace {

namespace v1 = ::pyramid::referee::v1;

std::string PieceName(const v1::RppPiece& piece) {
  static constexpr const char* kColours[] = {"?", "Black", "White", "Crystal",
                                             "Red"};
  static constexpr const char* kSizes[] = {"?", "Large", "Medium", "Small"};
  const int colour =
      piece.colour() >= 0 && piece.colour() <= 4 ? piece.colour() : 0;
  const int size = piece.size() >= 0 && piece.size() <= 3 ? piece.size() : 0;
  return absl::StrCat(kColours[colour], " ", kSizes[size]);
}

std::string ResolutionName(v1::RppResolution resolution) {
  switch (resolution) {
    case v1::RPP_CAPTURES:
      return "captures";
    case v1::RPP_WASHOUT:
      return "Washout (null round)";
    case v1::RPP_STANDOFF:
      return "Standoff (null round)";
    case v1::RPP_WISHBONE:
      return "Wishbone (null round)";
    default:
      return "?";
  }
}

void PrintView(const v1::Observation& view, std::ostream& out) {
  const v1::RockPaperPyramidObservation& o = view.rock_paper_pyramid();
  out << "  " << o.total_rounds() << " rounds\n";
  for (int seat = 0; seat < o.seats_size(); ++seat) {
    std::vector<std::string> pool;
    for (const v1::RppPiece& piece : o.seats(seat).pool()) {
      pool.push_back(PieceName(piece));
    }
    out << "  seat " << seat << " pool: " << absl::StrJoin(pool, ", ") << "\n";
  }
}

void PrintApplied(const v1::Applied& applied, std::ostream& out) {
  const v1::RockPaperPyramidRoundResult& r =
      applied.result().rock_paper_pyramid();
  out << "  round " << r.round() << ":";
  for (int seat = 0; seat < r.played_size(); ++seat) {
    out << (seat == 0 ? " " : ", ") << "seat " << seat << " "
        << PieceName(r.played(seat));
  }
  out << MoveSourceNotes(applied);
  out << "\n    -> " << ResolutionName(r.resolution());
  for (const v1::RppCapture& c : r.captures()) {
    out << "; seat " << c.claimant() << " takes " << PieceName(c.piece())
        << " of seat " << c.captured();
  }
  for (uint32_t seat : r.kept()) out << "; seat " << seat << " keeps its piece";
  out << "\n    scores " << absl::StrJoin(r.scores(), " / ") << "\n";
}

}  // namespace

constexpr GamePrinter kPrinter = {&PrintView, &PrintApplied};

}  // namespace pyramid::rpp
