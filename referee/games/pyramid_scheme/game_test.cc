// Pyramid Scheme: options, setup, the State interface, observations,
// default actions and a full default game. Scenario tests of the rules are
// in pyramid_scheme_rules_test.cc, goals in pyramid_scheme_goals_test.cc.
#include "referee/games/pyramid_scheme/game.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/pyramid_scheme/testing.h"

namespace pyramid::scheme::testing {
namespace {

using ::testing::ElementsAreArray;

v1::GameConfig Config(uint32_t max_turns = 0) {
  v1::GameConfig config;
  config.set_game("pyramid_scheme");
  config.mutable_pyramid_scheme()->set_max_turns(max_turns);
  return config;
}

std::unique_ptr<State> NewGame(int seats, uint8_t seed,
                               uint32_t max_turns = 0) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), Config(max_turns));
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<State>> state =
      (*game)->NewInitialState(seats, RandomStream(Seed(seed)));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

int Number(const v1::PyramidSchemeObservation& obs, int card) {
  return static_cast<int>(obs.cards().numbers(card));
}

// ---------------------------------------------------------------------------
// Game and options.

TEST(PssGameTest, IdVersionAndSeats) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), Config());
  ASSERT_TRUE(game.ok());
  EXPECT_EQ((*game)->id(), "pyramid_scheme");
  EXPECT_EQ((*game)->rules_version(), 1u);
  EXPECT_EQ((*game)->min_seats(), 2);
  EXPECT_EQ((*game)->max_seats(), 4);
  for (int seats : {0, 1, 5}) {
    EXPECT_EQ(
        (*game)->NewInitialState(seats, RandomStream(Seed(0))).status().code(),
        absl::StatusCode::kInvalidArgument);
  }
  for (int seats : {2, 3, 4}) {
    EXPECT_TRUE((*game)->NewInitialState(seats, RandomStream(Seed(0))).ok());
  }
}

TEST(PssGameTest, OptionsValidation) {
  v1::GameConfig unset;
  unset.set_game("pyramid_scheme");
  ASSERT_TRUE(MakeGameOf(Description(), unset).ok());
  EXPECT_TRUE(MakeGameOf(Description(), Config(1)).ok());
  EXPECT_TRUE(MakeGameOf(Description(), Config(100000)).ok());
  EXPECT_EQ(MakeGameOf(Description(), Config(100001)).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::GameConfig other = Config();
  other.set_game("rock_paper_pyramid");
  EXPECT_EQ(MakeGameOf(Description(), other).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PssGameTest, MaxTurnsDefaultsTo500) {
  std::unique_ptr<State> state = NewGame(2, 1);
  EXPECT_EQ(View(*state).board().max_turns(), 500u);
  state = NewGame(2, 1, 17);
  EXPECT_EQ(View(*state).board().max_turns(), 17u);
}

TEST(PssGameTest, OtherGamesOptionsRefused) {
  const google::protobuf::OneofDescriptor* options =
      v1::GameConfig::descriptor()->FindOneofByName("options");
  ASSERT_NE(options, nullptr);
  for (int i = 0; i < options->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = options->field(i);
    if (field->number() == v1::GameConfig::kPyramidSchemeFieldNumber) continue;
    v1::GameConfig config;
    config.set_game("pyramid_scheme");
    config.GetReflection()->MutableMessage(&config, field);
    EXPECT_EQ(MakeGameOf(Description(), config).status().code(),
              absl::StatusCode::kInvalidArgument)
        << field->name();
  }
}

// ---------------------------------------------------------------------------
// Setup.

// Replays the setup draws with an independent stream and compares.
void ExpectSetupFromStream(int seats, uint8_t seed) {
  SCOPED_TRACE(::testing::Message() << seats << " seats, seed " << int{seed});
  std::unique_ptr<State> state = NewGame(seats, seed);
  ASSERT_NE(state, nullptr);
  RandomStream stream(Seed(seed));
  std::vector<int> cards(64);
  std::iota(cards.begin(), cards.end(), 0);
  stream.Shuffle(cards);
  std::vector<int> goals(18);
  std::iota(goals.begin(), goals.end(), 0);
  stream.Shuffle(goals);
  goals.resize(6);
  std::sort(goals.begin(), goals.end());

  const v1::PyramidSchemeObservation pub = View(*state);
  std::vector<int> sums;
  for (int seat = 0; seat < seats; ++seat) {
    std::vector<int> hand = {cards[2 * seat], cards[2 * seat + 1]};
    std::sort(hand.begin(), hand.end());
    const v1::PyramidSchemeObservation mine = View(*state, seat);
    EXPECT_EQ(HandIds(mine), hand);
    sums.push_back(Number(pub, hand[0]) + Number(pub, hand[1]));
    const v1::PssSeatView& view = pub.board().seats(seat);
    EXPECT_TRUE(view.live());
    EXPECT_EQ(view.hand_size(), 2u);
    EXPECT_EQ(view.hand_limit(), 3u);
    EXPECT_EQ(view.reset_tokens(), 1u);
    EXPECT_EQ(view.bypass_tokens(), 0u);
    ASSERT_THAT(view.pyramid(), SizeIs(1));
    EXPECT_EQ(view.pyramid(0).card().id(), 64u);
    EXPECT_EQ(view.pyramid(0).card().number(), 12u);
    EXPECT_EQ(view.pyramid(0).kind(), v1::PSS_FOUNDER);
    EXPECT_FALSE(view.pyramid(0).has_parent());
    EXPECT_FALSE(view.pyramid(0).flipped());
  }
  EXPECT_THAT(DisplayIds(pub),
              ElementsAre(cards[2 * seats], cards[2 * seats + 1],
                          cards[2 * seats + 2]));
  EXPECT_EQ(pub.board().deck_size(), static_cast<uint32_t>(61 - 2 * seats));
  EXPECT_EQ(pub.board().deck_top().id(),
            static_cast<uint32_t>(cards[2 * seats + 3]));
  EXPECT_THAT(pub.board().discard(), IsEmpty());
  std::vector<int> shown_goals;
  for (const v1::PssGoalView& goal : pub.board().goals()) {
    shown_goals.push_back(goal.goal());
    EXPECT_FALSE(goal.has_claimed_by());
    EXPECT_FALSE(goal.has_reserved_by());
  }
  EXPECT_EQ(shown_goals, goals);
  EXPECT_EQ(pub.board().supply().police(), 18u);
  EXPECT_EQ(pub.board().supply().reset_tokens(),
            static_cast<uint32_t>(10 - seats));
  EXPECT_EQ(pub.board().supply().bypass_tokens(), 4u);
  EXPECT_EQ(pub.board().supply().capacity_2_tokens(), 3u);
  EXPECT_EQ(pub.board().supply().capacity_3_tokens(), 3u);

  const int lowest = *std::min_element(sums.begin(), sums.end());
  std::vector<int> tied;
  for (int seat = 0; seat < seats; ++seat) {
    if (sums[seat] == lowest) tied.push_back(seat);
  }
  const int starter =
      tied.size() == 1 ? tied[0] : tied[stream.Uniform(tied.size())];
  EXPECT_EQ(pub.board().active_seat(), static_cast<uint32_t>(starter));
  EXPECT_EQ(pub.board().turn(), 1u);
  EXPECT_EQ(pub.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(pub.decision().seat(), static_cast<uint32_t>(starter));
  EXPECT_THAT(state->ActingSeats(), ElementsAre(starter));
  EXPECT_FALSE(state->IsSimultaneous());
  // The stream drew nothing else: the next word matches.
  RandomStream probe = stream;
  EXPECT_EQ(probe.NextWord(), stream.NextWord());
}

TEST(PssSetupTest, DealDisplayDeckGoalsAndStarterFollowTheStream) {
  for (int seats = 2; seats <= 4; ++seats) {
    for (uint8_t seed = 0; seed < 12; ++seed) {
      ExpectSetupFromStream(seats, seed);
    }
  }
}

// The starter is the lowest hand sum; ties are broken by uniform(k). Finds
// seeds with and without a tie and checks both branches were exercised.
TEST(PssSetupTest, LowestHandSumStartsAndTiesDrawUniform) {
  int ties = 0;
  int unique = 0;
  for (uint8_t seed = 0; seed < 60 && (ties < 3 || unique < 3); ++seed) {
    RandomStream stream(Seed(seed));
    std::vector<int> cards(64);
    std::iota(cards.begin(), cards.end(), 0);
    stream.Shuffle(cards);
    std::unique_ptr<State> state = NewGame(4, seed);
    const v1::PyramidSchemeObservation pub = View(*state);
    std::vector<int> sums;
    for (int seat = 0; seat < 4; ++seat) {
      sums.push_back(Number(pub, cards[2 * seat]) +
                     Number(pub, cards[2 * seat + 1]));
    }
    const int lowest = *std::min_element(sums.begin(), sums.end());
    const int tied =
        static_cast<int>(std::count(sums.begin(), sums.end(), lowest));
    const int starter = static_cast<int>(pub.board().active_seat());
    EXPECT_EQ(sums[starter], lowest) << int{seed};
    (tied > 1 ? ties : unique) += 1;
    ExpectSetupFromStream(4, seed);
  }
  EXPECT_GE(ties, 3);
  EXPECT_GE(unique, 3);
}

// ---------------------------------------------------------------------------
// The State interface.

TEST(PssStateTest, LegalActionsSortedUniqueAndValid) {
  std::unique_ptr<State> state = NewGame(3, 4);
  RandomStream choices(Seed(99));
  for (int step = 0; step < 200 && !state->IsTerminal(); ++step) {
    const int seat = state->ActingSeats()[0];
    const std::vector<v1::Action> legal = state->LegalActions(seat);
    ASSERT_FALSE(legal.empty());
    for (size_t i = 0; i < legal.size(); ++i) {
      EXPECT_TRUE(state->ValidateAction(seat, legal[i]).ok());
      if (i > 0) {
        EXPECT_LT(DeterministicBytes(legal[i - 1]),
                  DeterministicBytes(legal[i]));
      }
    }
    for (int other = 0; other < 3; ++other) {
      if (other == seat) continue;
      EXPECT_THAT(state->LegalActions(other), IsEmpty());
      EXPECT_EQ(state->ValidateAction(other, legal[0]).code(),
                absl::StatusCode::kFailedPrecondition);
    }
    ASSERT_TRUE(Act(*state, seat, legal[choices.Uniform(legal.size())]).ok());
  }
}

TEST(PssStateTest, IllegalActionsRefusedAndStateUnchanged) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kBlue, 14)};
  position.seats[0].pyramid = {{V(kBlue, 13), kFounder}};
  std::unique_ptr<State> state = FromPosition(position);
  const std::string before = DeterministicBytes(state->ObservationFor(0));
  std::vector<v1::Action> illegal = {
      Take(3),                            // No such slot.
      Place(V(kBlue, 14), V(kBlue, 13)),  // Blue above (and too big).
      Place(V(kBlue, 3), kFounder),       // Not in hand.
      Place(V(kBlue, 14), 70),            // Not in the pyramid.
      Place(V(kBlue, 14), 5000),          // Not a card.
      ArmBypass(),                        // No bypass held.
      Flip(V(kBlue, 13)),                 // No flip window.
      Stop(),
      Target(kFounder),  // No reward pending.
      DiscardHand({}),
      Reserve(3),
      PlacePolice(kFounder),  // No Police owed.
      EndTurn(),              // Actions still owed.
      v1::Action(),           // Not this game's.
  };
  v1::Action empty_game;
  empty_game.mutable_pyramid_scheme();
  illegal.push_back(empty_game);
  for (const v1::Action& action : illegal) {
    EXPECT_EQ(state->ValidateAction(0, action).code(),
              absl::StatusCode::kInvalidArgument)
        << action.ShortDebugString();
    EXPECT_FALSE(Act(*state, 0, action).ok());
    EXPECT_EQ(DeterministicBytes(state->ObservationFor(0)), before);
  }
  // Wrong seat.
  EXPECT_EQ(state->ValidateAction(1, Take(0)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(Act(*state, 1, Take(0)).ok());
  EXPECT_EQ(DeterministicBytes(state->ObservationFor(0)), before);
}

TEST(PssStateTest, CloneIsDeep) {
  std::unique_ptr<State> state = NewGame(2, 3);
  std::unique_ptr<State> clone = state->Clone();
  const int seat = state->ActingSeats()[0];
  ASSERT_TRUE(Act(*clone, seat, clone->DefaultAction(seat)).ok());
  EXPECT_NE(DeterministicBytes(state->PublicView()),
            DeterministicBytes(clone->PublicView()));
  EXPECT_EQ(View(*state).decision().actions_done(), 0u);
  EXPECT_EQ(View(*clone).decision().actions_done(), 1u);
}

// ---------------------------------------------------------------------------
// Observations.

TEST(PssObservationTest, OwnHandOnlyAndPublicViewWithoutHands) {
  std::unique_ptr<State> state = NewGame(3, 5);
  const v1::Observation public_view = state->PublicView();
  EXPECT_TRUE(public_view.public_view());
  EXPECT_THAT(public_view.pyramid_scheme().hand(), IsEmpty());
  for (int seat = 0; seat < 3; ++seat) {
    v1::Observation mine = state->ObservationFor(seat);
    EXPECT_FALSE(mine.public_view());
    EXPECT_EQ(mine.seat(), static_cast<uint32_t>(seat));
    EXPECT_THAT(mine.pyramid_scheme().hand(), SizeIs(2));
    // Apart from the own hand, a seat sees exactly the public view.
    mine.mutable_pyramid_scheme()->clear_hand();
    mine.set_public_view(true);
    mine.clear_seat();
    EXPECT_EQ(DeterministicBytes(mine), DeterministicBytes(public_view));
  }
  // The board shows 6 goals, the deck only as size and top card.
  EXPECT_THAT(public_view.pyramid_scheme().board().goals(), SizeIs(6));
  EXPECT_TRUE(public_view.pyramid_scheme().board().has_deck_top());
}

// Two positions that differ only in what seat 0 may not see (seat 1's hand
// and the deck below its top card) look identical to seat 0 and to a
// watcher.
TEST(PssObservationTest, HiddenDeckOrderAndOtherHandsDoNotChangeTheView) {
  TestPosition first = BasePosition(3);
  first.seats[0].hand = {V(kGreen, 0)};
  first.seats[1].hand = {V(kBlue, 0), V(kBlue, 1)};
  first.deck = {V(kYellow, 4), V(kGreen, 2), V(kBlue, 2), V(kPink, 2)};
  TestPosition second = first;
  second.seats[1].hand = {V(kBlue, 0), V(kPink, 2)};
  second.deck = {V(kYellow, 4), V(kBlue, 1), V(kGreen, 2), V(kBlue, 2)};
  std::unique_ptr<State> a = FromPosition(first);
  std::unique_ptr<State> b = FromPosition(second);
  EXPECT_EQ(DeterministicBytes(a->PublicView()),
            DeterministicBytes(b->PublicView()));
  EXPECT_EQ(DeterministicBytes(a->ObservationFor(0)),
            DeterministicBytes(b->ObservationFor(0)));
  EXPECT_EQ(DeterministicBytes(a->ObservationFor(2)),
            DeterministicBytes(b->ObservationFor(2)));
  EXPECT_NE(DeterministicBytes(a->ObservationFor(1)),
            DeterministicBytes(b->ObservationFor(1)));
  // The same move gives the same result (it names only public cards);
  // the new deck tops differ and are public from now on.
  absl::StatusOr<v1::PyramidSchemeResult> ra = Act(*a, 0, Take(0));
  absl::StatusOr<v1::PyramidSchemeResult> rb = Act(*b, 0, Take(0));
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(DeterministicBytes(*ra), DeterministicBytes(*rb));
  EXPECT_NE(View(*a).board().deck_top().id(), View(*b).board().deck_top().id());
}

TEST(PssObservationTest, CardTableDescribesEveryCard) {
  const v1::PyramidSchemeObservation obs = View(*NewGame(2, 0));
  const v1::PssCardTable& cards = obs.cards();
  ASSERT_EQ(cards.colours_size(), 83);
  ASSERT_EQ(cards.numbers_size(), 83);
  ASSERT_EQ(cards.rewards_size(), 83);
  ASSERT_EQ(cards.condition_needs_size(), 4 * 83);
  ASSERT_EQ(cards.condition_any_size(), 83);
  auto needs = [&](int card) {
    return std::vector<uint32_t>(
        cards.condition_needs().begin() + 4 * card,
        cards.condition_needs().begin() + 4 * card + 4);
  };
  // Pink 5 of row 14: one blue and two any; FLIP_OTHER_WITH_BONUS.
  const int pink5 = V(kPink, 14);
  EXPECT_EQ(cards.colours(pink5), v1::PSS_PINK);
  EXPECT_EQ(cards.numbers(pink5), 5u);
  EXPECT_THAT(needs(pink5), ElementsAre(0u, 1u, 0u, 0u));
  EXPECT_EQ(cards.condition_any(pink5), 2u);
  EXPECT_EQ(cards.rewards(pink5), v1::PSS_FLIP_OTHER_WITH_BONUS);
  // Yellow 3 of row 9: c+1 = green, c+2 = blue; HAND_LIMIT_1.
  EXPECT_THAT(needs(V(kYellow, 9)), ElementsAre(1u, 1u, 0u, 0u));
  EXPECT_EQ(cards.condition_any(V(kYellow, 9)), 0u);
  EXPECT_EQ(cards.rewards(V(kYellow, 9)), v1::PSS_HAND_LIMIT_1);
  // The Founder: one of each colour; TAKE_RESET.
  EXPECT_EQ(cards.colours(kFounder), v1::PSS_NO_COLOUR);
  EXPECT_EQ(cards.numbers(kFounder), 12u);
  EXPECT_THAT(needs(kFounder), ElementsAre(1u, 1u, 1u, 1u));
  EXPECT_EQ(cards.rewards(kFounder), v1::PSS_TAKE_RESET);
  for (int i = 0; i < 18; ++i) {
    EXPECT_EQ(cards.numbers(Police(i)), 3u);
    EXPECT_EQ(cards.colours(Police(i)), v1::PSS_NO_COLOUR);
    EXPECT_THAT(needs(Police(i)), ElementsAre(0u, 0u, 0u, 0u));
    EXPECT_EQ(cards.rewards(Police(i)), v1::PSS_NO_REWARD);
  }
  // 16 per colour; numbers 1 x5, 2 x4, 3 x3, 4 x2, 5 x2 per colour.
  std::vector<int> per_number(6);
  for (int card = 0; card < 64; ++card) {
    EXPECT_EQ(cards.colours(card), static_cast<v1::PssColour>(card / 16 + 1));
    ++per_number[cards.numbers(card)];
  }
  EXPECT_THAT(per_number, ElementsAre(0, 20, 16, 12, 8, 8));
}

// ---------------------------------------------------------------------------
// Default actions.

TEST(PssDefaultTest, TakesLowestLegalSlot) {
  TestPosition position = BasePosition(2);
  position.display = {-1, V(kBlue, 4), V(kPink, 4)};
  std::unique_ptr<State> state = FromPosition(position);
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Take(1)));
}

TEST(PssDefaultTest, PlacesLowestCardAtFirstLegalParentInPyramidOrder) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kGreen, 0), V(kBlue, 0), V(kPink, 0)};
  // Pyramid order: Founder, G5, B5 (children of the Founder), then Y1
  // (below G5). The Founder is full (5 + 5 + 2 = 12).
  position.seats[0].pyramid = {{V(kGreen, 14), kFounder},
                               {V(kBlue, 14), kFounder},
                               {V(kPink, 8), kFounder},
                               {V(kYellow, 0), V(kGreen, 14)}};
  std::unique_ptr<State> state = FromPosition(position);
  // The hand is full: no take. Green 0 cannot go below G5 (green above);
  // its first legal parent in pyramid order is B5.
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Place(V(kGreen, 0), V(kBlue, 14))));
}

TEST(PssDefaultTest, ArmsBypassWhenOnlyABypassHelps) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kYellow, 0), V(kYellow, 1), V(kYellow, 2)};
  position.seats[0].pyramid = {{V(kYellow, 14), kFounder},
                               {V(kYellow, 15), kFounder},
                               {V(kYellow, 8), kFounder}};
  position.seats[0].bypass_tokens = 1;
  std::unique_ptr<State> state = FromPosition(position);
  ASSERT_FALSE(state->IsTerminal());
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(ArmBypass()));
  ASSERT_TRUE(Act(*state, 0, ArmBypass()).ok());
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Place(V(kYellow, 0), V(kYellow, 14))));
}

TEST(PssDefaultTest, StopsFlippingEndsTurnAndTargetsFirstInPyramidOrder) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kBlue, 3)};
  // Green 2 of row 6 needs pink below: FLIP_OTHER.
  position.seats[0].pyramid = {{V(kGreen, 6), kFounder},
                               {V(kPink, 3), V(kGreen, 6)},
                               {V(kYellow, 9), kFounder}};
  position.actions_done = 1;
  std::unique_ptr<State> state = FromPosition(position);
  ASSERT_TRUE(Act(*state, 0, Place(V(kBlue, 3), kFounder)).ok());
  ASSERT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_FLIP_WINDOW);
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Stop()));
  ASSERT_TRUE(Act(*state, 0, Flip(V(kGreen, 6))).ok());
  ASSERT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_REWARD);
  // Unflipped Victims and Founder in pyramid order: the Founder first.
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Target(kFounder)));
  ASSERT_TRUE(Act(*state, 0, Target(V(kYellow, 9))).ok());
  ASSERT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_END_OF_TURN);
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(EndTurn()));
}

TEST(PssDefaultTest, DiscardHandDefaultsToNoCardAndReserveToLowestGoal) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kPink, 3), V(kYellow, 0)};
  // Green 2 of row 5 needs blue + any: DISCARD_HAND.
  position.seats[0].pyramid = {{V(kGreen, 5), kFounder},
                               {V(kBlue, 3), V(kGreen, 5)}};
  std::unique_ptr<State> state = FromPosition(position);
  ASSERT_TRUE(Act(*state, 0, Place(V(kPink, 3), V(kGreen, 5))).ok());
  ASSERT_TRUE(Act(*state, 0, Flip(V(kGreen, 5))).ok());
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(DiscardHand({})));

  TestPosition reserve = BasePosition(2);
  reserve.seats[0].hand = {V(kPink, 3)};
  // Green 3 of row 10 needs yellow + 2 any: RESERVE_GOAL.
  reserve.seats[0].pyramid = {{V(kGreen, 10), kFounder},
                              {V(kYellow, 3), V(kGreen, 10)},
                              {V(kBlue, 3), V(kGreen, 10)}};
  reserve.goals = {{9}, {4, 1}, {12}, {2, -1, 1}};
  state = FromPosition(reserve);
  ASSERT_TRUE(Act(*state, 0, Place(V(kPink, 3), V(kGreen, 10))).ok());
  ASSERT_TRUE(Act(*state, 0, Flip(V(kGreen, 10))).ok());
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_RESERVE_GOAL);
  // Goal 4 is claimed and goal 2 reserved: 9 and 12 are the targets.
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(0)),
            DeterministicBytes(Reserve(9)));
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
}

TEST(PssDefaultTest, PoliceGoesToFirstLegalParentInPyramidOrder) {
  TestPosition position = BasePosition(2);
  // Seat 0 completes goal 15 (three reset tokens) by a TAKE_RESET reward.
  position.seats[0].reset_tokens = 2;
  position.seats[0].hand = {V(kBlue, 3)};
  // Green 2 of row 7 needs yellow + any: TAKE_RESET.
  position.seats[0].pyramid = {{V(kGreen, 7), kFounder},
                               {V(kYellow, 3), V(kGreen, 7)}};
  position.seats[1].pyramid = {{V(kPink, 14), kFounder},
                               {V(kPink, 15), kFounder},
                               {V(kPink, 8), kFounder}};
  position.goals = {{15}};
  std::unique_ptr<State> state = FromPosition(position);
  ASSERT_TRUE(Act(*state, 0, Place(V(kBlue, 3), V(kGreen, 7))).ok());
  ASSERT_TRUE(Act(*state, 0, Flip(V(kGreen, 7))).ok());
  const v1::PyramidSchemeObservation obs = View(*state);
  ASSERT_EQ(obs.decision().phase(), v1::PSS_PHASE_POLICE);
  ASSERT_EQ(obs.decision().seat(), 1u);
  // The Founder is full; P5 (placed first) comes first in pyramid order.
  EXPECT_EQ(DeterministicBytes(state->DefaultAction(1)),
            DeterministicBytes(PlacePolice(V(kPink, 14))));
}

TEST(PssDefaultTest, FullGamesByDefaultActionsEnd) {
  for (int seats = 2; seats <= 4; ++seats) {
    std::unique_ptr<State> state = NewGame(seats, static_cast<uint8_t>(seats));
    int steps = 0;
    while (!state->IsTerminal() && steps < 100000) {
      const int seat = state->ActingSeats()[0];
      const v1::Action action = state->DefaultAction(seat);
      ASSERT_TRUE(state->ValidateAction(seat, action).ok());
      ASSERT_TRUE(Act(*state, seat, action).ok());
      ++steps;
    }
    ASSERT_TRUE(state->IsTerminal());
    const v1::Outcome outcome = state->Outcome();
    EXPECT_THAT(outcome.seats(), SizeIs(seats));
    EXPECT_NE(outcome.termination(), v1::TERMINATION_UNSPECIFIED);
  }
}

}  // namespace
}  // namespace pyramid::scheme::testing
