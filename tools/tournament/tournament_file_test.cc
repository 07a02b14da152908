#include "tools/tournament/tournament_file.h"

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/registry.h"
#include "tests/temp_dir.h"
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

// A bad name is echoed quoted and escaped: the file's text cannot drive
// the terminal the runner's error reaches.
TEST(TournamentFileTest, ABadNameIsEchoedEscaped) {
  const std::string bots =
      "bots { name: \"\\033]0;T\\007\\033[2Jevil\" command: \"bot\" }\n"
      "bots { name: \"b\" command: \"bot\" }\n";
  EXPECT_THAT(Check("game { game: \"rock_paper_pyramid\" }\n" + bots).message(),
              HasSubstr("bad bot name \"\\x1B]0;T\\x07\\x1B[2Jevil\" (1 to"));
  EXPECT_THAT(
      Check("name: \"a\\nb\\\"\" game { game: \"rock_paper_pyramid\" }\n" +
            bots)
          .message(),
      HasSubstr("name: \"a\\nb\\\"\" is not 1 to"));
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

// Check, with the places ParseTournamentFile records: a mistake in a field
// the text sets names where it stands.
absl::Status CheckPlaced(const std::string& text) {
  TournamentFileLocations locations;
  absl::StatusOr<v1::Tournament> t = ParseTournamentFile(text, &locations);
  if (!t.ok()) return t.status();
  return NormalizeTournament(*t, &locations);
}

// Each mistake named at its field's line and column (from 1, as a syntax
// error's), the field at fault rather than its first of a kind: the second
// of two bots of a name, the game's name or its options; a bot without a
// command at the bot.
TEST(TournamentFileTest, AMistakeNamesTheLineOfItsField) {
  const std::string good = kGood;  // Four lines.
  const std::string rest = good.substr(good.find(' ', 10));
  struct Case {
    std::string text, message;
  } cases[] = {
      {"name: \"a b\"" + rest,
       "line 1 column 1: name: \"a b\" is not 1 to 64 letters, digits, '.', "
       "'_' or '-'"},
      {good + "seats: 2\n",
       "line 5 column 1: seats: rock_paper_pyramid takes 3 seats, not 2"},
      {good + "bots { name: \"a\" command: \"x\" }\n",
       "line 5 column 8: bots: two bots are named a"},
      {good + "\n  bots {\n    name: \"d/e\"\n    command: \"x\"\n  }\n",
       "line 7 column 5: bots: bad bot name \"d/e\" (1 to 64 letters, digits, "
       "'.', '_' or '-')"},
      {good + "bots { name: \"d\" }\n",
       "line 5 column 1: bots: bot d has no command"},
      {good + "bots { command: \"x\" }\n",
       "line 5 column 1: bots: bad bot name \"\" (1 to 64 letters, digits, "
       "'.', '_' or '-')"},
      {good + "clocks { commit_timeout_ms: 5 }\n",
       "line 5 column 1: clocks: clocks.commit_timeout_ms is 5 ms; it must be "
       "0 (no deadline) or from 50 to 86400000 ms (24 h)"},
      {good + "sprt { elo0: 0 elo1: 10 }\n",
       "line 5 column 1: sprt: an SPRT needs exactly 2 bots, 2 seats and the "
       "round-robin format"},
      {good + "format: SWISS\n",
       "line 5 column 1: format: Swiss pairs two seats per match"},
      {good + "referee_key: \"ab\"\n",
       "line 5 column 1: referee_key pins a running referee's key, and no "
       "referee is set (the embedded referee signs with signing_key_file)"},
      {"game {\n  game: \"chess\"\n}\n" + good.substr(good.find('\n') + 1),
       "line 2 column 3: game: unknown game \"chess\""},
      {"game { game: \"rock_paper_pyramid\" rock_paper_pyramid { "
       "winner_takes: 7 } }\n" +
           good.substr(good.find('\n') + 1),
       "line 1 column 35: game: rock_paper_pyramid: unknown winner_takes "
       "value 7"},
      {"game { game: \"pyramid_scheme\" }\n"
       "bots { name: \"a\" command: \"bot\" }\n"
       "bots { name: \"b\" command: \"bot\" }\n"
       "seats: 2\n"
       "sprt { elo0: 10 elo1: 0 }\n",
       "line 5 column 1: sprt: elo1 (0) must exceed elo0 (10)"},
      {"game { }\n" + good.substr(good.find('\n') + 1),
       absl::StrCat("line 1 column 1: game: required (one of ",
                    absl::StrJoin(GameIds(), ", "), ")")},
  };
  for (const Case& c : cases) {
    const absl::Status s = CheckPlaced(c.text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(s.message(), c.message) << c.text;
    // Without the places, the same message without its place.
    const absl::Status unplaced = Check(c.text);
    EXPECT_EQ(unplaced.code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(unplaced.message(), c.message.substr(c.message.find(": ") + 2))
        << c.text;
  }
}

// A field the text leaves out has no place: the message is as without.
TEST(TournamentFileTest, AMistakeInAFieldTheFileLeavesOutHasNoPlace) {
  const absl::Status s = CheckPlaced("bots { name: \"a\" command: \"x\" }");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              ::testing::StartsWith("game: required (one of "));
}

// A syntax error is said as before, and a good file normalizes as without
// places.
TEST(TournamentFileTest, PlacesChangeNothingElse) {
  TournamentFileLocations locations;
  EXPECT_EQ(ParseTournamentFile(absl::StrCat(kGood, "rounds: -1\n"), &locations)
                .status()
                .message(),
            "not a Tournament in text format: line 5 column 9: Expected "
            "integer, got: -");
  TournamentFileLocations good_locations;
  absl::StatusOr<v1::Tournament> t =
      ParseTournamentFile(kGood, &good_locations);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(NormalizeTournament(*t, &good_locations).ok());
  EXPECT_EQ(t->output_dir(), "out/duel");
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

// `tournament /dev/zero` read until memory ran out: a device is refused at
// once, a file over the bound unread.
TEST(TournamentFileTest, ReadsAFileWithinItsBoundAndNeverADevice) {
  const TempDir tmp("tournament_file");
  ASSERT_TRUE(tmp.ok());
  const std::string path = tmp.File("t.txt");
  std::ofstream(path) << kGood;
  absl::StatusOr<std::string> text = ReadTournamentFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, kGood);
  text = ReadTournamentFile("/dev/zero");
  EXPECT_TRUE(absl::IsFailedPrecondition(text.status())) << text.status();
  EXPECT_EQ(text.status().message(),
            "cannot read /dev/zero: it is not a regular file (a character "
            "device)");
  text = ReadTournamentFile(tmp.path());
  EXPECT_TRUE(absl::IsFailedPrecondition(text.status())) << text.status();
  ASSERT_EQ(truncate(path.c_str(), int64_t{1} << 30), 0);
  text = ReadTournamentFile(path);
  EXPECT_TRUE(absl::IsResourceExhausted(text.status())) << text.status();
  EXPECT_EQ(text.status().message(),
            absl::StrCat("cannot read ", path,
                         ": it is 1073741824 bytes, more than the 16 MiB a "
                         "tournament file may hold"));
  text = ReadTournamentFile(tmp.File("missing"));
  EXPECT_TRUE(absl::IsNotFound(text.status())) << text.status();
}

}  // namespace
}  // namespace pyramid
