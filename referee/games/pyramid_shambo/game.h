// Pyramid Shambo (game id "pyramid_shambo"): exactly the rules of
// docs/rules/pyramid_shambo.md (rules version 1), with the option
// `max_throws`. 2 to 10 seats.
//
// Decisions, each a State of its own: A's challenge (sequential), the throw
// of A and T (simultaneous, repeated after ties), and every payment (the fee
// and each Knock-Out bonus payment), decided by D. A payment with a single
// option, and a challenge with a single possible target, are applied
// without asking (SoleLegalAction). Payment pieces are named by identity;
// see board.h.
//
// Description() is its GameDescription (referee/games/description.h):
// MakeGame (registry.h) makes it from a config.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_GAME_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_GAME_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "referee/games/description.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_shambo/board.h"

namespace pyramid::shambo {

const GameDescription& Description();

// The default of the option max_throws.
inline constexpr uint32_t kDefaultMaxThrows = 10000;

// The game's options as its rules read them, and the rules version played
// (Game::rules_version).
struct Options {
  uint32_t max_throws = kDefaultMaxThrows;
  uint32_t rules_version = 0;
};

// `values` (checked by ResolveOptions) and `rules_version` (never 0) as
// Options.
Options ToOptions(const OptionValues& values, uint32_t rules_version);

// A payment with more options than this is not listed: ListsLegalActions()
// is then false for that state and LegalActions() empty; the decision still
// accepts every option (ValidateAction) and `canonical` (the default). In
// random play the largest payment seen over thousands of games had about
// 8,000 options; crafted 10-seat positions can reach millions.
inline constexpr uint64_t kMaxListedOptions = 100000;

// Test support: a position at the start of `active`'s turn (CHALLENGE
// phase, no challenge under way).
struct TestPosition {
  // Seats the game began with, 2..10 (decides the showdown doubling).
  int num_seats = 2;
  // holdings[s]: what seat s holds, any order. Empty iff s is eliminated.
  // Every piece of a live seat's colour is held, none of an eliminated
  // seat's. Size num_seats.
  std::vector<std::vector<Piece>> holdings;
  // elimination_group[s]: 0 for a live seat, else its elimination group
  // (>= 1; a later group ranks better). Empty: eliminated seats all get
  // group 1.
  std::vector<int> elimination_group;
  int active = 0;            // Must be live.
  uint32_t throws_made = 0;  // Below the config's max_throws.
  // Test knob: the listing limit (kMaxListedOptions in play).
  uint64_t max_listed_options = kMaxListedOptions;
};

// The state for `position`, with the options of `config` (the latest rules
// version); INVALID_ARGUMENT when the config is refused or `position` is
// not a position the rules can reach in spirit (repeated pieces, a live
// seat holding nothing, fewer than two live seats, a piece of an eliminated
// colour, ...).
absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position);

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_GAME_H_
