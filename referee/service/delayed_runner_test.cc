// DelayedRunner: calls run in the order posted, none before its delay (less
// its slack), and a runner destroyed with calls pending drops them.
#include "referee/service/delayed_runner.h"

#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

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
// the same wake-up: here the second call, posted 20 ms after the first, runs
// right after it, early, and never sooner than its delay less the slack.
TEST(DelayedRunnerTest, CallsWithinTheSlackRunTogether) {
  const absl::Duration delay = absl::Milliseconds(200);
  const absl::Duration slack = absl::Milliseconds(100);
  DelayedRunner runner(delay, slack);
  absl::Mutex mu;
  std::vector<absl::Time> posted, ran;
  for (int i = 0; i < 2; ++i) {
    if (i > 0) absl::SleepFor(absl::Milliseconds(20));
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
  EXPECT_LT(ran[1] - ran[0], absl::Milliseconds(10));
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
