// SteadyDuration (steady_duration.h): a duration as it is, within no wait
// and a century; clamped to them outside.
#include "referee/core/steady_duration.h"

#include <chrono>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::steady_clock;

constexpr hours kCentury(24 * 365 * 100);

TEST(SteadyDurationTest, IsTheDurationWithinNoWaitAndACentury) {
  EXPECT_EQ(SteadyDuration(absl::ZeroDuration()), steady_clock::duration(0));
  EXPECT_EQ(SteadyDuration(absl::Nanoseconds(1)), nanoseconds(1));
  EXPECT_EQ(SteadyDuration(absl::Milliseconds(20)), milliseconds(20));
  EXPECT_EQ(SteadyDuration(absl::Hours(1)), hours(1));
  EXPECT_EQ(SteadyDuration(kLongestSteadyWait), kCentury);
}

TEST(SteadyDurationTest, ANegativeDurationIsNoWait) {
  for (const absl::Duration d :
       {-absl::Nanoseconds(1), -absl::Hours(1), -absl::InfiniteDuration()}) {
    EXPECT_EQ(SteadyDuration(d), steady_clock::duration(0)) << d;
  }
}

// Longer than a century, infinite included, is a century, which a time
// point from now still holds.
TEST(SteadyDurationTest, ALongerDurationIsACenturyFromNowWithoutOverflow) {
  for (const absl::Duration d :
       {kLongestSteadyWait + absl::Nanoseconds(1), absl::Hours(24 * 365 * 1000),
        absl::InfiniteDuration()}) {
    EXPECT_EQ(SteadyDuration(d), kCentury) << d;
  }
  const steady_clock::time_point now = steady_clock::now();
  EXPECT_LT(now, now + SteadyDuration(absl::InfiniteDuration()));
}

}  // namespace
}  // namespace pyramid
