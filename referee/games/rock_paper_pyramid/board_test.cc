// Rock, Paper, Pyramid!'s round resolution: the pairwise capture table
// and every three-way case of the rules page.
#include "referee/games/rock_paper_pyramid/board.h"

#include <array>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/rock_paper_pyramid/board.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp::testing {
namespace {

// Rows X3, X2, X1; columns X3, X2, X1, Y3, Y2, Y1; X beats Y on colour.
inline constexpr std::array<std::string_view, 3> kDesignerTable = {
    "N><>>N",
    "<N>N>>",
    "><N>N>",
};

// Row/column i of the table has size 3 - i: L, M, S.
void ExpectDesignerTable(v1::RppColour x, v1::RppColour y) {
  for (int row = 0; row < 3; ++row) {
    for (int column = 0; column < 6; ++column) {
      const v1::RppPiece row_piece = Piece(x, kAllSizes[row]);
      const v1::RppPiece column_piece =
          Piece(column < 3 ? x : y, kAllSizes[column % 3]);
      EXPECT_EQ(Cell(row_piece, column_piece), kDesignerTable[row][column])
          << Name(row_piece) << " vs " << Name(column_piece);
    }
  }
}

TEST(RppCaptureTest, DesignerTableBlackOverWhite) {
  ExpectDesignerTable(kB, kW);
}

TEST(RppCaptureTest, DesignerTableWhiteOverCrystal) {
  ExpectDesignerTable(kW, kC);
}

TEST(RppCaptureTest, DesignerTableCrystalOverBlack) {
  ExpectDesignerTable(kC, kB);
}

TEST(RppCaptureTest, DesignerTableRedOverEveryColour) {
  ExpectDesignerTable(kR, kB);
  ExpectDesignerTable(kR, kW);
  ExpectDesignerTable(kR, kC);
}

TEST(RppCaptureTest, RedTrumpsColourButNotSize) {
  for (v1::RppColour other : {kB, kW, kC}) {
    // Same size: colour alone decides, and red wins.
    for (v1::RppSize size : kAllSizes) {
      EXPECT_EQ(Cell(Piece(kR, size), Piece(other, size)), '>');
    }
    // Red Large loses to a Small on size: the pair is Null.
    EXPECT_EQ(Cell(Piece(kR, kL), Piece(other, kS)), 'N');
    EXPECT_EQ(Cell(Piece(kR, kM), Piece(other, kL)), 'N');
    EXPECT_EQ(Cell(Piece(kR, kS), Piece(other, kM)), 'N');
    // Red wins colour and size: capture.
    EXPECT_EQ(Cell(Piece(kR, kL), Piece(other, kM)), '>');
  }
  // Red vs red is same colour: size alone decides.
  EXPECT_EQ(Cell(Piece(kR, kL), Piece(kR, kM)), '>');
  EXPECT_EQ(Cell(Piece(kR, kM), Piece(kR, kS)), '>');
  EXPECT_EQ(Cell(Piece(kR, kS), Piece(kR, kL)), '>');
}

TEST(RppCaptureTest, OnlyRedCapturesRed) {
  for (v1::RppColour colour : {kB, kW, kC}) {
    for (v1::RppSize size : kAllSizes) {
      for (v1::RppSize red_size : kAllSizes) {
        EXPECT_FALSE(rpp::Captures(Piece(colour, size), Piece(kR, red_size)))
            << Name(Piece(colour, size));
      }
    }
  }
}

TEST(RppCaptureTest, NeverMutualAndIdenticalIsNull) {
  for (v1::RppColour xc : kAllColours) {
    for (v1::RppSize xs : kAllSizes) {
      EXPECT_EQ(Cell(Piece(xc, xs), Piece(xc, xs)), 'N');
      for (v1::RppColour yc : kAllColours) {
        for (v1::RppSize ys : kAllSizes) {
          EXPECT_NE(Cell(Piece(xc, xs), Piece(yc, ys)), '!');
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Three-way resolution.

// Roles A, B, C of a named case, assigned to seats by `seat_of`.
struct ThreeWayCase {
  std::string_view name;
  std::array<v1::RppPiece, 3> pieces;  // By role.
  v1::RppResolution resolution;
  std::array<int32_t, 3> captured_scores;  // By role, winner_takes CAPTURED.
  std::array<int32_t, 3> all_scores;       // By role, winner_takes ALL.
};

const std::vector<ThreeWayCase>& ClassicCases() {
  static const auto* const cases = new std::vector<ThreeWayCase>{
      // A>B (colour), A>C (size), B vs C conflict.
      {"FullSweep",
       {Piece(kB, kL), Piece(kW, kL), Piece(kB, kM)},
       v1::RPP_CAPTURES,
       {5, 0, 0},
       {8, 0, 0}},
      // A>B, A>C, B and C identical.
      {"FullSweepIdenticalVictims",
       {Piece(kB, kL), Piece(kW, kM), Piece(kW, kM)},
       v1::RPP_CAPTURES,
       {4, 0, 0},
       {7, 0, 0}},
      // A>B (colour), B>C (colour and size), A vs C conflict.
      {"LineSweep",
       {Piece(kB, kL), Piece(kW, kL), Piece(kC, kM)},
       v1::RPP_CAPTURES,
       {5, 0, 0},
       {8, 0, 0}},
      // A>B (size), A>C (both), B>C (colour).
      {"UnnamedAOverBAndC",
       {Piece(kB, kL), Piece(kB, kM), Piece(kW, kM)},
       v1::RPP_CAPTURES,
       {4, 0, 0},
       {7, 0, 0}},
      // A>B>C>A on colour, same size.
      {"Standoff",
       {Piece(kB, kL), Piece(kW, kL), Piece(kC, kL)},
       v1::RPP_STANDOFF,
       {0, 0, 0},
       {0, 0, 0}},
      // A>C (colour), B>C (size), A vs B conflict.
      {"Wishbone",
       {Piece(kB, kM), Piece(kW, kL), Piece(kW, kM)},
       v1::RPP_WISHBONE,
       {0, 0, 0},
       {0, 0, 0}},
      // Three identical pieces.
      {"WashoutIdentical",
       {Piece(kB, kL), Piece(kB, kL), Piece(kB, kL)},
       v1::RPP_WASHOUT,
       {0, 0, 0},
       {0, 0, 0}},
      // Every pair is a colour/size conflict.
      {"WashoutConflicts",
       {Piece(kB, kL), Piece(kC, kM), Piece(kW, kS)},
       v1::RPP_WASHOUT,
       {0, 0, 0},
       {0, 0, 0}},
  };
  return *cases;
}

// Plays `c` as round 1 with role r at seat seat_of[r] and checks the result.
void ExpectThreeWay(const ThreeWayCase& c, std::array<int, 3> seat_of,
                    v1::RppWinnerTakes winner_takes) {
  SCOPED_TRACE(::testing::Message()
               << c.name << " seats " << seat_of[0] << seat_of[1] << seat_of[2]
               << " mode " << winner_takes);
  std::unique_ptr<State> state = NewClassicState(winner_takes);
  ASSERT_NE(state, nullptr);
  Played round;
  for (int role = 0; role < 3; ++role) round[seat_of[role]] = c.pieces[role];
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, round);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->resolution(), c.resolution);
  const bool all = winner_takes == v1::RPP_TAKES_ALL;
  const std::array<int32_t, 3>& by_role =
      all ? c.all_scores : c.captured_scores;
  std::vector<int32_t> expected(3);
  for (int role = 0; role < 3; ++role) expected[seat_of[role]] = by_role[role];
  EXPECT_THAT(Scores(*state), ::testing::ElementsAreArray(expected));
  EXPECT_THAT(result->scores(), ::testing::ElementsAreArray(expected));
  if (c.resolution != v1::RPP_CAPTURES) {
    EXPECT_THAT(result->captures(), IsEmpty());
    EXPECT_THAT(result->kept(), IsEmpty());
    return;
  }
  // A takes both other pieces, listed in captured-seat order.
  ASSERT_THAT(result->captures(), SizeIs(2));
  EXPECT_LT(result->captures(0).captured(), result->captures(1).captured());
  for (const v1::RppCapture& capture : result->captures()) {
    EXPECT_EQ(capture.claimant(), static_cast<uint32_t>(seat_of[0]));
    EXPECT_NE(capture.captured(), static_cast<uint32_t>(seat_of[0]));
  }
  if (all) {
    EXPECT_THAT(result->kept(), ElementsAre(seat_of[0]));
  } else {
    EXPECT_THAT(result->kept(), IsEmpty());
  }
}

std::vector<std::array<int, 3>> AllSeatAssignments() {
  std::vector<std::array<int, 3>> assignments;
  std::array<int, 3> seat_of = {0, 1, 2};
  do {
    assignments.push_back(seat_of);
  } while (std::next_permutation(seat_of.begin(), seat_of.end()));
  return assignments;
}

TEST(RppThreeWayTest, NamedCasesInEverySeatOrderAndMode) {
  for (const ThreeWayCase& c : ClassicCases()) {
    for (const std::array<int, 3>& seat_of : AllSeatAssignments()) {
      ExpectThreeWay(c, seat_of, v1::RPP_TAKES_CAPTURED);
      ExpectThreeWay(c, seat_of, v1::RPP_TAKES_ALL);
    }
  }
}

TEST(RppThreeWayTest, FullSweepDetails) {
  std::unique_ptr<State> state = NewClassicState();
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kW, kL), Piece(kB, kM), Piece(kB, kL)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->round(), 1u);
  ASSERT_THAT(result->played(), SizeIs(3));
  EXPECT_EQ(result->played(0).colour(), kW);
  EXPECT_EQ(result->played(1).size(), kM);
  EXPECT_EQ(result->played(2).colour(), kB);
  EXPECT_EQ(result->resolution(), v1::RPP_CAPTURES);
  ASSERT_THAT(result->captures(), SizeIs(2));
  EXPECT_EQ(result->captures(0).claimant(), 2u);
  EXPECT_EQ(result->captures(0).captured(), 0u);
  EXPECT_EQ(result->captures(0).piece().colour(), kW);
  EXPECT_EQ(result->captures(1).claimant(), 2u);
  EXPECT_EQ(result->captures(1).captured(), 1u);
  EXPECT_EQ(result->captures(1).piece().size(), kM);
  EXPECT_THAT(result->scores(), ElementsAre(0, 0, 5));
  const v1::Observation view = state->PublicView();
  const v1::RppSeatView& winner = Rpp(view).seats(2);
  ASSERT_THAT(winner.scored(), SizeIs(2));
  EXPECT_EQ(Name(winner.scored(0)), Name(Piece(kW, kL)));
  EXPECT_EQ(Name(winner.scored(1)), Name(Piece(kB, kM)));
}

TEST(RppThreeWayTest, LineSweepClaimsThroughCapturedPiece) {
  // Seat 0 > seat 1 > seat 2; seat 0 never touches seat 2 directly.
  ASSERT_EQ(Cell(Piece(kB, kL), Piece(kC, kM)), 'N');
  std::unique_ptr<State> state = NewClassicState();
  absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
      PlayRound(*state, {Piece(kB, kL), Piece(kW, kL), Piece(kC, kM)});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(result->captures(), SizeIs(2));
  EXPECT_EQ(result->captures(1).captured(), 2u);
  EXPECT_EQ(result->captures(1).claimant(), 0u);
  EXPECT_THAT(result->scores(), ElementsAre(5, 0, 0));
}

TEST(RppThreeWayTest, SoloNeedsRed) {
  // A = red Large takes B = White Large on colour; C = Crystal Small is Null
  // with both (it beats a Large on size, loses on colour).
  for (uint8_t seed = 0; seed < 6; ++seed) {
    for (v1::RppWinnerTakes mode :
         {v1::RPP_TAKES_CAPTURED, v1::RPP_TAKES_ALL}) {
      std::unique_ptr<State> state = NewState(Config(mode, true), seed);
      ASSERT_NE(state, nullptr);
      int red_large_seat = -1;
      const v1::Observation view = state->PublicView();
      for (int seat = 0; seat < 3; ++seat) {
        if (HasPiece(Rpp(view).seats(seat), Piece(kR, kL))) {
          red_large_seat = seat;
        }
      }
      ASSERT_NE(red_large_seat, -1);
      const int b = (red_large_seat + 1) % 3;
      const int c = (red_large_seat + 2) % 3;
      Played round;
      round[red_large_seat] = Piece(kR, kL);
      round[b] = Piece(kW, kL);
      round[c] = Piece(kC, kS);
      absl::StatusOr<v1::RockPaperPyramidRoundResult> result =
          PlayRound(*state, round);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->resolution(), v1::RPP_CAPTURES);
      ASSERT_THAT(result->captures(), SizeIs(1));
      EXPECT_EQ(result->captures(0).claimant(),
                static_cast<uint32_t>(red_large_seat));
      EXPECT_EQ(result->captures(0).captured(), static_cast<uint32_t>(b));
      std::vector<int32_t> expected(3, 0);
      expected[red_large_seat] = mode == v1::RPP_TAKES_ALL ? 6 : 3;
      EXPECT_THAT(Scores(*state), ::testing::ElementsAreArray(expected));
    }
  }
}

// ---------------------------------------------------------------------------
// The red variant.

}  // namespace
}  // namespace pyramid::rpp::testing
