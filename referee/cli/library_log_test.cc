#include "referee/cli/library_log.h"

#include <algorithm>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/wrappers.pb.h"
#include "grpc/support/log.h"
#include "gtest/gtest.h"
#include "tests/stalled_stderr.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// The lines of `text` that hold `part`.
int LinesWith(const std::string& text, const std::string& part) {
  int lines = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1)) {
    ++lines;
  }
  return lines;
}

// Logs `message` through protobuf's logging, as its code does, from the one
// place "protobuf_place.cc:7". A FATAL message throws protobuf's
// FatalException after the handler (Debian's protobuf is built with
// exceptions; the referee aborts), caught here.
void ProtobufLog(google::protobuf::LogLevel level, const char* message) {
  try {
    google::protobuf::internal::LogFinisher() =
        google::protobuf::internal::LogMessage(level, "protobuf_place.cc", 7)
        << message;
  } catch (const google::protobuf::FatalException&) {
  }
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

TEST(LineBudgetTest, AForcedLineIsWrittenAndNeverHeldBack) {
  LineBudget budget(2, absl::Seconds(10));
  const absl::Time start = absl::FromUnixSeconds(1000);
  int64_t held_back = -1;
  EXPECT_EQ(budget.Force(start), 0);  // Takes a line of the budget.
  EXPECT_TRUE(budget.Allow(start, &held_back));
  EXPECT_FALSE(budget.Allow(start, &held_back));
  EXPECT_EQ(budget.Force(start + absl::Seconds(1)), 1);  // Not itself.
  EXPECT_EQ(budget.Force(start + absl::Seconds(2)), 0);
  EXPECT_EQ(budget.TakeHeldBack(), 0);
  EXPECT_TRUE(budget.Allow(start + absl::Seconds(10), &held_back));
  EXPECT_EQ(held_back, 0);
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

// protobuf's FATAL messages over the budget: each written, none counted as
// held back, and the count of the place's held-back ERRORs said before the
// first (protobuf aborts after it: FlushLibraryLogs would not run).
TEST(LibraryLogTest, ProtobufFatalMessagesAreAlwaysWrittenNeverCounted) {
  LimitLibraryLogs();
  testing::internal::CaptureStderr();
  for (int i = 0; i < kLibraryLogLines + 2; ++i) {
    ProtobufLog(google::protobuf::LOGLEVEL_ERROR, "an error");
  }
  for (int i = 0; i < 2; ++i) {
    ProtobufLog(google::protobuf::LOGLEVEL_FATAL, "a fatal error");
  }
  FlushLibraryLogs();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Lines(said), kLibraryLogLines + 1 + 2) << said;
  EXPECT_EQ(
      LinesWith(said, "[libprotobuf ERROR protobuf_place.cc:7] an error\n"),
      kLibraryLogLines)
      << said;
  EXPECT_EQ(
      LinesWith(said,
                "[libprotobuf FATAL protobuf_place.cc:7] a fatal error\n"),
      2)
      << said;
  EXPECT_THAT(said, HasSubstr("[libprotobuf] 2 more messages from "
                              "protobuf_place.cc:7 suppressed"));
  EXPECT_EQ(LinesWith(said, " suppressed "), 1) << said;
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

// A stderr nobody reads (a pipe, full: a stalled log collector) does not
// stop the thread whose call made a library log (a gRPC thread serving a
// client): the message is not written but counted as held back, and the
// flush says the count once the pipe has room. Before, the write waited
// for the reader for good. In a child whose stderr is the pipe; its alarm
// ends it if it waits.
TEST(LibraryLogTest, AStalledStderrHoldsAMessageBackInsteadOfWaiting) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        LimitLibraryLogs();
        google::protobuf::internal::LogFinisher() =
            google::protobuf::internal::LogMessage(
                google::protobuf::LOGLEVEL_ERROR, "stalled_place.cc", 9)
            << "an error";
        drain();
        FlushLibraryLogs();
      },
      &said);
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: the message waited for stderr)";
  EXPECT_EQ(said,
            "[libprotobuf] 1 more messages from stalled_place.cc:9 "
            "suppressed (at most 3 per 10 s from one place, and those stderr "
            "did not take at once)\n");
}

}  // namespace
}  // namespace pyramid
