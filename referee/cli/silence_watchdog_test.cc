// SilenceWatchdog (silence_watchdog.h) on contexts of calls not started
// (TryCancel marks them): a call silent past its limit is cancelled and
// said so, even with the wall clock stepped (the test's clock_gettime moves
// CLOCK_REALTIME on demand); one whose events come in time or that is
// removed first is not. What it costs a referee that does not play is in
// tools/tournament/referee_link_test.cc; a log that stalls, in
// log_fetch_test.cc.
#include "referee/cli/silence_watchdog.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/service/testing_clock_step.h"

namespace pyramid {
namespace {

TEST(SilenceWatchdogTest, ACallSilentPastItsLimitIsCancelled) {
  SilenceWatchdog watchdog;
  grpc::ClientContext context;
  watchdog.Add(&context, absl::Milliseconds(20));
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_TRUE(watchdog.Remove(&context));
}

// The limit is the monotonic clock's, and so is the watchdog's sleep: a
// call added while the wall clock is an hour ahead of the kernel's (as when
// the system clock was stepped an hour back) is cancelled after its limit,
// not an hour later. (A sleep: a context's cancellation cannot be waited
// for; the watchdog that waited on the wall clock missed it by an hour.)
TEST(SilenceWatchdogTest, AWallClockStepDoesNotHoldBackACancellation) {
  SilenceWatchdog watchdog;
  ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  grpc::ClientContext context;
  watchdog.Add(&context, absl::Milliseconds(20));
  absl::SleepFor(absl::Seconds(2));
  EXPECT_TRUE(watchdog.Remove(&context)) << "it waited for the wall clock";
}

TEST(SilenceWatchdogTest, ACallHeardInTimeIsNotCancelled) {
  SilenceWatchdog watchdog;
  grpc::ClientContext context;
  watchdog.Add(&context, absl::Seconds(2));
  // Heard every 100 ms for 3 s: longer than the limit, never silent for it.
  for (int i = 0; i < 30; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    watchdog.Heard(&context, absl::Seconds(2));
  }
  EXPECT_FALSE(watchdog.Remove(&context));
}

TEST(SilenceWatchdogTest, ACallRemovedOrWithALimitOfAgesIsNotCancelled) {
  SilenceWatchdog watchdog;
  grpc::ClientContext removed;
  grpc::ClientContext ages;
  watchdog.Add(&removed, absl::Milliseconds(200));
  watchdog.Add(&ages, absl::InfiniteDuration());
  EXPECT_FALSE(watchdog.Remove(&removed));
  absl::SleepFor(absl::Milliseconds(400));
  EXPECT_FALSE(watchdog.Remove(&ages));
  // Not watched: nothing to say.
  EXPECT_FALSE(watchdog.Remove(&removed));
}

}  // namespace
}  // namespace pyramid
