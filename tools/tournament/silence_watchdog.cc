#include "tools/tournament/silence_watchdog.h"

#include <algorithm>

namespace pyramid {

SilenceWatchdog::~SilenceWatchdog() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    cv_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

void SilenceWatchdog::Add(grpc::ClientContext* context, absl::Duration limit) {
  absl::MutexLock lock(&mu_);
  streams_[context] = Stream{.deadline = DeadlineAfter(limit)};
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  cv_.Signal();
}

void SilenceWatchdog::Heard(grpc::ClientContext* context,
                            absl::Duration limit) {
  absl::MutexLock lock(&mu_);
  auto it = streams_.find(context);
  if (it != streams_.end() && !it->second.silenced) {
    it->second.deadline = DeadlineAfter(limit);
  }
}

bool SilenceWatchdog::Remove(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  auto node = streams_.extract(context);
  return !node.empty() && node.mapped().silenced;
}

SilenceWatchdog::Clock::time_point SilenceWatchdog::DeadlineAfter(
    absl::Duration limit) {
  if (limit >= absl::Hours(24 * 365 * 100)) return Clock::time_point::max();
  return Clock::now() + absl::ToChronoNanoseconds(limit);
}

void SilenceWatchdog::Loop() {
  absl::MutexLock lock(&mu_);
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
    cv_.WaitWithTimeout(&mu_, next == Clock::time_point::max()
                                  ? absl::InfiniteDuration()
                                  : absl::FromChrono(next - now));
  }
}

}  // namespace pyramid
