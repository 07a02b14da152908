#include "referee/cli/text_proto.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

TEST(TextProtoTest, MergesIntoWhatIsSet) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  ASSERT_TRUE(MergeTextProto("rock_paper_pyramid { red: true }", config).ok());
  EXPECT_EQ(config.game(), "rock_paper_pyramid");
  EXPECT_TRUE(config.rock_paper_pyramid().red());
  ASSERT_TRUE(MergeTextProto("", config).ok());
  EXPECT_EQ(config.game(), "rock_paper_pyramid");
}

TEST(TextProtoTest, NamesTheFirstErrorWithItsPlace) {
  v1::GameConfig config;
  const absl::Status status = MergeTextProto(
      "rock_paper_pyramid { red: true }\n bogus { x: 1 }", config);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              ::testing::StartsWith("line 2 column "));
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("\"bogus\""));
}

// Parse clears what was set and refuses a field set twice; Merge takes
// the last.
TEST(TextProtoTest, ParseIsStricterThanMerge) {
  v1::GameConfig config;
  config.set_game("pyramid_scheme");
  ASSERT_TRUE(ParseTextProto("game: \"rock_paper_pyramid\"", config).ok());
  EXPECT_EQ(config.game(), "rock_paper_pyramid");
  ASSERT_TRUE(ParseTextProto("", config).ok());
  EXPECT_EQ(config.game(), "");
  const char* twice = "game: \"a\" game: \"b\"";
  EXPECT_FALSE(ParseTextProto(twice, config).ok());
  ASSERT_TRUE(MergeTextProto(twice, config).ok());
  EXPECT_EQ(config.game(), "b");
}

}  // namespace
}  // namespace pyramid
