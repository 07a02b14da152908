#include "referee/games/rock_paper_pyramid.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"

namespace pyramid {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

inline constexpr v1::RppColour kB = v1::RPP_BLACK;
inline constexpr v1::RppColour kW = v1::RPP_WHITE;
inline constexpr v1::RppColour kC = v1::RPP_CRYSTAL;
inline constexpr v1::RppColour kR = v1::RPP_RED;
inline constexpr v1::RppSize kL = v1::RPP_LARGE;
inline constexpr v1::RppSize kM = v1::RPP_MEDIUM;
inline constexpr v1::RppSize kS = v1::RPP_SMALL;

inline constexpr std::array<v1::RppColour, 4> kAllColours = {kB, kW, kC, kR};
inline constexpr std::array<v1::RppSize, 3> kAllSizes = {kL, kM, kS};

// ---------------------------------------------------------------------------
// Helpers.

v1::RppPiece Piece(v1::RppColour colour, v1::RppSize size) {
  v1::RppPiece piece;
  piece.set_colour(colour);
  piece.set_size(size);
  return piece;
}

std::string Name(const v1::RppPiece& piece) {
  return v1::RppColour_Name(piece.colour()) + "/" +
         v1::RppSize_Name(piece.size());
}

v1::Action Play(const v1::RppPiece& piece) {
  v1::Action action;
  *action.mutable_rock_paper_pyramid()->mutable_piece() = piece;
  return action;
}

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

Digest Seed(uint8_t first) {
  Digest seed;
  for (size_t i = 0; i < seed.size(); ++i) {
    seed[i] = static_cast<uint8_t>(first + i);
  }
  return seed;
}

v1::GameConfig Config(v1::RppWinnerTakes winner_takes, bool red) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  config.mutable_rock_paper_pyramid()->set_winner_takes(winner_takes);
  config.mutable_rock_paper_pyramid()->set_red(red);
  return config;
}

std::unique_ptr<State> NewState(const v1::GameConfig& config,
                                uint8_t seed = 0) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeRockPaperPyramid(config);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<State>> state =
      (*game)->NewInitialState(3, RandomStream(Seed(seed)));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

std::unique_ptr<State> NewClassicState(
    v1::RppWinnerTakes winner_takes = v1::RPP_TAKES_CAPTURED) {
  return NewState(Config(winner_takes, /*red=*/false));
}

// The pieces played this round, indexed by seat.
using Round = std::array<v1::RppPiece, 3>;

absl::StatusOr<v1::RockPaperPyramidRoundResult> PlayRound(State& state,
                                                          const Round& pieces) {
  std::vector<SeatAction> actions;
  for (int seat = 0; seat < 3; ++seat) {
    actions.push_back({seat, Play(pieces[seat])});
  }
  absl::StatusOr<v1::Result> result = state.Apply(actions);
  if (!result.ok()) return result.status();
  return result->rock_paper_pyramid();
}

void PlayDefaultRound(State& state) {
  std::vector<SeatAction> actions;
  for (int seat : state.ActingSeats()) {
    actions.push_back({seat, state.DefaultAction(seat)});
  }
  ASSERT_TRUE(state.Apply(actions).ok());
}

const v1::RockPaperPyramidObservation& Rpp(const v1::Observation& o) {
  return o.rock_paper_pyramid();
}

std::vector<int32_t> Scores(const State& state) {
  std::vector<int32_t> scores;
  const v1::Observation view = state.PublicView();
  for (const v1::RppSeatView& seat : Rpp(view).seats()) {
    scores.push_back(seat.score());
  }
  return scores;
}

std::vector<uint32_t> Ranks(const v1::Outcome& outcome) {
  std::vector<uint32_t> ranks;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    ranks.push_back(seat.rank());
  }
  return ranks;
}

bool HasPiece(const v1::RppSeatView& seat, const v1::RppPiece& piece) {
  return std::any_of(
      seat.pool().begin(), seat.pool().end(), [&](const v1::RppPiece& p) {
        return p.colour() == piece.colour() && p.size() == piece.size();
      });
}

// '>' row captures column, '<' column captures row, 'N' neither, '!' both
// (which the rule forbids).
char Cell(const v1::RppPiece& row, const v1::RppPiece& column) {
  const bool forward = rpp::Captures(row, column);
  const bool backward = rpp::Captures(column, row);
  if (forward && backward) return '!';
  if (forward) return '>';
  if (backward) return '<';
  return 'N';
}

// ---------------------------------------------------------------------------
// Pairwise capture: the designer's table.

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
  Round round;
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
      Round round;
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

TEST(RppGameTest, Metadata) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeRockPaperPyramid(v1::GameConfig());
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_EQ((*game)->id(), "rock_paper_pyramid");
  EXPECT_EQ((*game)->rules_version(), 1u);
  EXPECT_EQ((*game)->min_seats(), 3);
  EXPECT_EQ((*game)->max_seats(), 3);
  for (int seats : {0, 1, 2, 4}) {
    EXPECT_EQ(
        (*game)->NewInitialState(seats, RandomStream(Seed(0))).status().code(),
        absl::StatusCode::kInvalidArgument)
        << seats;
  }
  EXPECT_TRUE((*game)->NewInitialState(3, RandomStream(Seed(0))).ok());
}

TEST(RppGameTest, OptionsValidation) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  EXPECT_TRUE(MakeRockPaperPyramid(config).ok());
  EXPECT_TRUE(MakeRockPaperPyramid(Config(v1::RPP_TAKES_ALL, true)).ok());
  EXPECT_TRUE(
      MakeRockPaperPyramid(Config(v1::RPP_WINNER_TAKES_UNSPECIFIED, false))
          .ok());

  const v1::GameConfig unknown_enum =
      Config(static_cast<v1::RppWinnerTakes>(3), false);
  EXPECT_EQ(MakeRockPaperPyramid(unknown_enum).status().code(),
            absl::StatusCode::kInvalidArgument);

  v1::GameConfig other_game = Config(v1::RPP_TAKES_CAPTURED, false);
  other_game.set_game("pyramid_shambo");
  EXPECT_EQ(MakeRockPaperPyramid(other_game).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Any options message of the oneof other than ours is refused. Written with
// reflection so it covers games added to GameConfig later.
TEST(RppGameTest, OtherGamesOptionsRefused) {
  const google::protobuf::OneofDescriptor* options =
      v1::GameConfig::descriptor()->FindOneofByName("options");
  ASSERT_NE(options, nullptr);
  for (int i = 0; i < options->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = options->field(i);
    if (field->number() == v1::GameConfig::kRockPaperPyramidFieldNumber) {
      continue;
    }
    v1::GameConfig config;
    config.set_game("rock_paper_pyramid");
    config.GetReflection()->MutableMessage(&config, field);
    EXPECT_EQ(MakeRockPaperPyramid(config).status().code(),
              absl::StatusCode::kInvalidArgument)
        << field->name();
  }
}

// ---------------------------------------------------------------------------
// The State interface.

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
}  // namespace pyramid
