#include "referee/games/flaming_pyramids/printer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"

namespace pyramid::fp {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Tile labels from the ids of proto/pyramid/referee/v1/flaming_pyramids.proto
// (the printer reads only the public proto): colour letter and weight;
// "M200" the Millstone; "Gc1"/"Yc1" the Coals; "Rb7"/"Bb7" the Blowtorches.
std::string Label(uint32_t tile) {
  static constexpr const char kColours[] = "YRGB";
  static constexpr int kWeights[] = {2, 4, 6, 10, 20, 30, 40, 60, 100, 120};
  if (tile < 40) {
    return absl::StrCat(std::string(1, kColours[tile / 10]),
                        kWeights[tile % 10]);
  }
  switch (tile) {
    case 40:
      return "M200";
    case 41:
      return "Gc1";
    case 42:
      return "Yc1";
    case 43:
      return "Rb7";
    case 44:
      return "Bb7";
    default:
      return absl::StrCat("?", tile);
  }
}

std::string At(uint32_t row, int32_t x) {
  return absl::StrCat("(", row, ",", x, ")");
}

std::string Direction(v1::FpDirection direction) {
  switch (direction) {
    case v1::FP_LEFT:
      return "left";
    case v1::FP_RIGHT:
      return "right";
    default:
      return "?";
  }
}

std::string KindName(v1::FpEventKind kind) {
  switch (kind) {
    case v1::FP_FREE_AIR:
      return "free air";
    case v1::FP_COLLAPSE:
      return "collapse";
    case v1::FP_EXPLOSION:
      return "explosion";
    case v1::FP_FIRE:
      return "fire";
    case v1::FP_CURSE:
      return "curse";
    default:
      return "?";
  }
}

// Draws the table, top row first. Tile (r, x) sits half a cell right of
// (r-1, x), between its two supports; a ruler gives row 0's columns.
void DrawPyramid(const google::protobuf::RepeatedPtrField<v1::FpCell>& cells,
                 std::ostream& out) {
  if (cells.empty()) {
    out << "    (empty table)\n";
    return;
  }
  constexpr int kHalf = 3;  // Half a cell, in characters.
  int min_pos = 0;
  int max_pos = 0;
  int max_row = 0;
  bool first = true;
  for (const v1::FpCell& cell : cells) {
    const int pos = 2 * cell.x() + static_cast<int>(cell.row());
    min_pos = first ? pos : std::min(min_pos, pos);
    max_pos = first ? pos : std::max(max_pos, pos);
    max_row = std::max(max_row, static_cast<int>(cell.row()));
    first = false;
  }
  const int width = (max_pos - min_pos + 2) * kHalf;
  for (int row = max_row; row >= 0; --row) {
    std::string line(static_cast<size_t>(width), ' ');
    for (const v1::FpCell& cell : cells) {
      if (static_cast<int>(cell.row()) != row) continue;
      const int pos = 2 * cell.x() + row;
      std::string label = absl::StrCat("[", Label(cell.tile()));
      label.resize(5, ' ');
      label += "]";
      line.replace(static_cast<size_t>((pos - min_pos) * kHalf), label.size(),
                   label);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << "    r" << row << (row < 10 ? "  " : " ") << line << "\n";
  }
  std::string ruler(static_cast<size_t>(width + 8), ' ');
  for (int pos = min_pos + (min_pos % 2 != 0 ? 1 : 0); pos <= max_pos;
       pos += 2) {
    const std::string x = absl::StrCat(pos / 2);
    ruler.replace(static_cast<size_t>((pos - min_pos) * kHalf + 1), x.size(),
                  x);
  }
  ruler.erase(ruler.find_last_not_of(' ') + 1);
  out << "    x=  " << ruler << "\n";
}

std::string MoveLine(const v1::FpTileMove& move) {
  const std::string tile = absl::StrCat(
      Label(move.tile()), " ", At(move.from_row(), move.from_x()), " -> ");
  switch (move.to()) {
    case v1::FP_TO_TABLE:
      return absl::StrCat(tile, At(move.to_row(), move.to_x()));
    case v1::FP_TO_PILE:
      return absl::StrCat(tile, "under seat ", move.pile_seat(), "'s pile");
    case v1::FP_TO_REMOVED:
      return absl::StrCat(tile, "out of the game");
    default:
      return absl::StrCat(tile, "?");
  }
}

// Whether a collapse's supports are off the table (`pyramid`) already:
// so under rules version 2, where they go when the collapse is found;
// version 1 leaves them on the table until the fall.
bool SupportsLeftTheTable(
    const v1::FpPendingFall& pending,
    const google::protobuf::RepeatedPtrField<v1::FpCell>& pyramid) {
  if (pending.kind() != v1::FP_COLLAPSE || pending.supports().empty()) {
    return false;
  }
  for (const v1::FpCell& support : pending.supports()) {
    for (const v1::FpCell& cell : pyramid) {
      if (cell.tile() == support.tile()) return false;
    }
  }
  return true;
}

void PrintEvent(const v1::FpEvent& event, std::ostream& out) {
  out << "    " << KindName(event.kind()) << " (" << Label(event.cause())
      << ")";
  switch (event.kind()) {
    case v1::FP_FREE_AIR:
      out << ": no support; seat " << event.receiver() << " lets it fall "
          << Direction(event.direction());
      break;
    case v1::FP_COLLAPSE:
      out << ": breaks the building rule; seat " << event.receiver()
          << " lets it fall " << Direction(event.direction());
      break;
    case v1::FP_EXPLOSION:
      out << ": touching incendiaries explode";
      break;
    case v1::FP_FIRE:
      out << ": burns";
      break;
    case v1::FP_CURSE:
      out << ": three of one weight; seat " << event.receiver()
          << " receives and chooses for the rest of the turn";
      break;
    default:
      break;
  }
  out << "\n";
  for (const v1::FpTileMove& move : event.moves()) {
    out << "      " << MoveLine(move) << "\n";
  }
}

void PrintView(const v1::Observation& view, std::ostream& out) {
  const v1::FlamingPyramidsObservation& o = view.flaming_pyramids();
  out << "  " << o.seats_size() << " seats, curse "
      << (o.curse() ? "on" : "off") << ", at most " << o.max_turns()
      << " turns; seat " << o.active_seat() << " plays first\n";
  for (int seat = 0; seat < o.seats_size(); ++seat) {
    const v1::FpSeatView& s = o.seats(seat);
    out << "  seat " << seat << ": " << s.hand_size() << " in hand, pile "
        << s.pile_size() << " (" << s.dealt_left() << " face down)\n";
  }
  if (!o.removed().empty()) {
    std::vector<std::string> removed;
    for (uint32_t tile : o.removed()) removed.push_back(Label(tile));
    out << "  out of the game: " << absl::StrJoin(removed, " ") << "\n";
  }
  out << "  tiles: colour (Y R G B) and weight; M200 the Millstone; Gc1 Yc1 "
         "Coals; Rb7 Bb7 Blowtorches\n";
  out << "  table:\n";
  DrawPyramid(o.pyramid(), out);
}

void PrintApplied(const v1::Applied& applied, std::ostream& out) {
  const v1::FlamingPyramidsResult& r = applied.result().flaming_pyramids();
  const std::string source = MoveSourceNotes(applied);
  if (r.has_placed()) {
    out << "  turn " << r.turn() << ": seat " << r.seat() << " places "
        << Label(r.placed().tile()) << " at "
        << At(r.placed().row(), r.placed().x()) << source << "\n";
  } else {
    out << "  turn " << r.turn() << ": seat " << r.seat() << " chooses a fall"
        << source << "\n";
  }
  for (const v1::FpEvent& event : r.events()) PrintEvent(event, out);
  if (r.has_pending()) {
    const v1::FpPendingFall& p = r.pending();
    out << "    next: " << KindName(p.kind()) << " (" << Label(p.tile())
        << " at " << At(p.row(), p.x()) << "); seat " << p.chooser()
        << " chooses where it falls\n";
    if (SupportsLeftTheTable(p, r.pyramid())) {
      // Rules version 2: the supports go when the collapse is found, so
      // they are said here, with the position they leave; the fall's
      // result lists them again, reporting the collapse whole.
      out << "    its supports go under seat " << p.chooser()
          << "'s pile now, before the fall:\n";
      for (const v1::FpCell& support : p.supports()) {
        out << "      " << Label(support.tile()) << " "
            << At(support.row(), support.x()) << " -> under seat "
            << p.chooser() << "'s pile\n";
      }
    }
  }
  if (!r.has_turn_end()) return;
  const v1::FpTurnEnd& end = r.turn_end();
  out << "    seat " << r.active_seat() << " draws " << end.drawn()
      << "; tiles held: " << absl::StrJoin(end.held(), " / ") << "\n";
  if (end.won()) {
    out << "    seat " << r.active_seat() << " holds no tile: it wins\n";
  }
  if (end.move_limit()) out << "    move limit reached\n";
  DrawPyramid(r.pyramid(), out);
}

}  // namespace

constexpr GamePrinter kPrinter = {&PrintView, &PrintApplied};

}  // namespace pyramid::fp
