// Random Rock, Paper, Pyramid! games keep the rules' invariants (the State
// contract is tests/conformance_test.cc's).
#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp::testing {
namespace {

// Every round captures iff it resolves as captures; the game lasts its
// rounds; scores are the scored pieces' points and rank the seats.
class RppChecks : public RandomGameChecks {
 public:
  explicit RppChecks(bool red) : red_(red) {}

  void AfterStep(const State& state, const v1::Result& result) override {
    const v1::RockPaperPyramidRoundResult& round = result.rock_paper_pyramid();
    scored_pieces_ += round.captures_size() + round.kept_size();
    if (round.resolution() != v1::RPP_CAPTURES) {
      EXPECT_THAT(round.captures(), IsEmpty());
    } else {
      EXPECT_THAT(round.captures(), ::testing::Not(IsEmpty()));
    }
    ++rounds_;
  }

  void AtEnd(const State& state) override {
    EXPECT_EQ(rounds_, red_ ? 10 : 9);
    const v1::Observation view = state.PublicView();
    const v1::Outcome outcome = state.Outcome();
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
    EXPECT_EQ(total_scored, scored_pieces_);
    EXPECT_THAT(Ranks(outcome),
                ::testing::ElementsAreArray(CompetitionRanks(keys)));
  }

 private:
  bool red_;
  int rounds_ = 0;
  int scored_pieces_ = 0;
};

TEST(RppRandomTest, RandomGamesKeepInvariants) {
  for (uint8_t seed = 0; seed < 20; ++seed) {
    const bool red = seed % 2 == 1;
    const v1::RppWinnerTakes mode =
        seed % 4 < 2 ? v1::RPP_TAKES_CAPTURED : v1::RPP_TAKES_ALL;
    std::unique_ptr<State> state = NewState(Config(mode, red), seed);
    ASSERT_NE(state, nullptr);
    RandomStream choices(Seed(static_cast<uint8_t>(100 + seed)));
    RppChecks checks(red);
    PlayRandomGame(*state, choices, checks);
    if (HasFatalFailure()) return;
  }
}

// No match makes more moves than the game's bound (ExpectMovesWithinBound):
// both options, random play. Every match lasts its rounds, so it makes
// exactly that many: every moves / bound is 1.
TEST(RppRandomTest, NoMatchMakesMoreMovesThanItsBound) {
  const MovesPerBound seen = ExpectMovesWithinBound(
      Description(), /*games=*/40,
      [](int game) {
        return Config(game % 4 < 2 ? v1::RPP_TAKES_CAPTURED : v1::RPP_TAKES_ALL,
                      /*red=*/game % 2 == 1);
      },
      [](const v1::GameConfig& config, int /*seats*/, int game) {
        const uint8_t seed = static_cast<uint8_t>(game);
        std::unique_ptr<State> state = NewState(config, seed);
        EXPECT_NE(state, nullptr);
        if (state == nullptr) return std::vector<CountedMatch>();
        RandomStream choices(Seed(static_cast<uint8_t>(150 + seed)));
        MoveCount count;
        PlayRandomGame(*state, choices, count);
        return std::vector<CountedMatch>{{count.moves, "random"}};
      });
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(seen.least, 1.0);
  EXPECT_EQ(seen.most, 1.0);
}

}  // namespace
}  // namespace pyramid::rpp::testing
