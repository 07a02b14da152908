// PiMutex and PiCondVar: a condition variable's waits and signals, and the
// priority inheritance that is the mutex's reason to exist, shown with
// real-time threads on one CPU (where the process may use the real-time
// class: as root, as CI runs; elsewhere that test says why it cannot run).
#include "referee/service/pi_mutex.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(PiCondVarTest, AWaitWithoutSignalEndsAtItsDeadline) {
  PiMutex mu;
  PiCondVar cv;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::Milliseconds(50);
  int waits = 0;
  {
    PiMutexLock lock(&mu);
    while (absl::Now() < deadline && waits < 1000) {
      cv.WaitWithDeadline(&mu, deadline);
      ++waits;
    }
  }
  EXPECT_GE(absl::Now(), deadline);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_LT(waits, 1000);  // Each wait slept, rather than returning at once.
}

TEST(PiCondVarTest, APastDeadlineReturnsAtOnce) {
  PiMutex mu;
  PiCondVar cv;
  const absl::Time start = absl::Now();
  PiMutexLock lock(&mu);
  cv.WaitWithDeadline(&mu, start - absl::Seconds(1));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(PiCondVarTest, SignalWakesAWaiterWithoutADeadline) {
  PiMutex mu;
  PiCondVar cv;
  bool ready = false;  // Guarded by mu.
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    PiMutexLock lock(&mu);
    waiting = true;
    while (!ready) cv.WaitWithDeadline(&mu, absl::InfiniteFuture());
  });
  while (!waiting) std::this_thread::yield();
  {
    PiMutexLock lock(&mu);
    ready = true;
    cv.Signal();
  }
  waiter.join();  // Hangs (and the test times out) if the signal is lost.
  PiMutexLock lock(&mu);
  EXPECT_TRUE(ready);
}

// The calling thread in the real-time class at `priority` (0: the normal
// class), then on CPU 0 only: in that order, so that a thread bound for CPU
// 0 while a real-time thread spins there can still get there. False when
// the process may not.
bool RunOnCpu0At(int priority) {
  sched_param param = {};
  param.sched_priority = priority;
  if (pthread_setschedparam(pthread_self(),
                            priority > 0 ? SCHED_FIFO : SCHED_OTHER,
                            &param) != 0) {
    return false;
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(0, &cpus);
  return pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0;
}

int64_t ThreadCpuNanos() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// Priority inversion, and what the mutex does about it. On CPU 0: a normal
// thread holds the mutex and needs 100 ms of CPU to let it go; a real-time
// thread at priority 1 then spins for 700 ms, which keeps the holder off
// the CPU (but for the 50 ms a second that recent kernels' fair server
// grants normal threads); a real-time thread at priority 2 then waits for
// the mutex. Without inheritance it waits for the spinner to stop (about
// 700 ms); with it the holder runs at priority 2, above the spinner, and
// the wait is what the holder had left, under 100 ms.
TEST(PiMutexTest, AHolderRunsAtTheReadyWaitersPriority) {
  std::atomic<bool> may{false};
  std::thread probe([&] { may = RunOnCpu0At(1); });
  probe.join();
  if (!may) {
    GTEST_SKIP() << "this process may not use the real-time class "
                    "(CAP_SYS_NICE): no priority inversion to show";
  }
  // This thread directs the others from CPU 1, where the spinner cannot
  // starve it.
  cpu_set_t before;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
  if (!CPU_ISSET(0, &before) || !CPU_ISSET(1, &before)) {
    GTEST_SKIP() << "needs CPUs 0 and 1";
  }
  cpu_set_t cpu1;
  CPU_ZERO(&cpu1);
  CPU_SET(1, &cpu1);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(cpu1), &cpu1), 0);
  PiMutex mu;
  std::atomic<bool> held{false};
  std::atomic<bool> stop_spinning{false};
  std::thread holder([&] {
    RunOnCpu0At(0);
    PiMutexLock lock(&mu);
    held = true;
    const int64_t until = ThreadCpuNanos() + 100'000'000;
    while (ThreadCpuNanos() < until) {
    }
  });
  while (!held) std::this_thread::yield();
  std::atomic<bool> spinning{false};
  std::thread spinner([&] {
    RunOnCpu0At(1);
    spinning = true;
    const absl::Time until = absl::Now() + absl::Milliseconds(700);
    while (!stop_spinning && absl::Now() < until) {
    }
  });
  while (!spinning) std::this_thread::yield();
  absl::Duration waited;
  std::thread waiter([&] {
    RunOnCpu0At(2);
    const absl::Time start = absl::Now();
    mu.Lock();
    waited = absl::Now() - start;
    mu.Unlock();
    stop_spinning = true;
  });
  waiter.join();
  spinner.join();
  holder.join();
  pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
  EXPECT_LT(waited, absl::Milliseconds(350))
      << "the holder did not run at the waiter's priority";
}

}  // namespace
}  // namespace pyramid
