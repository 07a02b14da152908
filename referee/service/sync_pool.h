// Threads that run the fsyncs matches owe, so that the threads serving
// clients never wait on the disk. A device takes many flushes at once far
// faster than one after another (on the development machine one thread
// made 280 fdatasyncs/s, sixteen made 14,600/s), and thousands of matches
// reaching a checkpoint together would otherwise hold gRPC's few callback
// threads for seconds (docs/durability.md, "Checkpoint syncs").
#ifndef PYRAMID_REFEREE_SERVICE_SYNC_POOL_H_
#define PYRAMID_REFEREE_SERVICE_SYNC_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/log_sink.h"
#include "referee/service/latency_histogram.h"

namespace pyramid {

class SyncPool {
 public:
  explicit SyncPool(int threads);
  // Runs every job still queued, and waits for every `done` still owed (a
  // job that reports later, as a journal's does), then stops.
  ~SyncPool();
  SyncPool(const SyncPool&) = delete;
  SyncPool& operator=(const SyncPool&) = delete;

  // Runs `sync` on one of the pool's threads, and `done` with the status
  // it reports, on the thread it reports from (the same one for a job that
  // syncs itself). Jobs start in the order submitted; several run at once.
  // Thread-safe.
  void Submit(SyncJob sync, SyncDone done);

  // What the pool has done so far: how long each job waited in the queue
  // before a thread took it, how long its sync took (until it reported),
  // and the most jobs ever queued at once. Thread-safe.
  struct Stats {
    LatencyHistogram waits;
    LatencyHistogram syncs;
    size_t max_queued = 0;
  };
  Stats stats() const;

 private:
  struct Job {
    SyncJob sync;
    SyncDone done;
    absl::Time submitted;
  };
  // What a job's report touches, which may come after the pool's threads
  // are gone: shared with the reports still owed.
  struct Reports {
    absl::Mutex mu;
    Stats stats ABSL_GUARDED_BY(mu);
    int owed ABSL_GUARDED_BY(mu) = 0;  // Jobs started, not yet reported.
  };
  void Loop();

  mutable absl::Mutex mu_;
  std::deque<Job> jobs_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  const std::shared_ptr<Reports> reports_ = std::make_shared<Reports>();
  std::vector<std::thread> threads_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_SYNC_POOL_H_
