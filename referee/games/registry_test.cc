// The registry and the game descriptions: every description matches its
// options message, MakeGame applies and checks what the description says,
// and docs/log-format.md's table of valid values is the one the
// descriptions write.
#include "referee/games/registry.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using ::google::protobuf::FieldDescriptor;

TEST(RegistryTest, EveryDescriptionMatchesItsOptionsMessage) {
  for (const GameDescription* game : AllGames()) {
    const FieldDescriptor* member =
        v1::GameConfig::descriptor()->FindFieldByName(std::string(game->id));
    ASSERT_NE(member, nullptr) << game->id;
    ASSERT_EQ(member->containing_oneof()->name(), "options") << game->id;
    const auto* options = member->message_type();
    ASSERT_EQ(options->field_count(), static_cast<int>(game->options.size()))
        << game->id << ": every option is described";
    for (const OptionDescription& option : game->options) {
      const FieldDescriptor* field =
          options->FindFieldByName(std::string(option.name));
      ASSERT_NE(field, nullptr) << game->id << "." << option.name;
      switch (option.kind) {
        case OptionDescription::Kind::kBool:
          EXPECT_EQ(field->type(), FieldDescriptor::TYPE_BOOL) << option.name;
          break;
        case OptionDescription::Kind::kEnum:
          EXPECT_EQ(field->type(), FieldDescriptor::TYPE_ENUM) << option.name;
          EXPECT_NE(field->enum_type()->FindValueByNumber(
                        static_cast<int>(option.default_value)),
                    nullptr)
              << option.name;
          break;
        case OptionDescription::Kind::kUint:
          EXPECT_EQ(field->type(), FieldDescriptor::TYPE_UINT32) << option.name;
          EXPECT_LE(option.min, option.default_value) << option.name;
          EXPECT_LE(option.default_value, option.max) << option.name;
          break;
      }
    }
    EXPECT_FALSE(game->rules_versions.empty()) << game->id;
    // A game without a bound on its moves leaves a remote referee's
    // matches of it unbounded (tools/tournament/referee_link.h).
    EXPECT_NE(game->max_moves, nullptr) << game->id;
    EXPECT_LE(game->min_seats, game->max_seats) << game->id;
    EXPECT_EQ(FindGame(game->id), game);
  }
  EXPECT_EQ(FindGame("chess"), nullptr);
}

TEST(RegistryTest, MakeGameTakesEachDescriptionsSeatsAndLatestVersion) {
  for (const GameDescription* game : AllGames()) {
    v1::GameConfig config;
    config.set_game(std::string(game->id));
    absl::StatusOr<std::unique_ptr<Game>> made = MakeGame(config);
    ASSERT_TRUE(made.ok()) << made.status();
    EXPECT_EQ(&(*made)->description(), game);
    EXPECT_EQ((*made)->rules_version(), game->latest_rules_version());
    EXPECT_EQ((*made)->min_seats(), game->min_seats);
    EXPECT_EQ((*made)->max_seats(), game->max_seats);
    EXPECT_EQ((*made)->max_action_bytes(), game->max_action_bytes);
    EXPECT_EQ(
        MakeGame(config, game->latest_rules_version() + 1).status().code(),
        absl::StatusCode::kUnimplemented);
  }
  v1::GameConfig unknown;
  unknown.set_game("chess");
  EXPECT_EQ(MakeGame(unknown).status().code(), absl::StatusCode::kNotFound);
}

// Messages name a fixed seat count alone and a range as one.
TEST(RegistryTest, SeatCountsNameAFixedCountAlone) {
  ASSERT_NE(FindGame("rock_paper_pyramid"), nullptr);
  ASSERT_NE(FindGame("pyramid_shambo"), nullptr);
  EXPECT_EQ(SeatCounts(*FindGame("rock_paper_pyramid")), "3");
  EXPECT_EQ(SeatCounts(*FindGame("pyramid_shambo")), "2 to 10");
}

TEST(RegistryTest, OptionsAreResolvedAndCheckedFromTheDescription) {
  v1::GameConfig config;
  config.set_game("flaming_pyramids");
  absl::StatusOr<OptionValues> values =
      ResolveOptions(*FindGame("flaming_pyramids"), config);
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(values->at("max_turns"), 2000u);
  EXPECT_EQ(values->at("curse"), 0u);

  config.mutable_flaming_pyramids()->set_max_turns(100001);
  EXPECT_THAT(std::string(MakeGame(config).status().message()),
              ::testing::HasSubstr("max_turns 100001 is above 100000"));

  v1::GameConfig shambo;
  shambo.set_game("pyramid_shambo");
  shambo.mutable_pyramid_shambo()->set_max_throws(0);
  EXPECT_THAT(std::string(MakeGame(shambo).status().message()),
              ::testing::HasSubstr("max_throws must be at least 1"));

  v1::GameConfig rpp;
  rpp.set_game("rock_paper_pyramid");
  rpp.mutable_rock_paper_pyramid()->set_winner_takes(
      static_cast<v1::RppWinnerTakes>(7));
  EXPECT_THAT(std::string(MakeGame(rpp).status().message()),
              ::testing::HasSubstr("unknown winner_takes value 7"));

  v1::GameConfig crossed;
  crossed.set_game("pyramid_scheme");
  crossed.mutable_flaming_pyramids();
  EXPECT_THAT(std::string(MakeGame(crossed).status().message()),
              ::testing::HasSubstr("options belong to another game"));
}

TEST(RegistryTest, LogFormatDocHoldsTheTableTheDescriptionsWrite) {
  std::ifstream doc("docs/log-format.md");
  ASSERT_TRUE(doc.good()) << "run from the source root";
  std::stringstream text;
  text << doc.rdbuf();
  EXPECT_THAT(text.str(), ::testing::HasSubstr(ValidValuesTable()))
      << "docs/log-format.md's \"Valid values\" table must be exactly "
         "`replay games --markdown`:\n"
      << ValidValuesTable();
}

// The options messages are read by people who never read our C++: their
// comments state each default and bound, which must be the description's.
TEST(RegistryTest, ProtoCommentsStateTheDescriptionsDefaultsAndBounds) {
  for (const GameDescription* game : AllGames()) {
    const std::string path = absl::StrCat("proto/pyramid/referee/v1/",
                                          std::string(game->id), ".proto");
    std::ifstream file(path);
    ASSERT_TRUE(file.good()) << path << ": run from the source root";
    std::stringstream text;
    text << file.rdbuf();
    const auto* options = v1::GameConfig::descriptor()
                              ->FindFieldByName(std::string(game->id))
                              ->message_type();
    const std::string body = text.str();
    const size_t start = body.find("message " + options->name() + " {");
    ASSERT_NE(start, std::string::npos) << path;
    const std::string block =
        body.substr(start, body.find("\n}", start) - start);
    for (const OptionDescription& option : game->options) {
      if (option.kind != OptionDescription::Kind::kUint) continue;
      EXPECT_THAT(block,
                  ::testing::HasSubstr(absl::StrCat(option.default_value)))
          << path << ": " << option.name << "'s default";
      if (option.max != UINT32_MAX) {
        EXPECT_THAT(block, ::testing::HasSubstr(absl::StrCat(option.max)))
            << path << ": " << option.name << "'s bound";
      }
    }
  }
}

}  // namespace
}  // namespace pyramid
