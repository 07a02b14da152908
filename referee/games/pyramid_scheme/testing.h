// Helpers shared by Pyramid Scheme's tests: card ids, action builders,
// positions and small views of observations.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TESTING_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TESTING_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_scheme/game.h"
#include "referee/games/testing.h"

namespace pyramid::scheme::testing {

using scheme::TestGoal;
using scheme::TestNode;
using scheme::TestPosition;
using scheme::TestSeat;

inline constexpr int kGreen = 0;
inline constexpr int kBlue = 1;
inline constexpr int kPink = 2;
inline constexpr int kYellow = 3;
inline constexpr int kFounder = 64;

// Victim of `colour` and table row `row` (reference edition).
constexpr int V(int colour, int row) { return 16 * colour + row; }
// The i-th Police (0..17).
constexpr int Police(int i) { return 65 + i; }

using namespace ::pyramid::game_testing;  // NOLINT: the shared helpers

// The game's config; max_turns 0 is the default.
v1::GameConfig Config(int max_turns = 0);
// A new game of `config` for `seats` seats from `seed`.
std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config = Config());

// The actions, made by state.h's builders. Target: the card a pending
// reward targets; Reserve: RESERVE_GOAL's goal; DiscardHand: exactly
// `cards` (at most 32), in their order.
v1::Action Take(int slot);
v1::Action Place(int card, int parent);
v1::Action UseReset();
v1::Action ArmBypass();
v1::Action Flip(int card);
v1::Action Stop();
v1::Action Target(int card);
v1::Action DiscardHand(std::initializer_list<int> cards);
v1::Action Reserve(int goal);
v1::Action PlacePolice(int parent);
v1::Action EndTurn();

// A position with `seats` live seats, each with only its Founder, an empty
// hand and 1 reset token; seat 0 active at the start of turn 1; display
// holds Victims green/blue/pink of row 4 (number 1); the deck holds yellow
// row 4 then green/blue/pink of row 2; no goals in play. (Tests keep rows 2
// and 4 out of their own cards.)
TestPosition BasePosition(int seats);

// The state at `position` under `config`, later reshuffles drawn from
// Seed(seed); nullptr, after a test failure, when NewStateForTesting
// refuses it.
std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config = Config(),
                               uint8_t seed = 7);

// Applies `action` for `seat`; the game's result on success.
absl::StatusOr<v1::PyramidSchemeResult> Act(State& state, int seat,
                                            const v1::Action& action);

// The observation of `seat` (the public view for -1).
v1::PyramidSchemeObservation View(const State& state, int seat = -1);

// The node of `card` in `seat`'s pyramid, or nullptr. It points into `obs`,
// which must outlive it (not a temporary, beyond the full expression).
const v1::PssNode* FindNode(const v1::PyramidSchemeObservation& obs, int seat,
                            int card);

// Ids of the hand cards of the observing seat.
std::vector<int> HandIds(const v1::PyramidSchemeObservation& obs);
// Ids of the display slots (-1 empty) and of the discard pile.
std::vector<int> DisplayIds(const v1::PyramidSchemeObservation& obs);
std::vector<int> DiscardIds(const v1::PyramidSchemeObservation& obs);

// The kinds of the result's events, by their oneof field names
// ("took", "slot_filled", ...).
std::vector<std::string> EventKinds(const v1::PyramidSchemeResult& result);

// The claims and Police placements of a result, as "goal@seat" and
// "seat:police>parent" strings.
std::vector<std::string> Claims(const v1::PyramidSchemeResult& result);
std::vector<std::string> PolicePlacements(
    const v1::PyramidSchemeResult& result);

}  // namespace pyramid::scheme::testing

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TESTING_H_
