// Flaming Pyramids' table (board.h): the legal spots, the building rule on
// two supports and on one support beside a gap. Each builds a position and
// plays through the public Apply.
#include "referee/games/flaming_pyramids/board.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/flaming_pyramids/tables.h"
#include "referee/games/flaming_pyramids/testing.h"

namespace pyramid::fp::testing {
namespace {

// ---------------------------------------------------------------------------
// Legal spots.

TEST(FpSpotsTest, EmptyTableOffersOnlyTheOrigin) {
  auto state = StateAt(Pos(Board(), {{Y(2), R(4)}, {G(2)}}));
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(0, 0)));
  EXPECT_THAT(state->LegalActions(0), SizeIs(2));
  EXPECT_FALSE(state->ValidateAction(0, Place(Y(2), 0, 1)).ok());
  ASSERT_TRUE(Act(*state, 0, Place(R(4), 0, 0)).ok());
  EXPECT_EQ(Layout(*state), (std::vector<Placed>{{0, 0, R(4)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2)));
}

TEST(FpSpotsTest, OneTileOffersBothSidesOnRowZero) {
  auto state = StateAt(Pos(MakeBoard({{0, 3, Y(20)}}), {{R(4)}, {G(2)}}));
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(0, 2), std::pair(0, 4)));
  ASSERT_TRUE(Act(*state, 0, Place(R(4), 0, 4)).ok());
  EXPECT_EQ(Layout(*state), InScanOrder({{0, 3, Y(20)}, {0, 4, R(4)}}));
}

TEST(FpSpotsTest, GapsOnRowZeroAndSupportedSlotsAreLegal) {
  // Row 0 at x = 0, 1, 3, 4, 6; (1, 3) filled. Supported and empty: (1, 0);
  // gaps: (0, 2), (0, 5). Not legal: one-support slots, outside row 0.
  auto state = StateAt(Pos(GappedRow(), {{B(2), B(4)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(SpotList(*state),
              ElementsAre(std::pair(1, 0), std::pair(0, 2), std::pair(0, 5)));
  for (auto [row, x] : {std::pair(1, 1), std::pair(1, 2), std::pair(2, 3),
                        std::pair(0, -1), std::pair(0, 7)}) {
    EXPECT_EQ(state->ValidateAction(0, Place(B(2), row, x)).code(),
              absl::StatusCode::kInvalidArgument)
        << row << "," << x;
  }
  // Filling the gap (0, 2) makes (1, 1) and (1, 2) supported.
  ASSERT_TRUE(Act(*state, 0, Place(B(4), 0, 2)).ok());
  ASSERT_EQ(state->ActingSeats(), std::vector<int>{1});
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(1, 0), std::pair(1, 1),
                                            std::pair(1, 2), std::pair(0, 5)));
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 3, Y(20)},
                                         {0, 0, Y(2)},
                                         {0, 1, R(2)},
                                         {0, 2, B(4)},
                                         {0, 3, Y(30)},
                                         {0, 4, R(10)},
                                         {0, 6, G(2)}}));
}

TestPosition CompletePyramid() {
  return Pos(MakeBoard({{1, 0, Y(20)}, {0, 0, Y(30)}, {0, 1, R(30)}}),
             {{B(2), B(4)}, {G(4)}});
}

TEST(FpSpotsTest, FullPyramidExtendsRowZeroOnTheLeft) {
  auto state = StateAt(CompletePyramid());
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(0, -1), std::pair(0, 2)));
  ASSERT_TRUE(Act(*state, 0, Place(B(2), 0, -1)).ok());
  EXPECT_EQ(Layout(*state),
            InScanOrder(
                {{1, 0, Y(20)}, {0, -1, B(2)}, {0, 0, Y(30)}, {0, 1, R(30)}}));
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(1, -1)));
}

TEST(FpSpotsTest, FullPyramidExtendsRowZeroOnTheRight) {
  auto state = StateAt(CompletePyramid());
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(B(4), 0, 2)).ok());
  EXPECT_EQ(
      Layout(*state),
      InScanOrder({{1, 0, Y(20)}, {0, 0, Y(30)}, {0, 1, R(30)}, {0, 2, B(4)}}));
  EXPECT_THAT(SpotList(*state), ElementsAre(std::pair(1, 1)));
}

TEST(FpSpotsTest, SpotIsLegalWhetherOrNotTheTileFits) {
  // B(2) matches neither Y(30) nor R(30): still a legal placement (it then
  // collapses).
  auto state =
      StateAt(Pos(MakeBoard({{0, 0, Y(30)}, {0, 1, R(30)}}), {{B(2)}, {G(4)}}));
  ASSERT_NE(state, nullptr);
  EXPECT_TRUE(state->ValidateAction(0, Place(B(2), 1, 0)).ok());
}

// IsLegalSpot answers for one slot what LegalSpots lists (in scan order,
// each spot once): on boards grown
// by random placements and removals (gaps, towers, a full row with the
// fallback spots), for every slot around the table.
TEST(FpSpotsTest, IsLegalSpotAgreesWithLegalSpots) {
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  auto next = [&rng](uint64_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
  };
  int checked = 0, legal = 0;
  for (int game = 0; game < 200; ++game) {
    fp::Board board;
    int tile = 0;
    for (int step = 0; step < 40; ++step) {
      if (step > 2 && next(4) == 0) {
        // Take a tile, keeping one on row 0 (as play does).
        const auto& cells = board.cells();
        const Cell cell = cells[next(cells.size())].first;
        const bool last_on_row0 =
            cell.row == 0 &&
            std::count_if(cells.begin(), cells.end(), [](const auto& entry) {
              return entry.first.row == 0;
            }) == 1;
        if (!last_on_row0) board.Take(cell);
      } else {
        const std::vector<Cell> spots = board.LegalSpots();
        board.Put(spots[next(spots.size())], tile++ % kNumTiles);
      }
      const std::vector<Cell> spots = board.LegalSpots();
      for (size_t i = 1; i < spots.size(); ++i) {
        ASSERT_TRUE(ScanLess()(spots[i - 1], spots[i]))
            << "game " << game << " step " << step << ": spots out of scan "
            << "order or repeated";
      }
      int min_x = 0, max_x = 0, top = 0;
      for (const auto& [cell, t] : board.cells()) {
        min_x = std::min(min_x, cell.x);
        max_x = std::max(max_x, cell.x);
        top = std::max(top, cell.row);
      }
      for (int row = -1; row <= top + 2; ++row) {
        for (int x = min_x - 3; x <= max_x + 3; ++x) {
          const Cell cell{row, x};
          const bool listed =
              std::find(spots.begin(), spots.end(), cell) != spots.end();
          ASSERT_EQ(board.IsLegalSpot(cell), listed)
              << "game " << game << " step " << step << " (" << row << ", " << x
              << ")";
          ++checked;
          legal += listed;
        }
      }
    }
  }
  EXPECT_GT(legal, 1000);
  EXPECT_GT(checked, 10 * legal);  // Illegal slots checked too.
}

// ---------------------------------------------------------------------------
// The building rule on two supports: (1, 0) on (0, 0) and (0, 1).

// Places `tile` on `left` and `right`; returns the state after the
// placement (turn over, or waiting for a fall).
std::unique_ptr<State> PlaceOnTwo(int left, int right, int tile) {
  auto state = StateAt(Pos(MakeBoard({{0, 0, left}, {0, 1, right}}),
                           {{tile}, {kCoalYellow}}, {{B(60)}, {}}));
  EXPECT_NE(state, nullptr);
  if (state == nullptr) return nullptr;
  EXPECT_TRUE(Act(*state, 0, Place(tile, 1, 0)).ok());
  return state;
}

void ExpectStays(const State& state, int left, int right, int tile) {
  EXPECT_EQ(state.ActingSeats(), std::vector<int>{1});  // Turn over.
  EXPECT_EQ(Layout(state),
            InScanOrder({{1, 0, tile}, {0, 0, left}, {0, 1, right}}));
  EXPECT_THAT(Hand(state, 0), ElementsAre(B(60)));  // Drawn.
  EXPECT_THAT(Pile(state, 0), IsEmpty());
}

// Expects the collapse of `tile` at (1, 0): both supports under seat 0's
// pile (left, then right), `tile` falling; then lets it fall left.
void ExpectCollapses(State& state, int left, int right, int tile) {
  ASSERT_EQ(state.ActingSeats(), std::vector<int>{0});
  const v1::FlamingPyramidsObservation view = View(state);
  ASSERT_EQ(view.phase(), v1::FP_FALL);
  EXPECT_EQ(view.pending().kind(), v1::FP_COLLAPSE);
  EXPECT_EQ(view.pending().tile(), static_cast<uint32_t>(tile));
  EXPECT_EQ(view.pending().chooser(), 0u);
  ASSERT_THAT(view.pending().supports(), SizeIs(2));
  EXPECT_EQ(view.pending().supports(0).tile(), static_cast<uint32_t>(left));
  EXPECT_EQ(view.pending().supports(1).tile(), static_cast<uint32_t>(right));
  auto result = Act(state, 0, Fall(kLeft));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(result->events(), SizeIs(1));
  EXPECT_EQ(result->events(0).kind(), v1::FP_COLLAPSE);
  EXPECT_THAT(
      Moves(result->events(0)),
      ElementsAre(ToPile(left, 0), ToPile(right, 0), ToTable(tile, 0, 0)));
  EXPECT_EQ(Layout(state), (std::vector<Placed>{{0, 0, tile}}));
  // The supports went under the pile, then the draw took the old pile
  // tile and both supports.
  EXPECT_THAT(Hand(state, 0), ElementsAre(left, right, B(60)));
  EXPECT_THAT(Pile(state, 0), IsEmpty());
}

TEST(FpBuildingRuleTest, ColourMatchWithinWeightStays) {
  auto state = PlaceOnTwo(Y(30), R(40), R(20));
  ExpectStays(*state, Y(30), R(40), R(20));
}

TEST(FpBuildingRuleTest, WeightMatchWithoutColourStays) {
  auto state = PlaceOnTwo(Y(20), G(30), R(20));
  ExpectStays(*state, Y(20), G(30), R(20));
}

TEST(FpBuildingRuleTest, WeightEqualToTheSumStays) {
  auto state = PlaceOnTwo(Y(10), R(20), Y(30));
  ExpectStays(*state, Y(10), R(20), Y(30));
}

TEST(FpBuildingRuleTest, NoColourOrWeightMatchCollapses) {
  auto state = PlaceOnTwo(Y(20), G(30), R(10));
  ExpectCollapses(*state, Y(20), G(30), R(10));
}

TEST(FpBuildingRuleTest, HeavierThanTheSumCollapses) {
  auto state = PlaceOnTwo(Y(10), R(20), Y(40));
  ExpectCollapses(*state, Y(10), R(20), Y(40));
}

TEST(FpBuildingRuleTest, MillstoneMatchesEveryColour) {
  auto state = PlaceOnTwo(Y(100), R(120), kMillstone);
  ExpectStays(*state, Y(100), R(120), kMillstone);
}

TEST(FpBuildingRuleTest, MillstoneHeavierThanTheSumCollapses) {
  auto state = PlaceOnTwo(Y(60), R(100), kMillstone);
  ExpectCollapses(*state, Y(60), R(100), kMillstone);
}

TEST(FpBuildingRuleTest, MillstoneSupportMatchesAnyColour) {
  auto state = PlaceOnTwo(kMillstone, Y(10), B(100));
  ExpectStays(*state, kMillstone, Y(10), B(100));
}

TEST(FpBuildingRuleTest, IncendiaryObeysTheRuleWithItsColourAndWeight) {
  auto fits = PlaceOnTwo(G(10), Y(20), kCoalGreen);  // Green; 1 <= 30.
  ExpectStays(*fits, G(10), Y(20), kCoalGreen);
  auto breaks = PlaceOnTwo(Y(10), R(20), kCoalGreen);  // No colour, weight.
  ExpectCollapses(*breaks, Y(10), R(20), kCoalGreen);
}

// ---------------------------------------------------------------------------
// The building rule on one support and a gap (overhang): a fire or a
// collapse takes one support away.

// Row 0: Y(2) straw at (0, 0), `right` at (0, 1); `top` at (1, 0). A Coal
// placed at (0, -1) burns Y(2), leaving `top` on `right` and a gap.
std::unique_ptr<State> BurnLeftSupport(int right, int top) {
  auto state =
      StateAt(Pos(MakeBoard({{1, 0, top}, {0, 0, Y(2)}, {0, 1, right}}),
                  {{kCoalGreen, B(2)}, {B(4)}}));
  EXPECT_NE(state, nullptr);
  if (state == nullptr) return nullptr;
  auto result = Act(*state, 0, Place(kCoalGreen, 0, -1));
  EXPECT_TRUE(result.ok());
  if (!result.ok()) return nullptr;
  EXPECT_EQ(result->events(0).kind(), v1::FP_FIRE);
  EXPECT_THAT(Moves(result->events(0)),
              ElementsAre(ToPile(Y(2), 0), Removed(kCoalGreen)));
  return state;
}

TEST(FpOverhangTest, SameColourAndNotHeavierStays) {
  auto state = BurnLeftSupport(R(40), R(30));
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{1});
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 0, R(30)}, {0, 1, R(40)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), B(2)));
  EXPECT_THAT(PositionOf(*state).removed, ::testing::Contains(kCoalGreen));
}

TEST(FpOverhangTest, NoSharedColourCollapses) {
  // Y(30) fitted on Y(2) and R(40); on R(40) alone it shares no colour.
  auto state = BurnLeftSupport(R(40), Y(30));
  ASSERT_NE(state, nullptr);
  const v1::FlamingPyramidsObservation view = View(*state);
  ASSERT_EQ(view.phase(), v1::FP_FALL);
  EXPECT_EQ(view.pending().kind(), v1::FP_COLLAPSE);
  ASSERT_THAT(view.pending().supports(), SizeIs(1));
  EXPECT_EQ(view.pending().supports(0).tile(), static_cast<uint32_t>(R(40)));
  auto result = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(Moves(result->events(0)),
              ElementsAre(ToPile(R(40), 0), ToTable(Y(30), 0, 1)));
  EXPECT_EQ(Layout(*state), (std::vector<Placed>{{0, 1, Y(30)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(2), R(40), B(2)));
}

TEST(FpOverhangTest, MillstoneAloneSupportsAnyColourUpToItsWeight) {
  auto state = BurnLeftSupport(kMillstone, B(120));
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->ActingSeats(), std::vector<int>{1});
  EXPECT_EQ(Layout(*state), InScanOrder({{1, 0, B(120)}, {0, 1, kMillstone}}));
}

TEST(FpOverhangTest, SameColourButHeavierCollapses) {
  // Row 0: Y(20), G(10), B(10); (1, 0) Y(30) fits on Y(20) and G(10). G(30)
  // placed at (1, 1) on G(10) and B(10) is too heavy: G(10) and B(10) go
  // under the pile and G(30) falls right, to (0, 2). Y(30) is left on Y(20)
  // and a gap: same colour but heavier, so it collapses too.
  auto state = StateAt(Pos(
      MakeBoard({{1, 0, Y(30)}, {0, 0, Y(20)}, {0, 1, G(10)}, {0, 2, B(10)}}),
      {{G(30)}, {B(4)}}));
  ASSERT_NE(state, nullptr);
  ASSERT_TRUE(Act(*state, 0, Place(G(30), 1, 1)).ok());
  auto first = Act(*state, 0, Fall(kRight));
  ASSERT_TRUE(first.ok());
  EXPECT_THAT(
      Moves(first->events(0)),
      ElementsAre(ToPile(G(10), 0), ToPile(B(10), 0), ToTable(G(30), 0, 2)));
  const v1::FlamingPyramidsObservation view = View(*state);
  ASSERT_EQ(view.phase(), v1::FP_FALL);
  EXPECT_EQ(view.pending().tile(), static_cast<uint32_t>(Y(30)));
  auto second = Act(*state, 0, Fall(kLeft));
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(Moves(second->events(0)),
              ElementsAre(ToPile(Y(20), 0), ToTable(Y(30), 0, 0)));
  EXPECT_EQ(Layout(*state), InScanOrder({{0, 0, Y(30)}, {0, 2, G(30)}}));
  EXPECT_THAT(Hand(*state, 0), ElementsAre(Y(20), G(10), B(10)));
}

}  // namespace
}  // namespace pyramid::fp::testing
