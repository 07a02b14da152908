// Flaming Pyramids: the table's geometry, the legal spots, the building rule
// and the search for the next mayhem event (rules page, "Geometry",
// "A turn", "Building rule", "Mayhem"). Pure functions of the layout; the
// state (state.cc, moves.cc) decides whose pile receives what.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_BOARD_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_BOARD_H_

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace pyramid::fp {

// A slot of the table: row 0 is the bottom; columns are unbounded.
struct Cell {
  int row = 0;
  int x = 0;
  friend bool operator==(const Cell&, const Cell&) = default;
};

// Scan order: rows top to bottom, within a row left to right.
struct ScanLess {
  bool operator()(const Cell& a, const Cell& b) const {
    if (a.row != b.row) return a.row > b.row;
    return a.x < b.x;
  }
};

// The two slots a tile at `cell` (row >= 1) rests on.
constexpr Cell LeftSupport(Cell cell) { return {cell.row - 1, cell.x}; }
constexpr Cell RightSupport(Cell cell) { return {cell.row - 1, cell.x + 1}; }

// The six slots in direct contact with `cell` (row -1 slots included; they
// are never occupied).
std::array<Cell, 6> Neighbours(Cell cell);

// The layout of the table: which tile is in which slot.
class Board {
 public:
  // (slot, tile id) pairs in scan order. A table holds a few dozen tiles,
  // so a sorted vector (binary search, contiguous scans) beats a tree.
  using Cells = std::vector<std::pair<Cell, int>>;

  bool empty() const { return cells_.empty(); }
  int size() const { return static_cast<int>(cells_.size()); }
  const Cells& cells() const { return cells_; }

  bool Has(Cell cell) const { return At(cell).has_value(); }
  // The tile at `cell`, or nullopt. Inline: the mayhem search asks it for
  // every tile's supports and neighbours after every move.
  std::optional<int> At(Cell cell) const {
    const auto it = LowerBound(cell);
    if (it == cells_.end() || !(it->first == cell)) return std::nullopt;
    return it->second;
  }
  // Requires `cell` empty and row >= 0.
  void Put(Cell cell, int tile);
  // Removes and returns the tile at `cell`, which must be occupied.
  int Take(Cell cell);

  // The legal spots for a placement, in scan order (rules, "A turn" 1).
  // Requires a non-empty board to have a row-0 tile.
  std::vector<Cell> LegalSpots() const;

  // Whether a placement may go at `cell`: the same answer as looking for
  // it in LegalSpots(), without listing them all when it is one.
  bool IsLegalSpot(Cell cell) const;

  // Whether the tile at `cell` (occupied) obeys the building rule: always on
  // row 0; on two supports it matches one in colour or weight and weighs at
  // most their sum; on one support and a gap it shares that support's
  // colour and weighs at most as much; with no support, false.
  bool Fits(Cell cell) const;
  // The same rule for `tile` on row >= 1 resting on `left` and `right`
  // (the tiles of its supports, nullopt for a gap).
  static bool Fits(int tile, std::optional<int> left, std::optional<int> right);

  // Whether the tile at `cell` (occupied) is on row >= 1 with neither
  // support present.
  bool InFreeAir(Cell cell) const;

 private:
  // The first pair whose cell is not before `cell` in scan order.
  Cells::const_iterator LowerBound(Cell cell) const {
    return std::lower_bound(cells_.begin(), cells_.end(), cell,
                            [](const std::pair<Cell, int>& entry, Cell c) {
                              return ScanLess()(entry.first, c);
                            });
  }

  Cells cells_;
};

// The kinds of mayhem, in the fixed order of the checks.
enum class MayhemKind { kFreeAir, kCollapse, kExplosion, kFire, kCurse };

// The next mayhem event, as found on the layout before it happens.
struct Mayhem {
  MayhemKind kind = MayhemKind::kFreeAir;
  // The falling tile (free air, collapse), the first incendiary of the
  // group in scan order (explosion), the burning incendiary (fire), or the
  // apex (curse).
  Cell cause;
  // Tiles that go under a pile, in the order they go: collapse left then
  // right support (those present); explosion and fire in scan order; curse
  // apex, left, right.
  std::vector<Cell> to_pile;
  // Tiles that leave the game, in scan order (explosion: the group; fire:
  // the incendiary).
  std::vector<Cell> removed;

  // Free air and collapse end with `cause` falling, which needs a direction.
  bool Falls() const {
    return kind == MayhemKind::kFreeAir || kind == MayhemKind::kCollapse;
  }
};

// The first mayhem event the checks find, in order: free air, collapse,
// explosion, fire, then (only if `curse`) the curse. nullopt when mayhem is
// over.
std::optional<Mayhem> FindMayhem(const Board& board, bool curse);

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_BOARD_H_
