// Pyramid Scheme: the description, its options and the setup. One named
// test per rule (with the State interface, observations and default
// actions) is in rules_test.cc, the model (pyramids, goals) in
// board_test.cc.
#include "referee/games/pyramid_scheme/game.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
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

}  // namespace
}  // namespace pyramid::scheme::testing
