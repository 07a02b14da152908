// Rock, Paper, Pyramid!'s game: its description and options.
#include "referee/games/game.h"

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
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/rock_paper_pyramid/board.h"
#include "referee/games/rock_paper_pyramid/game.h"
#include "referee/games/rock_paper_pyramid/testing.h"

namespace pyramid::rpp {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using namespace ::pyramid::rpp::testing;  // NOLINT: the game's test helpers

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

}  // namespace
}  // namespace pyramid::rpp
