// ValidateClockSettings against the table of docs/protocol.md ("Deadlines"):
// every invalid case is refused with the field named, every edge of every
// valid range is accepted.
#include "referee/core/clock_settings.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;
namespace v1 = ::pyramid::referee::v1;

v1::ClockSettings Clocks(uint32_t commit, uint32_t reveal, uint32_t bank = 0,
                         uint32_t increment = 0, uint32_t seed = 0) {
  v1::ClockSettings clocks;
  clocks.set_seed_timeout_ms(seed);
  clocks.set_commit_timeout_ms(commit);
  clocks.set_reveal_timeout_ms(reveal);
  clocks.set_time_bank_ms(bank);
  clocks.set_time_bank_increment_ms(increment);
  return clocks;
}

struct Invalid {
  const char* name;
  v1::ClockSettings clocks;
  const char* field;  // Named in the error.
};

TEST(ClockSettingsTest, EveryInvalidCaseOfTheTableIsRefused) {
  const uint32_t kMinusOne = 0xffffffffu;  // -1 as a uint32.
  const Invalid cases[] = {
      {"commit below the minimum", Clocks(49, 0), "clocks.commit_timeout_ms"},
      {"commit above a day", Clocks(kMaxTimeoutMs + 1, 0),
       "clocks.commit_timeout_ms"},
      {"commit -1", Clocks(kMinusOne, 0), "clocks.commit_timeout_ms"},
      {"reveal below the minimum", Clocks(0, 1), "clocks.reveal_timeout_ms"},
      {"reveal above a day", Clocks(0, kMaxTimeoutMs + 1),
       "clocks.reveal_timeout_ms"},
      {"reveal -1", Clocks(1000, kMinusOne), "clocks.reveal_timeout_ms"},
      {"bank above a day", Clocks(1000, 1000, kMaxTimeBankMs + 1),
       "clocks.time_bank_ms"},
      {"bank -1", Clocks(1000, 1000, kMinusOne), "clocks.time_bank_ms"},
      {"increment above an hour",
       Clocks(1000, 1000, 1000, kMaxTimeBankIncrementMs + 1),
       "clocks.time_bank_increment_ms"},
      {"increment -1", Clocks(1000, 1000, 1000, kMinusOne),
       "clocks.time_bank_increment_ms"},
      {"bank without a commit timeout", Clocks(0, 1000, 5000),
       "clocks.time_bank_ms"},
      {"increment without a commit timeout", Clocks(0, 1000, 0, 100),
       "clocks.time_bank_increment_ms"},
      {"seed below the minimum", Clocks(1000, 1000, 0, 0, 49),
       "clocks.seed_timeout_ms"},
      {"seed above a day", Clocks(1000, 1000, 0, 0, kMaxTimeoutMs + 1),
       "clocks.seed_timeout_ms"},
  };
  for (const Invalid& c : cases) {
    const absl::Status status = ValidateClockSettings(c.clocks);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(status.message(), HasSubstr(c.field)) << c.name;
  }
}

// Each timeout's error says what its 0 means: no deadline for a move's
// commit and reveal, the commit timeout's for a seed contribution.
TEST(ClockSettingsTest, EachTimeoutsErrorSaysWhatItsZeroMeans) {
  EXPECT_THAT(ValidateClockSettings(Clocks(49, 0)).message(),
              HasSubstr("it must be 0 (no deadline) or from 50"));
  EXPECT_THAT(ValidateClockSettings(Clocks(0, 49)).message(),
              HasSubstr("it must be 0 (no deadline) or from 50"));
  EXPECT_THAT(ValidateClockSettings(Clocks(1000, 1000, 0, 0, 49)).message(),
              HasSubstr("it must be 0 (as commit_timeout_ms) or from 50"));
}

TEST(ClockSettingsTest, EveryEdgeOfTheValidRangesIsAccepted) {
  for (const v1::ClockSettings& clocks : {
           Clocks(0, 0), Clocks(kMinTimeoutMs, kMinTimeoutMs),
           Clocks(kMaxTimeoutMs, kMaxTimeoutMs),
           Clocks(kMinTimeoutMs, 0, kMaxTimeBankMs, kMaxTimeBankIncrementMs),
           Clocks(1000, 0, 0, 100),  // An increment alone builds a bank.
           Clocks(1000, 1000, 0, 0, kMinTimeoutMs),
           Clocks(0, 0, 0, 0, kMaxTimeoutMs),  // A deadline to join only.
       }) {
    EXPECT_TRUE(ValidateClockSettings(clocks).ok()) << clocks.DebugString();
  }
}

}  // namespace
}  // namespace pyramid
