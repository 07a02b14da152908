// DelayedRunner: calls run in the order posted, none before its delay, and
// a runner destroyed with calls pending drops them.
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
