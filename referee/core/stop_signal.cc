#include "referee/core/stop_signal.h"

#include <chrono>

#include "referee/core/steady_duration.h"

namespace pyramid {

void StopSignal::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  // Under mu_: a waiter that wakes may destroy the signal.
  cv_.notify_all();
}

bool StopSignal::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

bool StopSignal::WaitFor(absl::Duration timeout) {
  const std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::now() + SteadyDuration(timeout);
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_until(lock, deadline, [this] { return stopped_; });
}

}  // namespace pyramid
