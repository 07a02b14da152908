// DelayedRunner: calls run in the order posted, none before its delay (less
// its slack), a wall clock step does not hold them back (the test's
// clock_gettime moves CLOCK_REALTIME on demand), and a runner destroyed
// with calls pending drops them.
#include "referee/service/delayed_runner.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "referee/service/testing_clock_step.h"

namespace pyramid {
namespace {

TEST(DelayedRunnerTest, RunsEachCallInOrderNoSoonerThanItsDelay) {
  const absl::Duration delay = absl::Milliseconds(5);
  DelayedRunner runner(delay);
  absl::Mutex mu;
  std::vector<int> ran;
  std::vector<absl::Duration> waited;
  for (int i = 0; i < 3; ++i) {
    const absl::Time posted = absl::Now();
    runner.Post([&, i, posted] {
      absl::MutexLock lock(&mu);
      ran.push_back(i);
      waited.push_back(absl::Now() - posted);
    });
  }
  absl::MutexLock lock(&mu);
  auto all_ran = [&ran] { return ran.size() == 3; };
  ASSERT_TRUE(
      mu.AwaitWithTimeout(absl::Condition(&all_ran), absl::Seconds(30)));
  EXPECT_EQ(ran, std::vector<int>({0, 1, 2}));
  for (absl::Duration d : waited) EXPECT_GE(d, delay);
}

// With a slack, a call due within it of an earlier one runs with it, on
// the same wake-up: here the second call, posted about 300 ms after the
// first, runs right after it, early (before its own delay has passed,
// which only the slack allows), and never sooner than its delay less the
// slack. That needs the second posted before the first runs, and the first
// run well before the second is due; on a loaded machine a pause can undo
// either (the 20 ms sleep between the posts once lasted 200 ms, the whole
// delay: 1 of 200 runs on a loaded machine), and the setup is then made
// again.
TEST(DelayedRunnerTest, CallsWithinTheSlackRunTogether) {
  const absl::Duration delay = absl::Seconds(1);
  const absl::Duration slack = absl::Milliseconds(600);
  const absl::Duration apart = absl::Milliseconds(300);
  for (int attempt = 0; attempt < 10; ++attempt) {
    SCOPED_TRACE(attempt);
    DelayedRunner runner(delay, slack);
    absl::Mutex mu;
    std::vector<absl::Time> posted, ran;
    for (int i = 0; i < 2; ++i) {
      if (i > 0) absl::SleepFor(apart);
      absl::MutexLock lock(&mu);
      posted.push_back(absl::Now());
      runner.Post([&] {
        absl::MutexLock lock(&mu);
        ran.push_back(absl::Now());
      });
    }
    absl::MutexLock lock(&mu);
    auto both_ran = [&ran] { return ran.size() == 2; };
    ASSERT_TRUE(
        mu.AwaitWithTimeout(absl::Condition(&both_ran), absl::Seconds(30)));
    for (int i = 0; i < 2; ++i) EXPECT_GE(ran[i] - posted[i], delay - slack);
    // The setup held: the second call was pending when the first ran, and
    // at least `margin` from being due (so that, run on a wake-up of its
    // own, it would have come that much after the first).
    const absl::Duration margin = absl::Milliseconds(100);
    if (posted[1] - posted[0] > slack || posted[1] >= ran[0] ||
        ran[0] > posted[1] + delay - margin) {
      continue;
    }
    EXPECT_LT(ran[1], posted[1] + delay) << "the second call did not run early";
    EXPECT_LT(ran[1] - ran[0], margin) << "the calls did not run together";
    return;
  }
  FAIL() << "10 setups in a row were undone by pauses";
}

// The delay is the monotonic clock's: a call posted while the wall clock
// is an hour ahead of the kernel's (as when the system clock was stepped
// an hour back) runs after its delay, not an hour later. The test waits on
// the monotonic clock too.
TEST(DelayedRunnerTest, AWallClockStepDoesNotHoldBackACall) {
  DelayedRunner runner(absl::Milliseconds(50));
  ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  std::mutex mu;
  std::condition_variable cv;
  bool ran = false;
  runner.Post([&] {
    std::lock_guard<std::mutex> lock(mu);
    ran = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(cv.wait_until(
      lock, std::chrono::steady_clock::now() + std::chrono::seconds(30),
      [&] { return ran; }))
      << "the call waited for the wall clock";
}

TEST(DelayedRunnerTest, ARunnerDestroyedDropsWhatIsPending) {
  bool ran = false;
  {
    DelayedRunner runner(absl::Hours(1));
    runner.Post([&ran] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace pyramid
