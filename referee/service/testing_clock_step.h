// For tests: steps the wall clock (CLOCK_REALTIME) as the process reads it,
// as a VM suspended and resumed, or NTP stepping the clock, would. The
// header defines the executable's own clock_gettime, which takes the place
// of the C library's for absl::Now and std::chrono alike, and adds the
// step to CLOCK_REALTIME; every other clock is the kernel's. It defines
// gettimeofday too, from that CLOCK_REALTIME: Abseil 20220623 reads it for
// the deadline of a wait given a timeout (CondVar::WaitWithTimeout,
// Mutex::AwaitWithTimeout). Include it in exactly one source file of a
// test executable.
//
// Only what the process reads moves, not the kernel's clock: a timed wait
// on the wall clock (a futex or pthread_cond_timedwait deadline, as every
// absl::Mutex timed wait of Abseil 20220623 is) whose deadline was computed
// from the clock stepped ahead lasts the step longer, just as a wait on a
// system clock stepped back does.
#ifndef PYRAMID_REFEREE_SERVICE_TESTING_CLOCK_STEP_H_
#define PYRAMID_REFEREE_SERVICE_TESTING_CLOCK_STEP_H_

#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace pyramid {

// What the wall clock is moved by, in nanoseconds.
inline std::atomic<int64_t> wall_clock_step_ns{0};

// Moves the wall clock to `step` from the kernel's (zero: back to it), and
// waits until absl::Now shows it: absl::Now may go by the CPU's cycle
// counter, taking the clock anew only every second or two. False when it
// did not within 30 s (then the step is taken back).
inline bool StepWallClock(absl::Duration step) {
  const absl::Time from = absl::Now();
  const absl::Duration before = absl::Nanoseconds(
      wall_clock_step_ns.exchange(absl::ToInt64Nanoseconds(step)));
  const absl::Duration moved = step - before;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // Seen once absl::Now has moved by half the change or more.
  auto seen = [&] {
    const absl::Duration since = absl::Now() - from;
    return moved >= absl::ZeroDuration() ? since >= moved / 2
                                         : since <= moved / 2;
  };
  while (!seen()) {
    if (std::chrono::steady_clock::now() >= give_up) {
      wall_clock_step_ns.store(absl::ToInt64Nanoseconds(before));
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Steps the wall clock for its lifetime (see StepWallClock), and steps it
// back at its end, waiting until absl::Now shows that too, so that what
// runs after it (another test, a --gtest_repeat) reads the kernel's clock
// again.
class ScopedWallClockStep {
 public:
  explicit ScopedWallClockStep(absl::Duration step)
      : taken_(StepWallClock(step)) {}
  ~ScopedWallClockStep() {
    if (taken_) StepWallClock(absl::ZeroDuration());
  }
  ScopedWallClockStep(const ScopedWallClockStep&) = delete;
  ScopedWallClockStep& operator=(const ScopedWallClockStep&) = delete;

  // Whether absl::Now showed the step.
  bool taken() const { return taken_; }

 private:
  const bool taken_;
};

}  // namespace pyramid

extern "C" int clock_gettime(clockid_t clock, struct timespec* time) {
  const int result = static_cast<int>(syscall(SYS_clock_gettime, clock, time));
  if (result != 0 || clock != CLOCK_REALTIME) return result;
  const int64_t nanos = time->tv_sec * int64_t{1000000000} + time->tv_nsec +
                        pyramid::wall_clock_step_ns.load();
  time->tv_sec = nanos / 1000000000;
  time->tv_nsec = nanos % 1000000000;
  return result;
}

extern "C" int gettimeofday(struct timeval* time, void* zone) {
  struct timespec now;
  const int result = clock_gettime(CLOCK_REALTIME, &now);  // The one above.
  if (result != 0) return result;
  time->tv_sec = now.tv_sec;
  time->tv_usec = now.tv_nsec / 1000;
  if (zone != nullptr) *static_cast<struct timezone*>(zone) = {};
  return result;
}

#endif  // PYRAMID_REFEREE_SERVICE_TESTING_CLOCK_STEP_H_
