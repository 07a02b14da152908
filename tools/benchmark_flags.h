// The command line of the Google Benchmark programs (bench_rules,
// bench_tlog): its mistakes are usage errors, status 2, one line naming the
// flag, before any benchmark runs, as every other program's are (Google
// Benchmark alone exits 1 on an unknown flag, and 0, printing its usage, on
// a value it does not take).
#ifndef PYRAMID_TOOLS_BENCHMARK_FLAGS_H_
#define PYRAMID_TOOLS_BENCHMARK_FLAGS_H_

#include <optional>
#include <string_view>

#include "referee/cli/program.h"

namespace pyramid::bench {

// Usage errors: UsageError (referee/cli/program.h), as every program's.
using ::pyramid::UsageError;

// The name and value of command-line argument `arg`, "--NAME=VALUE" (one
// dash or two); no name when it is no flag, no value when it has no '='.
struct FlagArgument {
  std::string_view name;
  std::optional<std::string_view> value;
};
FlagArgument SplitFlag(std::string_view arg);

// Call before benchmark::Initialize: --version prints the program's version
// line (VersionLine, as every program's) and exits 0; the values of Google
// Benchmark's flags that its parser takes without judging them, or judges
// with a message of its own before ours (it prints its usage and exits 0 on
// a --benchmark_format it does not know, takes any word for a boolean, runs
// nothing for --benchmark_repetitions=0 and aborts for a negative one, exits
// 1 for a --benchmark_out it cannot write, and complains of a number that is
// not one), are checked here: a bad one is a usage error naming the flag, on
// one line.
void CheckBenchmarkValues(std::string_view program, int argc, char** argv);

// Call after benchmark::Initialize, with what it left of the command line
// (`argv[0]` the program): whatever is left is a usage error naming it, an
// unknown flag, a value Google Benchmark could not parse (it said why) or a
// positional argument.
void RefuseLeftArguments(std::string_view program, int argc, char** argv);

// Runs the benchmarks the command line selects (benchmark::
// RunSpecifiedBenchmarks) with Google Benchmark's display reporter
// (--benchmark_format). A --benchmark_filter that matches nothing or is no
// regex is a usage error on one line of ours, "--benchmark_filter=F names
// no benchmark; ..." or "--benchmark_filter=F: REASON" (Google Benchmark's
// own line, which would come first, is kept back); anything else Google
// Benchmark says on its error stream is printed to stderr after the run.
void RunBenchmarks(std::string_view program);

}  // namespace pyramid::bench

#endif  // PYRAMID_TOOLS_BENCHMARK_FLAGS_H_
