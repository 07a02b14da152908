// Pyramid Scheme's Goals: one named test per goal (board.h),
// and the claim rules through the State: when goals are checked, claim
// order, reservations, and the Police that every other seat then places.
#include "referee/games/pyramid_scheme/board.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/games/pyramid_scheme/board.h"
#include "referee/games/pyramid_scheme/tables.h"
#include "referee/games/pyramid_scheme/testing.h"

namespace pyramid::scheme::testing {
namespace {

// ---------------------------------------------------------------------------
// Goal predicates.

scheme::Pyramid Build(const std::vector<TestNode>& nodes,
                      bool founder_flipped = false,
                      std::vector<int> founder_tokens = {}) {
  const scheme::Edition& edition = scheme::ReferenceEdition();
  scheme::Pyramid pyramid = scheme::Pyramid::WithFounder(edition);
  pyramid.mutable_node(0).flipped = founder_flipped;
  pyramid.mutable_node(0).capacity_tokens = founder_tokens;
  for (const TestNode& node : nodes) {
    pyramid.Add(node.card, node.parent);
    scheme::Node& added = pyramid.mutable_node(pyramid.size() - 1);
    added.flipped = node.flipped;
    added.capacity_tokens = node.capacity_tokens;
  }
  return pyramid;
}

bool Satisfied(int goal, const scheme::Pyramid& pyramid, int reset_tokens = 0) {
  return scheme::GoalSatisfied(scheme::ReferenceEdition(), goal, pyramid,
                               reset_tokens);
}

// `count` Victims of `colour` (rows 0..count-1) below the Founder.
std::vector<TestNode> OfColour(int colour, int count, bool flipped = false) {
  std::vector<TestNode> nodes;
  for (int row = 0; row < count; ++row) {
    nodes.push_back({V(colour, row), kFounder, flipped});
  }
  return nodes;
}

void ExpectFiveOfColour(int goal, int colour) {
  EXPECT_TRUE(Satisfied(goal, Build(OfColour(colour, 5))));
  EXPECT_TRUE(Satisfied(goal, Build(OfColour(colour, 5, true))));
  EXPECT_FALSE(Satisfied(goal, Build(OfColour(colour, 4))));
  EXPECT_FALSE(Satisfied(goal, Build(OfColour((colour + 1) % 4, 5))));
}

TEST(PssGoalTest, Goal00FiveGreenVictims) { ExpectFiveOfColour(0, kGreen); }
TEST(PssGoalTest, Goal01FiveBlueVictims) { ExpectFiveOfColour(1, kBlue); }
TEST(PssGoalTest, Goal02FivePinkVictims) { ExpectFiveOfColour(2, kPink); }
TEST(PssGoalTest, Goal03FiveYellowVictims) { ExpectFiveOfColour(3, kYellow); }

TEST(PssGoalTest, Goal04SmartAssVictimsOfAllFourColours) {
  std::vector<TestNode> nodes = {{V(kGreen, 0), kFounder, true},
                                 {V(kBlue, 0), kFounder, true},
                                 {V(kPink, 0), kFounder, true},
                                 {V(kYellow, 0), kFounder, true}};
  EXPECT_TRUE(Satisfied(4, Build(nodes)));
  nodes[3].flipped = false;
  EXPECT_FALSE(Satisfied(4, Build(nodes)));
  // The Founder and Police have no colour.
  nodes.push_back({Police(0), kFounder, true});
  EXPECT_FALSE(Satisfied(4, Build(nodes, /*founder_flipped=*/true)));
}

TEST(PssGoalTest, Goal05FourSmartAssVictimsOfOneColour) {
  EXPECT_TRUE(Satisfied(5, Build(OfColour(kPink, 4, true))));
  std::vector<TestNode> nodes = OfColour(kPink, 4, true);
  nodes[0].flipped = false;
  EXPECT_FALSE(Satisfied(5, Build(nodes)));
  EXPECT_FALSE(Satisfied(5, Build({{V(kGreen, 0), kFounder, true},
                                   {V(kGreen, 1), kFounder, true},
                                   {V(kBlue, 0), kFounder, true},
                                   {V(kBlue, 1), kFounder, true}})));
}

TEST(PssGoalTest, Goal06FourSmartAssesWithTheSameNumber) {
  // Three Victims numbered 3 and a flipped Police (which counts 3).
  std::vector<TestNode> nodes = {{V(kGreen, 9), kFounder, true},
                                 {V(kBlue, 10), kFounder, true},
                                 {V(kPink, 11), kFounder, true},
                                 {Police(0), kFounder, true}};
  EXPECT_TRUE(Satisfied(6, Build(nodes)));
  nodes[3].flipped = false;
  EXPECT_FALSE(Satisfied(6, Build(nodes)));
  EXPECT_TRUE(Satisfied(6, Build(OfColour(kYellow, 4, true))));  // Four 1s.
}

TEST(PssGoalTest, Goal07FourSmartAssesWithDifferentNumbers) {
  // 1, 2, a Police (3) and the Founder (12).
  std::vector<TestNode> nodes = {{V(kGreen, 0), kFounder, true},
                                 {V(kBlue, 5), kFounder, true},
                                 {Police(0), kFounder, true}};
  EXPECT_TRUE(Satisfied(7, Build(nodes, /*founder_flipped=*/true)));
  EXPECT_FALSE(Satisfied(7, Build(nodes, /*founder_flipped=*/false)));
  nodes.push_back({V(kPink, 9), kFounder, true});  // Another 3.
  EXPECT_FALSE(Satisfied(7, Build(nodes)));
  nodes.push_back({V(kPink, 12), kFounder, true});  // A 4.
  EXPECT_TRUE(Satisfied(7, Build(nodes)));
}

TEST(PssGoalTest, Goal08FiveVictimsNumbered1) {
  std::vector<TestNode> nodes = {{V(kGreen, 0), kFounder},
                                 {V(kGreen, 1), kFounder},
                                 {V(kBlue, 2), kFounder},
                                 {V(kPink, 3), kFounder},
                                 {V(kYellow, 4), kFounder}};
  EXPECT_TRUE(Satisfied(8, Build(nodes)));
  nodes.pop_back();
  EXPECT_FALSE(Satisfied(8, Build(nodes)));
}

TEST(PssGoalTest, Goal09FourVictimsNumbered2) {
  std::vector<TestNode> nodes = {{V(kGreen, 5), kFounder},
                                 {V(kBlue, 6), kFounder},
                                 {V(kPink, 7), kFounder},
                                 {V(kYellow, 8), kFounder}};
  EXPECT_TRUE(Satisfied(9, Build(nodes)));
  nodes.pop_back();
  EXPECT_FALSE(Satisfied(9, Build(nodes)));
}

TEST(PssGoalTest, Goal10ThreeVictimsNumbered3PoliceExcluded) {
  std::vector<TestNode> nodes = {{V(kGreen, 9), kFounder},
                                 {V(kBlue, 10), kFounder},
                                 {V(kPink, 11), kFounder}};
  EXPECT_TRUE(Satisfied(10, Build(nodes)));
  nodes.back() = {Police(0), kFounder, true};
  EXPECT_FALSE(Satisfied(10, Build(nodes)));
}

TEST(PssGoalTest, Goal11OneVictimOfEachNumber1To5) {
  std::vector<TestNode> nodes = {{V(kGreen, 0), kFounder},
                                 {V(kGreen, 5), kFounder},
                                 {V(kBlue, 9), kFounder},
                                 {V(kBlue, 12), V(kGreen, 5)},
                                 {V(kPink, 14), V(kBlue, 9)}};
  EXPECT_TRUE(Satisfied(11, Build(nodes)));
  nodes[3] = {Police(0), kFounder, true};  // No 4.
  EXPECT_FALSE(Satisfied(11, Build(nodes)));
}

TEST(PssGoalTest, Goal12TwoVictimsOfEachColour) {
  std::vector<TestNode> nodes;
  for (int colour = 0; colour < 4; ++colour) {
    nodes.push_back({V(colour, 0), kFounder});
    nodes.push_back({V(colour, 1), kFounder});
  }
  EXPECT_TRUE(Satisfied(12, Build(nodes)));
  nodes.pop_back();
  EXPECT_FALSE(Satisfied(12, Build(nodes)));
}

TEST(PssGoalTest, Goal13BranchOfSixLevelsSkippingFlippedPolice) {
  // Founder > 5 > 4 > 3 > 2 > 1: six cards.
  std::vector<TestNode> chain = {{V(kGreen, 14), kFounder},
                                 {V(kBlue, 12), V(kGreen, 14)},
                                 {V(kPink, 9), V(kBlue, 12)},
                                 {V(kYellow, 5), V(kPink, 9)},
                                 {V(kGreen, 0), V(kYellow, 5)}};
  EXPECT_TRUE(Satisfied(13, Build(chain)));
  chain.pop_back();
  EXPECT_FALSE(Satisfied(13, Build(chain)));
  // A flipped Police on the path is skipped: it neither counts nor breaks.
  std::vector<TestNode> with_police = {{V(kGreen, 14), kFounder},
                                       {Police(0), V(kGreen, 14), true},
                                       {V(kPink, 9), Police(0)},
                                       {V(kYellow, 5), V(kPink, 9)},
                                       {V(kGreen, 0), V(kYellow, 5)}};
  EXPECT_FALSE(Satisfied(13, Build(with_police)));
  with_police.push_back({V(kBlue, 0), V(kGreen, 0)});
  EXPECT_TRUE(Satisfied(13, Build(with_police)));
  // Two branches of five do not make one of six.
  EXPECT_FALSE(Satisfied(13, Build({{V(kGreen, 14), kFounder},
                                    {V(kBlue, 12), V(kGreen, 14)},
                                    {V(kPink, 9), V(kBlue, 12)},
                                    {V(kYellow, 5), V(kPink, 9)},
                                    {V(kGreen, 15), kFounder},
                                    {V(kBlue, 13), V(kGreen, 15)},
                                    {V(kPink, 10), V(kBlue, 13)},
                                    {V(kYellow, 6), V(kPink, 10)}})));
}

TEST(PssGoalTest, Goal14ThreeCapacityTokensOnCards) {
  std::vector<TestNode> nodes = {{Police(0), kFounder, true, {3}},
                                 {V(kGreen, 8), kFounder, false, {2}}};
  EXPECT_TRUE(Satisfied(14, Build(nodes, false, {2})));
  EXPECT_FALSE(Satisfied(14, Build(nodes)));
  EXPECT_TRUE(Satisfied(14, Build({}, false, {2, 3, 3})));
}

TEST(PssGoalTest, Goal15ThreeResetTokensHeld) {
  EXPECT_TRUE(Satisfied(15, Build({}), 3));
  EXPECT_FALSE(Satisfied(15, Build({}), 2));
}

TEST(PssGoalTest, Goal16ThreeSmartAssesDirectlyBelowOneCard) {
  std::vector<TestNode> nodes = {{V(kGreen, 0), kFounder, true},
                                 {V(kBlue, 0), kFounder, true},
                                 {Police(0), kFounder, true}};
  EXPECT_TRUE(Satisfied(16, Build(nodes)));
  nodes[2].flipped = false;
  EXPECT_FALSE(Satisfied(16, Build(nodes)));
  // Three smart-asses under two different cards.
  EXPECT_FALSE(Satisfied(16, Build({{V(kGreen, 14), kFounder, true},
                                    {V(kBlue, 0), kFounder, true},
                                    {V(kPink, 0), V(kGreen, 14), true}})));
}

TEST(PssGoalTest, Goal17TwoFlippedPolice) {
  std::vector<TestNode> nodes = {{Police(0), kFounder, true},
                                 {Police(1), kFounder, true}};
  EXPECT_TRUE(Satisfied(17, Build(nodes)));
  nodes[1].flipped = false;
  EXPECT_FALSE(Satisfied(17, Build(nodes)));
}

TEST(PssGoalTest, UnknownGoalAndEmptyPyramidSatisfyNothing) {
  EXPECT_FALSE(Satisfied(18, Build({}), 5));
  EXPECT_FALSE(Satisfied(15, scheme::Pyramid(), 5));
}

// ---------------------------------------------------------------------------
// Claims and Police through the State.

v1::PyramidSchemeResult Must(State& state, int seat, const v1::Action& action) {
  absl::StatusOr<v1::PyramidSchemeResult> result = Act(state, seat, action);
  EXPECT_TRUE(result.ok()) << action.ShortDebugString() << ": "
                           << result.status();
  return result.ok() ? *result : v1::PyramidSchemeResult();
}

// The active seat gets its third reset token from green 2 of row 7
// (yellow + any; TAKE_RESET): goal 15.
void GiveThirdResetToken(TestSeat& seat) {
  seat.reset_tokens = 2;
  seat.pyramid = {{V(kGreen, 7), kFounder}, {V(kYellow, 3), V(kGreen, 7)}};
  seat.hand = {V(kBlue, 3)};
}

TEST(PssClaimTest, OtherSeatsPlacePoliceInSeatOrderAfterTheActiveSeat) {
  TestPosition position = BasePosition(4);
  position.active_seat = 2;
  GiveThirdResetToken(position.seats[2]);
  position.goals = {{15}, {0}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 2, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult flip = Must(*state, 2, Flip(V(kGreen, 7)));
  EXPECT_THAT(EventKinds(flip),
              ElementsAre("flipped", "reward", "token_gained", "goal_claimed"));
  EXPECT_THAT(Claims(flip), ElementsAre("15@2"));
  std::vector<std::string> placements;
  for (int seat : {3, 0, 1}) {
    const v1::PyramidSchemeObservation obs = View(*state);
    ASSERT_EQ(obs.decision().phase(), v1::PSS_PHASE_POLICE);
    EXPECT_EQ(obs.decision().seat(), static_cast<uint32_t>(seat));
    EXPECT_EQ(obs.decision().police_goal(), 15u);
    EXPECT_THAT(state->ActingSeats(), ElementsAre(seat));
    const v1::PyramidSchemeResult result =
        Must(*state, seat, PlacePolice(kFounder));
    for (const std::string& p : PolicePlacements(result)) {
      placements.push_back(p);
    }
  }
  // The lowest Police ids of the supply, in order.
  EXPECT_THAT(placements, ElementsAre("3:65>64", "0:66>64", "1:67>64"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().seat(), 2u);
  EXPECT_EQ(obs.decision().actions_done(), 1u);
  EXPECT_EQ(obs.board().goals(1).claimed_by(), 2u);
  EXPECT_EQ(obs.board().supply().police(), 15u);
  const v1::PssNode* police = FindNode(obs, 3, Police(0));
  ASSERT_NE(police, nullptr);
  EXPECT_EQ(police->kind(), v1::PSS_POLICE);
  EXPECT_FALSE(police->flipped());
  EXPECT_EQ(police->card().number(), 3u);
}

// Seat 0 flips yellow 4 (row 13: blue + any), completing goals 4 (smart-ass
// Victims of all colours) and 7 (four different numbers) at once. No
// green lies directly below the Founder, so it does not qualify.
TestPosition TwoGoalsPosition(int seats) {
  TestPosition position = BasePosition(seats);
  position.seats[0].pyramid = {{V(kYellow, 13), kFounder},
                               {V(kBlue, 3), V(kYellow, 13)},
                               {V(kBlue, 5), kFounder, true},
                               {V(kPink, 9), kFounder, true},
                               {V(kGreen, 1), V(kBlue, 5), true}};
  position.seats[0].hand = {V(kPink, 3)};
  position.goals = {{0}, {1}, {2}, {3}, {4}, {7}};
  return position;
}

TEST(PssClaimTest, TwoGoalsAtOnceMakeEachOpponentPlaceTwoPolice) {
  std::unique_ptr<State> state = StateAt(TwoGoalsPosition(3));
  Must(*state, 0, Place(V(kPink, 3), V(kYellow, 13)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kYellow, 13)));
  // Claimed in goal-id order right after the flip; then the reward (no
  // Police to flip) is lost.
  EXPECT_THAT(EventKinds(flip),
              ElementsAre("flipped", "goal_claimed", "goal_claimed", "reward"));
  EXPECT_THAT(Claims(flip), ElementsAre("4@0", "7@0"));
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) {
    const v1::PyramidSchemeObservation obs = View(*state);
    ASSERT_EQ(obs.decision().phase(), v1::PSS_PHASE_POLICE);
    const int seat = static_cast<int>(obs.decision().seat());
    order.push_back(absl::StrCat(obs.decision().police_goal(), "/", seat));
    Must(*state, seat, PlacePolice(kFounder));
  }
  EXPECT_THAT(order, ElementsAre("4/1", "4/2", "7/1", "7/2"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.board().seats(1).pyramid_size(), 3);  // Founder + 2 Police.
  EXPECT_EQ(obs.board().seats(2).pyramid_size(), 3);
}

TEST(PssClaimTest, PoliceAreServedOnlyAfterTheFlipWindowCloses) {
  TestPosition position = TwoGoalsPosition(2);
  // Green 1 of row 0 (needs blue) qualifies too.
  position.seats[0].pyramid.push_back({V(kGreen, 0), kFounder});
  position.seats[0].pyramid.push_back({V(kBlue, 0), V(kGreen, 0)});
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kYellow, 13)));
  Must(*state, 0, Flip(V(kYellow, 13)));
  EXPECT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_FLIP_WINDOW);
  Must(*state, 0, Stop());
  EXPECT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_POLICE);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(1));
}

TEST(PssClaimTest, ASeatThatCannotPlaceItsPoliceIsEliminated) {
  TestPosition position = BasePosition(3);
  GiveThirdResetToken(position.seats[0]);
  position.seats[1].pyramid = {
      {V(kGreen, 14), kFounder},      {V(kBlue, 14), kFounder},
      {V(kPink, 8), kFounder},        {V(kYellow, 5), V(kGreen, 14)},
      {V(kYellow, 6), V(kGreen, 14)}, {V(kYellow, 0), V(kGreen, 14)},
      {V(kPink, 5), V(kBlue, 14)},    {V(kPink, 6), V(kBlue, 14)},
      {V(kPink, 0), V(kBlue, 14)},    {V(kGreen, 8), V(kPink, 8)}};
  position.goals = {{15}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kGreen, 7)));
  EXPECT_EQ(EventKinds(flip).back(), "eliminated");
  EXPECT_EQ(flip.events().rbegin()->eliminated().seat(), 1u);
  EXPECT_EQ(flip.events().rbegin()->eliminated().reason(),
            v1::PSS_NO_POLICE_PLACEMENT);
  v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_FALSE(obs.board().seats(1).live());
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_POLICE);
  EXPECT_EQ(obs.decision().seat(), 2u);
  Must(*state, 2, PlacePolice(kFounder));
  obs = View(*state);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().seat(), 0u);
}

TEST(PssClaimTest, PoliceEliminationLeavingOneSeatEndsTheGame) {
  TestPosition position = BasePosition(2);
  GiveThirdResetToken(position.seats[0]);
  position.seats[1].pyramid = {
      {V(kGreen, 14), kFounder},      {V(kBlue, 14), kFounder},
      {V(kPink, 8), kFounder},        {V(kYellow, 5), V(kGreen, 14)},
      {V(kYellow, 6), V(kGreen, 14)}, {V(kYellow, 0), V(kGreen, 14)},
      {V(kPink, 5), V(kBlue, 14)},    {V(kPink, 6), V(kBlue, 14)},
      {V(kPink, 0), V(kBlue, 14)},    {V(kGreen, 8), V(kPink, 8)}};
  position.goals = {{15}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kGreen, 7)));
  EXPECT_EQ(EventKinds(flip).back(), "game_ended");
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(state->Outcome().seats(0).rank(), 1u);
  EXPECT_EQ(state->Outcome().seats(1).rank(), 2u);
}

TEST(PssClaimTest, OnlyTheActiveSeatClaimsAndATakeIsAnEvent) {
  TestPosition position = BasePosition(2);
  position.seats[1].reset_tokens = 3;  // Seat 1 satisfies goal 15 already.
  position.seats[0].reset_tokens = 0;
  position.actions_done = 1;
  position.goals = {{15}};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult first = Must(*state, 0, Take(0));
  EXPECT_THAT(Claims(first), IsEmpty());  // Seat 0 acted; seat 1 never claims.
  const v1::PyramidSchemeResult second = Must(*state, 1, Take(0));
  EXPECT_THAT(EventKinds(second),
              ElementsAre("took", "slot_filled", "goal_claimed"));
  EXPECT_THAT(Claims(second), ElementsAre("15@1"));
  EXPECT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_POLICE);
  EXPECT_EQ(View(*state).decision().seat(), 0u);
}

TEST(PssClaimTest, ATokenUseIsAnEventAndItsClaimsAreServedAtOnce) {
  TestPosition position = BasePosition(2);
  position.seats[0].reset_tokens = 3;
  position.seats[0].bypass_tokens = 1;
  position.goals = {{15}};
  std::unique_ptr<State> state = StateAt(position);
  const v1::PyramidSchemeResult armed = Must(*state, 0, ArmBypass());
  EXPECT_THAT(Claims(armed), ElementsAre("15@0"));
  EXPECT_EQ(View(*state).decision().phase(), v1::PSS_PHASE_POLICE);
  Must(*state, 1, PlacePolice(kFounder));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().actions_done(), 0u);
  EXPECT_TRUE(obs.decision().bypass_armed());
}

TEST(PssClaimTest, AGoalReservedByAnotherSeatIsNotClaimed) {
  TestPosition position = BasePosition(2);
  GiveThirdResetToken(position.seats[0]);
  position.goals = {{15, -1, 1}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kGreen, 7)));
  EXPECT_THAT(Claims(flip), IsEmpty());
  EXPECT_EQ(View(*state).board().goals(0).reserved_by(), 1u);
}

TEST(PssClaimTest, TheReservingSeatClaimsItsReservedGoal) {
  TestPosition position = BasePosition(2);
  GiveThirdResetToken(position.seats[0]);
  position.goals = {{15, -1, 0}};
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kBlue, 3), V(kGreen, 7)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kGreen, 7)));
  EXPECT_THAT(Claims(flip), ElementsAre("15@0"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.board().goals(0).claimed_by(), 0u);
  EXPECT_FALSE(obs.board().goals(0).has_reserved_by());
}

TEST(PssClaimTest, PolicePlacementOpensNoWindowAndClaimsNothing) {
  TestPosition position = BasePosition(2);
  // Seat 1 holds three reset tokens (goal 15) and a qualifying green 1.
  position.seats[1].reset_tokens = 3;
  position.seats[1].pyramid = {{V(kGreen, 0), kFounder},
                               {V(kBlue, 0), V(kGreen, 0)}};
  position.goals = {{4}, {15}};
  position.seats[0].reset_tokens = 1;
  position.seats[0].pyramid = {{V(kGreen, 3), kFounder},
                               {V(kBlue, 1), kFounder, true},
                               {V(kPink, 1), kFounder, true},
                               {V(kYellow, 1), V(kBlue, 1), true}};
  position.seats[0].hand = {V(kPink, 3)};
  // Seat 0 completes goal 4 by flipping green 1 of row 3 (any below).
  std::unique_ptr<State> state = StateAt(position);
  Must(*state, 0, Place(V(kPink, 3), V(kGreen, 3)));
  const v1::PyramidSchemeResult flip = Must(*state, 0, Flip(V(kGreen, 3)));
  EXPECT_THAT(Claims(flip), ElementsAre("4@0"));
  const v1::PyramidSchemeResult police = Must(*state, 1, PlacePolice(kFounder));
  EXPECT_THAT(EventKinds(police), ElementsAre("police_placed"));
  const v1::PyramidSchemeObservation obs = View(*state);
  EXPECT_EQ(obs.decision().phase(), v1::PSS_PHASE_ACTION);
  EXPECT_EQ(obs.decision().seat(), 0u);
  EXPECT_FALSE(obs.board().goals(1).has_claimed_by());
  EXPECT_FALSE(FindNode(obs, 1, V(kGreen, 0))->flipped());
}

}  // namespace
}  // namespace pyramid::scheme::testing
