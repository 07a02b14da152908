// Flaming Pyramids: the deal, options, refusals, default actions, legal
// actions, observations and outcomes (the State interface).
#include "referee/games/flaming_pyramids/game.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/flaming_pyramids/tables.h"
#include "referee/games/flaming_pyramids/testing.h"

namespace pyramid::fp::testing {
namespace {

using ::testing::HasSubstr;

v1::FlamingPyramidsObservation View(const State& state) {
  return state.PublicView().flaming_pyramids();
}

// Everything a State exposes, for "unchanged" checks.
std::string Snapshot(const State& state) {
  std::string snapshot = DeterministicBytes(state.PublicView());
  for (int seat = 0; seat < state.num_seats(); ++seat) {
    snapshot += DeterministicBytes(state.ObservationFor(seat));
  }
  const Position position = PositionOf(state);
  for (const auto& pile : position.piles) {
    for (int tile : pile) snapshot += static_cast<char>(tile);
    snapshot += '|';
  }
  return snapshot;
}

// ---------------------------------------------------------------------------
// The deal.

// The rules page's deal, recomputed here straight from the stream.
TEST(FpDealTest, DealFollowsTheRulesPage) {
  for (int seats = Description().min_seats; seats <= Description().max_seats;
       ++seats) {
    for (uint8_t seed : {0, 7, 200}) {
      SCOPED_TRACE(::testing::Message() << seats << " seats, seed " << +seed);
      RandomStream stream(Seed(seed));
      std::vector<int> order(kNumTiles);
      std::iota(order.begin(), order.end(), 0);
      stream.Shuffle(order);
      const int per_seat = kNumTiles / seats;
      std::vector<std::vector<int>> piles(seats);
      for (int k = 0; k < seats * per_seat; ++k) {
        piles[k % seats].push_back(order[k]);
      }
      std::vector<int> row0;
      std::vector<int> removed;
      for (int k = seats * per_seat; k < kNumTiles; ++k) {
        (IsIncendiary(order[k]) ? removed : row0).push_back(order[k]);
      }
      const int first = static_cast<int>(stream.Uniform(seats));

      auto state = NewGame(seats, Seed(seed));
      ASSERT_NE(state, nullptr);
      const Position position = PositionOf(*state);
      for (int seat = 0; seat < seats; ++seat) {
        std::vector<int> hand(piles[seat].begin(), piles[seat].begin() + 5);
        std::sort(hand.begin(), hand.end());
        EXPECT_EQ(position.hands[seat], hand);
        EXPECT_EQ(position.piles[seat],
                  std::vector<int>(piles[seat].begin() + 5, piles[seat].end()));
        EXPECT_EQ(position.dealt_left[seat], per_seat - 5);
      }
      std::vector<Placed> expected_row;
      for (size_t x = 0; x < row0.size(); ++x) {
        expected_row.push_back({0, static_cast<int>(x), row0[x]});
      }
      EXPECT_EQ(Layout(*state), expected_row);
      EXPECT_EQ(position.removed, removed);
      EXPECT_EQ(position.active_seat, first);
      EXPECT_EQ(state->ActingSeats(), std::vector<int>{first});
    }
  }
}

// The worked example of docs/flaming-pyramids-deal.md: seed bytes
// 0x00..0x1f, 6 seats (also computed there by an independent script).
TEST(FpDealTest, WorkedExampleOfTheDealDocument) {
  auto state = NewGame(6, Seed(0));
  ASSERT_NE(state, nullptr);
  const Position position = PositionOf(*state);
  const std::vector<std::vector<int>> hands = {
      {0, 1, 20, 21, 22},   {2, 3, 7, 16, 28},  {5, 15, 17, 38, 44},
      {26, 27, 32, 42, 43}, {6, 9, 13, 14, 36}, {11, 12, 23, 25, 35}};
  const std::vector<std::vector<int>> piles = {{37, 10}, {29, 40}, {8, 30},
                                               {34, 31}, {4, 18},  {39, 24}};
  EXPECT_EQ(position.hands, hands);
  EXPECT_EQ(position.piles, piles);
  EXPECT_EQ(Layout(*state), (std::vector<Placed>{{0, 0, 19}, {0, 1, 33}}));
  EXPECT_THAT(position.removed, ElementsAre(kCoalGreen));
  EXPECT_EQ(position.active_seat, 0);
}

TEST(FpDealTest, InitialViewShowsCountsNotTiles) {
  auto state = NewGame(6, Seed(3));
  ASSERT_NE(state, nullptr);
  const v1::FlamingPyramidsObservation view = View(*state);
  EXPECT_EQ(view.phase(), v1::FP_PLACE);
  ASSERT_THAT(view.seats(), SizeIs(6));
  for (const v1::FpSeatView& seat : view.seats()) {
    EXPECT_EQ(seat.hand_size(), 5u);
    EXPECT_EQ(seat.pile_size(), 2u);
    EXPECT_EQ(seat.dealt_left(), 2u);
    EXPECT_THAT(seat.under(), IsEmpty());
    EXPECT_THAT(seat.own_hand(), IsEmpty());
  }
  EXPECT_EQ(view.pyramid_size() + view.removed_size(), 3);
  EXPECT_EQ(view.turns_completed(), 0u);
  EXPECT_THAT(view.recent_turns(), IsEmpty());
  EXPECT_FALSE(view.has_current_turn());
  EXPECT_FALSE(view.has_winner());
}

// ---------------------------------------------------------------------------
// The game object and its options.

TEST(FpGameTest, Metadata) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), Config());
  ASSERT_TRUE(game.ok());
  EXPECT_EQ((*game)->id(), "flaming_pyramids");
  EXPECT_EQ((*game)->rules_version(), 2u);
  EXPECT_EQ((*game)->min_seats(), 2);
  EXPECT_EQ((*game)->max_seats(), 6);
  for (int seats : {0, 1, 7}) {
    EXPECT_EQ(
        (*game)->NewInitialState(seats, RandomStream(Seed(0))).status().code(),
        absl::StatusCode::kInvalidArgument)
        << seats;
  }
}

TEST(FpGameTest, UnsetOptionsMeanDefaults) {
  v1::GameConfig config;
  config.set_game("flaming_pyramids");
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), config);
  ASSERT_TRUE(game.ok());
  auto state = (*game)->NewInitialState(3, RandomStream(Seed(0)));
  ASSERT_TRUE(state.ok());
  const v1::FlamingPyramidsObservation view = View(**state);
  EXPECT_EQ(view.max_turns(), 2000u);
  EXPECT_FALSE(view.curse());
  auto explicit_zero = NewGame(3, Seed(0), Config(false, 0));
  EXPECT_EQ(View(*explicit_zero).max_turns(), 2000u);
  auto cursed = NewGame(3, Seed(0), Config(true, 7));
  EXPECT_EQ(View(*cursed).max_turns(), 7u);
  EXPECT_TRUE(View(*cursed).curse());
}

TEST(FpGameTest, OptionsValidation) {
  EXPECT_TRUE(MakeGameOf(Description(), Config(false, 100000)).ok());
  EXPECT_EQ(MakeGameOf(Description(), Config(false, 100001)).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::GameConfig wrong_game = Config();
  wrong_game.set_game("rock_paper_pyramid");
  EXPECT_EQ(MakeGameOf(Description(), wrong_game).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Any options message of the oneof other than ours is refused.
TEST(FpGameTest, OtherGamesOptionsRefused) {
  const google::protobuf::OneofDescriptor* oneof =
      v1::GameConfig::descriptor()->FindOneofByName("options");
  ASSERT_NE(oneof, nullptr);
  for (int i = 0; i < oneof->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = oneof->field(i);
    if (field->name() == "flaming_pyramids") continue;
    v1::GameConfig config;
    config.set_game("flaming_pyramids");
    config.GetReflection()->MutableMessage(&config, field);
    EXPECT_EQ(MakeGameOf(Description(), config).status().code(),
              absl::StatusCode::kInvalidArgument)
        << field->name();
  }
}

// ---------------------------------------------------------------------------
// Refusals.

Position SmallPosition() {
  return Pos(MakeBoard({{0, 0, Y(30)}, {0, 1, R(30)}}), {{B(2), R(20)}, {G(4)}},
             {{Y(2)}, {}});
}

TEST(FpValidationTest, NonActingSeatIsFailedPrecondition) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->ValidateAction(1, Place(G(4), 1, 0)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(state->ValidateAction(5, Place(G(4), 1, 0)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(state->LegalActions(1), IsEmpty());
  SeatAction wrong{1, Place(G(4), 1, 0)};
  EXPECT_EQ(state->Apply({&wrong, 1}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(FpValidationTest, MalformedOrIllegalActionsRefused) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  v1::Action seed;
  seed.mutable_seed()->set_contribution(std::string(32, 'x'));
  v1::Action empty_fp;
  empty_fp.mutable_flaming_pyramids();
  for (const v1::Action& action :
       {v1::Action(), seed, empty_fp, Fall(v1::FP_LEFT),
        Place(Y(2), 1, 0) /* in the pile, not the hand */, Place(99, 1, 0),
        Place(B(2), 0, 2) /* not legal */, Place(B(2), 2, 0),
        Place(B(2), -1, 0)}) {
    EXPECT_EQ(state->ValidateAction(0, action).code(),
              absl::StatusCode::kInvalidArgument)
        << action.ShortDebugString();
  }
  EXPECT_TRUE(state->ValidateAction(0, Place(B(2), 1, 0)).ok());
}

TEST(FpValidationTest, FallPhaseTakesOnlyADirection) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());  // Collapses.
  ASSERT_EQ(View(*state).phase(), v1::FP_FALL);
  for (const v1::Action& action :
       {Place(R(20), 0, -1), Fall(v1::FP_DIRECTION_UNSPECIFIED),
        Fall(static_cast<v1::FpDirection>(7))}) {
    EXPECT_EQ(state->ValidateAction(0, action).code(),
              absl::StatusCode::kInvalidArgument)
        << action.ShortDebugString();
  }
  EXPECT_TRUE(state->ValidateAction(0, Fall(v1::FP_RIGHT)).ok());
}

TEST(FpValidationTest, RefusedApplyLeavesStateUnchanged) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  const std::string before = Snapshot(*state);
  for (const v1::Action& action :
       {Place(Y(2), 1, 0), Place(B(2), 3, 3), v1::Action()}) {
    SeatAction seat_action{0, action};
    EXPECT_FALSE(state->Apply({&seat_action, 1}).ok());
    EXPECT_EQ(Snapshot(*state), before);
  }
  SeatAction two[] = {{0, Place(B(2), 1, 0)}, {1, Place(G(4), 1, 0)}};
  EXPECT_FALSE(state->Apply(two).ok());
  EXPECT_EQ(Snapshot(*state), before);
}

TEST(FpValidationTest, NothingIsLegalOnceTheGameIsOver) {
  auto state = MakeState(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(R(2), 0, 1)).ok());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(state->ActingSeats(), IsEmpty());
  EXPECT_EQ(View(*state).phase(), v1::FP_GAME_OVER);
  for (int seat : {0, 1}) {
    EXPECT_THAT(state->LegalActions(seat), IsEmpty());
    EXPECT_EQ(state->ValidateAction(seat, Place(B(4), 0, 2)).code(),
              absl::StatusCode::kFailedPrecondition);
  }
}

TEST(FpValidationTest, TestPositionsAreChecked) {
  Position duplicate = SmallPosition();
  duplicate.hands[1].push_back(Y(30));  // Also on the table.
  EXPECT_FALSE(NewStateForTesting(Config(), duplicate).ok());
  Position empty_hand = SmallPosition();
  empty_hand.hands[0].clear();
  EXPECT_FALSE(NewStateForTesting(Config(), empty_hand).ok());
  Position floating =
      Pos(MakeBoard({{1, 0, Y(30)}, {1, 1, R(30)}}), {{B(2)}, {G(4)}});
  EXPECT_FALSE(NewStateForTesting(Config(), floating).ok());
  Position bad_dealt = SmallPosition();
  bad_dealt.dealt_left = {2, 0};
  EXPECT_FALSE(NewStateForTesting(Config(), bad_dealt).ok());
}

// ---------------------------------------------------------------------------
// Default actions and legal actions.

TEST(FpDefaultTest, PlacementIsLowestTileAtFirstSpotInScanOrder) {
  // Spots in scan order: (1, 0), (0, 2), (0, 5); lowest id in hand: Y(40).
  auto state = MakeState(Pos(GappedRow(), {{R(4), B(2), Y(40)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  const v1::Action action = state->DefaultAction(0);
  EXPECT_EQ(action.flaming_pyramids().place().tile(),
            static_cast<uint32_t>(Y(40)));
  EXPECT_EQ(action.flaming_pyramids().place().row(), 1u);
  EXPECT_EQ(action.flaming_pyramids().place().x(), 0);
  EXPECT_EQ(state->DefaultAction(1).kind_case(), v1::Action::KIND_NOT_SET);
}

TEST(FpDefaultTest, FallIsLeft) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Fall(v1::FP_LEFT)));
}

TEST(FpDefaultTest, FullGamesByDefaultActionsEnd) {
  for (int seats = Description().min_seats; seats <= Description().max_seats;
       ++seats) {
    for (bool curse : {false, true}) {
      auto state =
          NewGame(seats, Seed(static_cast<uint8_t>(seats)), Config(curse));
      ASSERT_NE(state, nullptr);
      int steps = 0;
      while (!state->IsTerminal() && steps < 100000) {
        const int seat = state->ActingSeats()[0];
        ASSERT_TRUE(Act(*state, seat, state->DefaultAction(seat)).ok());
        ++steps;
      }
      ASSERT_TRUE(state->IsTerminal()) << seats << " seats";
      const v1::Outcome outcome = state->Outcome();
      EXPECT_THAT(outcome.seats(), SizeIs(seats));
      EXPECT_EQ(CheckInvariants(*state), "");
    }
  }
}

TEST(FpLegalActionsTest, EveryHandTileAtEverySpotSortedAndUnique) {
  auto state = MakeState(Pos(GappedRow(), {{B(2), B(4), Y(40)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  const std::vector<v1::Action> legal = state->LegalActions(0);
  ASSERT_THAT(legal, SizeIs(9));  // 3 tiles x 3 spots.
  for (size_t i = 0; i < legal.size(); ++i) {
    EXPECT_TRUE(state->ValidateAction(0, legal[i]).ok());
    if (i > 0) {
      EXPECT_LT(DeterministicBytes(legal[i - 1]), DeterministicBytes(legal[i]));
    }
  }
  EXPECT_FALSE(state->SoleLegalAction(0).has_value());
}

TEST(FpLegalActionsTest, FallOffersLeftThenRight) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());
  const std::vector<v1::Action> legal = state->LegalActions(0);
  ASSERT_THAT(legal, SizeIs(2));
  EXPECT_EQ(legal[0].flaming_pyramids().fall(), v1::FP_LEFT);
  EXPECT_EQ(legal[1].flaming_pyramids().fall(), v1::FP_RIGHT);
  EXPECT_FALSE(state->SoleLegalAction(0).has_value());  // Always asked.
}

TEST(FpLegalActionsTest, OneTileAndOneSpotIsAutomatic) {
  auto state = MakeState(Pos(Board(), {{Y(2)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  const std::optional<v1::Action> sole = state->SoleLegalAction(0);
  ASSERT_TRUE(sole.has_value());
  EXPECT_EQ(DeterministicBytes(*sole), DeterministicBytes(Place(Y(2), 0, 0)));
}

// ---------------------------------------------------------------------------
// Observations.

TEST(FpObservationTest, SeatSeesOwnHandOnly) {
  auto state = NewGame(4, Seed(9));
  ASSERT_NE(state, nullptr);
  const Position position = PositionOf(*state);
  for (int seat = 0; seat < 4; ++seat) {
    const v1::Observation observation = state->ObservationFor(seat);
    EXPECT_FALSE(observation.public_view());
    EXPECT_EQ(observation.seat(), static_cast<uint32_t>(seat));
    const v1::FlamingPyramidsObservation& view = observation.flaming_pyramids();
    for (int other = 0; other < 4; ++other) {
      const auto& hand = view.seats(other).own_hand();
      if (other == seat) {
        EXPECT_EQ(std::vector<int>(hand.begin(), hand.end()),
                  position.hands[seat]);
      } else {
        EXPECT_THAT(hand, IsEmpty());
      }
    }
    // Apart from the own hand, a seat sees exactly the public view.
    v1::Observation stripped = observation;
    stripped.mutable_flaming_pyramids()->mutable_seats(seat)->clear_own_hand();
    stripped.set_public_view(true);
    stripped.clear_seat();
    EXPECT_EQ(DeterministicBytes(stripped),
              DeterministicBytes(state->PublicView()));
  }
  const v1::Observation view = state->PublicView();
  EXPECT_TRUE(view.public_view());
  for (const v1::FpSeatView& seat : view.flaming_pyramids().seats()) {
    EXPECT_THAT(seat.own_hand(), IsEmpty());
  }
  std::vector<bool> seen(kNumTiles, false);
  MarkPublic(*state, nullptr, seen);
  EXPECT_EQ(CheckRedaction(*state, -1, view, seen), "");
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_EQ(CheckRedaction(*state, seat, state->ObservationFor(seat), seen),
              "");
  }
}

TEST(FpObservationTest, FallPhaseShowsThePendingFallAndTheTurnSoFar) {
  auto state = MakeState(SmallPosition());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());
  const v1::FlamingPyramidsObservation view =
      state->ObservationFor(0).flaming_pyramids();
  EXPECT_EQ(view.phase(), v1::FP_FALL);
  EXPECT_THAT(view.legal_spots(), IsEmpty());
  EXPECT_EQ(view.pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(view.pending().tile(), static_cast<uint32_t>(B(2)));
  EXPECT_EQ(view.current_turn().turn(), 1u);
  EXPECT_EQ(view.current_turn().placed().tile(), static_cast<uint32_t>(B(2)));
  EXPECT_THAT(view.current_turn().events(), IsEmpty());
  EXPECT_FALSE(view.current_turn().has_end());
  // The collapse's supports went under the chooser's pile at once (rules
  // version 2); only the falling tile waits for its direction.
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 0, B(2)}}));
  ASSERT_EQ(view.pending().supports_size(), 2);
  EXPECT_EQ(view.pending().supports(0).tile(), static_cast<uint32_t>(Y(30)));
  EXPECT_EQ(view.pending().supports(1).tile(), static_cast<uint32_t>(R(30)));
}

// Issue 16: a seat that forfeits at the fall of a collapse (a timeout, say)
// is scored with the supports that collapse put under its pile. Under rules
// version 1 the supports stayed on the table until the fall, so they were
// missing from its score (kept so that version-1 logs still verify).
TEST(FpCollapseForfeitTest, TheSupportsCountBeforeTheFallIsChosen) {
  for (const uint32_t version : {2u, 1u}) {
    SCOPED_TRACE(absl::StrCat("rules version ", version));
    auto state = MakeState(SmallPosition(), Config(), version);
    ASSERT_NE(state, nullptr);
    const int held_before = static_cast<int>(View(*state).seats(0).hand_size() +
                                             View(*state).seats(0).pile_size());
    ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());  // Collapses.
    ASSERT_EQ(View(*state).phase(), v1::FP_FALL);
    ASSERT_EQ(state->ActingSeats(), std::vector<int>({0}));
    // B(2) left the hand; Y(30) and R(30) are under the pile (version 2).
    const int supports = version == 2 ? 2 : 0;
    EXPECT_EQ(state->StoppedOutcome().seats(0).score(),
              held_before - 1 + supports);
    EXPECT_EQ(View(*state).seats(0).pile_size(), 1u + supports);
    // Either way the fall completes the same event, with the same moves.
    auto fell = Act(*state, 0, Fall(v1::FP_LEFT));
    ASSERT_TRUE(fell.ok()) << fell.status();
    ASSERT_GE(fell->events_size(), 1);
    EXPECT_EQ(fell->events(0).kind(), v1::FP_COLLAPSE);
    ASSERT_EQ(fell->events(0).moves_size(), 3);
    EXPECT_EQ(fell->events(0).moves(0).tile(), static_cast<uint32_t>(Y(30)));
    EXPECT_EQ(fell->events(0).moves(1).tile(), static_cast<uint32_t>(R(30)));
    EXPECT_EQ(fell->events(0).moves(2).tile(), static_cast<uint32_t>(B(2)));
  }
}

TEST(FpGameTest, RulesVersionsOneAndTwoAreImplemented) {
  EXPECT_EQ((*MakeGameOf(Description(), Config(), 1))->rules_version(), 1u);
  EXPECT_EQ((*MakeGameOf(Description(), Config(), 2))->rules_version(), 2u);
  const absl::Status three = MakeGameOf(Description(), Config(), 3).status();
  EXPECT_EQ(three.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(three.message(),
              HasSubstr("rules version 3 of flaming_pyramids is not "
                        "implemented (this build implements versions 1 to 2)"));
}

TEST(FpObservationTest, RecentTurnsKeepOneRound) {
  auto state = NewGame(3, Seed(4));
  ASSERT_NE(state, nullptr);
  int turns = 0;
  while (!state->IsTerminal() && turns < 5) {
    const int seat = state->ActingSeats()[0];
    auto result = Act(*state, seat, state->DefaultAction(seat));
    ASSERT_TRUE(result.ok());
    if (result->has_turn_end()) ++turns;
  }
  ASSERT_FALSE(state->IsTerminal());
  const v1::FlamingPyramidsObservation view = View(*state);
  ASSERT_THAT(view.recent_turns(), SizeIs(3));
  EXPECT_EQ(view.recent_turns(0).turn(), 3u);
  EXPECT_EQ(view.recent_turns(2).turn(), 5u);
  EXPECT_TRUE(view.recent_turns(2).has_end());
  EXPECT_EQ(view.turns_completed(), 5u);
}

TEST(FpObservationTest, CloneIsIndependent) {
  auto state = NewGame(2, Seed(5));
  ASSERT_NE(state, nullptr);
  std::unique_ptr<State> clone = state->Clone();
  EXPECT_EQ(Snapshot(*clone), Snapshot(*state));
  const int seat = state->ActingSeats()[0];
  ASSERT_TRUE(Act(*state, seat, state->DefaultAction(seat)).ok());
  EXPECT_NE(Snapshot(*clone), Snapshot(*state));
  ASSERT_TRUE(Act(*clone, seat, clone->DefaultAction(seat)).ok());
  EXPECT_EQ(Snapshot(*clone), Snapshot(*state));
}

// ---------------------------------------------------------------------------
// Outcomes.

TEST(FpOutcomeTest, StoppedOutcomeRanksByFewestTilesHeld) {
  auto state =
      MakeState(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2), R(4)}, {B(4)}, {G(2)}},
                    {{R(6)}, {B(6), B(10)}, {}}));
  ASSERT_NE(state, nullptr);
  const v1::Outcome outcome = state->StoppedOutcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  ASSERT_THAT(outcome.seats(), SizeIs(3));
  EXPECT_EQ(outcome.seats(0).score(), 3);
  EXPECT_EQ(outcome.seats(1).score(), 3);
  EXPECT_EQ(outcome.seats(2).score(), 1);
  EXPECT_EQ(outcome.seats(0).rank(), 2u);
  EXPECT_EQ(outcome.seats(1).rank(), 2u);
  EXPECT_EQ(outcome.seats(2).rank(), 1u);
}

}  // namespace
}  // namespace pyramid::fp::testing
