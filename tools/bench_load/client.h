// bench_load's client machinery: worker threads, each with a gRPC
// completion queue and timers of its own, and the tagged handlers their
// events go to; the counters each worker keeps for the report.
#ifndef PYRAMID_TOOLS_BENCH_LOAD_CLIENT_H_
#define PYRAMID_TOOLS_BENCH_LOAD_CLIENT_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"

namespace pyramid::bench_load {

using Clock = std::chrono::steady_clock;

// `d` in seconds.
inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// What a worker's events go to: a call or a stream, told by the Tag which
// of its operations completed (`kind`) and whether it went well (`ok`).
// Handlers run on their worker's thread only.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void OnEvent(int kind, bool ok) = 0;
  // What Worker::Defer put off: called once the worker has no event ready.
  virtual void OnIdle() {}
};

// A completion-queue tag: the handler and which of its operations.
struct Tag {
  Handler* handler;
  int kind;
};

// Per-worker counters. Only the worker's thread writes them; other threads
// read the atomics for snapshots.
struct alignas(64) Stats {
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> received{0};
  // gRPC messages of the Play streams, both ways: a batch counts once.
  std::atomic<uint64_t> wire{0};
  // Serialized bytes of a sample of the messages (every 8th), both ways,
  // and how many messages were sampled.
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> sized{0};
  uint64_t sample_clock = 0;  // Worker thread only.
  std::atomic<uint64_t> moves{0};
  std::atomic<uint64_t> faults{0};
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> errors{0};  // PlayErrors that were not faults.
  std::mutex latencies_mu;          // Uncontended but for the final read.
  std::vector<uint32_t> latencies_us;
  // The same samples by decision id (index 0: the seed decision).
  std::vector<std::vector<uint32_t>> latencies_by_decision_us;
  std::vector<uint32_t> last_ready_us;   // From the last seat's readiness.
  uint64_t rng = 0x9e3779b97f4a7c15ULL;  // Worker thread only.

  // Whether to measure the size of this message (every 8th).
  bool Sample() { return (sample_clock++ & 7) == 0; }
  void Add(std::atomic<uint64_t>& counter, uint64_t n = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + n,
                  std::memory_order_relaxed);
  }
  uint64_t Next() {  // xorshift64*: choosing moves, not secrets.
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
  }
};

// The workers' counters summed at one moment (Take).
struct Snapshot {
  uint64_t sent = 0, received = 0, wire = 0, bytes = 0, sized = 0, moves = 0;
  uint64_t messages() const { return sent + received; }
};

// A client thread with its completion queue, and timers of its own (think
// times: a grpc::Alarm per decision cost the client as much CPU as the
// rest of its work).
class Worker {
 public:
  explicit Worker(int index) {
    stats_.rng += static_cast<uint64_t>(index) * 0x632be59bd9b4e019ULL;
  }
  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }
  void Shutdown() {
    cq_.Shutdown();
    if (thread_.joinable()) thread_.join();
  }
  grpc::CompletionQueue* cq() { return &cq_; }
  Stats& stats() { return stats_; }

  // `n` bytes from the system's CSPRNG (salts, seed contributions), taken
  // from a buffer refilled kRandomBuffer bytes at a time: one getrandom
  // call for a hundred salts instead of one each. Call only from this
  // worker's thread.
  std::string RandomBytes(size_t n);

  // Calls `handler`'s OnIdle once this worker has handled every event that
  // is ready (or, when events keep coming, kMaxEventsBeforeIdle of them),
  // once however often it is deferred meanwhile: what a round of events
  // makes a stream send goes out together. Call only from this worker's
  // thread.
  void Defer(Handler* handler) {
    if (std::find(deferred_.begin(), deferred_.end(), handler) ==
        deferred_.end()) {
      deferred_.push_back(handler);
    }
  }

  // Delivers `tag` (ok = true) on this worker's thread once `delay_us`
  // microseconds have passed. Call only from this worker's thread.
  void After(int64_t delay_us, Tag* tag) {
    timers_.push({gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                               gpr_time_from_micros(delay_us, GPR_TIMESPAN)),
                  tag});
  }

 private:
  struct Timer {
    gpr_timespec when;
    Tag* tag;
    bool operator>(const Timer& other) const {
      return gpr_time_cmp(when, other.when) > 0;
    }
  };
  static constexpr size_t kRandomBuffer = 4096;
  static constexpr int kMaxEventsBeforeIdle = 64;

  // Handles events, timers and deferred handlers until the queue shuts down.
  void Loop();

  std::string random_;  // RandomBytes' buffer, and how much of it is used.
  size_t random_used_ = 0;
  grpc::CompletionQueue cq_;
  std::thread thread_;
  Stats stats_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::vector<Handler*> deferred_;
};

// The sum of the workers' counters now.
Snapshot Take(const std::vector<std::unique_ptr<Worker>>& workers);

// Waits on a predicate with a deadline, polling (no lost wake-ups to reason
// about; the resolution is far below what is measured).
template <typename Pred>
bool WaitUntil(Pred pred, Clock::time_point deadline) {
  while (!pred()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return true;
}

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_CLIENT_H_
