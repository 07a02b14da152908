// Flaming Pyramids scenario tests: one named test per rule or resolution of
// docs/rules/flaming_pyramids.md. Each builds a position, plays through
// the public Apply, and checks the table cell by cell and the piles tile by
// tile. Then the State interface: refusals, default and legal actions,
// observations and outcomes.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/flaming_pyramids/tables.h"
#include "referee/games/flaming_pyramids/testing.h"

namespace pyramid::fp::testing {
namespace {

// Everything a State exposes, for "unchanged" checks.
std::string Snapshot(const State& state) {
  std::string snapshot = DeterministicBytes(state.PublicView());
  for (int seat = 0; seat < state.num_seats(); ++seat) {
    snapshot += DeterministicBytes(state.ObservationFor(seat));
  }
  const TestPosition position = PositionOf(state);
  for (const auto& pile : position.piles) {
    for (int tile : pile) snapshot += static_cast<char>(tile);
    snapshot += '|';
  }
  return snapshot;
}

// ---------------------------------------------------------------------------
// Free air.

// Row 0: G(100), Y(60), G(60), B(60); row 1: Y(4), G(6) (straw); row 2:
// G(10) on them. A green Coal placed at (1, 2) burns Y(4) and G(6); G(10)
// is then in free air.
std::unique_ptr<State> BurnBothSupports() {
  auto state = StateAt(Pos(MakeBoard({{2, 0, G(10)},
                                      {1, 0, Y(4)},
                                      {1, 1, G(6)},
                                      {0, 0, G(100)},
                                      {0, 1, Y(60)},
                                      {0, 2, G(60)},
                                      {0, 3, B(60)}}),
                           {{kCoalGreen}, {B(4)}}, {{R(2)}, {}}));
  EXPECT_NE(state, nullptr);
  if (state == nullptr) return nullptr;
  auto result = Act(*state, 0, Place(kCoalGreen, 1, 2));
  EXPECT_TRUE(result.ok());
  if (!result.ok()) return nullptr;
  EXPECT_THAT(result->events(), SizeIs(1));
  EXPECT_THAT(
      Moves(result->events(0)),
      ElementsAre(ToPile(Y(4), 0), ToPile(G(6), 0), Removed(kCoalGreen)));
  EXPECT_TRUE(result->has_pending());
  EXPECT_EQ(result->pending().kind(), v1::FP_FREE_AIR);
  EXPECT_EQ(result->pending().tile(), static_cast<uint32_t>(G(10)));
  EXPECT_EQ(result->pending().row(), 2u);
  EXPECT_EQ(result->pending().x(), 0);
  EXPECT_THAT(result->pending().supports(), IsEmpty());
  EXPECT_FALSE(result->has_turn_end());
  return state;
}

TEST(FpFreeAirTest, ChooserDropsTheTileLeft) {
  auto state = BurnBothSupports();
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{0});
  auto result = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->events(0).kind(), v1::FP_FREE_AIR);
  EXPECT_EQ(result->events(0).direction(), kLeft);
  EXPECT_THAT(Moves(result->events(0)), ElementsAre(ToTable(G(10), 1, 0)));
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 0, G(10)},
                                         {0, 0, G(100)},
                                         {0, 1, Y(60)},
                                         {0, 2, G(60)},
                                         {0, 3, B(60)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(4), R(2), G(6)));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
}

TEST(FpFreeAirTest, ChooserDropsTheTileRight) {
  auto state = BurnBothSupports();
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(Moves(result->events(0)), ElementsAre(ToTable(G(10), 1, 1)));
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 1, G(10)},
                                         {0, 0, G(100)},
                                         {0, 1, Y(60)},
                                         {0, 2, G(60)},
                                         {0, 3, B(60)}}));
}

TEST(FpFreeAirTest, TileLandingOnRowZeroStays) {
  // R(10) on straw Y(6), R(4); a Coal at (0, -1) burns both straws.
  auto state =
      StateAt(Pos(MakeBoard({{1, 0, R(10)}, {0, 0, Y(6)}, {0, 1, R(4)}}),
                  {{kCoalYellow, B(2)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(kCoalYellow, 0, -1));
  ASSERT_TRUE(placed.ok());
  EXPECT_THAT(
      Moves(placed->events(0)),
      ElementsAre(ToPile(Y(6), 0), ToPile(R(4), 0), Removed(kCoalYellow)));
  ASSERT_EQ(placed->pending().kind(), v1::FP_FREE_AIR);
  auto fell = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(fell.ok());
  EXPECT_THAT(fell->events(), SizeIs(1));
  EXPECT_TRUE(fell->has_turn_end());
  EXPECT_EQ(Layout(*state), (std::vector<Placed>{{0, 1, R(10)}}));
}

TEST(FpFreeAirTest, FallenTileIsJudgedAgainAtItsNewPlace) {
  // As BurnBothSupports, but G(10) falling left lands on G(100) and Y(60)
  // only if it fits; here (0, 0) is R(100): no match, so it collapses on.
  auto state = StateAt(Pos(MakeBoard({{2, 0, G(10)},
                                      {1, 0, Y(4)},
                                      {1, 1, G(6)},
                                      {0, 0, R(100)},
                                      {0, 1, Y(60)},
                                      {0, 2, G(60)},
                                      {0, 3, B(60)}}),
                           {{kCoalGreen}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(kCoalGreen, 1, 2)).ok());
  auto first = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->has_pending());
  EXPECT_EQ(first->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(first->pending().row(), 1u);
  auto second = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(
      Moves(second->events(0)),
      ElementsAre(ToPile(R(100), 0), ToPile(Y(60), 0), ToTable(G(10), 0, 0)));
  EXPECT_EQ(Layout(*state),
            InScanOrder({{0, 0, G(10)}, {0, 2, G(60)}, {0, 3, B(60)}}));
}

// ---------------------------------------------------------------------------
// Collapse chains.

// Row 0: Y(60) R(100) G(100) B(100); row 1: R(60) G(60) B(60); row 2:
// R(40) G(40).
Board ChainPyramid() {
  return MakeBoard({{2, 0, R(40)},
                    {2, 1, G(40)},
                    {1, 0, R(60)},
                    {1, 1, G(60)},
                    {1, 2, B(60)},
                    {0, 0, Y(60)},
                    {0, 1, R(100)},
                    {0, 2, G(100)},
                    {0, 3, B(100)}});
}

TEST(FpCollapseTest, ChainThreeLevelsDeep) {
  // The Millstone placed on top of ChainPyramid() is too heavy at (3, 0),
  // then at (2, 0), then at (1, 0); it ends on row 0.
  auto state = StateAt(Pos(ChainPyramid(), {{kMillstone, Y(2), Y(4)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(kMillstone, 3, 0));
  ASSERT_TRUE(placed.ok());
  EXPECT_THAT(placed->events(), IsEmpty());
  ASSERT_EQ(placed->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(placed->pending().row(), 3u);
  auto level2 = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(level2.ok());
  EXPECT_THAT(Moves(level2->events(0)),
              ElementsAre(ToPile(R(40), 0), ToPile(G(40), 0),
                          ToTable(kMillstone, 2, 0)));
  ASSERT_EQ(level2->pending().row(), 2u);
  auto level1 = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(level1.ok());
  EXPECT_THAT(Moves(level1->events(0)),
              ElementsAre(ToPile(R(60), 0), ToPile(G(60), 0),
                          ToTable(kMillstone, 1, 0)));
  ASSERT_EQ(level1->pending().row(), 1u);
  auto level0 = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(level0.ok());
  EXPECT_THAT(Moves(level0->events(0)),
              ElementsAre(ToPile(Y(60), 0), ToPile(R(100), 0),
                          ToTable(kMillstone, 0, 0)));
  ASSERT_TRUE(level0->has_turn_end());
  EXPECT_EQ(level0->turn_end().drawn(), 3u);
  EXPECT_EQ(
      Layout(*state),
      InScanOrder(
          {{1, 2, B(60)}, {0, 0, kMillstone}, {0, 2, G(100)}, {0, 3, B(100)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), Y(4), R(40), R(60), G(40)));
  EXPECT_THAT(Pile(*state, 0), ElementsAre(G(60), Y(60), R(100)));
  const v1::FlamingPyramidsObservation view = View(*state);
  EXPECT_THAT(view.seats(0).under(), ElementsAre(G(60), Y(60), R(100)));
}

TEST(FpCollapseTest, FallDirectionDecidesWhereTheChainStops) {
  // ChainPyramid(); falling right from (2, 0) lands on R(100) and G(100) at
  // (1, 1), where the Millstone fits (200 <= 200).
  auto state = StateAt(Pos(ChainPyramid(), {{kMillstone, Y(2)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(kMillstone, 3, 0)).ok());
  ASSERT_TRUE(Act(*state, 0, Fall(kLeft)).ok());
  auto last = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->has_turn_end());
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 1, kMillstone},
                                         {1, 2, B(60)},
                                         {0, 0, Y(60)},
                                         {0, 1, R(100)},
                                         {0, 2, G(100)},
                                         {0, 3, B(100)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), R(40), R(60), G(40), G(60)));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
}

// ---------------------------------------------------------------------------
// Explosion.

TEST(FpExplosionTest, TouchingIncendiariesBlowAwayStoneAndMillstone) {
  // Row 0: Y(120) B(120) Millstone red-Blowtorch R(60); row 1: B(100),
  // Y(100); row 2: Y(60). A green Coal at (1, 2) touches the Blowtorch.
  // Everything touching the pair goes under the pile in scan order (Y(100),
  // Millstone, R(60)); the pair leaves the game. Y(60) stays put, then
  // overhangs B(100) without a shared colour and collapses.
  auto state = StateAt(Pos(MakeBoard({{2, 0, Y(60)},
                                      {1, 0, B(100)},
                                      {1, 1, Y(100)},
                                      {0, 0, Y(120)},
                                      {0, 1, B(120)},
                                      {0, 2, kMillstone},
                                      {0, 3, kBlowtorchRed},
                                      {0, 4, R(60)}}),
                           {{kCoalGreen}, {B(4)}}, {{Y(2)}, {}}));
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(1, 2), std::pair(1, 3)));
  auto placed = Act(*state, 0, Place(kCoalGreen, 1, 2));
  ASSERT_TRUE(placed.ok());
  ASSERT_THAT(placed->events(), SizeIs(1));
  EXPECT_EQ(placed->events(0).kind(), v1::FP_EXPLOSION);
  EXPECT_EQ(placed->events(0).cause(), static_cast<uint32_t>(kCoalGreen));
  EXPECT_THAT(
      Moves(placed->events(0)),
      ElementsAre(ToPile(Y(100), 0), ToPile(kMillstone, 0), ToPile(R(60), 0),
                  Removed(kCoalGreen), Removed(kBlowtorchRed)));
  ASSERT_EQ(placed->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(placed->pending().tile(), static_cast<uint32_t>(Y(60)));
  auto fell = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(fell.ok());
  EXPECT_THAT(Moves(fell->events(0)),
              ElementsAre(ToPile(B(100), 0), ToTable(Y(60), 1, 0)));
  EXPECT_EQ(Layout(*state),
            InScanOrder({{1, 0, Y(60)}, {0, 0, Y(120)}, {0, 1, B(120)}}));
  EXPECT_THAT(Hand(*state, 0),
              ElementsAre(Y(2), Y(100), R(60), B(100), kMillstone));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
  const std::vector<int> removed = PositionOf(*state).removed;
  ASSERT_GE(removed.size(), 2u);
  EXPECT_THAT(std::vector<int>(removed.end() - 2, removed.end()),
              ElementsAre(kCoalGreen, kBlowtorchRed));
}

// ---------------------------------------------------------------------------
// Fire.

TEST(FpFireTest, CoalBurnsThroughStrawOnly) {
  // Row 0: Y(4) G(2) Y(10) B(2); row 1: G(6) on Y(4), G(2). A yellow Coal
  // at (1, 1) ignites G(6) and G(2); fire spreads to Y(4) but not through
  // the wood Y(10), so B(2) survives.
  auto state = StateAt(Pos(MakeBoard({{1, 0, G(6)},
                                      {0, 0, Y(4)},
                                      {0, 1, G(2)},
                                      {0, 2, Y(10)},
                                      {0, 3, B(2)}}),
                           {{kCoalYellow, R(100)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(kCoalYellow, 1, 1));
  ASSERT_TRUE(result.ok());
  ASSERT_THAT(result->events(), SizeIs(1));
  EXPECT_EQ(result->events(0).kind(), v1::FP_FIRE);
  EXPECT_EQ(result->events(0).receiver(), 0u);
  EXPECT_THAT(Moves(result->events(0)),
              ElementsAre(ToPile(G(6), 0), ToPile(Y(4), 0), ToPile(G(2), 0),
                          Removed(kCoalYellow)));
  EXPECT_EQ(Layout(*state), InScanOrder({{0, 2, Y(10)}, {0, 3, B(2)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(4), R(100), G(2), G(6)));
}

TEST(FpFireTest, BlowtorchBurnsThroughStrawAndWoodNotStone) {
  // Row 0: Y(4) R(2) Y(10) B(2) G(60) G(4); row 1: R(6). A red Blowtorch at
  // (1, 1) burns R(6), R(2), Y(10) and on through Y(4) and B(2); the stone
  // G(60) stops it, so G(4) survives.
  auto state = StateAt(Pos(MakeBoard({{1, 0, R(6)},
                                      {0, 0, Y(4)},
                                      {0, 1, R(2)},
                                      {0, 2, Y(10)},
                                      {0, 3, B(2)},
                                      {0, 4, G(60)},
                                      {0, 5, G(4)}}),
                           {{kBlowtorchRed}, {B(4)}}, {{}, {}}));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(kBlowtorchRed, 1, 1));
  ASSERT_TRUE(result.ok());
  ASSERT_THAT(result->events(), SizeIs(1));
  EXPECT_EQ(result->events(0).cause(), static_cast<uint32_t>(kBlowtorchRed));
  EXPECT_THAT(
      Moves(result->events(0)),
      ElementsAre(ToPile(R(6), 0), ToPile(Y(4), 0), ToPile(R(2), 0),
                  ToPile(Y(10), 0), ToPile(B(2), 0), Removed(kBlowtorchRed)));
  EXPECT_EQ(Layout(*state), InScanOrder({{0, 4, G(60)}, {0, 5, G(4)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(4), Y(10), R(2), R(6), B(2)));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
}

TEST(FpFireTest, SeveralFiresBurnInScanOrder) {
  // A position mayhem could leave mid-turn, set up directly: a blue
  // Blowtorch at (1, 3) touches the wood R(10) at (1, 2); a green Coal at
  // (0, 0) touches the straw Y(2). The Blowtorch is first in scan order (a
  // higher row), so its fire comes first though it is further right.
  auto state = StateAt(Pos(MakeBoard({{1, 2, R(10)},
                                      {1, 3, kBlowtorchBlue},
                                      {0, 0, kCoalGreen},
                                      {0, 1, Y(2)},
                                      {0, 2, G(60)},
                                      {0, 3, R(60)},
                                      {0, 4, B(60)},
                                      {0, 6, G(120)}}),
                           {{Y(120)}, {B(4)}}, {{Y(30)}, {}}));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(Y(120), 0, 5));
  ASSERT_TRUE(result.ok());
  ASSERT_THAT(result->events(), SizeIs(2));
  EXPECT_EQ(result->events(0).cause(), static_cast<uint32_t>(kBlowtorchBlue));
  EXPECT_THAT(Moves(result->events(0)),
              ElementsAre(ToPile(R(10), 0), Removed(kBlowtorchBlue)));
  EXPECT_EQ(result->events(1).cause(), static_cast<uint32_t>(kCoalGreen));
  EXPECT_THAT(Moves(result->events(1)),
              ElementsAre(ToPile(Y(2), 0), Removed(kCoalGreen)));
  EXPECT_EQ(Layout(*state), InScanOrder({{0, 2, G(60)},
                                         {0, 3, R(60)},
                                         {0, 4, B(60)},
                                         {0, 5, Y(120)},
                                         {0, 6, G(120)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), Y(30), R(10)));
  const std::vector<int> removed = PositionOf(*state).removed;
  EXPECT_THAT(std::vector<int>(removed.end() - 2, removed.end()),
              ElementsAre(kBlowtorchBlue, kCoalGreen));
}

// ---------------------------------------------------------------------------
// Curse.

// Three seats, seat 1 active: G(20) placed on Y(20), R(20) makes a curse.
// B(30) at (1, 1) then overhangs B(10) and collapses.
TestPosition CursePosition() {
  return Pos(
      MakeBoard({{1, 1, B(30)}, {0, 0, Y(20)}, {0, 1, R(20)}, {0, 2, B(10)}}),
      {{Y(2)}, {G(20), G(2)}, {R(2)}}, {{Y(4)}, {}, {}},
      /*active=*/1);
}

TEST(FpCurseTest, PreviousSeatReceivesAndChooses) {
  TestPosition position = CursePosition();
  position.dealt_left = {1, 0, 0};
  auto state = StateAt(position, Config(/*curse=*/true));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 1, Place(G(20), 1, 0));
  ASSERT_TRUE(placed.ok());
  ASSERT_THAT(placed->events(), SizeIs(1));
  EXPECT_EQ(placed->events(0).kind(), v1::FP_CURSE);
  EXPECT_EQ(placed->events(0).receiver(), 0u);
  EXPECT_THAT(
      Moves(placed->events(0)),
      ElementsAre(ToPile(G(20), 0), ToPile(Y(20), 0), ToPile(R(20), 0)));
  // The collapse of B(30) is now seat 0's to direct, and B(10) is its.
  ASSERT_EQ(placed->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(placed->pending().chooser(), 0u);
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{0});
  EXPECT_EQ(View(*state).receiver(), 0u);
  EXPECT_EQ(View(*state).active_seat(), 1u);
  EXPECT_EQ(state->ValidateAction(1, Fall(kLeft)).code(),
            absl::StatusCode::kFailedPrecondition);
  auto fell = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(fell.ok());
  EXPECT_EQ(fell->seat(), 0u);
  EXPECT_EQ(fell->events(0).receiver(), 0u);
  EXPECT_THAT(Moves(fell->events(0)),
              ElementsAre(ToPile(B(10), 0), ToTable(B(30), 0, 2)));
  ASSERT_TRUE(fell->has_turn_end());
  EXPECT_EQ(fell->turn_end().drawn(), 0u);  // Seat 1's pile is empty.
  EXPECT_EQ(Layout(*state), (std::vector<Placed>{{0, 2, B(30)}}));
  // Seat 0's pile: its dealt tile, then the curse and the collapse, face up.
  EXPECT_THAT(Pile(*state, 0), ElementsAre(Y(4), G(20), Y(20), R(20), B(10)));
  EXPECT_THAT(View(*state).seats(0).under(),
              ElementsAre(G(20), Y(20), R(20), B(10)));
  EXPECT_EQ(View(*state).seats(0).dealt_left(), 1u);
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2)));
  EXPECT_THAT(Hand(*state, 1), ElementsAre(G(2)));
  EXPECT_THAT(Pile(*state, 1), IsEmpty());
  // Next turn: seat 2, receiving for itself again.
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{2});
  EXPECT_EQ(View(*state).receiver(), 2u);
}

TEST(FpCurseTest, NoCurseWithoutTheOption) {
  auto state = StateAt(CursePosition(), Config(/*curse=*/false));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 1, Place(G(20), 1, 0));
  ASSERT_TRUE(placed.ok());
  EXPECT_THAT(placed->events(), IsEmpty());
  EXPECT_TRUE(placed->has_turn_end());
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 0, G(20)},
                                         {1, 1, B(30)},
                                         {0, 0, Y(20)},
                                         {0, 1, R(20)},
                                         {0, 2, B(10)}}));
  EXPECT_THAT(Pile(*state, 0), ElementsAre(Y(4)));
}

TEST(FpCurseTest, PreviousSeatOfTheFirstSeatIsTheLast) {
  auto state = StateAt(Pos(MakeBoard({{0, 0, Y(20)}, {0, 1, R(20)}}),
                           {{G(20), G(2)}, {B(2)}, {B(4)}}),
                       Config(/*curse=*/true));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(G(20), 1, 0));
  ASSERT_TRUE(placed.ok());
  ASSERT_THAT(placed->events(), SizeIs(1));
  EXPECT_THAT(
      Moves(placed->events(0)),
      ElementsAre(ToPile(G(20), 2), ToPile(Y(20), 2), ToPile(R(20), 2)));
  EXPECT_THAT(Layout(*state), IsEmpty());
  EXPECT_THAT(Pile(*state, 2), ElementsAre(G(20), Y(20), R(20)));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
}

// ---------------------------------------------------------------------------
// The fixed order of the checks: free air, collapse, explosion, fire, curse.
// After every event the scan starts again from check 1.

TEST(FpCheckOrderTest, FreeAirComesBeforeCollapse) {
  // Set up directly (mid-mayhem shape): R(10) at (1, 0) breaks the rule and
  // comes first in scan order, but B(10) at (1, 5) floats: it falls first.
  auto state = StateAt(Pos(
      MakeBoard({{1, 0, R(10)}, {1, 5, B(10)}, {0, 0, Y(20)}, {0, 1, G(30)}}),
      {{Y(2)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(Y(2), 0, -1));
  ASSERT_TRUE(placed.ok());
  EXPECT_THAT(placed->events(), IsEmpty());
  EXPECT_EQ(placed->pending().kind(), v1::FP_FREE_AIR);
  EXPECT_EQ(placed->pending().tile(), static_cast<uint32_t>(B(10)));
  auto fell = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(fell.ok());
  EXPECT_EQ(fell->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(fell->pending().tile(), static_cast<uint32_t>(R(10)));
}

// Row 0: Y(120) B(120) Millstone red-Blowtorch R(60); row 1: B(100) and
// `middle` at (1, 1); row 2: Y(60).
TestPosition ExplosivePosition(int middle) {
  return Pos(MakeBoard({{2, 0, Y(60)},
                        {1, 0, B(100)},
                        {1, 1, middle},
                        {0, 0, Y(120)},
                        {0, 1, B(120)},
                        {0, 2, kMillstone},
                        {0, 3, kBlowtorchRed},
                        {0, 4, R(60)}}),
             {{kCoalGreen}, {B(4)}}, {{Y(2)}, {}});
}

TEST(FpCheckOrderTest, CollapseComesBeforeExplosion) {
  // The green Coal on the red Blowtorch and R(60) matches neither: it
  // collapses (taking the Blowtorch with its supports) before it can
  // explode.
  auto state = StateAt(ExplosivePosition(Y(100)));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(kCoalGreen, 1, 3));
  ASSERT_TRUE(placed.ok());
  EXPECT_THAT(placed->events(), IsEmpty());
  EXPECT_EQ(placed->pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(placed->pending().tile(), static_cast<uint32_t>(kCoalGreen));
  auto fell = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(fell.ok());
  EXPECT_THAT(Moves(fell->events(0)),
              ElementsAre(ToPile(kBlowtorchRed, 0), ToPile(R(60), 0),
                          ToTable(kCoalGreen, 0, 4)));
}

TEST(FpCheckOrderTest, ExplosionComesBeforeFire) {
  // The Coal touches the straw Y(6) and the Blowtorch: the explosion takes
  // the straw under the pile with the stones; no fire happens.
  auto state = StateAt(ExplosivePosition(Y(6)));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 0, Place(kCoalGreen, 1, 2));
  ASSERT_TRUE(placed.ok());
  ASSERT_THAT(placed->events(), SizeIs(1));
  EXPECT_EQ(placed->events(0).kind(), v1::FP_EXPLOSION);
  EXPECT_THAT(
      Moves(placed->events(0)),
      ElementsAre(ToPile(Y(6), 0), ToPile(kMillstone, 0), ToPile(R(60), 0),
                  Removed(kCoalGreen), Removed(kBlowtorchRed)));
}

TEST(FpCheckOrderTest, FireComesBeforeCurse) {
  // The curse position plus a yellow Coal touching the straw Y(4) (set up
  // directly). The fire goes first, so the straw goes under the active
  // seat's pile; only then does the curse hand over to seat 0.
  TestPosition position =
      Pos(MakeBoard({{1, 1, B(30)},
                     {0, 0, Y(20)},
                     {0, 1, R(20)},
                     {0, 2, B(10)},
                     {0, 3, Y(4)},
                     {0, 4, kCoalYellow}}),
          {{Y(2)}, {G(20), G(2)}, {R(2)}}, {}, /*active=*/1);
  auto state = StateAt(position, Config(/*curse=*/true));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 1, Place(G(20), 1, 0));
  ASSERT_TRUE(placed.ok());
  ASSERT_THAT(placed->events(), SizeIs(2));
  EXPECT_EQ(placed->events(0).kind(), v1::FP_FIRE);
  EXPECT_THAT(Moves(placed->events(0)),
              ElementsAre(ToPile(Y(4), 1), Removed(kCoalYellow)));
  EXPECT_EQ(placed->events(1).kind(), v1::FP_CURSE);
  EXPECT_EQ(placed->pending().chooser(), 0u);
  ASSERT_TRUE(Act(*state, 0, Fall(kLeft)).ok());
  EXPECT_THAT(Hand(*state, 1), ElementsAre(Y(4), G(2)));
  EXPECT_THAT(Pile(*state, 0), ElementsAre(G(20), Y(20), R(20), B(10)));
}

// ---------------------------------------------------------------------------
// Drawing and winning.

TEST(FpDrawTest, RefillsFromAShortPileDealtTilesFirst) {
  TestPosition position = Pos(MakeBoard({{0, 0, Y(20)}}),
                              {{Y(2), Y(4)}, {B(4)}}, {{R(2), R(4)}, {}});
  position.dealt_left = {1, 0};
  auto state = StateAt(position);
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(Y(2), 0, 1));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->turn_end().drawn(), 2u);
  EXPECT_THAT(result->turn_end().held(), ElementsAre(3u, 1u));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(4), R(2), R(4)));
  EXPECT_THAT(Pile(*state, 0), IsEmpty());
  EXPECT_EQ(PositionOf(*state).dealt_left[0], 0);
  EXPECT_FALSE(state->IsTerminal());
}

TEST(FpDrawTest, DrawsOnlyUpToFive) {
  auto state = StateAt(Pos(MakeBoard({{0, 0, Y(20)}}),
                           {{Y(2), Y(4), Y(6), Y(10), Y(30)}, {B(4)}},
                           {{R(2), R(4), R(6)}, {}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(Y(30), 0, 1)).ok());
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), Y(4), Y(6), Y(10), R(2)));
  EXPECT_THAT(Pile(*state, 0), ElementsAre(R(4), R(6)));
}

TEST(FpWinTest, LastTilePlacedWithoutMayhemWins) {
  auto state =
      StateAt(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2)}, {B(4), B(6)}, {G(2)}},
                  {{}, {B(10), B(20)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(R(2), 0, 1));
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->turn_end().won());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(View(*state).winner(), 0u);
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_EQ(outcome.seats(0).rank(), 1u);
  EXPECT_EQ(outcome.seats(0).score(), 0);
  EXPECT_EQ(outcome.seats(1).rank(), 3u);
  EXPECT_EQ(outcome.seats(1).score(), 4);
  EXPECT_EQ(outcome.seats(2).rank(), 2u);
  EXPECT_EQ(outcome.seats(2).score(), 2);
}

TEST(FpWinTest, TilesComingBackPreventTheWin) {
  // The last tile collapses: its supports come back under the pile and are
  // drawn, so seat 0 does not win; play passes on.
  auto state = StateAt(
      Pos(MakeBoard({{0, 0, Y(20)}, {0, 1, G(30)}}), {{R(10)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(R(10), 1, 0)).ok());
  auto result = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->turn_end().won());
  EXPECT_FALSE(state->IsTerminal());
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(20), G(30)));
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{1});
}

TEST(FpWinTest, WinComesOnlyAtTheEndOfTheTurn) {
  // Seat 1 places its last tile; the curse sends tiles to seat 0, and a
  // fall follows: the game is not over until seat 0 has chosen and seat 1's
  // turn ends.
  TestPosition position = CursePosition();
  position.hands[1] = {G(20)};
  auto state = StateAt(position, Config(/*curse=*/true));
  ASSERT_NE(state, nullptr);
  auto placed = Act(*state, 1, Place(G(20), 1, 0));
  ASSERT_TRUE(placed.ok());
  EXPECT_FALSE(placed->has_turn_end());
  EXPECT_FALSE(state->IsTerminal());
  EXPECT_FALSE(View(*state).has_winner());
  auto fell = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(fell.ok());
  EXPECT_TRUE(fell->turn_end().won());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(View(*state).winner(), 1u);
  EXPECT_EQ(state->Outcome().seats(1).rank(), 1u);
}

TEST(FpWinTest, CursedTilesGoToThePreviousSeatSoTheActiveSeatWins) {
  auto state = StateAt(Pos(MakeBoard({{0, 0, Y(20)}, {0, 1, R(20)}}),
                           {{B(2)}, {G(20)}}, {{B(4)}, {}}, /*active=*/1),
                       Config(/*curse=*/true));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 1, Place(G(20), 1, 0));
  ASSERT_TRUE(result.ok());
  ASSERT_THAT(result->events(), SizeIs(1));
  EXPECT_TRUE(result->turn_end().won());
  EXPECT_TRUE(state->IsTerminal());
  EXPECT_THAT(Pile(*state, 0), ElementsAre(B(4), G(20), Y(20), R(20)));
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
  EXPECT_EQ(outcome.seats(0).rank(), 2u);
  EXPECT_EQ(outcome.seats(0).score(), 5);
}

// ---------------------------------------------------------------------------
// Move limit.

TEST(FpMoveLimitTest, GameEndsAfterMaxTurnsRankedByTilesHeld) {
  auto state =
      StateAt(Pos(MakeBoard({{0, 0, Y(20)}}),
                  {{R(2), R(4)}, {B(4)}, {G(2), G(4)}}, {{}, {}, {G(6)}}),
              Config(false, /*max_turns=*/1));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(R(2), 0, 1));
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->turn_end().move_limit());
  ASSERT_TRUE(state->IsTerminal());
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_EQ(outcome.seats(0).rank(), 1u);
  EXPECT_EQ(outcome.seats(1).rank(), 1u);
  EXPECT_EQ(outcome.seats(2).rank(), 3u);
  EXPECT_EQ(outcome.seats(2).score(), 3);
}

TEST(FpMoveLimitTest, WinOnTheLastTurnCounts) {
  auto state = StateAt(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2)}, {B(4)}}),
                       Config(false, /*max_turns=*/1));
  ASSERT_NE(state, nullptr);
  auto result = Act(*state, 0, Place(R(2), 0, 1));
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->turn_end().won());
  EXPECT_FALSE(result->turn_end().move_limit());
  EXPECT_EQ(state->Outcome().termination(), v1::TERMINATION_NORMAL);
}

// ---------------------------------------------------------------------------
// Refusals.

TestPosition SmallPosition() {
  return Pos(MakeBoard({{0, 0, Y(30)}, {0, 1, R(30)}}), {{B(2), R(20)}, {G(4)}},
             {{Y(2)}, {}});
}

TEST(FpValidationTest, NonActingSeatIsFailedPrecondition) {
  auto state = StateAt(SmallPosition());
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
  auto state = StateAt(SmallPosition());
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
  auto state = StateAt(SmallPosition());
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
  auto state = StateAt(SmallPosition());
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
  auto state = StateAt(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2)}, {B(4)}}));
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
  TestPosition duplicate = SmallPosition();
  duplicate.hands[1].push_back(Y(30));  // Also on the table.
  EXPECT_FALSE(NewStateForTesting(Config(), duplicate).ok());
  TestPosition empty_hand = SmallPosition();
  empty_hand.hands[0].clear();
  EXPECT_FALSE(NewStateForTesting(Config(), empty_hand).ok());
  TestPosition floating =
      Pos(MakeBoard({{1, 0, Y(30)}, {1, 1, R(30)}}), {{B(2)}, {G(4)}});
  EXPECT_FALSE(NewStateForTesting(Config(), floating).ok());
  TestPosition bad_dealt = SmallPosition();
  bad_dealt.dealt_left = {2, 0};
  EXPECT_FALSE(NewStateForTesting(Config(), bad_dealt).ok());
}

// ---------------------------------------------------------------------------
// Default actions and legal actions.

TEST(FpDefaultTest, PlacementIsLowestTileAtFirstSpotInScanOrder) {
  // Spots in scan order: (1, 0), (0, 2), (0, 5); lowest id in hand: Y(40).
  auto state = StateAt(Pos(GappedRow(), {{R(4), B(2), Y(40)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  const v1::Action action = state->DefaultAction(0);
  EXPECT_EQ(action.flaming_pyramids().place().tile(),
            static_cast<uint32_t>(Y(40)));
  EXPECT_EQ(action.flaming_pyramids().place().row(), 1u);
  EXPECT_EQ(action.flaming_pyramids().place().x(), 0);
  EXPECT_EQ(state->DefaultAction(1).kind_case(), v1::Action::KIND_NOT_SET);
}

TEST(FpDefaultTest, FallIsLeft) {
  auto state = StateAt(SmallPosition());
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
  auto state = StateAt(Pos(GappedRow(), {{B(2), B(4), Y(40)}, {G(4)}}));
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
  auto state = StateAt(SmallPosition());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 1, 0)).ok());
  const std::vector<v1::Action> legal = state->LegalActions(0);
  ASSERT_THAT(legal, SizeIs(2));
  EXPECT_EQ(legal[0].flaming_pyramids().fall(), v1::FP_LEFT);
  EXPECT_EQ(legal[1].flaming_pyramids().fall(), v1::FP_RIGHT);
  EXPECT_FALSE(state->SoleLegalAction(0).has_value());  // Always asked.
}

TEST(FpLegalActionsTest, OneTileAndOneSpotIsAutomatic) {
  auto state = StateAt(Pos(Board(), {{Y(2)}, {B(4)}}));
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
  const TestPosition position = PositionOf(*state);
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
  auto state = StateAt(SmallPosition());
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
    auto state = StateAt(SmallPosition(), Config(), version);
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
      StateAt(Pos(MakeBoard({{0, 0, Y(20)}}), {{R(2), R(4)}, {B(4)}, {G(2)}},
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
