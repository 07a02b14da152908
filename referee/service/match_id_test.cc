#include "referee/service/match_id.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

// A match id's form is judged alike wherever one is given: 32 lower-case
// hex digits, else INVALID_ARGUMENT in Play's words, never echoing an id of
// another length.
TEST(CheckMatchIdFormTest, TakesOnlyThirtyTwoLowerCaseHexDigits) {
  EXPECT_TRUE(CheckMatchIdForm("0123456789abcdef0123456789abcdef").ok());
  const std::string huge(1 << 20, 'a');
  for (const std::string& bad :
       {std::string(), std::string("0123456789ABCDEF0123456789ABCDEF"),
        std::string(33, 'a'), std::string(31, 'a'), huge,
        std::string("0123456789abcdef0123456789abcde\n")}) {
    const absl::Status status = CheckMatchIdForm(bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad.size();
    EXPECT_TRUE(absl::StartsWith(status.message(),
                                 "match_id: 32 lower-case hex digits, not "))
        << status;
    EXPECT_LE(status.message().size(), 200u) << bad.size();
  }
  EXPECT_EQ(CheckMatchIdForm(huge).message(),
            "match_id: 32 lower-case hex digits, not 1048576 bytes");
}

}  // namespace
}  // namespace pyramid
