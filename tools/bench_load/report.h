// bench_load's report: what a run measured (RunFigures, filled in by the
// run in bench_load_main.cc), the numbers that follow from it, and the
// printed report, whose last line is the key=value line scripts read (see
// bench_load_main.cc's header comment).
#ifndef PYRAMID_TOOLS_BENCH_LOAD_REPORT_H_
#define PYRAMID_TOOLS_BENCH_LOAD_REPORT_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/bench_load/client.h"
#include "tools/bench_load/echo_phase.h"
#include "tools/bench_load/load_phase.h"
#include "tools/bench_load/server_process.h"

namespace pyramid::bench_load {

// A pair the referee / echo ratio is the median of: a referee phase's
// messages/s, the echo race's after it, and the referee phase's faults.
struct Round {
  double referee_rate = 0;
  double echo_rate = 0;
  uint64_t faults = 0;
  double Ratio() const { return echo_rate > 0 ? referee_rate / echo_rate : 0; }
};

// One measured run of the echo phase: the workers' counters and both
// processes' CPU time at its start and end, and when it began and ended.
struct EchoRun {
  Snapshot before, after;
  double server_cpu = 0, client_cpu = 0;
  Clock::time_point begin = Clock::now(), end = begin;

  void Open(const std::vector<std::unique_ptr<Worker>>& workers, int pid) {
    before = Take(workers);
    server_cpu = -CpuSeconds(pid);
    client_cpu = -SelfCpuSeconds();
  }
  void Close(const std::vector<std::unique_ptr<Worker>>& workers, int pid) {
    after = Take(workers);
    server_cpu += CpuSeconds(pid);
    client_cpu += SelfCpuSeconds();
  }
  uint64_t Messages() const { return after.messages() - before.messages(); }
  double Rate() const {
    const double s = Seconds(end - begin);
    return s > 0 ? Messages() / s : 0;
  }
};

// What one run measured, and its setting: all the report reads. The run
// fills in the phases' figures as it goes and the setting before the
// report; the derived numbers below need the first referee phase (`load`)
// and, but for LoadRate, the setting too.
struct RunFigures {
  // The setting: the command line (--matches, --bots, --deadline_ms,
  // --think_ms, ... are the referee phase's options) and the server.
  LoadPhase::Options load_options;
  int threads = 0, num_channels = 0;
  std::string fsync;
  uint32_t checkpoint_interval = 0;
  pid_t server_pid = 0;
  std::string kept_dir;  // The server's data directory, when --keep_data.

  // The referee phase: the first one, which the run owns (not const: its
  // error lists are read under its lock).
  LoadPhase* load = nullptr;
  bool load_done = false;
  ProcStatus baseline, at_release, after_load;
  int64_t heap_baseline = 0, heap_release = 0, heap_after_load = 0;
  int64_t heap_peak = 0, load_peak_kib = 0;
  ServerProcess::Report server_after_load;
  Snapshot at_start, at_end;
  double server_cpu_play = 0, client_cpu_play = 0;
  uint64_t faults = 0, timeouts = 0, play_errors = 0;
  uint64_t load_messages = 0;
  uint64_t load_wire = 0;  // The gRPC messages that carried them.
  size_t mean_bytes = 64;
  std::vector<uint32_t> latencies;
  std::vector<uint32_t> last_ready;
  std::vector<std::vector<uint32_t>> latencies_by_decision;  // Sorted.

  int verified = 0, genuine = 0;
  // The echo phase (`echo` is the run's).
  const EchoPhase* echo = nullptr;
  int echo_streams = 0;
  bool run_echo = false, echo_all = false, echo_done = true;
  bool race_done = false;
  int race_round_trips = 0;
  EchoRun race, window;
  std::vector<Round> rounds;  // The first phase's pair, then each round's.
  ProcStatus after_echo;

  // Every match created and ended.
  bool AllEnded() const;
  // From the release to the last MatchEnded.
  double PlaySeconds() const;
  // Every move of every match applied (kMovesPerMatch each), with no
  // stream broken: a broken bot stream forfeits its seats without a
  // PlayError reaching the client, and its matches end early.
  bool PlayedThrough() const;
  double MovesPerSecond() const;
  // Flat out, every seat always has a decision open, so by Little's law
  // the mean time from one of a seat's decisions to its next is the seats
  // over the seat-decisions completed per second (every move, and every
  // seat's seed contribution, played after the release too), whatever the
  // order the referee serves them in. A seat's decision latency is the
  // larger part of that cycle (the rest: the result reaching the seat and
  // its next request), so a p99 target far below it cannot be met at that
  // rate. 0 when nothing was played.
  double DecisionCycleMs() const;
  double MatchesPerSecond() const;
  // The referee phase's Play messages per second of play.
  double LoadRate() const;
  // The race's rate: the baseline of the referee / echo ratio.
  double EchoRate() const;
  // Server memory per match, over the peak number live at once.
  double PerMatch(int64_t kib) const;
  double RssPerLiveKib() const;
  // The RSS budget per live match: a stream per seat costs gRPC's own
  // per-stream state (about 13 KiB a seat); bot streams carry every seat.
  double RssTargetKib() const;
  // The median of the rounds' ratios (the lower middle of an even count);
  // 0 unless every race finished.
  double EchoRatio() const;
  bool Paced() const;
  // The decision latencies the p99 target is judged on: the referee's
  // share. Flat out, from the seat's readiness; paced, from the readiness
  // of the decision's last acting seat (from a seat's own readiness it
  // would hold the other seats' think time, which no referee can shorten).
  const std::vector<uint32_t>& JudgedLatencies() const;
  double P99Ms() const;
  std::string P99Verdict() const;
};

// Prints the report on stdout: the setting, the referee phase, the echo
// phase, the server's memory and the summary, then the key=value line
// (flushed).
void PrintReport(const RunFigures& run);

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_REPORT_H_
