#include "tools/tournament/tournament_file.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/tournament/schedule.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kGood[] =
    "name: \"duel\" game { game: \"rock_paper_pyramid\" }\n"
    "bots { name: \"a\" command: \"bot\" }\n"
    "bots { name: \"b\" command: \"bot\" }\n"
    "bots { name: \"c\" command: \"bot\" }\n";

absl::Status Check(const std::string& text) {
  absl::StatusOr<v1::Tournament> t = ParseTournamentFile(text);
  if (!t.ok()) return t.status();
  return NormalizeTournament(*t);
}

TEST(TournamentFileTest, FillsTheDefaults) {
  absl::StatusOr<v1::Tournament> t = ParseTournamentFile(kGood);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_TRUE(NormalizeTournament(*t).ok());
  EXPECT_EQ(t->seats(), 3u);
  EXPECT_EQ(t->rounds(), 1u);
  EXPECT_EQ(t->concurrency(), 8u);
  EXPECT_EQ(t->clocks().commit_timeout_ms(), 5000u);
  EXPECT_EQ(t->output_dir(), "out/duel");
}

TEST(TournamentFileTest, SyntaxErrorsNameTheirLineAndColumn) {
  const absl::Status s = Check(absl::StrCat(kGood, "rounds: -1\n"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("line 5 column"));
  EXPECT_THAT(Check("bogus: 1").message(), HasSubstr("no field named"));
}

TEST(TournamentFileTest, EveryBadFieldIsNamed) {
  const std::string good = kGood;
  struct Case {
    std::string text, field;
  } cases[] = {
      {"name: \"a b\"" + good.substr(good.find(' ', 10)), "name:"},
      {"name: \"..\"" + good.substr(good.find(' ', 10)), "name:"},
      {good + "seats: 2", "seats:"},
      {good + "bots { name: \"a\" command: \"x\" }", "two bots"},
      {good + "bots { name: \"d/e\" command: \"x\" }", "bad bot name"},
      {good + "bots { name: \"d\" }", "has no command"},
      {good + "clocks { reveal_timeout_ms: 1000 time_bank_ms: 5000 }",
       "clocks.time_bank_ms"},
      {good + "clocks { commit_timeout_ms: 5 }", "clocks.commit_timeout_ms"},
      {good + "sprt { elo0: 0 elo1: 10 }", "sprt:"},
      {good + "format: SWISS", "format:"},
      {"game { game: \"chess\" }", "game:"},
  };
  for (const Case& c : cases) {
    const absl::Status s = Check(c.text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(s.message(), HasSubstr(c.field)) << c.text;
  }
}

TEST(TournamentFileTest, AMissingGameIsRequiredNotUnknown) {
  const absl::Status s = Check("bots { name: \"a\" command: \"x\" }");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("game: required (one of "));
  EXPECT_THAT(s.message(), HasSubstr("pyramid_scheme"));
  EXPECT_THAT(s.message(), Not(HasSubstr("unknown game")));
}

// The SPRT's own checks name the field once.
TEST(TournamentFileTest, ABadSprtIsNamedOnce) {
  const absl::Status s = Check(
      "game { game: \"pyramid_scheme\" }\n"
      "bots { name: \"a\" command: \"bot\" }\n"
      "bots { name: \"b\" command: \"bot\" }\n"
      "sprt { elo0: 10 elo1: 0 }\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "sprt: elo1 (0) must exceed elo0 (10)");
}

TEST(TournamentFileTest, AScheduleTooLargeIsRefusedBeforeItIsListed) {
  // C(1000, 3) * 3 rotations: about 5 * 10^8 matches.
  absl::StatusOr<std::vector<ScheduledMatch>> huge =
      MakeSchedule(v1::ROUND_ROBIN, 1000, 3, 1, 0);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.status().message(), HasSubstr("more than 10000000"));
  EXPECT_FALSE(MakeSchedule(v1::GAUNTLET, 100, 2, 200000, 0).ok());
  EXPECT_TRUE(MakeSchedule(v1::ROUND_ROBIN, 10, 3, 2, 0).ok());
}

}  // namespace
}  // namespace pyramid
