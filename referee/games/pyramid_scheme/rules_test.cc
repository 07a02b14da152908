// Pyramid Scheme: one named scenario test per rule and resolution of the
// rules page (turn, placement, tokens, elimination, flips, rewards, deck,
// end and outcome). Each builds a position, applies moves through the public
// Apply and checks the result card by card. Then the State interface
// (legal actions, refusals, Clone), observations and default actions.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/pyramid_scheme/testing.h"

namespace pyramid::scheme::testing {
namespace {

// Asserts that `action` is legal for `seat` and applies it.
v1::PyramidSchemeResult Must(State& state, int seat, const v1::Action& action) {
  absl::StatusOr<v1::PyramidSchemeResult> result = Act(state, seat, action);
  EXPECT_TRUE(result.ok()) << action.ShortDebugString() << ": "
                           << result.status();
  return result.ok() ? *result : v1::PyramidSchemeResult();
}

bool Legal(const State& state, int seat, const v1::Action& action) {
  return state.ValidateAction(seat, action).ok();
}

v1::PssPhase Phase(const State& state) {
  return View(state).decision().phase();
}

// A full pyramid of yellow cards: the Founder holds 5 + 5 + 2 = 12, so only
// non-yellow cards (or a bypass) fit below the yellows.
std::vector<TestNode> FullYellowPyramid() {
  return {{V(kYellow, 14), kFounder},
          {V(kYellow, 15), kFounder},
          {V(kYellow, 8), kFounder}};
}

// ---------------------------------------------------------------------------
// A turn: two actions.

TEST(PssTurnTest, TakeMovesSlotCardToHandAndRefillsFromDeckTop) {
  std::unique_ptr<State> state = StateAt(BasePosition(2));
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(1));
  EXPECT_THAT(EventKinds(result), ElementsAre("took", "slot_filled"));
  EXPECT_EQ(result.events(0).took().card().id(),
            static_cast<uint32_t>(V(kBlue, 4)));
  EXPECT_EQ(result.events(1).slot_filled().card().id(),
            static_cast<uint32_t>(V(kYellow, 4)));
  const v1::PyramidSchemeObservation obs = View(*state, 0);
  EXPECT_THAT(HandIds(obs), ElementsAre(V(kBlue, 4)));
  EXPECT_THAT(DisplayIds(obs),
              ElementsAre(V(kGreen, 4), V(kYellow, 4), V(kPink, 4)));
  EXPECT_EQ(obs.board().deck_top().id(), static_cast<uint32_t>(V(kGreen, 2)));
  EXPECT_EQ(obs.board().deck_size(), 3u);
  EXPECT_EQ(obs.board().seats(0).hand_size(), 1u);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().actions_done(), 1u);
}

TEST(PssTurnTest, TwoActionsThenEndOfTurnWhileHoldingReset) {
  std::unique_ptr<State> state = StateAt(BasePosition(2));
  Must(*state, 0, Take(0));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
  Must(*state, 0, Take(0));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_END_OF_TURN);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));  // use_reset, end_turn.
  const v1::PyramidSchemeResult result = Must(*state, 0, EndTurn());
  EXPECT_THAT(EventKinds(result), ElementsAre("turn_ended", "turn_started"));
  EXPECT_EQ(result.events(0).turn_ended().board().seats(0).hand_size(), 2u);
  EXPECT_EQ(result.events(1).turn_started().seat(), 1u);
  EXPECT_EQ(result.events(1).turn_started().turn(), 2u);
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.board().active_seat(), 1u);
  EXPECT_EQ(obs.board().turn(), 2u);
  EXPECT_EQ(obs.decision().actions_done(), 0u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(1));
}

TEST(PssTurnTest, TurnEndsAfterSecondActionWithoutResetToken) {
  TestPosition position = BasePosition(2);
  position.seats[0].reset_tokens = 0;
  position.actions_done = 1;
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(2));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("took", "slot_filled", "turn_ended", "turn_started"));
  EXPECT_EQ(View(*state).board().active_seat(), 1u);
}

TEST(PssTurnTest, PlayGoesInIncreasingSeatOrderWrapping) {
  TestPosition position = BasePosition(3);
  position.active_seat = 2;
  position.actions_done = 1;
  position.seats[2].reset_tokens = 0;
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 2, Take(0));
  EXPECT_EQ(View(*state).board().active_seat(), 0u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
}

TEST(PssTurnTest, TakeIllegalAtHandLimitOrFromEmptySlot) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kYellow, 0), V(kYellow, 1), V(kYellow, 3)};
  position.display = {V(kGreen, 4), -1, V(kPink, 4)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_EQ(state->ValidateAction(0, Take(0)).code(),
            absl::StatusCode::kInvalidArgument);
  position.seats[0].hand_limit_bonus = 1;
  state = StateAt(position);
  EXPECT_TRUE(Legal(*state, 0, Take(0)));
  EXPECT_FALSE(Legal(*state, 0, Take(1)));  // Empty slot.
}

// ---------------------------------------------------------------------------
// Placement rules.

TEST(PssPlacementTest, Rule1ChildSumWouldExceedTheLimit) {
  TestPosition position = BasePosition(2);
  // Yellow 3 holds a green 2: room for 1 more.
  position.seats[0].pyramid = {{V(kYellow, 9), kFounder},
                               {V(kGreen, 5), V(kYellow, 9)}};
  position.seats[0].hand = {V(kBlue, 5), V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 5), V(kYellow, 9))));
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), V(kYellow, 9))));
  Must(*state, 0, Place(V(kBlue, 3), V(kYellow, 9)));
  // The node points into the observation: keep it alive while it is read.
  const v1::PyramidSchemeObservation observation = View(*state);
  const v1::PssNode* node = FindNode(observation, 0, V(kBlue, 3));
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->parent(), static_cast<uint32_t>(V(kYellow, 9)));
  EXPECT_FALSE(node->flipped());
  EXPECT_EQ(node->kind(), v1::PSS_VICTIM);
}

TEST(PssPlacementTest, Rule1CapacityTokensRaiseTheLimit) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kYellow, 9), kFounder, false, {2}},
                               {V(kGreen, 5), V(kYellow, 9)}};
  position.seats[0].hand = {V(kBlue, 5)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_EQ(FindNode(View(*state), 0, V(kYellow, 9))->limit(), 5u);
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 5), V(kYellow, 9))));
}

TEST(PssPlacementTest, Rule1FounderHoldsTwelve) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 14), kFounder},
                               {V(kBlue, 14), kFounder}};
  position.seats[0].hand = {V(kPink, 5), V(kPink, 9)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_TRUE(Legal(*state, 0, Place(V(kPink, 5), kFounder)));   // 12.
  EXPECT_FALSE(Legal(*state, 0, Place(V(kPink, 9), kFounder)));  // 13.
}

TEST(PssPlacementTest, Rule1PoliceCountsThreeAmongChildren) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {
      {Police(0), kFounder}, {Police(1), kFounder}, {Police(2), kFounder}};
  position.seats[0].hand = {V(kBlue, 12), V(kBlue, 9)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 12), kFounder)));  // 9 + 4.
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 9), kFounder)));    // 9 + 3.
}

TEST(PssPlacementTest, Rule2ColourAlreadyOnTheParent) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kBlue, 14), kFounder}};
  position.seats[0].hand = {V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 3), V(kBlue, 14))));
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), kFounder)));
}

TEST(PssPlacementTest, Rule2ColourFarAboveOnTheBranch) {
  TestPosition position = BasePosition(2);
  // Founder > blue 5 > green 2 > pink 1: blue is three levels above.
  position.seats[0].pyramid = {{V(kBlue, 14), kFounder},
                               {V(kGreen, 8), V(kBlue, 14)},
                               {V(kPink, 3), V(kGreen, 8)}};
  position.seats[0].hand = {V(kBlue, 3), V(kYellow, 3)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 3), V(kPink, 3))));
  EXPECT_TRUE(Legal(*state, 0, Place(V(kYellow, 3), V(kPink, 3))));
}

TEST(PssPlacementTest, Rule2FlippedVictimNoLongerRestricts) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kBlue, 14), kFounder, /*flipped=*/true},
                               {V(kGreen, 8), V(kBlue, 14)},
                               {V(kPink, 3), V(kGreen, 8)}};
  position.seats[0].hand = {V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), V(kPink, 3))));
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), V(kBlue, 14))));
}

TEST(PssPlacementTest, Rule3NothingBelowAnUnflippedPolice) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{Police(0), kFounder},
                               {Police(1), kFounder, /*flipped=*/true}};
  position.seats[0].hand = {V(kBlue, 3), V(kBlue, 9), V(kBlue, 12)};
  std::unique_ptr<State> state = StateAt(position);
  // Unflipped Police: nothing goes below.
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 3), Police(0))));
  // Flipped Police: a card of limit 3.
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), Police(1))));
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 9), Police(1))));
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 12), Police(1))));
}

TEST(PssPlacementTest, FlippedPoliceWithCapacityTokenHoldsMore) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{Police(4), kFounder, true, {2}}};
  position.seats[0].hand = {V(kBlue, 12)};
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 12), Police(4))));
}

// ---------------------------------------------------------------------------
// Tokens.

TEST(PssTokenTest, ResetDiscardsSlotsInOrderAndRefillsWithoutAnAction) {
  std::unique_ptr<State> state = StateAt(BasePosition(2));
  const uint32_t supply = View(*state).board().supply().reset_tokens();
  const v1::PyramidSchemeResult result = Must(*state, 0, UseReset());
  EXPECT_THAT(EventKinds(result),
              ElementsAre("token_used", "discarded", "slot_filled",
                          "slot_filled", "slot_filled"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_THAT(DiscardIds(obs),
              ElementsAre(V(kGreen, 4), V(kBlue, 4), V(kPink, 4)));
  EXPECT_THAT(DisplayIds(obs),
              ElementsAre(V(kYellow, 4), V(kGreen, 2), V(kBlue, 2)));
  EXPECT_EQ(obs.board().deck_top().id(), static_cast<uint32_t>(V(kPink, 2)));
  EXPECT_EQ(obs.board().seats(0).reset_tokens(), 0u);
  EXPECT_EQ(obs.board().supply().reset_tokens(), supply + 1);
  // Tokens cost no action: the first action is still owed.
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().actions_done(), 0u);
}

TEST(PssTokenTest, EndOfTurnAsksAgainWhileAResetTokenIsHeld) {
  TestPosition position = BasePosition(2);
  position.seats[0].reset_tokens = 2;
  position.actions_done = 1;
  position.deck.push_back(V(kYellow, 2));
  position.deck.push_back(V(kGreen, 1));
  position.deck.push_back(V(kBlue, 1));
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Take(0));
  ASSERT_EQ(Phase(*state), v1::PSS_PHASE_END_OF_TURN);
  Must(*state, 0, UseReset());
  ASSERT_EQ(Phase(*state), v1::PSS_PHASE_END_OF_TURN);
  EXPECT_EQ(View(*state).board().seats(0).reset_tokens(), 1u);
  const v1::PyramidSchemeResult last = Must(*state, 0, UseReset());
  // No reset token left: the turn ends without asking.
  EXPECT_EQ(EventKinds(last).back(), "turn_started");
  EXPECT_EQ(View(*state).board().active_seat(), 1u);
}

TEST(PssTokenTest, BypassIgnoresRule2ForTheNextVictimPlacementOnly) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kBlue, 14), kFounder}};
  position.seats[0].hand = {V(kBlue, 0), V(kBlue, 3)};
  position.seats[0].bypass_tokens = 2;
  std::unique_ptr<State> state = StateAt(position);
  const uint32_t supply = View(*state).board().supply().bypass_tokens();
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 3), V(kBlue, 14))));
  const v1::PyramidSchemeResult armed = Must(*state, 0, ArmBypass());
  EXPECT_THAT(EventKinds(armed), ElementsAre("token_used"));
  v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_TRUE(obs.decision().bypass_armed());
  EXPECT_EQ(obs.decision().actions_done(), 0u);
  EXPECT_EQ(obs.board().seats(0).bypass_tokens(), 1u);
  EXPECT_EQ(obs.board().supply().bypass_tokens(), supply + 1);
  EXPECT_FALSE(Legal(*state, 0, ArmBypass()));  // One armed at a time.
  EXPECT_TRUE(Legal(*state, 0, Place(V(kBlue, 3), V(kBlue, 14))));
  const v1::PyramidSchemeResult placed =
      Must(*state, 0, Place(V(kBlue, 3), V(kBlue, 14)));
  EXPECT_TRUE(placed.events(0).placed().bypass_used());
  obs = View(*state);
  EXPECT_FALSE(obs.decision().bypass_armed());
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 0), V(kBlue, 14))));
}

TEST(PssTokenTest, ArmedBypassIsSpentByAPlacementThatDidNotNeedIt) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kBlue, 14), kFounder}};
  position.seats[0].hand = {V(kBlue, 0), V(kBlue, 3)};
  position.seats[0].bypass_tokens = 1;
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, ArmBypass());
  const v1::PyramidSchemeResult placed =
      Must(*state, 0, Place(V(kBlue, 0), kFounder));
  EXPECT_TRUE(placed.events(0).placed().bypass_used());
  EXPECT_FALSE(Legal(*state, 0, Place(V(kBlue, 3), V(kBlue, 14))));
}

TEST(PssTokenTest, UnusedArmedBypassIsWastedAtTheEndOfTheTurn) {
  TestPosition position = BasePosition(2);
  position.seats[0].bypass_tokens = 2;
  position.seats[0].reset_tokens = 0;
  position.actions_done = 1;
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, ArmBypass());
  Must(*state, 0, Take(0));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.board().active_seat(), 1u);
  EXPECT_FALSE(obs.decision().bypass_armed());
  EXPECT_EQ(obs.board().seats(0).bypass_tokens(), 1u);
}

TEST(PssTokenTest, TokenUsesAreLegalActionsSoTheSeatIsAsked) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kYellow, 0), V(kYellow, 1)};
  position.seats[0].pyramid = FullYellowPyramid();
  position.display = {V(kYellow, 3), -1, -1};
  position.seats[0].reset_tokens = 0;
  std::unique_ptr<State> state = StateAt(position);
  // A single take: the referee would apply it automatically.
  ASSERT_TRUE(state->SoleLegalAction(0).has_value());
  EXPECT_EQ(DeterministicBytes(*state->SoleLegalAction(0)),
            DeterministicBytes(Take(0)));
  position.seats[0].reset_tokens = 1;
  state = StateAt(position);
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
  EXPECT_FALSE(state->SoleLegalAction(0).has_value());
}

// ---------------------------------------------------------------------------
// Elimination when an owed action is impossible.

// Seat 0 takes a third yellow card into a full yellow pyramid: no take, no
// placement.
TestPosition CrumblingPosition(int seats) {
  TestPosition position = BasePosition(seats);
  position.seats[0].hand = {V(kYellow, 0), V(kYellow, 1)};
  position.seats[0].pyramid = FullYellowPyramid();
  position.display = {V(kYellow, 3), V(kGreen, 4), V(kBlue, 4)};
  return position;
}

TEST(PssEliminationTest, NoLegalActionCrumblesThePyramid) {
  TestPosition position = CrumblingPosition(3);
  position.goals = {{5, -1, 0}, {3, 0, -1}};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeObservation before = View(*state);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(0));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("took", "slot_filled", "eliminated", "turn_ended",
                          "turn_started"));
  EXPECT_EQ(result.events(2).eliminated().seat(), 0u);
  EXPECT_EQ(result.events(2).eliminated().reason(), v1::PSS_NO_LEGAL_ACTION);
  const v1::PyramidSchemeObservation obs = View(*state);
  const v1::PssSeatView& seat = obs.board().seats(0);
  EXPECT_FALSE(seat.live());
  EXPECT_EQ(seat.eliminated_order(), 1u);
  EXPECT_THAT(seat.pyramid(), IsEmpty());
  EXPECT_EQ(seat.hand_size(), 0u);
  EXPECT_EQ(seat.reset_tokens(), 0u);
  // Victims (3 in the pyramid, 3 in hand) leave the game; the token returns.
  EXPECT_EQ(obs.board().out_of_game(), before.board().out_of_game() + 6);
  EXPECT_EQ(obs.board().supply().reset_tokens(),
            before.board().supply().reset_tokens() + 1);
  // Claimed goals stay claimed; reserved goals become open.
  EXPECT_EQ(obs.board().goals(0).goal(), 3u);
  EXPECT_EQ(obs.board().goals(0).claimed_by(), 0u);
  EXPECT_EQ(obs.board().goals(1).goal(), 5u);
  EXPECT_FALSE(obs.board().goals(1).has_reserved_by());
  EXPECT_EQ(obs.board().active_seat(), 1u);
  EXPECT_FALSE(state->IsTerminal());
}

TEST(PssEliminationTest, HeldBypassThatWouldMakeAPlacementLegalSaves) {
  TestPosition position = CrumblingPosition(3);
  position.seats[0].bypass_tokens = 1;
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(0));
  EXPECT_THAT(EventKinds(result), ElementsAre("took", "slot_filled"));
  EXPECT_TRUE(View(*state).board().seats(0).live());
  // Nothing is legal without a token: only token uses remain.
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
  EXPECT_TRUE(Legal(*state, 0, ArmBypass()));
  EXPECT_TRUE(Legal(*state, 0, UseReset()));
}

TEST(PssEliminationTest, LastLiveSeatWins) {
  std::unique_ptr<State> state = StateAt(CrumblingPosition(2));
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(0));
  EXPECT_EQ(EventKinds(result).back(), "game_ended");
  EXPECT_EQ(result.events().rbegin()->game_ended().reason(),
            v1::PSS_LAST_SEAT_STANDING);
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(state->ActingSeats(), IsEmpty());
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_EQ(outcome.seats(0).rank(), 2u);
  EXPECT_EQ(outcome.seats(0).score(), 0);
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
}

TEST(PssEliminationTest, CheckedAtTheStartOfATurn) {
  TestPosition position = BasePosition(3);
  position.seats[0].reset_tokens = 0;
  position.actions_done = 1;
  // Seat 1 cannot act at all: its turn starts and ends at once.
  position.seats[1].hand = {V(kYellow, 0), V(kYellow, 1), V(kYellow, 3)};
  position.seats[1].pyramid = FullYellowPyramid();
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(0));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("took", "slot_filled", "turn_ended", "turn_started",
                          "eliminated", "turn_ended", "turn_started"));
  EXPECT_EQ(View(*state).board().active_seat(), 2u);
  EXPECT_EQ(View(*state).board().turn(), 3u);
}

// ---------------------------------------------------------------------------
// The flip window.

TEST(PssFlipTest, WindowOpensForAnyQualifyingCardNotOnlyTheParent) {
  TestPosition position = BasePosition(2);
  // Green 1 of row 0 needs a blue below: it qualifies already.
  position.seats[0].pyramid = {{V(kGreen, 0), kFounder},
                               {V(kBlue, 3), V(kGreen, 0)}};
  position.seats[0].hand = {V(kPink, 3), V(kYellow, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), kFounder));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_FLIP_WINDOW);
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
  EXPECT_TRUE(Legal(*state, 0, Flip(V(kGreen, 0))));
  EXPECT_FALSE(Legal(*state, 0, Flip(V(kBlue, 3))));
  // Stop closes it; the card stays unflipped and qualifies at the next
  // placement's window again.
  Must(*state, 0, Stop());
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
  EXPECT_FALSE(FindNode(View(*state), 0, V(kGreen, 0))->flipped());
  Must(*state, 0, Place(V(kYellow, 3), kFounder));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_FLIP_WINDOW);
}

TEST(PssFlipTest, NoWindowWhenNothingQualifies) {
  TestPosition position = BasePosition(2);
  position.seats[0].hand = {V(kPink, 3)};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult result =
      Must(*state, 0, Place(V(kPink, 3), kFounder));
  EXPECT_THAT(EventKinds(result), ElementsAre("placed"));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(View(*state).decision().actions_done(), 1u);
}

TEST(PssFlipTest, WindowStaysOpenWhileACardQualifies) {
  TestPosition position = BasePosition(2);
  // Green 1 (needs blue) and yellow 1 of row 0 (needs green) both qualify.
  position.seats[0].pyramid = {{V(kGreen, 0), kFounder},
                               {V(kBlue, 3), V(kGreen, 0)},
                               {V(kYellow, 0), kFounder},
                               {V(kGreen, 3), V(kYellow, 0)}};
  position.seats[0].hand = {V(kPink, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), kFounder));
  EXPECT_THAT(state->LegalActions(0), SizeIs(3));
  const v1::PyramidSchemeResult first = Must(*state, 0, Flip(V(kGreen, 0)));
  EXPECT_THAT(EventKinds(first), ElementsAre("flipped"));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_FLIP_WINDOW);
  EXPECT_TRUE(FindNode(View(*state), 0, V(kGreen, 0))->flipped());
  Must(*state, 0, Flip(V(kYellow, 0)));
  // Nothing qualifies any more: the window closes by itself.
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(View(*state).board().seats(0).smart_asses(), 2u);
}

TEST(PssFlipTest, PinkFiveNeedsOneBlueAndTwoAny) {
  // Pink 5 (row 14): 1 blue + 2 any, the rulebook's example.
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kPink, 14), kFounder},
                               {V(kGreen, 3), V(kPink, 14)},
                               {V(kYellow, 3), V(kPink, 14)}};
  position.seats[0].hand = {V(kGreen, 0), V(kBlue, 3)};
  // Three Victims below, none blue: not met.
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kGreen, 0), V(kPink, 14)));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
  // A blue and two others: met.
  state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kPink, 14)));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_FLIP_WINDOW);
  EXPECT_TRUE(Legal(*state, 0, Flip(V(kPink, 14))));
  // A blue and only one other: not met.
  position.seats[0].pyramid.pop_back();
  state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kPink, 14)));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
}

TEST(PssFlipTest, PoliceNeverCountForAConditionAndNeverFlipInTheWindow) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kPink, 14), kFounder},
                               {Police(0), V(kPink, 14), true},
                               {V(kGreen, 3), V(kPink, 14)}};
  position.seats[0].hand = {V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kPink, 14)));
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
}

TEST(PssFlipTest, FounderNeedsEveryColourAndGrantsAResetToken) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 3), kFounder},
                               {V(kBlue, 3), kFounder},
                               {V(kPink, 3), kFounder}};
  position.seats[0].hand = {V(kYellow, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kYellow, 3), kFounder));
  ASSERT_EQ(Phase(*state), v1::PSS_PHASE_FLIP_WINDOW);
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(kFounder));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("flipped", "reward", "token_gained"));
  EXPECT_EQ(result.events(1).reward().reward(), v1::PSS_TAKE_RESET);
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_TRUE(obs.board().seats(0).pyramid(0).flipped());
  EXPECT_EQ(obs.board().seats(0).reset_tokens(), 2u);
}

// ---------------------------------------------------------------------------
// Rewards, one per kind.

// Green 2 of row 5 (blue + any; DISCARD_HAND) with a blue below.
TestPosition DiscardHandPosition(std::vector<int> hand) {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 5), kFounder},
                               {V(kBlue, 3), V(kGreen, 5)}};
  position.seats[0].hand = std::move(hand);
  return position;
}

TEST(PssRewardTest, DiscardHandDiscardsTheChosenCardsInIdOrder) {
  TestPosition position =
      DiscardHandPosition({V(kPink, 3), V(kYellow, 0), V(kYellow, 1)});
  position.discard = {V(kPink, 0)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 5)));
  Must(*state, 0, Flip(V(kGreen, 5)));
  v1::PyramidSchemeObservation obs = View(*state);
  ASSERT_EQ(obs.decision().phase(), v1::PSS_PHASE_REWARD);
  EXPECT_EQ(obs.decision().reward(), v1::PSS_DISCARD_HAND);
  EXPECT_EQ(obs.decision().reward_card(), static_cast<uint32_t>(V(kGreen, 5)));
  EXPECT_THAT(state->LegalActions(0), SizeIs(4));  // Subsets of 2 cards.
  EXPECT_FALSE(Legal(*state, 0, DiscardHand({V(kYellow, 1), V(kYellow, 0)})));
  EXPECT_FALSE(Legal(*state, 0, DiscardHand({V(kYellow, 0), V(kYellow, 0)})));
  EXPECT_FALSE(Legal(*state, 0, DiscardHand({V(kGreen, 0)})));
  const v1::PyramidSchemeResult result =
      Must(*state, 0, DiscardHand({V(kYellow, 0), V(kYellow, 1)}));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "discarded"));
  obs = View(*state, 0);
  EXPECT_THAT(HandIds(obs), IsEmpty());
  EXPECT_THAT(DiscardIds(obs),
              ElementsAre(V(kPink, 0), V(kYellow, 0), V(kYellow, 1)));
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
}

TEST(PssRewardTest, DiscardHandMayChooseNoCard) {
  std::unique_ptr<State> state =
      StateAt(DiscardHandPosition({V(kPink, 3), V(kYellow, 0)}));
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 5)));
  Must(*state, 0, Flip(V(kGreen, 5)));
  const v1::PyramidSchemeResult result = Must(*state, 0, DiscardHand({}));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward"));
  EXPECT_THAT(HandIds(View(*state, 0)), ElementsAre(V(kYellow, 0)));
}

TEST(PssRewardTest, DiscardHandIsLostWithAnEmptyHand) {
  std::unique_ptr<State> state = StateAt(DiscardHandPosition({V(kPink, 3)}));
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 5)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 5)));
  EXPECT_THAT(EventKinds(result), ElementsAre("flipped", "reward"));
  EXPECT_TRUE(result.events(1).reward().lost());
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
}

TEST(PssRewardTest, FlipOtherFlipsAnotherCardWithoutItsReward) {
  TestPosition position = BasePosition(2);
  // Green 2 of row 6 (pink below; FLIP_OTHER); yellow 3 of row 9 would give
  // HAND_LIMIT_1 if flipped with its reward.
  position.seats[0].pyramid = {{V(kGreen, 6), kFounder},
                               {V(kYellow, 9), kFounder},
                               {Police(0), kFounder}};
  position.seats[0].hand = {V(kPink, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 6)));
  Must(*state, 0, Flip(V(kGreen, 6)));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_FLIP_OTHER);
  // Unflipped Victims and the Founder; never a Police nor the flipped card.
  EXPECT_THAT(state->LegalActions(0), SizeIs(3));
  EXPECT_TRUE(Legal(*state, 0, Target(kFounder)));
  EXPECT_TRUE(Legal(*state, 0, Target(V(kPink, 3))));
  EXPECT_FALSE(Legal(*state, 0, Target(Police(0))));
  EXPECT_FALSE(Legal(*state, 0, Target(V(kGreen, 6))));
  const v1::PyramidSchemeResult result = Must(*state, 0, Target(V(kYellow, 9)));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "flipped"));
  EXPECT_EQ(result.events(1).flipped().by_reward(), v1::PSS_FLIP_OTHER);
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_TRUE(FindNode(obs, 0, V(kYellow, 9))->flipped());
  EXPECT_EQ(obs.board().seats(0).hand_limit(), 3u);
}

TEST(PssRewardTest, FlipOtherWithBonusChainsTwoRewards) {
  TestPosition position = BasePosition(2);
  // Pink 5 and green 5 (row 14, FLIP_OTHER_WITH_BONUS); yellow 2 of row 7
  // (TAKE_RESET).
  position.seats[0].pyramid = {{V(kPink, 14), kFounder},
                               {V(kGreen, 14), kFounder},
                               {V(kYellow, 7), kFounder},
                               {V(kBlue, 3), V(kPink, 14)},
                               {V(kGreen, 3), V(kPink, 14)}};
  position.seats[0].hand = {V(kYellow, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kYellow, 3), V(kPink, 14)));
  ASSERT_TRUE(Legal(*state, 0, Flip(V(kPink, 14))));
  v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kPink, 14)));
  EXPECT_THAT(EventKinds(result), ElementsAre("flipped"));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_FLIP_OTHER_WITH_BONUS);
  // Founder, G5, Y2, B1, G1, Y1: every unflipped Victim and the Founder.
  EXPECT_THAT(state->LegalActions(0), SizeIs(6));
  result = Must(*state, 0, Target(V(kGreen, 14)));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "flipped"));
  EXPECT_EQ(result.events(1).flipped().by_reward(),
            v1::PSS_FLIP_OTHER_WITH_BONUS);
  // Green 5's own reward is granted: the chain asks again.
  v1::PyramidSchemeObservation obs = View(*state);
  ASSERT_EQ(obs.decision().phase(), v1::PSS_PHASE_REWARD);
  EXPECT_EQ(obs.decision().reward(), v1::PSS_FLIP_OTHER_WITH_BONUS);
  EXPECT_EQ(obs.decision().reward_card(), static_cast<uint32_t>(V(kGreen, 14)));
  result = Must(*state, 0, Target(V(kYellow, 7)));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("reward", "flipped", "reward", "token_gained"));
  EXPECT_EQ(result.events(2).reward().reward(), v1::PSS_TAKE_RESET);
  EXPECT_EQ(result.events(2).reward().card(),
            static_cast<uint32_t>(V(kYellow, 7)));
  obs = View(*state);
  EXPECT_EQ(obs.board().seats(0).reset_tokens(), 2u);
  EXPECT_EQ(obs.board().seats(0).smart_asses(), 3u);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
}

TEST(PssRewardTest, TakeResetTakesATokenFromTheSupply) {
  TestPosition position = BasePosition(2);
  // Green 2 of row 7: yellow + any.
  position.seats[0].pyramid = {{V(kGreen, 7), kFounder},
                               {V(kYellow, 3), V(kGreen, 7)}};
  position.seats[0].hand = {V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  const uint32_t supply = View(*state).board().supply().reset_tokens();
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 7)));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("flipped", "reward", "token_gained"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.board().seats(0).reset_tokens(), 2u);
  EXPECT_EQ(obs.board().supply().reset_tokens(), supply - 1);
}

// Green 3 of row 11 (pink + any; TAKE_BYPASS) with a pink below.
TestPosition TakeBypassPosition() {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 11), kFounder},
                               {V(kPink, 3), V(kGreen, 11)}};
  position.seats[0].hand = {V(kBlue, 3)};
  return position;
}

TEST(PssRewardTest, TakeBypassTakesATokenFromTheSupply) {
  std::unique_ptr<State> state = StateAt(TakeBypassPosition());
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 11)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 11)));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("flipped", "reward", "token_gained"));
  EXPECT_EQ(result.events(2).token_gained().token(), v1::PSS_BYPASS_TOKEN);
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.board().seats(0).bypass_tokens(), 1u);
  EXPECT_EQ(obs.board().supply().bypass_tokens(), 3u);
}

TEST(PssRewardTest, TokenRewardIsLostWhenTheSupplyLacksIt) {
  TestPosition position = TakeBypassPosition();
  position.seats[1].bypass_tokens = 4;
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 11)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 11)));
  EXPECT_THAT(EventKinds(result), ElementsAre("flipped", "reward"));
  EXPECT_TRUE(result.events(1).reward().lost());
  EXPECT_EQ(View(*state).board().seats(0).bypass_tokens(), 0u);
}

TEST(PssRewardTest, Capacity2GoesOnTheChosenCardFlippedPoliceIncluded) {
  TestPosition position = BasePosition(2);
  // Green 2 of row 8: any + any.
  position.seats[0].pyramid = {{V(kGreen, 8), kFounder},
                               {Police(0), kFounder, true},
                               {Police(1), kFounder},
                               {V(kYellow, 3), V(kGreen, 8)}};
  position.seats[0].hand = {V(kBlue, 3)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 8)));
  Must(*state, 0, Flip(V(kGreen, 8)));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_CAPACITY_2);
  // Founder, G2, flipped Police, Y1, B1; not the unflipped Police.
  EXPECT_THAT(state->LegalActions(0), SizeIs(5));
  EXPECT_FALSE(Legal(*state, 0, Target(Police(1))));
  const v1::PyramidSchemeResult result = Must(*state, 0, Target(Police(0)));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "capacity_placed"));
  const v1::PyramidSchemeObservation obs = View(*state);
  const v1::PssNode* police = FindNode(obs, 0, Police(0));
  EXPECT_THAT(police->capacity_tokens(), ElementsAre(2u));
  EXPECT_EQ(police->limit(), 5u);
  EXPECT_EQ(obs.board().supply().capacity_2_tokens(), 2u);
}

// Green 4 of row 12 (blue + yellow + any; CAPACITY_3) with blue and yellow
// below.
TestPosition Capacity3Position() {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 12), kFounder},
                               {V(kBlue, 3), V(kGreen, 12)},
                               {V(kYellow, 3), V(kGreen, 12)}};
  position.seats[0].hand = {V(kPink, 3)};
  return position;
}

TEST(PssRewardTest, Capacity3RaisesTheChosenCardsLimit) {
  std::unique_ptr<State> state = StateAt(Capacity3Position());
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 12)));
  Must(*state, 0, Flip(V(kGreen, 12)));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_CAPACITY_3);
  Must(*state, 0, Target(kFounder));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_THAT(obs.board().seats(0).pyramid(0).capacity_tokens(),
              ElementsAre(3u));
  EXPECT_EQ(obs.board().seats(0).pyramid(0).limit(), 15u);
  EXPECT_EQ(obs.board().supply().capacity_3_tokens(), 2u);
}

TEST(PssRewardTest, CapacityIsLostWhenTheSupplyLacksIt) {
  TestPosition position = Capacity3Position();
  position.seats[1].founder_tokens = {3, 3, 3};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 12)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 12)));
  EXPECT_THAT(EventKinds(result), ElementsAre("flipped", "reward"));
  EXPECT_TRUE(result.events(1).reward().lost());
}

TEST(PssRewardTest, HandLimit1RaisesTheLimitForTheRestOfTheGame) {
  TestPosition position = BasePosition(2);
  // Green 3 of row 9: blue + pink.
  position.seats[0].pyramid = {{V(kGreen, 9), kFounder},
                               {V(kBlue, 3), V(kGreen, 9)}};
  position.seats[0].hand = {V(kPink, 3), V(kYellow, 0), V(kYellow, 1)};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 9)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 9)));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("flipped", "reward", "hand_limit_raised"));
  EXPECT_EQ(result.events(2).hand_limit_raised().hand_limit(), 4u);
  EXPECT_EQ(View(*state).board().seats(0).hand_limit(), 4u);
  Must(*state, 0, Take(0));  // A third card.
  ASSERT_TRUE(Must(*state, 0, EndTurn()).events_size() > 0);
  EXPECT_EQ(View(*state).board().seats(0).hand_limit(), 4u);
}

TEST(PssRewardTest, ReserveGoalReservesAnOpenUnreservedGoal) {
  TestPosition position = BasePosition(2);
  // Green 3 of row 10: yellow + 2 any.
  position.seats[0].pyramid = {{V(kGreen, 10), kFounder},
                               {V(kYellow, 3), V(kGreen, 10)},
                               {V(kBlue, 3), V(kGreen, 10)}};
  position.seats[0].hand = {V(kPink, 3)};
  position.goals = {{0}, {17}, {8, 1}, {9, -1, 1}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 10)));
  Must(*state, 0, Flip(V(kGreen, 10)));
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));  // Goals 0 and 17.
  EXPECT_FALSE(Legal(*state, 0, Reserve(8)));
  EXPECT_FALSE(Legal(*state, 0, Reserve(9)));
  EXPECT_FALSE(Legal(*state, 0, Reserve(5)));  // Not in play.
  EXPECT_FALSE(Legal(*state, 0, Target(kFounder)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Reserve(17));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "goal_reserved"));
  const v1::PyramidSchemeObservation obs = View(*state);
  ASSERT_EQ(obs.board().goals(3).goal(), 17u);  // Goals are listed by id.
  EXPECT_EQ(obs.board().goals(3).reserved_by(), 0u);
  EXPECT_FALSE(obs.board().goals(0).has_reserved_by());
}

// Green 4 of row 13 (pink + any; FLIP_POLICE) with a pink below.
TestPosition FlipPolicePosition() {
  TestPosition position = BasePosition(2);
  position.seats[0].pyramid = {{V(kGreen, 13), kFounder},
                               {V(kPink, 3), V(kGreen, 13)}};
  position.seats[0].hand = {V(kBlue, 3)};
  return position;
}

TEST(PssRewardTest, FlipPoliceFlipsAnUnflippedPolice) {
  TestPosition position = FlipPolicePosition();
  position.seats[0].pyramid.push_back({Police(3), kFounder});
  position.seats[0].pyramid.push_back({Police(5), kFounder, true});
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 13)));
  Must(*state, 0, Flip(V(kGreen, 13)));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_FLIP_POLICE);
  EXPECT_THAT(state->LegalActions(0), SizeIs(1));
  EXPECT_FALSE(Legal(*state, 0, Target(Police(5))));
  const v1::PyramidSchemeResult result = Must(*state, 0, Target(Police(3)));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "flipped"));
  EXPECT_TRUE(FindNode(View(*state), 0, Police(3))->flipped());
  // A flipped Police now takes cards.
  EXPECT_EQ(View(*state).board().seats(0).smart_asses(), 3u);
}

TEST(PssRewardTest, RewardWithoutLegalTargetIsLost) {
  std::unique_ptr<State> state = StateAt(FlipPolicePosition());
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 13)));
  const v1::PyramidSchemeResult result = Must(*state, 0, Flip(V(kGreen, 13)));
  EXPECT_THAT(EventKinds(result), ElementsAre("flipped", "reward"));
  EXPECT_EQ(result.events(1).reward().reward(), v1::PSS_FLIP_POLICE);
  EXPECT_TRUE(result.events(1).reward().lost());
  EXPECT_EQ(Phase(*state), v1::PSS_PHASE_ACTION);
}

TEST(PssRewardTest, DiscardPoliceRemovesAPoliceWithNothingBelowAndItsTokens) {
  TestPosition position = BasePosition(2);
  // Green 5 of row 15: blue + pink + any.
  position.seats[0].founder_tokens = {2};
  position.seats[0].pyramid = {
      {V(kGreen, 15), kFounder},   {Police(0), kFounder, true, {2}},
      {Police(1), kFounder},       {Police(2), kFounder, true, {3}},
      {V(kYellow, 0), Police(0)},  {V(kBlue, 3), V(kGreen, 15)},
      {V(kPink, 3), V(kGreen, 15)}};
  position.seats[0].hand = {V(kYellow, 3)};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PssSupply supply = View(*state).board().supply();
  Must(*state, 0, Place(V(kYellow, 3), V(kGreen, 15)));
  Must(*state, 0, Flip(V(kGreen, 15)));
  ASSERT_EQ(View(*state).decision().reward(), v1::PSS_DISCARD_POLICE);
  // Police 0 holds a card: not a target.
  EXPECT_FALSE(Legal(*state, 0, Target(Police(0))));
  EXPECT_TRUE(Legal(*state, 0, Target(Police(1))));
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
  const v1::PyramidSchemeResult result = Must(*state, 0, Target(Police(2)));
  EXPECT_THAT(EventKinds(result), ElementsAre("reward", "police_removed"));
  EXPECT_EQ(result.events(1).police_removed().tokens_returned(), 1u);
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(FindNode(obs, 0, Police(2)), nullptr);
  EXPECT_EQ(obs.board().supply().police(), supply.police() + 1);
  EXPECT_EQ(obs.board().supply().capacity_3_tokens(),
            supply.capacity_3_tokens() + 1);
}

// ---------------------------------------------------------------------------
// Deck and discard.

TEST(PssDeckTest, EmptyDeckIsRebuiltFromTheShuffledDiscardPile) {
  TestPosition position = BasePosition(2);
  position.deck = {};
  position.discard = {V(kGreen, 2), V(kBlue, 2), V(kPink, 2), V(kYellow, 4)};
  std::unique_ptr<State> state = StateAt(position, Config(), /*seed=*/11);
  std::vector<int> expected = position.discard;
  RandomStream stream(Seed(11));
  stream.Shuffle(expected);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(1));
  EXPECT_THAT(EventKinds(result),
              ElementsAre("took", "reshuffled", "slot_filled"));
  EXPECT_EQ(result.events(1).reshuffled().deck_size(), 4u);
  EXPECT_EQ(result.events(2).slot_filled().card().id(),
            static_cast<uint32_t>(expected[0]));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(DisplayIds(obs)[1], expected[0]);
  EXPECT_EQ(obs.board().deck_size(), 3u);
  EXPECT_EQ(obs.board().deck_top().id(), static_cast<uint32_t>(expected[1]));
  EXPECT_THAT(obs.board().discard(), IsEmpty());
  // Later fills take the rest in the shuffled order.
  Must(*state, 0, Take(1));
  EXPECT_EQ(DisplayIds(View(*state))[1], expected[1]);
}

TEST(PssDeckTest, ResetRebuildsTheDeckFromItsOwnDiscards) {
  TestPosition position = BasePosition(2);
  position.deck = {V(kYellow, 4)};
  std::unique_ptr<State> state = StateAt(position, Config(), /*seed=*/3);
  std::vector<int> expected = {V(kGreen, 4), V(kBlue, 4), V(kPink, 4)};
  RandomStream stream(Seed(3));
  stream.Shuffle(expected);
  const v1::PyramidSchemeResult result = Must(*state, 0, UseReset());
  EXPECT_THAT(EventKinds(result),
              ElementsAre("token_used", "discarded", "slot_filled",
                          "reshuffled", "slot_filled", "slot_filled"));
  EXPECT_THAT(DisplayIds(View(*state)),
              ElementsAre(V(kYellow, 4), expected[0], expected[1]));
}

TEST(PssDeckTest, GameEndsMidTurnWhenTheDeckCannotBeRebuilt) {
  TestPosition position = BasePosition(3);
  position.deck = {};
  position.seats[0].pyramid = {{V(kGreen, 3), kFounder, true}};
  position.seats[1].pyramid = {{V(kBlue, 3), kFounder, true},
                               {V(kBlue, 0), kFounder, true}};
  position.seats[2].pyramid = {{V(kPink, 3), kFounder, true},
                               {V(kPink, 0), kFounder, true}};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult result = Must(*state, 0, Take(0));
  EXPECT_THAT(EventKinds(result), ElementsAre("took", "game_ended"));
  EXPECT_EQ(result.events(1).game_ended().reason(), v1::PSS_DECK_EXHAUSTED);
  EXPECT_TRUE(state->IsTerminal());
  // Ranked by smart-asses; seats 1 and 2 tie.
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_EQ(outcome.seats(0).rank(), 3u);
  EXPECT_EQ(outcome.seats(0).score(), 1);
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
  EXPECT_EQ(outcome.seats(1).score(), 2);
  EXPECT_EQ(outcome.seats(2).rank(), 1u);
  EXPECT_EQ(outcome.seats(2).score(), 2);
}

// ---------------------------------------------------------------------------
// End and outcome.

TEST(PssOutcomeTest, EliminatedSeatsRankBelowLiveOnesLaterEliminationsHigher) {
  TestPosition position = BasePosition(4);
  position.deck = {};
  for (int seat : {2, 3}) {
    position.seats[seat].live = false;
    position.seats[seat].reset_tokens = 0;
  }
  position.seats[1].pyramid = {{V(kBlue, 3), kFounder, true}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Take(0));
  ASSERT_TRUE(state->IsTerminal());
  const v1::Outcome outcome = state->Outcome();
  // Seat 2 was eliminated first (order 1), seat 3 second (order 2).
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
  EXPECT_EQ(outcome.seats(0).rank(), 2u);
  EXPECT_EQ(outcome.seats(3).rank(), 3u);
  EXPECT_EQ(outcome.seats(2).rank(), 4u);
  EXPECT_EQ(outcome.seats(2).score(), 0);
}

TEST(PssOutcomeTest, MaxTurnsEndsTheGameWhenThatTurnEnds) {
  TestPosition position = BasePosition(2);
  position.seats[0].reset_tokens = 0;
  position.seats[1].reset_tokens = 0;
  position.seats[1].pyramid = {{V(kBlue, 3), kFounder, true}};
  position.actions_done = 1;
  std::unique_ptr<State> state = StateAt(position, Config(/*max_turns=*/2));
  Must(*state, 0, Take(0));  // Turn 1 ends, turn 2 starts.
  ASSERT_FALSE(state->IsTerminal());
  EXPECT_EQ(View(*state).board().turn(), 2u);
  Must(*state, 1, Take(0));
  ASSERT_FALSE(state->IsTerminal());
  const v1::PyramidSchemeResult result = Must(*state, 1, Take(0));
  EXPECT_EQ(EventKinds(result).back(), "game_ended");
  EXPECT_EQ(result.events().rbegin()->game_ended().reason(),
            v1::PSS_TURN_LIMIT);
  ASSERT_TRUE(state->IsTerminal());
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
  EXPECT_EQ(outcome.seats(0).rank(), 2u);
}

TEST(PssOutcomeTest, StoppedOutcomeRanksAsTheMoveLimitWould) {
  TestPosition position = BasePosition(3);
  position.seats[0].pyramid = {{V(kGreen, 3), kFounder, true}};
  position.seats[2].pyramid = {{V(kPink, 3), kFounder, true}};
  std::unique_ptr<State> state = StateAt(position);
  const v1::Outcome outcome = state->StoppedOutcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_EQ(outcome.seats(0).rank(), 1u);
  EXPECT_EQ(outcome.seats(1).rank(), 3u);
  EXPECT_EQ(outcome.seats(2).rank(), 1u);
  EXPECT_EQ(outcome.seats(0).score(), 1);
}

// ---------------------------------------------------------------------------
// The State interface.

TEST(PssStateTest, LegalActionsSortedUniqueAndValid) {
  std::unique_ptr<State> state = NewGame(3, Seed(4));
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
  std::unique_ptr<State> state = StateAt(position);
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
  std::unique_ptr<State> state = NewGame(2, Seed(3));
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
  std::unique_ptr<State> state = NewGame(3, Seed(5));
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
  std::unique_ptr<State> a = StateAt(first);
  std::unique_ptr<State> b = StateAt(second);
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
  const v1::PyramidSchemeObservation obs = View(*NewGame(2, Seed(0)));
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
  std::unique_ptr<State> state = StateAt(position);
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
  std::unique_ptr<State> state = StateAt(position);
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
  std::unique_ptr<State> state = StateAt(position);
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
  std::unique_ptr<State> state = StateAt(position);
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
  std::unique_ptr<State> state = StateAt(position);
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
  state = StateAt(reserve);
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
  std::unique_ptr<State> state = StateAt(position);
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
    std::unique_ptr<State> state =
        NewGame(seats, Seed(static_cast<uint8_t>(seats)));
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
