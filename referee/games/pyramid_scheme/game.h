// Pyramid Scheme (game id "pyramid_scheme"): exactly the rules of
// docs/rules/pyramid_scheme.md with its reference edition, for 2 to 4
// seats, with the option `max_turns`. Every decision of a turn (actions,
// token uses, flips, reward targets, the end of the turn, other seats'
// Police placements) is its own single-seat decision.
//
// Description() is its GameDescription (referee/games/description.h):
// MakeGame (registry.h) makes it from a config.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GAME_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GAME_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/description.h"
#include "referee/games/game.h"

namespace pyramid::scheme {

const GameDescription& Description();

// The default and the largest value of the option max_turns.
inline constexpr int kDefaultMaxTurns = 500;
inline constexpr int kMaxMaxTurns = 100000;

// The game's options as its rules read them, and the rules version played
// (Game::rules_version).
struct Options {
  int max_turns = kDefaultMaxTurns;
  uint32_t rules_version = 0;
};

// `values` (checked by ResolveOptions) and `rules_version` (never 0) as
// Options.
Options ToOptions(const OptionValues& values, uint32_t rules_version);

// A position to start a test from (tests only; never reachable from the
// wire). Card ids as in pyramid_scheme.proto: Victims 0..63, Founder 64,
// Police 65..82. Victims named nowhere in the position are out of the game;
// Police and tokens named nowhere are in the supply.
struct TestNode {
  TestNode(int card, int parent = 64, bool flipped = false,
           std::vector<int> capacity_tokens = {})
      : card(card),
        parent(parent),
        flipped(flipped),
        capacity_tokens(std::move(capacity_tokens)) {}

  int card;
  int parent;  // Card id of its parent in the same pyramid.
  bool flipped;
  std::vector<int> capacity_tokens;  // Each 2 or 3.
};

struct TestSeat {
  bool live = true;  // Non-live seats count as eliminated in seat order.
  std::vector<int> hand;
  bool founder_flipped = false;
  std::vector<int> founder_tokens;  // Capacity tokens on the Founder.
  // Every card below the Founder, in placement order (parents first).
  std::vector<TestNode> pyramid;
  int reset_tokens = 1;
  int bypass_tokens = 0;
  int hand_limit_bonus = 0;  // HAND_LIMIT_1 rewards received.
};

struct TestGoal {
  int goal = 0;
  int claimed_by = -1;   // -1: open.
  int reserved_by = -1;  // -1: not reserved.
};

struct TestPosition {
  std::vector<TestSeat> seats;              // 2 to 4.
  std::vector<int> display = {-1, -1, -1};  // -1: empty slot.
  std::vector<int> deck;                    // Top card first.
  std::vector<int> discard;                 // Oldest first.
  std::vector<TestGoal> goals;              // The goals in play (usually 6).
  int active_seat = 0;
  int turn = 1;          // Turns started, including the active seat's.
  int actions_done = 0;  // 0 or 1: the active seat then owes an action.
  bool bypass_armed = false;
};

// Test support: a state at the active seat's action decision in
// `position`, with the options of `config` (the latest rules version).
// INVALID_ARGUMENT when the config is refused or the position is not
// consistent. Like any decision, an owed action that is impossible
// eliminates the seat at once. Later reshuffles draw from `stream`.
absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position,
    RandomStream stream);

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GAME_H_
