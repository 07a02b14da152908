#include "referee/cli/library_log.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/wrappers.pb.h"
#include "grpc/support/log.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(LineBudgetTest, SomeLinesPerWindowThenTheCountOfTheOthers) {
  LineBudget budget(2, absl::Seconds(10));
  const absl::Time start = absl::FromUnixSeconds(1000);
  int64_t held_back = -1;
  EXPECT_TRUE(budget.Allow(start, &held_back));
  EXPECT_EQ(held_back, 0);
  EXPECT_TRUE(budget.Allow(start + absl::Seconds(1), &held_back));
  EXPECT_EQ(held_back, 0);
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(budget.Allow(start + absl::Seconds(9), &held_back));
  }
  EXPECT_TRUE(budget.Allow(start + absl::Seconds(10), &held_back));
  EXPECT_EQ(held_back, 5);
  EXPECT_TRUE(budget.Allow(start + absl::Seconds(11), &held_back));
  EXPECT_FALSE(budget.Allow(start + absl::Seconds(11), &held_back));
  EXPECT_EQ(budget.TakeHeldBack(), 1);
  EXPECT_EQ(budget.TakeHeldBack(), 0);
}

// A proto3 string field that is not UTF-8: protobuf's message for each
// request that holds one ("invalid UTF-8 data").
TEST(LibraryLogTest, ManyInvalidStringsWriteAFewLines) {
  LimitLibraryLogs();
  testing::internal::CaptureStderr();
  for (int i = 0; i < 1000; ++i) {
    google::protobuf::StringValue value;
    EXPECT_FALSE(value.ParseFromString(std::string("\x0a\x02\xc3\x28", 4)));
  }
  FlushLibraryLogs();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Lines(said), kLibraryLogLines + 1) << said;
  EXPECT_THAT(said, HasSubstr("[libprotobuf ERROR "));
  EXPECT_THAT(said, HasSubstr("contains invalid UTF-8 data"));
  EXPECT_THAT(said,
              HasSubstr(absl::StrCat("[libprotobuf] ", 1000 - kLibraryLogLines,
                                     " more messages from ")));
}

// gRPC's messages: one place's flood does not hide another's.
TEST(LibraryLogTest, GrpcMessagesPerPlace) {
  // Errors written whatever GRPC_VERBOSITY says: gpr_log_verbosity_init
  // (which grpc_init calls) reads it only while no verbosity has been set,
  // and with GRPC_VERBOSITY=NONE nothing would be written.
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
  gpr_log_verbosity_init();
  LimitLibraryLogs();
  testing::internal::CaptureStderr();
  for (int i = 0; i < 100; ++i) gpr_log(GPR_ERROR, "flood %d", i);
  gpr_log(GPR_ERROR, "another place");
  FlushLibraryLogs();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Lines(said), kLibraryLogLines + 2) << said;
  EXPECT_THAT(said, HasSubstr("library_log_test.cc:"));
  EXPECT_THAT(said, HasSubstr(" flood 0\n"));
  EXPECT_THAT(said, HasSubstr(" another place\n"));
  EXPECT_THAT(said, HasSubstr(absl::StrCat("[grpc] ", 100 - kLibraryLogLines,
                                           " more messages from ")));
}

}  // namespace
}  // namespace pyramid
