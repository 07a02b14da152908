// Rock, Paper, Pyramid!'s rules through the State: the Red deal, scoring,
// validation, legal and default actions, observations.
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp::testing {
namespace {

TEST(RppRedTest, DealFollowsShuffleOfLargeMediumSmall) {
  for (uint8_t seed = 0; seed < 24; ++seed) {
    std::unique_ptr<State> state =
        NewState(Config(v1::RPP_TAKES_CAPTURED, /*red=*/true), seed);
    ASSERT_NE(state, nullptr);
    std::vector<v1::RppSize> sizes = {kL, kM, kS};
    RandomStream stream(Seed(seed));
    stream.Shuffle(sizes);
    const v1::Observation view = state->PublicView();
    for (int seat = 0; seat < 3; ++seat) {
      const v1::RppSeatView& pool = Rpp(view).seats(seat);
      ASSERT_THAT(pool.pool(), SizeIs(10));
      // Red sorts last; the seat's only red piece is sizes[seat].
      EXPECT_EQ(Name(pool.pool(9)), Name(Piece(kR, sizes[seat])))
          << "seed " << int{seed} << " seat " << seat;
      for (int i = 0; i < 9; ++i) EXPECT_NE(pool.pool(i).colour(), kR);
    }
  }
}

TEST(RppRedTest, DealDependsOnSeed) {
  std::vector<std::string> deals;
  for (uint8_t seed = 0; seed < 24; ++seed) {
    std::unique_ptr<State> state =
        NewState(Config(v1::RPP_TAKES_CAPTURED, /*red=*/true), seed);
    std::string deal;
    const v1::Observation view = state->PublicView();
    for (const v1::RppSeatView& seat : Rpp(view).seats()) {
      deal += Name(seat.pool(9));
    }
    deals.push_back(deal);
  }
  std::sort(deals.begin(), deals.end());
  deals.erase(std::unique(deals.begin(), deals.end()), deals.end());
  EXPECT_GT(deals.size(), 1u);
}

TEST(RppRedTest, LastsTenRounds) {
  std::unique_ptr<State> state =
      NewState(Config(v1::RPP_TAKES_ALL, /*red=*/true), 3);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(Rpp(state->PublicView()).total_rounds(), 10u);
  for (int round = 0; round < 10; ++round) {
    ASSERT_FALSE(state->IsTerminal()) << "round " << round;
    EXPECT_THAT(state->LegalActions(0), SizeIs(10 - round));
    PlayDefaultRound(*state);
  }
  EXPECT_TRUE(state->IsTerminal());
  const v1::Observation view = state->PublicView();
  for (const v1::RppSeatView& seat : Rpp(view).seats()) {
    EXPECT_THAT(seat.pool(), IsEmpty());
  }
}

TEST(RppRedTest, ClassicGameHasNoRedAndIgnoresSeed) {
  std::unique_ptr<State> a = NewState(Config(v1::RPP_TAKES_CAPTURED, false), 0);
  std::unique_ptr<State> b = NewState(Config(v1::RPP_TAKES_CAPTURED, false), 9);
  EXPECT_EQ(DeterministicBytes(a->PublicView()),
            DeterministicBytes(b->PublicView()));
  EXPECT_EQ(Rpp(a->PublicView()).total_rounds(), 9u);
  const absl::Status status = a->ValidateAction(0, Play(Piece(kR, kL)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Scoring across rounds, modes and ranking.

TEST(RppScoringTest, WinnerTakesAllKeepsOwnPiece) {
  std::unique_ptr<State> state = NewClassicState(v1::RPP_TAKES_ALL);
  // Seat 1 sweeps with Black Large (3) capturing White Large (3) and Black
  // Medium (2).
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kW, kL), Piece(kB, kL), Piece(kB, kM)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->kept(), ElementsAre(1u));
  EXPECT_THAT(result->scores(), ElementsAre(0, 8, 0));
  const v1::Observation view = state->PublicView();
  const v1::RppSeatView& winner = Rpp(view).seats(1);
  ASSERT_THAT(winner.scored(), SizeIs(3));
  // Captured pieces first (captured-seat order), then the kept piece.
  EXPECT_EQ(Name(winner.scored(0)), Name(Piece(kW, kL)));
  EXPECT_EQ(Name(winner.scored(1)), Name(Piece(kB, kM)));
  EXPECT_EQ(Name(winner.scored(2)), Name(Piece(kB, kL)));
}

TEST(RppScoringTest, WinnerTakesCapturedDiscardsOwnPiece) {
  std::unique_ptr<State> state = NewClassicState(v1::RPP_TAKES_CAPTURED);
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kW, kL), Piece(kB, kL), Piece(kB, kM)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->kept(), IsEmpty());
  EXPECT_THAT(result->scores(), ElementsAre(0, 5, 0));
  EXPECT_THAT(Rpp(state->PublicView()).seats(1).scored(), SizeIs(2));
}

TEST(RppScoringTest, UnsetWinnerTakesMeansCaptured) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  std::unique_ptr<State> state = NewState(config);
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kW, kL), Piece(kB, kL), Piece(kB, kM)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->scores(), ElementsAre(0, 5, 0));
}

TEST(RppScoringTest, ScoresAccumulateAndTiesShareRanks) {
  std::unique_ptr<State> state = NewClassicState();
  // Seat 0 sweeps 3 + 2, then seat 1 sweeps 3 + 2, then seat 2 takes two
  // Crystal Smalls with White Medium.
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kB, kM)}).ok());
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kM), Piece(kB, kL), Piece(kW, kL)}).ok());
  absl::StatusOr<v1::RockPaperPyramidRoundResult> third =
      PlayRound(*state, {Piece(kC, kS), Piece(kC, kS), Piece(kW, kM)});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->round(), 3u);
  EXPECT_THAT(third->scores(), ElementsAre(5, 5, 2));

  const v1::Outcome stopped = state->StoppedOutcome();
  EXPECT_EQ(stopped.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_THAT(Ranks(stopped), ElementsAre(1u, 1u, 3u));
  ASSERT_THAT(stopped.seats(), SizeIs(3));
  EXPECT_EQ(stopped.seats(0).score(), 5);
  EXPECT_EQ(stopped.seats(2).score(), 2);
  EXPECT_FALSE(stopped.seats(0).forfeited());

  const v1::Observation view = state->PublicView();
  EXPECT_EQ(Rpp(view).rounds_played(), 3u);
  ASSERT_THAT(Rpp(view).history(), SizeIs(3));
  EXPECT_EQ(Rpp(view).history(2).round(), 3u);
  for (const v1::RppSeatView& seat : Rpp(view).seats()) {
    EXPECT_THAT(seat.pool(), SizeIs(6));
  }
}

TEST(RppScoringTest, NullRoundsDiscardAllThree) {
  std::unique_ptr<State> state = NewClassicState(v1::RPP_TAKES_ALL);
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kC, kL)}).ok());
  const v1::Observation view = state->PublicView();
  for (const v1::RppSeatView& seat : Rpp(view).seats()) {
    EXPECT_EQ(seat.score(), 0);
    EXPECT_THAT(seat.scored(), IsEmpty());
    EXPECT_THAT(seat.pool(), SizeIs(8));
  }
  EXPECT_FALSE(HasPiece(Rpp(view).seats(0), Piece(kB, kL)));
}

// ---------------------------------------------------------------------------
// Refusals.

TEST(RppValidationTest, IllegalActionLeavesStateUnchanged) {
  std::unique_ptr<State> state = NewClassicState();
  const std::string before = DeterministicBytes(state->PublicView());
  // Seat 1 tries a red piece in the classic game.
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kB, kL), Piece(kR, kL), Piece(kC, kL)});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DeterministicBytes(state->PublicView()), before);
  EXPECT_THAT(state->LegalActions(0), SizeIs(9));
}

TEST(RppValidationTest, PieceCannotBePlayedTwice) {
  std::unique_ptr<State> state = NewClassicState();
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kC, kL)}).ok());
  const std::string before = DeterministicBytes(state->PublicView());
  EXPECT_EQ(state->ValidateAction(0, Play(Piece(kB, kL))).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(state->ValidateAction(1, Play(Piece(kB, kL))).ok());
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kB, kL), Piece(kB, kM), Piece(kB, kS)});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DeterministicBytes(state->PublicView()), before);
}

TEST(RppValidationTest, WrongKindOrMalformedPieceRefused) {
  std::unique_ptr<State> state = NewClassicState();
  v1::Action seed;
  seed.mutable_seed()->set_contribution(std::string(32, 'x'));
  EXPECT_EQ(state->ValidateAction(0, seed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, v1::Action()).code(),
            absl::StatusCode::kInvalidArgument);
  v1::Action no_piece;
  no_piece.mutable_rock_paper_pyramid();
  EXPECT_EQ(state->ValidateAction(0, no_piece).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, Play(Piece(kB, v1::RPP_SIZE_UNSPECIFIED)))
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      state->ValidateAction(0, Play(Piece(v1::RPP_COLOUR_UNSPECIFIED, kL)))
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      state->ValidateAction(0, Play(Piece(static_cast<v1::RppColour>(9), kL)))
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      state->ValidateAction(0, Play(Piece(kB, static_cast<v1::RppSize>(4))))
          .code(),
      absl::StatusCode::kInvalidArgument);
  const std::vector<SeatAction> actions = {
      {0, seed}, {1, Play(Piece(kB, kL))}, {2, Play(Piece(kB, kL))}};
  const std::string before = DeterministicBytes(state->PublicView());
  EXPECT_EQ(state->Apply(actions).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DeterministicBytes(state->PublicView()), before);
}

TEST(RppValidationTest, NonActingSeatIsFailedPrecondition) {
  std::unique_ptr<State> state = NewClassicState();
  EXPECT_EQ(state->ValidateAction(-1, Play(Piece(kB, kL))).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(state->ValidateAction(3, Play(Piece(kB, kL))).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(state->LegalActions(3), IsEmpty());
  for (int round = 0; round < 9; ++round) PlayDefaultRound(*state);
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(state->ValidateAction(0, Play(Piece(kC, kS))).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(state->Apply({}).ok());
}

// ---------------------------------------------------------------------------
// Game object and options.

TEST(RppStateTest, LegalActionsSortedAndDefaultIsFirst) {
  std::unique_ptr<State> state =
      NewState(Config(v1::RPP_TAKES_CAPTURED, /*red=*/true), 5);
  for (int seat = 0; seat < 3; ++seat) {
    const std::vector<v1::Action> legal = state->LegalActions(seat);
    ASSERT_THAT(legal, SizeIs(10));
    EXPECT_EQ(Name(legal[0].rock_paper_pyramid().piece()), Name(Piece(kB, kL)));
    EXPECT_EQ(Name(legal[1].rock_paper_pyramid().piece()), Name(Piece(kB, kM)));
    EXPECT_EQ(Name(legal[3].rock_paper_pyramid().piece()), Name(Piece(kW, kL)));
    EXPECT_EQ(legal[9].rock_paper_pyramid().piece().colour(), kR);
    for (size_t i = 1; i < legal.size(); ++i) {
      EXPECT_LT(DeterministicBytes(legal[i - 1]), DeterministicBytes(legal[i]));
    }
    for (const v1::Action& action : legal) {
      EXPECT_TRUE(state->ValidateAction(seat, action).ok());
    }
    EXPECT_EQ(DeterministicBytes(state->DefaultAction(seat)),
              DeterministicBytes(legal[0]));
  }
  // After Black Large is played, the default moves on to Black Medium.
  PlayDefaultRound(*state);
  EXPECT_EQ(Name(state->DefaultAction(0).rock_paper_pyramid().piece()),
            Name(Piece(kB, kM)));
}

TEST(RppStateTest, EveryRoundIsSimultaneousForAllSeats) {
  std::unique_ptr<State> state = NewClassicState();
  EXPECT_EQ(state->num_seats(), 3);
  for (int round = 0; round < 9; ++round) {
    EXPECT_FALSE(state->IsTerminal());
    EXPECT_THAT(state->ActingSeats(), ElementsAre(0, 1, 2));
    EXPECT_TRUE(state->IsSimultaneous());
    EXPECT_FALSE(state->SoleLegalAction(0).has_value());
    PlayDefaultRound(*state);
  }
  EXPECT_TRUE(state->IsTerminal());
  EXPECT_THAT(state->ActingSeats(), IsEmpty());
  EXPECT_FALSE(state->IsSimultaneous());
  EXPECT_THAT(state->LegalActions(0), IsEmpty());
}

TEST(RppStateTest, ObservationsAreThePublicView) {
  std::unique_ptr<State> state = NewClassicState();
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kB, kM)}).ok());
  const v1::Observation view = state->PublicView();
  EXPECT_TRUE(view.public_view());
  ASSERT_TRUE(view.has_rock_paper_pyramid());
  for (int seat = 0; seat < 3; ++seat) {
    const v1::Observation mine = state->ObservationFor(seat);
    EXPECT_FALSE(mine.public_view());
    EXPECT_EQ(mine.seat(), static_cast<uint32_t>(seat));
    EXPECT_EQ(DeterministicBytes(mine.rock_paper_pyramid()),
              DeterministicBytes(view.rock_paper_pyramid()));
  }
  // Pools are listed in sorted order and lose the played piece.
  const v1::RppSeatView& seat0 = Rpp(view).seats(0);
  ASSERT_THAT(seat0.pool(), SizeIs(8));
  EXPECT_EQ(Name(seat0.pool(0)), Name(Piece(kB, kM)));
  EXPECT_EQ(Name(seat0.pool(7)), Name(Piece(kC, kS)));
}

TEST(RppStateTest, ApplyResultIsAppendedToHistory) {
  std::unique_ptr<State> state = NewClassicState();
  std::vector<SeatAction> actions = {{0, Play(Piece(kB, kL))},
                                     {1, Play(Piece(kW, kL))},
                                     {2, Play(Piece(kC, kM))}};
  absl::StatusOr<v1::Result> result = state->Apply(actions);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->has_rock_paper_pyramid());
  const v1::Observation view = state->PublicView();
  ASSERT_THAT(Rpp(view).history(), SizeIs(1));
  EXPECT_EQ(DeterministicBytes(Rpp(view).history(0)),
            DeterministicBytes(result->rock_paper_pyramid()));
}

TEST(RppStateTest, CloneIsDeep) {
  std::unique_ptr<State> state = NewClassicState();
  ASSERT_TRUE(
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kB, kM)}).ok());
  std::unique_ptr<State> clone = state->Clone();
  EXPECT_EQ(DeterministicBytes(clone->PublicView()),
            DeterministicBytes(state->PublicView()));
  ASSERT_TRUE(
      PlayRound(*clone, {Piece(kW, kL), Piece(kB, kL), Piece(kB, kS)}).ok());
  EXPECT_EQ(Rpp(state->PublicView()).rounds_played(), 1u);
  EXPECT_EQ(Rpp(clone->PublicView()).rounds_played(), 2u);
  EXPECT_THAT(state->LegalActions(1), SizeIs(8));
  EXPECT_THAT(clone->LegalActions(1), SizeIs(7));
}

TEST(RppStateTest, FullDefaultGameEndsInThreeWayTie) {
  std::unique_ptr<State> state = NewClassicState();
  // Identical pools and identical defaults: every round is a Washout.
  for (int round = 0; round < 9; ++round) {
    std::vector<SeatAction> actions;
    for (int seat : state->ActingSeats()) {
      actions.push_back({seat, state->DefaultAction(seat)});
    }
    absl::StatusOr<v1::Result> result = state->Apply(actions);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->rock_paper_pyramid().resolution(), v1::RPP_WASHOUT);
    EXPECT_EQ(result->rock_paper_pyramid().round(),
              static_cast<uint32_t>(round + 1));
  }
  ASSERT_TRUE(state->IsTerminal());
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_THAT(Ranks(outcome), ElementsAre(1u, 1u, 1u));
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    EXPECT_EQ(seat.score(), 0);
  }
}

// Random playouts: pieces are conserved and the outcome matches the scores.

}  // namespace
}  // namespace pyramid::rpp::testing
