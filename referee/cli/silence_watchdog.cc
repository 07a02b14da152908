#include "referee/cli/silence_watchdog.h"

#include <algorithm>

#include "referee/core/steady_duration.h"

namespace pyramid {

SilenceWatchdog::~SilenceWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SilenceWatchdog::Add(grpc::ClientContext* context, absl::Duration limit) {
  std::lock_guard<std::mutex> lock(mu_);
  streams_[context] = Stream{.deadline = DeadlineAfter(limit)};
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  cv_.notify_one();
}

void SilenceWatchdog::Heard(grpc::ClientContext* context,
                            absl::Duration limit) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(context);
  if (it != streams_.end() && !it->second.silenced) {
    it->second.deadline = DeadlineAfter(limit);
  }
}

bool SilenceWatchdog::Remove(grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mu_);
  auto node = streams_.extract(context);
  return !node.empty() && node.mapped().silenced;
}

SilenceWatchdog::Clock::time_point SilenceWatchdog::DeadlineAfter(
    absl::Duration limit) {
  if (limit >= kLongestSteadyWait) return Clock::time_point::max();
  return Clock::now() + SteadyDuration(limit);
}

void SilenceWatchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    for (auto& [context, stream] : streams_) {
      if (stream.silenced) continue;
      if (stream.deadline <= now) {
        // Under mu_: Remove comes before the context goes.
        stream.silenced = true;
        context->TryCancel();
      } else {
        next = std::min(next, stream.deadline);
      }
    }
    // On the monotonic clock (a wakeup for nothing only loops again).
    if (next == Clock::time_point::max()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, next);
    }
  }
}

}  // namespace pyramid
