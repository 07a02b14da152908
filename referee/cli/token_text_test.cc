#include "referee/cli/token_text.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kToken[] = "0123456789abcdef.fedcba9876543210";

// Each case starts with $PYRAMID_ADMIN_TOKEN unset and ends so.
class FindAdminTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    unsetenv(kAdminTokenVariable);
  }
  void TearDown() override { unsetenv(kAdminTokenVariable); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_.File(name);
    std::ofstream(path) << text;
    return path;
  }

  TempDir dir_{"token_text_test"};
};

TEST_F(FindAdminTokenTest, ANamedFileComesFirst) {
  const std::string named = Write("named.token", absl::StrCat(kToken, "\n"));
  const std::string fallback = Write("default.token", "other-token-here");
  setenv(kAdminTokenVariable, "env-token-0123456", 1);
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken(named, "--admin_token_file", fallback);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->from, FoundAdminToken::From::kNamedFile);
  EXPECT_EQ(found->token, kToken);
  EXPECT_EQ(found->source, named);
}

TEST_F(FindAdminTokenTest, TheVariableComesBeforeTheDefaultFile) {
  const std::string fallback = Write("default.token", "other-token-here");
  setenv(kAdminTokenVariable, " env-token-0123456\n", 1);
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken("", "--admin_token_file", fallback);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->from, FoundAdminToken::From::kEnvironment);
  EXPECT_EQ(found->token, "env-token-0123456");
  EXPECT_EQ(found->source, "$PYRAMID_ADMIN_TOKEN");
}

// `PYRAMID_ADMIN_TOKEN= refctl list`: an empty variable is no token and no
// error; the default file is read, or there is none.
TEST_F(FindAdminTokenTest, AnEmptyVariableCountsAsUnset) {
  setenv(kAdminTokenVariable, "", 1);
  const std::string fallback = Write("default.token", kToken);
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken("", "--admin_token_file", fallback);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->from, FoundAdminToken::From::kDefaultFile);
  EXPECT_EQ(found->token, kToken);
  EXPECT_EQ(found->source, fallback);

  found = FindAdminToken("", "--admin_token_file", dir_.File("missing"));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->from, FoundAdminToken::From::kNone);
  EXPECT_EQ(found->token, "");
  EXPECT_EQ(found->source, "");

  found = FindAdminToken("", "admin_token_file", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->from, FoundAdminToken::From::kNone);
}

// A variable of blanks is set and not empty: it holds no token, an error.
TEST_F(FindAdminTokenTest, AVariableOfBlanksIsRefused) {
  setenv(kAdminTokenVariable, "  ", 1);
  absl::StatusOr<FoundAdminToken> found = FindAdminToken("", "flag", "");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(found.status().message(), "$PYRAMID_ADMIN_TOKEN holds no token");
}

TEST_F(FindAdminTokenTest, ANamedFileErrorBeginsWithItsLabel) {
  const std::string missing = dir_.File("missing.token");
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken(missing, "--admin_token_file", "");
  ASSERT_FALSE(found.ok());
  EXPECT_THAT(std::string(found.status().message()),
              StartsWith("--admin_token_file: cannot open " + missing));

  const std::string bad = Write("bad.token", "two words\n");
  found = FindAdminToken(bad, "admin_token_file", "");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(found.status().message()),
      StartsWith("admin_token_file: " + bad + " does not hold a token"));
}

// A default file that is there is read: one that cannot be read, or holds
// no token, is an error, not "none".
TEST_F(FindAdminTokenTest, ADefaultFileThatIsThereMustHoldAToken) {
  const std::string empty = Write("empty.token", "\n");
  absl::StatusOr<FoundAdminToken> found = FindAdminToken("", "flag", empty);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), empty + " holds no token");

  if (geteuid() != 0) {  // Root reads a file of mode 0.
    const std::string locked = Write("locked.token", kToken);
    ASSERT_EQ(chmod(locked.c_str(), 0), 0);
    found = FindAdminToken("", "flag", locked);
    ASSERT_FALSE(found.ok());
    EXPECT_THAT(std::string(found.status().message()), HasSubstr(locked));
  }
}

}  // namespace
}  // namespace pyramid
