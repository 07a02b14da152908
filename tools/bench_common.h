// What the benchmarks of match logs share (bench_verify, bench_html): a
// corpus of logs played in memory between random players, phases timed in
// rounds by the thread's CPU time and reported as medians, and the report's
// last lines, one key=value line per game for scripts. Each benchmark keeps
// what it measures and how it prints it.
#ifndef PYRAMID_TOOLS_BENCH_COMMON_H_
#define PYRAMID_TOOLS_BENCH_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/core/match.h"

namespace pyramid::bench {

// Logs of matches played in memory.
struct PlayedLogs {
  std::vector<std::string> logs;
  uint64_t bytes = 0;                    // Their total size.
  std::vector<std::string> public_keys;  // Log i is signed by key i % size.
};

// Plays `count` matches, the i-th configured by `config_for(i)` (its seats
// included), each seat a RandomPlayer, signed in turn by `referee_keys`
// referee keys (log i by key i % referee_keys). Every random byte (keys,
// match ids, salts, seeds, players) comes from entropy derived from `corpus`
// alone and the clock is a fake one advanced by a second per match, so the
// same arguments give the same logs.
absl::StatusOr<PlayedLogs> PlayLogs(
    std::string_view corpus, int referee_keys, int count,
    const std::function<MatchConfig(int index)>& config_for);

// CPU time of the calling thread, in seconds: unlike wall time, it does not
// count the time other processes on a busy machine take from this one.
double ThreadCpuSeconds();

// The median of `values` (0 when empty).
double Median(std::vector<double> values);

// Keeps the optimiser from dropping work whose result is otherwise unused.
void Keep(uint64_t value);

// Each round's time of each phase, in seconds: rounds[r][p].
using Rounds = std::vector<std::vector<double>>;

// Times `phases` in `reps` rounds by the thread's CPU time. Every round runs
// every phase once, in turn, so that a slower stretch of a noisy machine
// slows every phase of a round alike. An empty phase is not run (time 0).
Rounds TimeRounds(int reps, const std::vector<std::function<void()>>& phases);

// The median over `rounds` of phase `phase`'s time.
double MedianTime(const Rounds& rounds, size_t phase);

// The median over `rounds` of `of(round)` / round[base], a round's own
// ratio, over the rounds where both are positive (0 when there are none).
double MedianRatio(const Rounds& rounds, size_t base,
                   const std::function<double(const std::vector<double>&)>& of);

// Runs the report of each of `games` games in turn: `report(i)`
// prints game i's and returns its key=value line, or nullopt after saying
// why it failed (status 1, at once). Then prints a blank line and every
// key=value line; status 0. `separate`: a blank line between two reports.
int ReportEachGame(
    size_t games, bool separate,
    const std::function<std::optional<std::string>(size_t)>& report);

// Whether --logs (`logs`) and --reps (`reps`) are positive; false after
// saying so, as `program`, naming the flag and its value.
bool PositiveCounts(std::string_view program, int logs, int reps);

}  // namespace pyramid::bench

#endif  // PYRAMID_TOOLS_BENCH_COMMON_H_
