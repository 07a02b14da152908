// bench_load's server process as the client sees it: started (forked and
// re-executed with --serve) or attached to, asked for its figures, watched
// and stopped; and what /proc says of a process (resident set, CPU time).
#ifndef PYRAMID_TOOLS_BENCH_LOAD_SERVER_PROCESS_H_
#define PYRAMID_TOOLS_BENCH_LOAD_SERVER_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "tools/bench_load/server.h"

namespace pyramid::bench_load {

struct ProcStatus {
  int64_t rss_kib = 0;  // VmRSS.
  int64_t hwm_kib = 0;  // VmHWM (peak resident set).
};

// /proc/PID/status's figures.
ProcStatus ReadStatus(pid_t pid);

// User + system CPU seconds of a process, and of this one.
double CpuSeconds(pid_t pid);
double SelfCpuSeconds();

class ServerProcess {
 public:
  ~ServerProcess() { Stop(); }

  // Forks and re-executes this binary with `options` (ServeOptions::Args);
  // returns its port. The server dies with this process.
  absl::StatusOr<int> Start(const ServeOptions& options,
                            const std::string& admin_token);

  // A server started by hand (`bench_load --serve --serve_dir=DIR`, e.g.
  // under a profiler); it is left running.
  absl::StatusOr<int> Attach(const std::string& dir, pid_t pid);

  pid_t pid() const { return attached_pid_ > 0 ? attached_pid_ : pid_; }

  // What the server reports on SIGUSR1 (ServeMain); heap_kib is -1 if the
  // server does not answer within a second.
  struct Report {
    int64_t heap_kib = -1;  // Bytes malloc hands out, in KiB.
    int64_t arena_kib = 0;
    // The deadline scheduler's lateness: entries popped, max, p99.
    int64_t lateness_count = 0, lateness_max_us = 0, lateness_p99_us = 0;
    // The checkpoint sync pool since the server started: jobs, how long
    // they waited for a thread and how long their fdatasync took (p99,
    // max), and the most jobs queued at once.
    int64_t syncs = 0, sync_wait_p99_us = 0, sync_wait_max_us = 0;
    int64_t sync_p99_us = 0, sync_max_us = 0, syncs_max_queued = 0;
    // The journal (when in use): commits, fdatasyncs, most commits in one.
    int64_t journal_commits = 0, journal_syncs = 0, journal_largest_group = 0;
  };
  Report Ask();
  int64_t HeapKib() { return Ask().heap_kib; }

  // Reaps the child if it exited. Call from one thread at a time.
  bool Alive();

  // SIGTERM, then SIGKILL after 3 s; reaps the child.
  void Stop();

 private:
  std::string dir_;
  pid_t pid_ = -1;
  pid_t attached_pid_ = -1;
  std::mutex heap_mu_;
};

// Samples the server's RSS every few milliseconds, and its heap in use
// every second (glibc's mallinfo2 walks the whole heap under its locks:
// every 100 ms it took 10% of the server's CPU at 10,000 matches), while a
// phase runs.
class RssSampler {
 public:
  RssSampler(pid_t pid, std::function<int64_t()> heap_kib)
      : pid_(pid),
        heap_kib_(std::move(heap_kib)),
        thread_([this] { Loop(); }) {}
  ~RssSampler() {
    stop_ = true;
    thread_.join();
  }
  int64_t peak_kib() const { return peak_.load(); }
  int64_t peak_heap_kib() const { return peak_heap_.load(); }

 private:
  void Loop();

  const pid_t pid_;
  const std::function<int64_t()> heap_kib_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> peak_heap_{0};
  std::thread thread_;
};

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_SERVER_PROCESS_H_
