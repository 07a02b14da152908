#include "tools/benchmark_flags.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "referee/cli/program.h"

namespace pyramid::bench {
namespace {

// Google Benchmark's flags (version 1.7). Its parser takes each of them off
// the command line, except one whose value it cannot parse (after saying
// so), which it leaves there as it leaves an unknown flag.
constexpr std::string_view kBenchmarkFlags[] = {
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

// The display reporter Google Benchmark would make (--benchmark_format),
// except for its error stream: what RunSpecifiedBenchmarks says there of a
// --benchmark_filter that matches nothing or is no regex ("Failed to match
// any benchmarks against regex: ...") goes to `said` instead, so that
// RunBenchmarks says it once, as a usage error. What the benchmarks report
// goes where the default reporter sends it.
class QuietFilterReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit QuietFilterReporter(std::ostream* said)
      : shown_(benchmark::CreateDefaultDisplayReporter()) {
    SetErrorStream(said);
  }

  bool ReportContext(const Context& context) override {
    return shown_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& reports) override {
    shown_->ReportRuns(reports);
  }
  void Finalize() override { shown_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* const shown_;  // Google Benchmark's own.
};

}  // namespace

FlagArgument SplitFlag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return {};
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  const size_t equals = arg.find('=');
  if (equals == arg.npos) return {arg, std::nullopt};
  return {arg.substr(0, equals), arg.substr(equals + 1)};
}

void CheckBenchmarkValues(std::string_view program, int argc, char** argv) {
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
  // A value that is no number is said here, in one line: Google Benchmark
  // would say it in its own words, then RefuseLeftArguments again in ours.
  // `positive`: a count of at least 1 (an int32), else seconds, at least 0.
  const auto number = [&](std::string_view name, std::string_view value,
                          bool positive) {
    const std::string text(value);
    char* end = nullptr;
    errno = 0;
    const double parsed = positive ? std::strtol(text.c_str(), &end, 10)
                                   : std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE ||
        (positive && parsed > INT32_MAX)) {
      UsageError(program, std::string("--") + std::string(name) + " is " +
                              (positive ? "a whole number of times"
                                        : "a number of seconds") +
                              ", not \"" + text + "\"");
    }
    if (positive ? parsed >= 1 : parsed >= 0) return;
    UsageError(program, std::string("--") + std::string(name) + " must be " +
                            (positive ? "positive" : "at least 0") + ", not " +
                            text);
  };
  for (int i = 1; i < argc; ++i) {
    const FlagArgument flag = SplitFlag(argv[i]);
    if (flag.name == "version" && !flag.value) {
      std::cout << VersionLine(program);
      std::exit(0);
    }
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
      if (struct stat st; stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        UsageError(program, "--benchmark_out=" + path + ": is a directory");
      }
    }
  }
}

void RefuseLeftArguments(std::string_view program, int argc, char** argv) {
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

void RunBenchmarks(std::string_view program) {
  std::ostringstream said;
  QuietFilterReporter reporter(&said);
  if (benchmark::RunSpecifiedBenchmarks(&reporter) == 0) {
    // Google Benchmark's reason, in one line of ours: no benchmark matches,
    // or the filter is no regex.
    const std::string filter = benchmark::GetBenchmarkFilter();
    const std::string reason(absl::StripAsciiWhitespace(said.str()));
    UsageError(program,
               absl::StrContains(reason, "Failed to match")
                   ? absl::StrCat("--benchmark_filter=", filter,
                                  " names no benchmark; --benchmark_list_tests "
                                  "lists them")
                   : absl::StrCat("--benchmark_filter=", filter, ": ", reason));
  }
  std::cerr << said.str();  // Anything else it had to say.
}

}  // namespace pyramid::bench
