// Runs callbacks a fixed delay after they are posted, in the order posted,
// on one background thread that sleeps while nothing is pending. A Play
// stream with the "batch" feature uses it to gather what a burst sends it
// into one write, and to bound how long it holds an acknowledgement (see
// PlayWriter in play_stream.cc).
#ifndef PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_
#define PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_

#include <deque>
#include <functional>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
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
  void Loop();

  const absl::Duration delay_;
  const absl::Duration slack_;
  absl::Mutex mu_;
  // When each call is due, in order (every call waits the same delay).
  std::deque<std::pair<absl::Time, std::function<void()>>> pending_
      ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DELAYED_RUNNER_H_
