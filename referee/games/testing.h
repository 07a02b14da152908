// Test helpers every game's testing.h shares (and re-exports, so a test of
// any game reads alike): seeds, a fresh game, one seat's move, a status's
// value, an outcome's ranks. Each game's <game>/testing.h adds, under the
// same names, Config() (the game's config with its options), NewGame() with
// that default, View() (the game's own observation message), Act() returning
// the game's own result message, and builders for its actions; the games
// with test positions (all but Rock, Paper, Pyramid!) add StateAt(position,
// ...), the state at a hand-made position of NewStateForTesting's type.
#ifndef PYRAMID_REFEREE_GAMES_TESTING_H_
#define PYRAMID_REFEREE_GAMES_TESTING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/description.h"
#include "referee/games/game.h"

namespace pyramid::game_testing {

// Every game's tests see these through their testing.h.
using ::pyramid::DeterministicBytes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The digest first, first + 1, ..., first + 31 (mod 256).
Digest Seed(uint8_t first);

// The initial state of the game `config` names (MakeGame) for `seats`
// seats from `seed`; nullptr (after a test failure) when refused.
std::unique_ptr<State> NewGame(const v1::GameConfig& config, int seats,
                               const Digest& seed);

// The value of `value`, after a test failure when it is not OK.
template <typename T>
T Ok(absl::StatusOr<T> value) {
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *std::move(value) : T();
}

// The seats' ranks in `outcome`, by seat.
std::vector<uint32_t> Ranks(const v1::Outcome& outcome);

// Applies `action` as the only acting seat's move.
absl::StatusOr<v1::Result> ActAlone(State& state, int seat,
                                    const v1::Action& action);

// The game's own part of `result` (`part` is its accessor, e.g.
// &v1::Result::pyramid_shambo), or its error.
template <typename Part>
absl::StatusOr<Part> GamePart(absl::StatusOr<v1::Result> result,
                              const Part& (v1::Result::*part)() const) {
  if (!result.ok()) return result.status();
  return ((*result).*part)();
}

// What a game checks at every step of a random game. The State contract
// itself (who acts, legal and default actions, refusals, clones, outcomes'
// ranks) is tests/conformance_test.cc's, for every game; a game's checks are
// its own rules' invariants.
class RandomGameChecks {
 public:
  virtual ~RandomGameChecks() = default;
  // Before each decision; `state` is not terminal.
  virtual void BeforeStep(const State& state) {}
  // After it: `state` is what the decision led to, `result` what it did.
  virtual void AfterStep(const State& state, const v1::Result& result) {}
  // Once the game is over.
  virtual void AtEnd(const State& state) {}
};

// The most decisions PlayRandomGame plays before failing the test.
inline constexpr int kMaxRandomSteps = 200000;

// Counts a match's moves: one per State transition, as the log has one
// Applied record per move (GameDescription::max_moves).
class MoveCount : public RandomGameChecks {
 public:
  void AfterStep(const State& state, const v1::Result& result) override {
    ++moves;
  }
  uint64_t moves = 0;
};

// Plays `state` to its end (OpenSpiel's RandomSimulation): every acting seat,
// in ascending order, picks uniformly with `choices` among its legal actions
// (its default action when it lists none); calls `checks` at every step.
// Stops at the first fatal failure, its own or a check's.
void PlayRandomGame(State& state, RandomStream& choices,
                    RandomGameChecks& checks);

// One match played for ExpectMovesWithinBound: its moves (MoveCount) and
// how it was played, for the failure message.
struct CountedMatch {
  uint64_t moves = 0;
  std::string how;
};

// The least and the largest moves / bound ExpectMovesWithinBound saw.
struct MovesPerBound {
  double least = 0;
  double most = 0;
};

// Every game's NoMatchMakesMoreMovesThanItsBound: no match makes more moves
// than its game's bound (GameDescription::max_moves) says, whatever its
// options, seats and play; a bound too small would cut off an honest match
// (tools/tournament/referee_link.h). For every seat count of `description`
// and every game index in [0, games) (under the sanitizers one in
// kSanitizerStride, tests/sanitizers.h, spread over the indexes' residues
// so that a config chosen by game % 2 or % 4 still takes every value),
// `play(config_of(game), seats, game)` plays the matches of that config. Stops
// at the first failure, its own or a play's; records the largest ratio as the
// test's most_moves_per_bound.
MovesPerBound ExpectMovesWithinBound(
    const GameDescription& description, int games,
    absl::FunctionRef<v1::GameConfig(int game)> config_of,
    absl::FunctionRef<std::vector<CountedMatch>(const v1::GameConfig& config,
                                                int seats, int game)>
        play);

}  // namespace pyramid::game_testing

#endif  // PYRAMID_REFEREE_GAMES_TESTING_H_
