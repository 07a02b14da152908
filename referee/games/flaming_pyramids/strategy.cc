#include "referee/games/flaming_pyramids/strategy.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "referee/games/flaming_pyramids/board.h"

namespace pyramid {
namespace {

using Observation = v1::FlamingPyramidsObservation;
using fp::Board;
using fp::Cell;
using fp::Mayhem;

// Falls searched both ways per evaluated action; later falls go left. Most
// mayhem has fewer falls than this; a long chain of free-air falls (a tall
// pyramid coming down) would otherwise cost 2^falls evaluations.
constexpr int kFallBudget = 8;

// Who receives what: the rules' receiver, and the seat before the active
// one, which becomes receiver after a curse.
struct Seats {
  int me = 0;
  int previous = 0;  // The seat before the active seat.
  bool curse = false;
};

// Carries out `mayhem` on `board` (a fall in `direction`) and returns the
// tiles it sends under our pile. Updates `receiver` as the rules do.
int ApplyEvent(const Mayhem& mayhem, v1::FpDirection direction,
               const Seats& seats, Board& board, int& receiver) {
  if (mayhem.kind == fp::MayhemKind::kCurse) receiver = seats.previous;
  for (Cell cell : mayhem.to_pile) board.Take(cell);
  for (Cell cell : mayhem.removed) board.Take(cell);
  if (mayhem.Falls()) {
    const int tile = board.Take(mayhem.cause);
    board.Put(direction == v1::FP_LEFT ? fp::LeftSupport(mayhem.cause)
                                       : fp::RightSupport(mayhem.cause),
              tile);
  }
  return receiver == seats.me ? static_cast<int>(mayhem.to_pile.size()) : 0;
}

// The tiles that come back under our pile while the mayhem on `board` plays
// out, each fall (within `budget`) taking the direction that brings back
// fewer.
int TilesBack(Board board, int receiver, const Seats& seats, int& budget) {
  int back = 0;
  while (true) {
    const std::optional<Mayhem> mayhem = fp::FindMayhem(board, seats.curse);
    if (!mayhem.has_value()) return back;
    if (mayhem->Falls() && budget > 0) {
      --budget;
      int best = std::numeric_limits<int>::max();
      for (v1::FpDirection direction : {v1::FP_LEFT, v1::FP_RIGHT}) {
        Board next = board;
        int next_receiver = receiver;
        const int now =
            ApplyEvent(*mayhem, direction, seats, next, next_receiver);
        best = std::min(best, now + TilesBack(std::move(next), next_receiver,
                                              seats, budget));
      }
      return back + best;
    }
    back += ApplyEvent(*mayhem, v1::FP_LEFT, seats, board, receiver);
  }
}

Board TableOf(const Observation& observation) {
  Board board;
  for (const v1::FpCell& cell : observation.pyramid()) {
    board.Put(Cell{static_cast<int>(cell.row()), cell.x()},
              static_cast<int>(cell.tile()));
  }
  return board;
}

// Whether `tile` placed at `spot` sets off no mayhem at all.
bool FitsCleanly(const Board& board, int tile, Cell spot, bool curse) {
  Board next = board;
  next.Put(spot, tile);
  return !fp::FindMayhem(next, curse).has_value();
}

v1::Action ChooseFall(const v1::DecisionRequest& request, const Board& board,
                      int receiver, const Seats& seats, RandomStream& stream) {
  // The pending fall is the first mayhem the checks find on the table.
  const std::optional<Mayhem> fall = fp::FindMayhem(board, seats.curse);
  if (!fall.has_value() || !fall->Falls()) return request.legal_actions(0);
  std::vector<double> scores;
  for (const v1::Action& action : request.legal_actions()) {
    Board next = board;
    int next_receiver = receiver;
    int budget = kFallBudget;
    const int now = ApplyEvent(*fall, action.flaming_pyramids().fall(), seats,
                               next, next_receiver);
    scores.push_back(
        -(now + TilesBack(std::move(next), next_receiver, seats, budget)));
  }
  return request.legal_actions(PickBest(scores, stream));
}

v1::Action ChoosePlacement(const v1::DecisionRequest& request,
                           const Observation& observation, const Board& board,
                           const Seats& seats, RandomStream& stream) {
  // How many legal spots each hand tile fits without any mayhem.
  std::vector<Cell> spots;
  for (const v1::FpSpot& spot : observation.legal_spots()) {
    spots.push_back(Cell{static_cast<int>(spot.row()), spot.x()});
  }
  std::map<int, int> clean_spots;
  for (uint32_t tile : observation.seats(seats.me).own_hand()) {
    clean_spots[tile] = static_cast<int>(
        std::count_if(spots.begin(), spots.end(), [&](Cell spot) {
          return FitsCleanly(board, static_cast<int>(tile), spot, seats.curse);
        }));
  }
  std::vector<double> scores;
  for (const v1::Action& action : request.legal_actions()) {
    const v1::FpPlace& place = action.flaming_pyramids().place();
    const int tile = static_cast<int>(place.tile());
    Board next = board;
    next.Put(Cell{static_cast<int>(place.row()), place.x()}, tile);
    int budget = kFallBudget;
    const int back =
        TilesBack(std::move(next), static_cast<int>(observation.receiver()),
                  seats, budget);
    // Fewest tiles back first (at most 45, so this key dominates); then the
    // tile that fits the fewest spots now.
    scores.push_back(-back * 1000.0 - clean_spots[tile]);
  }
  return request.legal_actions(PickBest(scores, stream));
}

}  // namespace

v1::Action FlamingPyramidsStrategy::Choose(const v1::DecisionRequest& request,
                                           RandomStream& stream) {
  if (request.legal_actions().empty()) return v1::Action();
  const Observation& observation = request.observation().flaming_pyramids();
  const int num_seats = static_cast<int>(request.num_seats());
  const int active = static_cast<int>(observation.active_seat());
  const Seats seats{.me = static_cast<int>(request.seat()),
                    .previous = (active + num_seats - 1) % num_seats,
                    .curse = observation.curse()};
  const Board board = TableOf(observation);
  if (observation.phase() == v1::FP_FALL) {
    return ChooseFall(request, board, static_cast<int>(observation.receiver()),
                      seats, stream);
  }
  return ChoosePlacement(request, observation, board, seats, stream);
}

}  // namespace pyramid
