#include "referee/service/sync_pool.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace pyramid {

SyncPool::SyncPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

SyncPool::~SyncPool() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

void SyncPool::Submit(std::function<absl::Status()> sync,
                      std::function<void(absl::Status)> done) {
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  jobs_.push_back({std::move(sync), std::move(done), now});
  stats_.max_queued = std::max(stats_.max_queued, jobs_.size());
}

SyncPool::Stats SyncPool::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void SyncPool::Loop() {
  while (true) {
    Job job;
    absl::Time started;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || !jobs_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (jobs_.empty()) return;  // Stopping, and nothing is left.
      job = std::move(jobs_.front());
      jobs_.pop_front();
      started = absl::Now();
      stats_.waits.Add(started - job.submitted);
    }
    const absl::Status status = job.sync();
    {
      absl::MutexLock lock(&mu_);
      stats_.syncs.Add(absl::Now() - started);
    }
    job.done(status);
  }
}

}  // namespace pyramid
