// Test support for Flaming Pyramids: tile ids by colour and weight, compact
// positions and layouts, actions, and a few checks shared by the test files.
// Used only by this directory's *_test.cc files.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TESTING_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TESTING_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/game.h"
#include "referee/games/testing.h"

namespace pyramid::fp::testing {

using namespace ::pyramid::game_testing;  // NOLINT: the shared helpers

// Tile ids of the regular tiles by weight (2 .. 120).
int Y(int weight);
int R(int weight);
int G(int weight);
int B(int weight);

// A tile on the table, for building and comparing layouts.
struct Placed {
  int row = 0;
  int x = 0;
  int tile = 0;
  friend bool operator==(const Placed&, const Placed&) = default;
};
void PrintTo(const Placed& placed, std::ostream* out);

Board MakeBoard(std::initializer_list<Placed> cells);

// The state's table in scan order.
std::vector<Placed> Layout(const State& state);
// `cells` sorted into scan order.
std::vector<Placed> InScanOrder(std::vector<Placed> cells);

v1::GameConfig Config(bool curse = false, uint32_t max_turns = 0);

// The placement-phase state at `position` under `config`, `rules_version`
// as for MakeGameOf (0: the latest); nullptr, after a test failure, when
// NewStateForTesting refuses it.
std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config = Config(),
                               uint32_t rules_version = 0);

// A fresh dealt game.
std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config = Config());

v1::Action Place(int tile, int row, int x);
v1::Action Fall(v1::FpDirection direction);

// Applies `action` for `seat` and returns the game's own result.
absl::StatusOr<v1::FlamingPyramidsResult> Act(State& state, int seat,
                                              const v1::Action& action);

// Checks the invariants of the random self-check: all 45 tiles accounted
// for exactly once; no tile floats and the building rule holds outside a
// pending fall; the acting seat is right. Returns "" or a description.
std::string CheckInvariants(const State& state);

// Checks that `observation` (of `seat`, or the public view when seat < 0)
// of `state` shows no hidden information: no other seat's hand, no tile of
// any pile's dealt part, nothing of a hand in the public view. `seen` holds
// every tile that was ever public (table, face-up under a pile, removed);
// tiles in other seats' hands may appear only if seen. Returns "" or a
// description.
std::string CheckRedaction(const State& state, int seat,
                           const v1::Observation& observation,
                           const std::vector<bool>& seen);

// Marks as seen every tile that is public now in `state` (on the table,
// face up under a pile, removed) and every tile `result` (if not null)
// mentions.
void MarkPublic(const State& state, const v1::Result* result,
                std::vector<bool>& seen);

// Checks that `result`, applied to reach `state`, mentions no tile of any
// pile's dealt part. Returns "" or a description.
std::string CheckResultRedaction(const State& state, const v1::Result& result);

inline constexpr v1::FpDirection kLeft = v1::FP_LEFT;
inline constexpr v1::FpDirection kRight = v1::FP_RIGHT;

// A placement-phase position: seat `active` to play; piles all face up
// unless `dealt_left` says otherwise. Unmentioned tiles are out of the game.
TestPosition Pos(Board board, std::vector<std::vector<int>> hands,
                 std::vector<std::vector<int>> piles = {}, int active = 0);

// Row 0 at x = 0, 1, 3, 4, 6 (Y2, R2, Y30, R10, G2) and Y20 on (1, 3): the
// legal spots are (1, 0), (0, 2) and (0, 5), in scan order.
Board GappedRow();

// The legal spots of a placement, in scan order; as (row, x) pairs.
std::vector<Cell> Spots(const State& state);
std::vector<std::pair<int, int>> SpotList(const State& state);
// A seat's pile (top first) and hand.
std::vector<int> Pile(const State& state, int seat);
std::vector<int> Hand(const State& state, int seat);

// The game's part of the public view (seat -1) or of `seat`'s observation.
v1::FlamingPyramidsObservation View(const State& state, int seat = -1);

// The moves of `event` as (tile, destination, row or seat, x).
struct Move {
  int tile;
  v1::FpDestination to;
  int where;  // Row for FP_TO_TABLE, seat for FP_TO_PILE, else 0.
  int x;      // Column for FP_TO_TABLE, else 0.
  friend bool operator==(const Move&, const Move&) = default;
};
void PrintTo(const Move& m, std::ostream* out);
Move ToTable(int tile, int row, int x);
Move ToPile(int tile, int seat);
Move Removed(int tile);
std::vector<Move> Moves(const v1::FpEvent& event);

}  // namespace pyramid::fp::testing

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TESTING_H_
