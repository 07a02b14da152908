#include "replay/ordered_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace pyramid {

int PoolSize(size_t jobs) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
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
