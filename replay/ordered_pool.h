// Runs independent jobs on a pool of threads and hands their results back
// in job order: `replay verify` of many logs uses every core and still
// prints one line per log in the order given; the tournament fetches and
// writes its inclusion proofs so.
#ifndef PYRAMID_REPLAY_ORDERED_POOL_H_
#define PYRAMID_REPLAY_ORDERED_POOL_H_

#include <cstddef>
#include <functional>
#include <string>

namespace pyramid {

// What one job produced.
struct JobOutput {
  int exit_code = 0;
  std::string out;  // For standard output.
  std::string err;  // For standard error.
};

// The number of threads to use for `jobs` jobs: one per CPU this process
// may run on (its affinity mask, sched_getaffinity: `taskset -c 0` gives
// 1; std::thread::hardware_concurrency() when the mask cannot be read; at
// least 1), never more than jobs.
int PoolSize(size_t jobs);

// Runs `run(i)` for every i in [0, jobs) on `threads` threads (the calling
// thread waits) and calls `emit(i, output)` on the calling thread for
// i = 0, 1, ... in order, each as soon as job i and every job before it
// are done. `run` must be safe to call from several threads at once.
void RunInOrder(size_t jobs, int threads,
                const std::function<JobOutput(size_t)>& run,
                const std::function<void(size_t, const JobOutput&)>& emit);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_ORDERED_POOL_H_
