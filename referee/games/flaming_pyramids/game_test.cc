// Flaming Pyramids: the deal, the description and its options. The State
// interface (refusals, default and legal actions, observations, outcomes)
// is rules_test.cc's.
#include "referee/games/flaming_pyramids/game.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
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
      const TestPosition position = PositionOf(*state);
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
  const TestPosition position = PositionOf(*state);
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

TEST(FpGameTest, RulesVersionsOneAndTwoAreImplemented) {
  EXPECT_EQ((*MakeGameOf(Description(), Config(), 1))->rules_version(), 1u);
  EXPECT_EQ((*MakeGameOf(Description(), Config(), 2))->rules_version(), 2u);
  const absl::Status three = MakeGameOf(Description(), Config(), 3).status();
  EXPECT_EQ(three.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(three.message(),
              HasSubstr("rules version 3 of flaming_pyramids is not "
                        "implemented (this build implements versions 1 to 2)"));
}

}  // namespace
}  // namespace pyramid::fp::testing
