// An absl::Duration as a wait on the monotonic clock
// (std::chrono::steady_clock), for the threads that sleep until a
// steady_clock deadline with a std::condition_variable so that a step of
// the wall clock neither holds back nor hastens what they wait for
// (referee/service's DelayedRunner, referee/cli's SilenceWatchdog); and
// that clock as an absl::Time (SteadyNow).
// absl::Mutex's and absl::CondVar's timed waits would not do: Abseil
// 20220623 turns every timeout into a wall clock deadline, which a backward
// step puts off by the step.
#ifndef PYRAMID_REFEREE_CORE_STEADY_DURATION_H_
#define PYRAMID_REFEREE_CORE_STEADY_DURATION_H_

#include <chrono>

#include "absl/time/time.h"

namespace pyramid {

// The longest wait on the steady clock: a century. A longer one is as good
// as never, and would overflow a time point (steady_clock counts
// nanoseconds in 64 bits, about 292 years); now plus a century does not.
inline constexpr absl::Duration kLongestSteadyWait =
    absl::Hours(24 * 365 * 100);

// `d` on the steady clock, clamped to [0, kLongestSteadyWait]: a negative
// duration is no wait, and an infinite one a century.
std::chrono::steady_clock::duration SteadyDuration(absl::Duration d);

// The monotonic clock read as an absl::Time, for code that keeps its
// deadlines and windows in absl::Time arithmetic (the tournament runner's
// RefereeLink): only the difference between two readings means anything,
// never the date it seems to name, and a step of the wall clock moves
// neither.
absl::Time SteadyNow();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_STEADY_DURATION_H_
