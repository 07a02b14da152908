// What the benchmarks of match logs share (bench_verify, bench_html): a
// corpus of logs played in memory between random players, phases timed in
// rounds by the thread's CPU time and reported as medians, and the report's
// last lines, one key=value line per game for scripts. Each benchmark keeps
// what it measures and how it prints it.
//
// Also, inline, what the Google Benchmark programs (bench_rules,
// bench_tlog) share, which link nothing of this file's library: the checks
// that make their command line's mistakes usage errors, status 2, as every
// other program's are (Google Benchmark alone exits 1 on an unknown flag,
// and 0, printing its usage, on a value it does not take).
#ifndef PYRAMID_TOOLS_BENCH_COMMON_H_
#define PYRAMID_TOOLS_BENCH_COMMON_H_

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
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

// Ends the process with status 2 after one line on stderr, as
// InitProgram's usage errors (referee/cli/program.h): "PROGRAM: MESSAGE (see
// PROGRAM --help)".
[[noreturn]] inline void UsageError(std::string_view program,
                                    std::string_view message) {
  std::cerr << program << ": " << message << " (see " << program
            << " --help)\n";
  std::exit(2);
}

// Google Benchmark's flags (version 1.7). Its parser takes each of them off
// the command line, except one whose value it cannot parse (after saying
// so), which it leaves there as it leaves an unknown flag.
inline constexpr std::string_view kBenchmarkFlags[] = {
    "benchmark_list_tests",
    "benchmark_filter",
    "benchmark_min_time",
    "benchmark_min_warmup_time",
    "benchmark_repetitions",
    "benchmark_enable_random_interleaving",
    "benchmark_report_aggregates_only",
    "benchmark_display_aggregates_only",
    "benchmark_format",
    "benchmark_out",
    "benchmark_out_format",
    "benchmark_color",
    "benchmark_counters_tabular",
    "benchmark_perf_counters",
    "benchmark_context",
    "benchmark_time_unit",
    "v"};

// The name and value of command-line argument `arg`, "--NAME=VALUE" (one
// dash or two); no name when it is no flag, no value when it has no '='.
struct FlagArgument {
  std::string_view name;
  std::optional<std::string_view> value;
};
inline FlagArgument SplitFlag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return {};
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  const size_t equals = arg.find('=');
  if (equals == arg.npos) return {arg, std::nullopt};
  return {arg.substr(0, equals), arg.substr(equals + 1)};
}

// Call before benchmark::Initialize: the values of Google Benchmark's flags
// that its parser takes without judging them (it prints its usage and exits
// 0 on a --benchmark_format it does not know, takes any word for a boolean,
// runs nothing for --benchmark_repetitions=0 and aborts for a negative one,
// and exits 1 for a --benchmark_out it cannot write) are checked here: a bad
// one is a usage error naming the flag.
inline void CheckBenchmarkValues(std::string_view program, int argc,
                                 char** argv) {
  const auto one_of = [&](std::string_view name, std::string_view value,
                          std::initializer_list<std::string_view> allowed,
                          std::string_view listed) {
    for (std::string_view a : allowed) {
      if (value == a) return;
    }
    UsageError(program, std::string("--") + std::string(name) + " is " +
                            std::string(listed) + ", not \"" +
                            std::string(value) + "\"");
  };
  const auto number = [&](std::string_view name, std::string_view value,
                          bool positive) {
    const std::string text(value);
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return;  // Google Benchmark's to say.
    if (positive ? parsed >= 1 : parsed >= 0) return;
    UsageError(program, std::string("--") + std::string(name) + " must be " +
                            (positive ? "positive" : "at least 0") + ", not " +
                            text);
  };
  for (int i = 1; i < argc; ++i) {
    const FlagArgument flag = SplitFlag(argv[i]);
    if (!flag.value) continue;
    const std::string_view name = flag.name, value = *flag.value;
    if (name == "benchmark_format" || name == "benchmark_out_format") {
      one_of(name, value, {"console", "json", "csv"}, "console, json or csv");
    } else if (name == "benchmark_time_unit") {
      one_of(name, value, {"ns", "us", "ms", "s"}, "ns, us, ms or s");
    } else if (name == "benchmark_color") {
      one_of(name, value, {"auto", "true", "false", "yes", "no", "1", "0"},
             "auto, true or false");
    } else if (name == "benchmark_list_tests" ||
               name == "benchmark_enable_random_interleaving" ||
               name == "benchmark_report_aggregates_only" ||
               name == "benchmark_display_aggregates_only" ||
               name == "benchmark_counters_tabular") {
      one_of(name, value, {"true", "false", "yes", "no", "1", "0"},
             "true or false");
    } else if (name == "benchmark_repetitions") {
      number(name, value, /*positive=*/true);
    } else if (name == "benchmark_min_time" ||
               name == "benchmark_min_warmup_time") {
      number(name, value, /*positive=*/false);
    } else if (name == "benchmark_out") {
      // Google Benchmark opens it only once the benchmarks are chosen.
      const std::string path(value);
      const size_t slash = path.find_last_of('/');
      const std::string dir =
          slash == path.npos ? "." : path.substr(0, slash + 1);
      if (access(path.c_str(), W_OK) != 0 &&
          (errno != ENOENT || access(dir.c_str(), W_OK | X_OK) != 0)) {
        UsageError(program,
                   "--benchmark_out=" + path + ": " + std::strerror(errno));
      }
    }
  }
}

// Call after benchmark::Initialize, with what it left of the command line
// (`argv[0]` the program): whatever is left is a usage error naming it, an
// unknown flag, a value Google Benchmark could not parse (it said why) or a
// positional argument.
inline void RefuseLeftArguments(std::string_view program, int argc,
                                char** argv) {
  if (argc <= 1) return;
  const std::string_view arg = argv[1];
  const FlagArgument flag = SplitFlag(arg);
  if (flag.name.empty()) {
    UsageError(program, std::string("takes no positional arguments (got \"") +
                            std::string(arg) + "\")");
  }
  for (std::string_view known : kBenchmarkFlags) {
    if (flag.name != known) continue;
    UsageError(program, std::string("--") + std::string(flag.name) +
                            (flag.value ? " does not take \"" +
                                              std::string(*flag.value) + "\""
                                        : std::string(" needs a value")));
  }
  UsageError(program, std::string("unknown flag --") + std::string(flag.name));
}

}  // namespace pyramid::bench

#endif  // PYRAMID_TOOLS_BENCH_COMMON_H_
