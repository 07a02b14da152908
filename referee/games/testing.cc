#include "referee/games/testing.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "referee/games/registry.h"
#include "tests/sanitizers.h"

namespace pyramid::game_testing {

Digest Seed(uint8_t first) {
  Digest seed;
  for (size_t i = 0; i < seed.size(); ++i) {
    seed[i] = static_cast<uint8_t>(first + i);
  }
  return seed;
}

std::unique_ptr<State> NewGame(const v1::GameConfig& config, int seats,
                               const Digest& seed) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<State>> state =
      (*game)->NewInitialState(seats, RandomStream(seed));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

std::vector<uint32_t> Ranks(const v1::Outcome& outcome) {
  std::vector<uint32_t> ranks;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    ranks.push_back(seat.rank());
  }
  return ranks;
}

absl::StatusOr<v1::Result> ActAlone(State& state, int seat,
                                    const v1::Action& action) {
  SeatAction seat_action{seat, action};
  return state.Apply({&seat_action, 1});
}

void PlayRandomGame(State& state, RandomStream& choices,
                    RandomGameChecks& checks) {
  using ::testing::Test;
  for (int step = 0; !state.IsTerminal(); ++step) {
    ASSERT_LT(step, kMaxRandomSteps) << "the game does not end";
    checks.BeforeStep(state);
    if (Test::HasFatalFailure()) return;
    std::vector<SeatAction> chosen;
    for (int seat : state.ActingSeats()) {
      const std::vector<v1::Action> legal = state.LegalActions(seat);
      chosen.push_back({seat, legal.empty()
                                  ? state.DefaultAction(seat)
                                  : legal[choices.Uniform(legal.size())]});
    }
    const absl::StatusOr<v1::Result> result = state.Apply(chosen);
    ASSERT_TRUE(result.ok()) << result.status();
    checks.AfterStep(state, *result);
    if (Test::HasFatalFailure()) return;
  }
  checks.AtEnd(state);
}

MovesPerBound ExpectMovesWithinBound(
    const GameDescription& description, int games,
    absl::FunctionRef<v1::GameConfig(int game)> config_of,
    absl::FunctionRef<std::vector<CountedMatch>(const v1::GameConfig& config,
                                                int seats, int game)>
        play) {
  using ::testing::Test;
  MovesPerBound seen{.least = std::numeric_limits<double>::max(), .most = 0};
  for (int seats = description.min_seats; seats <= description.max_seats;
       ++seats) {
    // Under the sanitizers the k-th game played is k * kSanitizerStride +
    // k % kSanitizerStride: a config chosen by game % 2 or game % 4 still
    // takes every value.
    for (int k = 0; k * kSanitizerStride < games; ++k) {
      const int game = k * kSanitizerStride + k % kSanitizerStride;
      if (game >= games) break;
      const v1::GameConfig config = config_of(game);
      const absl::StatusOr<OptionValues> options =
          ResolveOptions(description, config);
      EXPECT_TRUE(options.ok()) << options.status();
      if (!options.ok()) return seen;
      const uint64_t bound = description.max_moves(*options, seats);
      const std::vector<CountedMatch> matches = play(config, seats, game);
      if (Test::HasFailure()) return seen;
      for (const CountedMatch& match : matches) {
        EXPECT_LE(match.moves, bound)
            << seats << " seats, game " << game << ", "
            << config.ShortDebugString() << ", " << match.how;
        if (match.moves > bound) return seen;
        const double ratio = static_cast<double>(match.moves) / bound;
        seen.least = std::min(seen.least, ratio);
        seen.most = std::max(seen.most, ratio);
      }
    }
  }
  Test::RecordProperty("most_moves_per_bound", std::to_string(seen.most));
  return seen;
}

}  // namespace pyramid::game_testing
