#include "referee/games/flaming_pyramids/board.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp {
namespace {

using CellSet = std::set<Cell, ScanLess>;

// Whether `tile` matches `support` for the two-support rule: a colour in
// common or the same weight.
bool Matches(int tile, int support) {
  return ShareColour(tile, support) ||
         Tile(tile).weight == Tile(support).weight;
}

// Checks 1 and 2 in one scan, each tile's supports looked up once: the
// first tile in free air, else the first that breaks the building rule.
std::optional<Mayhem> FindFreeAirOrCollapse(const Board& board) {
  std::optional<Mayhem> collapse;
  for (const auto& [cell, tile] : board.cells()) {
    if (cell.row == 0) break;  // Scan order: row 0 comes last, and fits.
    const std::optional<int> left = board.At(LeftSupport(cell));
    const std::optional<int> right = board.At(RightSupport(cell));
    if (!left.has_value() && !right.has_value()) {
      Mayhem mayhem;
      mayhem.kind = MayhemKind::kFreeAir;
      mayhem.cause = cell;
      return mayhem;
    }
    if (collapse.has_value() || Board::Fits(tile, left, right)) continue;
    collapse.emplace();
    collapse->kind = MayhemKind::kCollapse;
    collapse->cause = cell;
    if (left.has_value()) collapse->to_pile.push_back(LeftSupport(cell));
    if (right.has_value()) collapse->to_pile.push_back(RightSupport(cell));
  }
  return collapse;
}

// The occupied neighbours of `cell` whose tiles satisfy `pred`.
template <typename Pred>
std::vector<Cell> NeighboursWhere(const Board& board, Cell cell, Pred pred) {
  std::vector<Cell> found;
  for (Cell next : Neighbours(cell)) {
    std::optional<int> tile = board.At(next);
    if (tile.has_value() && pred(*tile)) found.push_back(next);
  }
  return found;
}

// Whether some occupied neighbour of `cell` holds a tile satisfying `pred`.
template <typename Pred>
bool AnyNeighbourWhere(const Board& board, Cell cell, Pred pred) {
  for (Cell next : Neighbours(cell)) {
    std::optional<int> tile = board.At(next);
    if (tile.has_value() && pred(*tile)) return true;
  }
  return false;
}

// Every cell reachable from `starts` by adjacency over tiles satisfying
// `pred` (the starts included; they must satisfy it).
template <typename Pred>
CellSet Reach(const Board& board, const std::vector<Cell>& starts, Pred pred) {
  CellSet reached(starts.begin(), starts.end());
  std::vector<Cell> frontier(starts.begin(), starts.end());
  while (!frontier.empty()) {
    const Cell cell = frontier.back();
    frontier.pop_back();
    for (Cell next : NeighboursWhere(board, cell, pred)) {
      if (reached.insert(next).second) frontier.push_back(next);
    }
  }
  return reached;
}

// The explosion of the first incendiary group in scan order.
Mayhem Explosion(const Board& board, Cell cell) {
  const CellSet group = Reach(board, {cell}, IsIncendiary);
  CellSet contacts;
  for (Cell member : group) {
    for (Cell next : NeighboursWhere(board, member,
                                     [](int t) { return !IsIncendiary(t); })) {
      contacts.insert(next);
    }
  }
  return Mayhem{.kind = MayhemKind::kExplosion,
                .cause = cell,
                .to_pile = {contacts.begin(), contacts.end()},
                .removed = {group.begin(), group.end()}};
}

// The fire of the incendiary at `cell`, which has a neighbour it burns.
Mayhem Fire(const Board& board, Cell cell, int incendiary) {
  auto burns = [incendiary](int t) { return CanBurn(incendiary, t); };
  const CellSet burnt =
      Reach(board, NeighboursWhere(board, cell, burns), burns);
  return Mayhem{.kind = MayhemKind::kFire,
                .cause = cell,
                .to_pile = {burnt.begin(), burnt.end()},
                .removed = {cell}};
}

// Checks 3 and 4 in one scan of the incendiaries: the first with an
// incendiary neighbour explodes; else the first with a neighbour it burns
// burns.
std::optional<Mayhem> FindExplosionOrFire(const Board& board) {
  std::optional<std::pair<Cell, int>> fire;
  for (const auto& [cell, tile] : board.cells()) {
    if (!IsIncendiary(tile)) continue;
    if (AnyNeighbourWhere(board, cell, IsIncendiary)) {
      return Explosion(board, cell);
    }
    const int incendiary = tile;
    if (!fire.has_value() &&
        AnyNeighbourWhere(board, cell, [incendiary](int t) {
          return CanBurn(incendiary, t);
        })) {
      fire.emplace(cell, tile);
    }
  }
  if (!fire.has_value()) return std::nullopt;
  return Fire(board, fire->first, fire->second);
}

std::optional<Mayhem> FindCurse(const Board& board) {
  for (const auto& [apex, tile] : board.cells()) {
    if (apex.row < 1) break;  // Scan order: row 0 comes last.
    const std::optional<int> left = board.At(LeftSupport(apex));
    const std::optional<int> right = board.At(RightSupport(apex));
    if (!left.has_value() || !right.has_value()) continue;
    const int weight = Tile(tile).weight;
    if (Tile(*left).weight != weight || Tile(*right).weight != weight) {
      continue;
    }
    return Mayhem{.kind = MayhemKind::kCurse,
                  .cause = apex,
                  .to_pile = {apex, LeftSupport(apex), RightSupport(apex)},
                  .removed = {}};
  }
  return std::nullopt;
}

}  // namespace

std::array<Cell, 6> Neighbours(Cell cell) {
  const int r = cell.row;
  const int x = cell.x;
  return {Cell{r, x - 1},     Cell{r, x + 1},     Cell{r - 1, x},
          Cell{r - 1, x + 1}, Cell{r + 1, x - 1}, Cell{r + 1, x}};
}

void Board::Put(Cell cell, int tile) {
  const auto it = LowerBound(cell);
  if (it != cells_.end() && it->first == cell) return;  // Occupied.
  cells_.insert(it, {cell, tile});
}

int Board::Take(Cell cell) {
  const auto it = LowerBound(cell);
  const int tile = it->second;
  cells_.erase(it);
  return tile;
}

std::vector<Cell> Board::LegalSpots() const {
  if (cells_.empty()) return {Cell{0, 0}};
  if (cells_.size() == 1) {
    const Cell only = cells_.begin()->first;
    return {Cell{0, only.x - 1}, Cell{0, only.x + 1}};
  }
  // Found in scan order, each once: the slots on two tiles come from the
  // tiles' scan (a row above theirs, so rows still descend, x ascending),
  // then the gaps of row 0, which comes last.
  std::vector<Cell> spots;
  std::optional<int> min_x;
  std::optional<int> max_x;
  for (const auto& [cell, tile] : cells_) {
    if (Has(Cell{cell.row, cell.x + 1}) && !Has(Cell{cell.row + 1, cell.x})) {
      spots.push_back(Cell{cell.row + 1, cell.x});
    }
    if (cell.row != 0) continue;
    if (!min_x.has_value() || cell.x < *min_x) min_x = cell.x;
    if (!max_x.has_value() || cell.x > *max_x) max_x = cell.x;
  }
  if (!min_x.has_value()) return spots;
  for (int x = *min_x + 1; x < *max_x; ++x) {
    if (!Has(Cell{0, x})) spots.push_back(Cell{0, x});
  }
  if (spots.empty()) return {Cell{0, *min_x - 1}, Cell{0, *max_x + 1}};
  return spots;
}

bool Board::IsLegalSpot(Cell cell) const {
  auto listed = [&] {
    const std::vector<Cell> spots = LegalSpots();
    return std::find(spots.begin(), spots.end(), cell) != spots.end();
  };
  if (cells_.size() < 2 || cell.row < 0) return listed();
  if (Has(cell)) return false;
  // Above row 0, exactly the empty slots on two tiles.
  if (cell.row >= 1) return Has(LeftSupport(cell)) && Has(RightSupport(cell));
  // Row 0 comes last in scan order: its leftmost and rightmost tiles.
  const auto row0 = LowerBound(Cell{0, std::numeric_limits<int>::min()});
  if (row0 == cells_.end()) return listed();
  const int min_x = row0->first.x;
  const int max_x = cells_.back().first.x;
  if (min_x < cell.x && cell.x < max_x) return true;  // A gap.
  // Beside the row: legal only when no other spot is.
  return (cell.x == min_x - 1 || cell.x == max_x + 1) && listed();
}

bool Board::Fits(Cell cell) const {
  if (cell.row == 0) return true;
  return Fits(*At(cell), At(LeftSupport(cell)), At(RightSupport(cell)));
}

bool Board::Fits(int tile, std::optional<int> left, std::optional<int> right) {
  const int weight = Tile(tile).weight;
  if (left.has_value() && right.has_value()) {
    return (Matches(tile, *left) || Matches(tile, *right)) &&
           weight <= Tile(*left).weight + Tile(*right).weight;
  }
  if (left.has_value() || right.has_value()) {
    const int support = left.has_value() ? *left : *right;
    return ShareColour(tile, support) && weight <= Tile(support).weight;
  }
  return false;
}

bool Board::InFreeAir(Cell cell) const {
  return cell.row >= 1 && !Has(LeftSupport(cell)) && !Has(RightSupport(cell));
}

std::optional<Mayhem> FindMayhem(const Board& board, bool curse) {
  if (std::optional<Mayhem> m = FindFreeAirOrCollapse(board)) return m;
  if (std::optional<Mayhem> m = FindExplosionOrFire(board)) return m;
  if (curse) return FindCurse(board);
  return std::nullopt;
}

}  // namespace pyramid::fp
