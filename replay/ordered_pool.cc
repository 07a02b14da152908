#include "replay/ordered_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace pyramid {

namespace {

// The CPUs this process may run on: its affinity mask (taskset, a
// container's cpuset), which std::thread::hardware_concurrency() ignores;
// that, when the mask cannot be read.
size_t UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<size_t>(count);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

int PoolSize(size_t jobs) {
  const size_t cores = UsableCpus();
  return static_cast<int>(std::max<size_t>(1, std::min(cores, jobs)));
}

void RunInOrder(size_t jobs, int threads,
                const std::function<JobOutput(size_t)>& run,
                const std::function<void(size_t, const JobOutput&)>& emit) {
  std::vector<std::optional<JobOutput>> done(jobs);
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < jobs; i = next++) {
      JobOutput output = run(i);
      std::lock_guard<std::mutex> lock(mutex);
      done[i] = std::move(output);
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) pool.emplace_back(worker);
  for (size_t i = 0; i < jobs; ++i) {
    JobOutput output;
    {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return done[i].has_value(); });
      output = *std::move(done[i]);
      done[i].reset();  // Printed: its text is no longer held.
    }
    emit(i, output);
  }
  for (std::thread& thread : pool) thread.join();
}

}  // namespace pyramid
