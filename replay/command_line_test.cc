#include "replay/command_line.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kKeyHex(64, 'a');

// The error ParseArgs gives `args` of `command`.
std::string ErrorOf(absl::string_view command,
                    const std::vector<std::string>& args) {
  const absl::StatusOr<Flags> flags = ParseArgs(command, args);
  EXPECT_EQ(flags.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(flags.status().message());
}

TEST(CommandLineTest, FlagsTakeTheirValueEitherWayAndOperandsStayInOrder) {
  const absl::StatusOr<Flags> flags =
      ParseArgs("verify", {"a.pyrlog", "--level", "chain", "b.pyrlog",
                           "--allow-unsealed", "--key=" + kKeyHex});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_THAT(flags->operands, ElementsAre("a.pyrlog", "b.pyrlog"));
  EXPECT_EQ(flags->level, VerifyOptions::Level::kChain);
  EXPECT_TRUE(flags->allow_unsealed);
  EXPECT_EQ(flags->key, std::string(32, '\xaa'));
  EXPECT_EQ(flags->roster(), nullptr);
}

TEST(CommandLineTest, EachMistakeIsNamedAsGiven) {
  EXPECT_EQ(ErrorOf("verify", {"--nope"}), "unknown flag --nope");
  EXPECT_EQ(ErrorOf("html", {"--level=chain"}),
            "replay html does not take --level (it takes --key, "
            "--allow_unsealed, --out)");
  EXPECT_EQ(ErrorOf("games", {"--json"}),
            "replay games does not take --json (it takes --markdown only)");
  EXPECT_EQ(ErrorOf("verify", {"--allow-unsealed=yes"}),
            "--allow-unsealed takes no value (got \"yes\"); give it alone");
  EXPECT_EQ(ErrorOf("verify", {"--level"}), "--level needs a value");
  EXPECT_EQ(ErrorOf("verify", {"--level=full", "--level", "chain"}),
            "--level given twice");
  EXPECT_EQ(ErrorOf("verify", {"--level=rules"}),
            "--level: full or chain, not \"rules\"");
}

TEST(CommandLineTest, JsonIsTakenByTheCommandsThatJudge) {
  for (absl::string_view command :
       {"verify", "verify-tournament", "consistency", "export"}) {
    const absl::StatusOr<Flags> flags = ParseArgs(command, {"--json", "x"});
    ASSERT_TRUE(flags.ok()) << command << ": " << flags.status();
    EXPECT_TRUE(flags->json) << command;
  }
  EXPECT_EQ(ErrorOf("html", {"--json"}),
            "replay html does not take --json (it takes --key, "
            "--allow_unsealed, --out)");
  // Optional but to export, which writes nothing else.
  EXPECT_EQ(ShortUsage({"verify-tournament", "DIR", ""}),
            "usage: replay verify-tournament [flags] DIR (see replay --help)");
}

TEST(CommandLineTest, KeyAndTlogKeyMustNameOneReferee) {
  EXPECT_THAT(ErrorOf("verify-tournament",
                      {"--key", kKeyHex, "--tlog_key", "not a key"}),
              HasSubstr("--tlog_key: "));
  // The example referee's verifier key (a file holding it), with another
  // referee's key.
  EXPECT_THAT(ErrorOf("verify-tournament", {"--key", kKeyHex, "--tlog_key",
                                            "testdata/tlog/tlog.vkey"}),
              HasSubstr("--key and --tlog_key name different referee keys"));
}

TEST(CommandLineTest, TheUsageBracketsWhatACommandCanDoWithout) {
  const std::string usage = UsageText({
      {"verify", "LOG...", "    about verify\n"},
      {"export", "LOG", ""},
  });
  EXPECT_THAT(usage, HasSubstr("  replay verify [--key HEX|FILE] "
                               "[--allow_unsealed] [--level full|chain]\n"
                               "      [--seat_keys ROSTER]"));
  EXPECT_THAT(usage, HasSubstr("    about verify\n"));
  EXPECT_THAT(usage, HasSubstr("  replay export --json LOG\n"));
  EXPECT_THAT(usage, HasSubstr("  --markdown"));
  for (absl::string_view line : absl::StrSplit(usage, '\n')) {
    EXPECT_LE(line.size(), 80u) << line;
  }
}

TEST(CommandLineTest, AUsageErrorEndsWithOneLineOfTheCommandsUsage) {
  EXPECT_EQ(ShortUsage({"verify", "LOG...", ""}),
            "usage: replay verify [flags] LOG... (see replay --help)");
  // A flag the command cannot do without is named; no "[flags]" when it
  // takes no other.
  EXPECT_EQ(ShortUsage({"export", "LOG", ""}),
            "usage: replay export --json LOG (see replay --help)");
  EXPECT_EQ(ShortUsage({"show", "LOG", ""}),
            "usage: replay show LOG (see replay --help)");
  EXPECT_EQ(ShortUsage({"games", "", ""}),
            "usage: replay games [flags] (see replay --help)");
}

}  // namespace
}  // namespace pyramid
