// StopSignal (stop_signal.h): a wait lasts its timeout unless stopped;
// Stop ends every wait under way and every later one at once; and a wait's
// timeout is the monotonic clock's, even with the wall clock stepped (the
// test's clock_gettime moves CLOCK_REALTIME on demand).
#include "referee/core/stop_signal.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "referee/service/testing_clock_step.h"

namespace pyramid {
namespace {

using std::chrono::steady_clock;

// Whether `done` became true within `limit`, read every 5 ms (a sleep
// for a relative time, on the monotonic clock).
bool BecomesTrueWithin(const std::atomic<bool>& done,
                       steady_clock::duration limit) {
  const steady_clock::time_point give_up = steady_clock::now() + limit;
  while (!done.load()) {
    if (steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(StopSignalTest, AWaitLastsItsTimeoutUnlessStopped) {
  StopSignal signal;
  const steady_clock::time_point start = steady_clock::now();
  EXPECT_FALSE(signal.WaitFor(absl::Milliseconds(50)));
  EXPECT_GE(steady_clock::now() - start, std::chrono::milliseconds(50));
  EXPECT_FALSE(signal.stopped());
}

TEST(StopSignalTest, NoTimeoutIsNoWait) {
  StopSignal signal;
  EXPECT_FALSE(signal.WaitFor(absl::ZeroDuration()));
  EXPECT_FALSE(signal.WaitFor(-absl::Hours(1)));
  EXPECT_FALSE(signal.WaitFor(-absl::InfiniteDuration()));
}

TEST(StopSignalTest, StopEndsEveryWaitUnderWay) {
  StopSignal signal;
  std::atomic<int> ended{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      EXPECT_TRUE(signal.WaitFor(absl::InfiniteDuration()));
      ++ended;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ended.load(), 0);
  signal.Stop();
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_EQ(ended.load(), 3);
  EXPECT_TRUE(signal.stopped());
}

TEST(StopSignalTest, OnceStoppedEveryWaitEndsAtOnce) {
  StopSignal signal;
  signal.Stop();
  signal.Stop();  // Changes nothing.
  EXPECT_TRUE(signal.stopped());
  EXPECT_TRUE(signal.WaitFor(absl::InfiniteDuration()));
  EXPECT_TRUE(signal.WaitFor(absl::ZeroDuration()));
}

// A wait begun while the wall clock is an hour ahead of the kernel's (as
// when the system clock was stepped an hour back) ends after its timeout,
// not an hour later: a wait on absl::Mutex::AwaitWithTimeout did.
TEST(StopSignalTest, AWallClockStepDoesNotHoldBackTheEndOfAWait) {
  StopSignal signal;
  const ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  std::atomic<bool> done{false};
  bool stopped = true;
  std::thread waiter([&] {
    stopped = signal.WaitFor(absl::Milliseconds(20));
    done = true;
  });
  const bool in_time = BecomesTrueWithin(done, std::chrono::seconds(10));
  if (!in_time) signal.Stop();  // Ends the wait, to report it.
  waiter.join();
  EXPECT_TRUE(in_time) << "it waited for the wall clock";
  EXPECT_FALSE(stopped);
}

}  // namespace
}  // namespace pyramid
