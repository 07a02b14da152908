// Flaming Pyramids (game id "flaming_pyramids"): exactly the rules of
// docs/rules/flaming_pyramids.md, with the options `curse` and
// `max_turns`. 2 to 6 seats. A turn is a placement decision of the active
// seat followed by zero or more fall decisions of the chooser, one per tile
// that falls during mayhem. docs/flaming-pyramids-deal.md describes the deal.
//
// Description() is its GameDescription (referee/games/description.h):
// MakeGame (registry.h) makes it from a config.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_GAME_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_GAME_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "referee/games/description.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/game.h"

namespace pyramid::fp {

const GameDescription& Description();

// The default and the largest value of the option max_turns.
inline constexpr int kDefaultMaxTurns = 2000;
inline constexpr int kMaxMaxTurns = 100000;

// The game's options as its rules read them, and the rules version played
// (Game::rules_version).
struct Options {
  bool curse = false;
  int max_turns = kDefaultMaxTurns;
  // Version 2: a collapse's supports go under the receiver's pile when the
  // collapse happens, before its fall is asked (version 1 moved them with
  // the fall, so a chooser that forfeited at that fall kept them out of its
  // score, and the table showed them during the fall).
  uint32_t rules_version = 0;
};

// `values` (checked by ResolveOptions) and `rules_version` (never 0) as
// Options.
Options ToOptions(const OptionValues& values, uint32_t rules_version);

inline constexpr int kHandSize = 5;

// A complete position at the start of a turn (placement phase), hidden parts
// included. Test support and invariant checks; the referee never builds
// states this way.
struct TestPosition {
  int num_seats = 0;
  // Every tile on the table.
  Board board;
  // Each seat's hand (any order; states keep hands sorted ascending).
  std::vector<std::vector<int>> hands;
  // Each seat's pile, top first.
  std::vector<std::vector<int>> piles;
  // How many tiles at the top of each pile are still from the deal (face
  // down); the rest went under the pile face up. Empty means 0 for every
  // seat.
  std::vector<int> dealt_left;
  // Tiles out of the game, in the order they left.
  std::vector<int> removed;
  int active_seat = 0;
  int turns_completed = 0;
};

// Test support: a state in the placement phase of `position`, with the
// options of `config`. Tiles the position does not mention are appended to
// `removed` in ascending id order. The position need not be settled: the
// next placement's mayhem resolves whatever the checks find. INVALID_ARGUMENT
// when a tile appears twice or is out of range, a seat count, seat or count
// is out of range, a hand is empty (in play a seat holding no tile has
// won), or a non-empty table has no row-0 tile.
// `rules_version` as for MakeGameOf (0: the latest).
absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position,
    uint32_t rules_version = 0);

// The full position of `state` (a Flaming Pyramids state, any phase),
// hidden parts included: for tests and invariant checks only.
TestPosition PositionOf(const State& state);

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_GAME_H_
