// Rock, Paper, Pyramid!'s game: its description and options.
#include "referee/games/game.h"

#include <memory>

#include "gtest/gtest.h"
#include "referee/games/registry.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp::testing {
namespace {

TEST(RppGameTest, Metadata) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), v1::GameConfig());
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
  EXPECT_TRUE(MakeGameOf(Description(), config).ok());
  EXPECT_TRUE(MakeGameOf(Description(), Config(v1::RPP_TAKES_ALL, true)).ok());
  EXPECT_TRUE(
      MakeGameOf(Description(), Config(v1::RPP_WINNER_TAKES_UNSPECIFIED, false))
          .ok());

  const v1::GameConfig unknown_enum =
      Config(static_cast<v1::RppWinnerTakes>(3), false);
  EXPECT_EQ(MakeGameOf(Description(), unknown_enum).status().code(),
            absl::StatusCode::kInvalidArgument);

  v1::GameConfig other_game = Config(v1::RPP_TAKES_CAPTURED, false);
  other_game.set_game("pyramid_shambo");
  EXPECT_EQ(MakeGameOf(Description(), other_game).status().code(),
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
    EXPECT_EQ(MakeGameOf(Description(), config).status().code(),
              absl::StatusCode::kInvalidArgument)
        << field->name();
  }
}

// ---------------------------------------------------------------------------
// The State interface.

}  // namespace
}  // namespace pyramid::rpp::testing
