// Random Rock, Paper, Pyramid! games keep the rules' invariants.
#include <memory>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp {
namespace {

using namespace ::pyramid::rpp::testing;  // NOLINT: the game's test helpers

TEST(RppStateTest, RandomPlayoutsKeepInvariants) {
  for (uint8_t seed = 0; seed < 20; ++seed) {
    const bool red = seed % 2 == 1;
    const v1::RppWinnerTakes mode =
        seed % 4 < 2 ? v1::RPP_TAKES_CAPTURED : v1::RPP_TAKES_ALL;
    std::unique_ptr<State> state = NewState(Config(mode, red), seed);
    RandomStream choices(Seed(static_cast<uint8_t>(100 + seed)));
    int rounds = 0;
    int scored_pieces = 0;
    while (!state->IsTerminal()) {
      std::vector<SeatAction> actions;
      for (int seat : state->ActingSeats()) {
        const std::vector<v1::Action> legal = state->LegalActions(seat);
        actions.push_back({seat, legal[choices.Uniform(legal.size())]});
      }
      absl::StatusOr<v1::Result> result = state->Apply(actions);
      ASSERT_TRUE(result.ok()) << result.status();
      const v1::RockPaperPyramidRoundResult& round =
          result->rock_paper_pyramid();
      scored_pieces += round.captures_size() + round.kept_size();
      if (round.resolution() != v1::RPP_CAPTURES) {
        EXPECT_THAT(round.captures(), IsEmpty());
      } else {
        EXPECT_THAT(round.captures(), ::testing::Not(IsEmpty()));
      }
      ++rounds;
    }
    EXPECT_EQ(rounds, red ? 10 : 9);
    const v1::Observation view = state->PublicView();
    const v1::Outcome outcome = state->Outcome();
    std::vector<int64_t> keys;
    int total_scored = 0;
    for (int seat = 0; seat < 3; ++seat) {
      const v1::RppSeatView& tally = Rpp(view).seats(seat);
      int32_t points = 0;
      for (const v1::RppPiece& piece : tally.scored()) {
        points += piece.size() == kL ? 3 : piece.size() == kM ? 2 : 1;
      }
      EXPECT_EQ(points, tally.score());
      EXPECT_EQ(outcome.seats(seat).score(), tally.score());
      keys.push_back(-int64_t{tally.score()});
      total_scored += tally.scored_size();
    }
    EXPECT_EQ(total_scored, scored_pieces);
    EXPECT_THAT(Ranks(outcome),
                ::testing::ElementsAreArray(CompetitionRanks(keys)));
  }
}

}  // namespace
}  // namespace pyramid::rpp
