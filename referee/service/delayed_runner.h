// Runs callbacks a fixed delay after they are posted, in the order posted,
// on one background thread that sleeps while nothing is pending. A Play
// stream with the "batch" feature uses it to gather what a burst sends it
// into one write, and to bound how long it holds an acknowledgement (see
// PlayWriter in play_stream.cc); WriteStallGuard, to pace its checks.
//
// Delays are measured on the monotonic clock (std::chrono::steady_clock),
// and the thread sleeps on it too: a step of the wall clock (NTP stepping
// it back, a VM restored from a snapshot) neither holds back nor hastens a
// pending call. (absl::Mutex's timed waits would not do: Abseil 20220623
// turns every timeout into a wall clock deadline, which a backward step
// puts off by the step.)
#ifndef PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_
#define PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/time/time.h"

namespace pyramid {

class DelayedRunner {
 public:
  // With a `slack`, a call may also run up to `slack` early, together with
  // an earlier one: the thread then wakes at most once per `slack` however
  // many calls are posted, for callers to whom the exact moment matters
  // less than the thread's wake-ups.
  explicit DelayedRunner(absl::Duration delay,
                         absl::Duration slack = absl::ZeroDuration());
  // Stops the thread; what is still pending is dropped, not run.
  ~DelayedRunner();
  DelayedRunner(const DelayedRunner&) = delete;
  DelayedRunner& operator=(const DelayedRunner&) = delete;

  absl::Duration delay() const { return delay_; }

  // Runs `call` on the runner's thread once `delay` has passed (later when
  // calls posted before it take long). Thread-safe.
  void Post(std::function<void()> call);

 private:
  using Clock = std::chrono::steady_clock;

  void Loop();

  const absl::Duration delay_;
  // delay_ and the slack on the clock (SteadyDuration: at most a century,
  // referee/core/steady_duration.h).
  const Clock::duration steady_delay_;
  const Clock::duration steady_slack_;
  // A std::mutex, not an absl::Mutex: its condition variable waits for a
  // steady_clock deadline on the monotonic clock (pthread_cond_clockwait).
  std::mutex mu_;
  std::condition_variable wake_;  // A call posted to none pending, or stop.
  // Under mu_: when each call is due, in order (every call waits the same
  // delay).
  std::deque<std::pair<Clock::time_point, std::function<void()>>> pending_;
  bool stop_ = false;  // Under mu_.
  std::thread thread_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_
