// bench_load: the referee service's load benchmark (a tool, not a test).
// This file is its command line, the run and the report; the parts are
// beside it in tools/bench_load/: server (--serve), server_process (the
// server as the client sees it), client (worker threads), load_phase (the
// referee phase) and echo_phase (the baseline).
//
// Two processes on one machine, over loopback:
//   * the server: this binary re-executed with --serve. It hosts the real
//     referee service (Lobby + RefereeService, configured as the `referee`
//     binary configures them, writing real signed logs into a temporary
//     data directory on disk) and, in the same grpc::Server, a raw
//     bidirectional echo service (tools/bench_load/bench_echo.proto), the
//     baseline. The echo service exists only here, never in the referee
//     binary.
//   * the client: this process (gRPC async API, --threads completion
//     queues, --channels TCP connections).
//
// Referee phase: --matches Rock, Paper, Pyramid! matches (CreateMatch with
// the admin token), 3 seats each, every seat playing commit-reveal (random
// legal moves) under --deadline_ms commit and reveal deadlines, in one of
// two modes:
//   * stream mode (the default): one Play stream per seat, with the seat
//     token CreateMatch returned;
//   * bot mode (--bots=N, N <= 100): N bots registered (RegisterBot), each
//     with one Play stream opened before any match exists; match m's seat s
//     is played by bot (3m + s) mod N, so one bot stream carries every seat
//     of its bot in every match, as a bot platform's API does. With
//     --client_linger_us=L a bot stream gathers its moves as the referee
//     gathers what it sends a bot: a move made while nothing is queued or
//     being written waits L us for others to join it in one write.
// Set-up: every match is created with a seed decision deadline
// (ClockSettings.seed_timeout_ms) of --max_seconds, the time its seats have
// to connect; each seat holds its seed DecisionRequest unanswered. Once
// every seat holds one (the barrier: all matches live at once), every seat
// is released at the same moment; from then on every deadline is
// --deadline_ms. Only what follows the release is measured:
//   * peak live: the most matches created and not yet ended at the same
//     moment, counted at the client (CreateMatch answers minus first
//     MatchEndeds); at the release it is every match;
//   * moves: applied RPP actions (acknowledged reveals of decisions >= 1,
//     27 per match); the seed decision's contributions are not moves;
//   * decision latency, the referee's share: per seat and decision, at the
//     client, from the moment the seat is ready to commit (its
//     DecisionRequest received and its think time over; the release for
//     the seed decision) to the DecisionResult of that decision (commit,
//     ack, reveal request, reveal, ack, and the other seats' moves). With
//     --think_ms=T each seat waits a pseudo-random time, uniform in [0, T]
//     ms from a generator seeded per seat, before each commit (paced
//     bots); the default 0 plays flat out. Since a simultaneous decision
//     waits for every acting seat, a paced run's latency holds the other
//     seats' think time: the report adds the latency from the moment the
//     decision's last acting seat was ready, the referee's time alone, and
//     judges a paced run's p99 on it;
//   * flat out, the mean decision cycle: seats over seat-decisions
//     completed per second (Little's law), of which a seat's decision
//     latency is the larger part whatever the order of service;
//   * faults and timeouts: PlayErrors with faulted=true (target: none);
//   * messages: every message the client sent or received on the Play
//     streams, per second of play (release to the last MatchEnded).
// Server memory comes from /proc/<pid>/status (VmRSS) and from the server's
// allocator (heap bytes in use, referee/cli/allocator.h, asked for with
// SIGUSR1): at the start, with every match live just before the release,
// and the peak during play.
// RSS per live match = (peak RSS - baseline RSS) / peak live matches
// (targets: 64 KiB in stream mode, 16 KiB in bot mode). The same SIGUSR1
// report carries the server's deadline scheduler lateness (p99 and max of
// how late each queue entry was taken; target p99 <= 1 ms) and its
// checkpoint sync pool's figures: how long syncs waited for a thread and
// how long they took, which is what a checkpoint holds its step's messages
// for (no target; it says whether the disk made the seats wait).
//
// Echo phase: as many echo streams as there were seats (in both modes),
// over the same channels and client threads, each in request/response
// ping-pong with messages of the referee phase's mean serialized size;
// messages are counted the same way. Every stream opens and makes one round
// trip; then all are released at once, as the referee phase's seats are,
// for as many round trips as make the referee phase's message count (the
// race: ramp and tail included, as in the referee phase); then the steady
// window of --echo_seconds, every stream running. The ratio is referee
// messages/s over the race's messages/s (issue 18: same client, same
// message count, same run). The machine's speed moves within a minute, so
// the pair is measured --ratio_rounds times (each further referee phase
// plays --matches more matches, for the ratio only) and the printed ratio is
// the median of the pairs'; the first pair's ratio per CPU-second and
// against the steady window are printed beside it. Both processes share the
// machine's cores, so the wall clock ratio moves with whatever else runs; the
// ratio of messages per CPU second (server + client) is printed too and is what
// a dedicated, CPU-bound machine would show. In stream mode, whose echo phase
// has a stream per seat, the report also says what raw gRPC itself allows at
// that many streams: the mean decision latency flat out (Little's law at the
// echo's rate) and whether the echo moves as many messages as every seat needs
// to finish a decision per deadline.
//
// A few finished logs go through the replay verifier. The run is bounded
// (--max_seconds, and it stops if the server dies); the server child dies
// with this process (PR_SET_PDEATHSIG) and is stopped at the end. The
// server keeps a log open per live match: the run fails at once, saying
// so, when the open-file hard limit (ulimit -Hn) cannot take --matches.
//
// Output: a human report, then, as the last line of stdout, one line of
// key=value pairs for scripts:
//   peak_live=<n> timeouts=<n> p99_ms=<x.x> echo_ratio=<x.xxx>
//   rss_per_live_kib=<x.x> stream_errors=<n>
// (one line; p99_ms is the p99 of the referee's share of the decision
// latency, the one the target is judged on: from the seat's readiness flat
// out, from the last acting seat's when paced; "-" when no decision
// completed, e.g. every match forfeited; a decision that timed out is not
// in the percentiles; echo_ratio is "-" when the echo phase is skipped with
// --echo_seconds=0).
//
//   bench_load [--matches=1000] [--bots=0] [--think_ms=0]
//              [--client_linger_us=0] [--echo_seconds=5] [--ratio_rounds=3]
//              [--threads=2] [--channels=4]
//
// Exit status: 0 when the run completed cleanly; 1 when it did not (a
// phase that did not finish, a log that does not verify, a server that
// could not start or be reached); 2 for a bad command line (an
// unknown flag, a value out of its range, a --tmp_dir that is no directory,
// a --matches the open-file limit cannot take), said on one line naming the
// flag before anything starts; 3 when the server died or --max_seconds
// ran out.
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench_echo.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/allocator.h"
#include "referee/cli/program.h"
#include "referee/core/log_sink.h"
#include "referee/service/deadline_scheduler.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "referee/service/token.h"
#include "replay/verifier.h"
#include "tools/bench_load/client.h"
#include "tools/bench_load/echo_phase.h"
#include "tools/bench_load/load_phase.h"
#include "tools/bench_load/server.h"
#include "tools/bench_load/server_process.h"

ABSL_FLAG(int, matches, 1000, "Concurrent Rock, Paper, Pyramid! matches.");
ABSL_FLAG(double, echo_seconds, 5,
          "Length of the echo baseline's steady window (0: skip the echo "
          "phase and the ratio, e.g. when profiling the referee alone).");
ABSL_FLAG(int, ratio_rounds, 3,
          "Pairs of a referee phase and an echo race the referee / echo "
          "ratio is the median of (this machine's speed moves by 15-30% "
          "within a minute). The first referee phase is the one reported; "
          "each further one plays --matches more matches, measured for the "
          "ratio only.");
ABSL_FLAG(int, threads, 2,
          "Client threads (one completion queue each; streams are spread "
          "over them).");
ABSL_FLAG(int, channels, 4,
          "Client channels (TCP connections); streams are spread over them.");
ABSL_FLAG(std::string, fsync, "checkpoints",
          "The referee's log fsync policy: never, checkpoints (the referee's "
          "default) or every_record.");
ABSL_FLAG(int32_t, sync_threads, 16,
          "The referee's checkpoint sync threads (0: sync inline).");
ABSL_FLAG(bool, journal, true,
          "Whether the referee makes checkpoints durable through its shared "
          "journal (the referee's --journal; false: an fdatasync per log).");
ABSL_FLAG(bool, registry, false,
          "Whether the referee records matches, bots and tokens in its "
          "SQLite registry in the server's directory, as `referee "
          "--data_dir` does (synchronous writes at each match's creation and "
          "end; the lobby then keeps nothing of an ended match); false: the "
          "lobby's registry in memory.");
ABSL_FLAG(int32_t, play_queues, 8,
          "Completion queues the server spreads the Play streams over, and "
          "the echo's streams (the referee's --play_queues).");
ABSL_FLAG(uint32_t, batch_linger_us, 4000,
          "How long the referee holds back a message to a bot's batch stream "
          "to send what follows with it (the referee's --batch_linger_us).");
ABSL_FLAG(uint32_t, ack_hold_ms, 250,
          "How long a seat's batch stream may hold back an acknowledgement "
          "for the next message to the seat (the referee's --ack_hold_ms).");
ABSL_FLAG(uint32_t, checkpoint_interval, 64,
          "Records between signed checkpoints (the referee's default).");
ABSL_FLAG(int, deadline_ms, 2000,
          "Commit and reveal deadline of every decision, in the match clocks.");
ABSL_FLAG(int, create_concurrency, 32,
          "CreateMatch calls in flight at once while matches are set up.");
ABSL_FLAG(int, bots, 0,
          "Bot mode: register this many bots (1 to 100) and play every seat "
          "over their Play streams, one per bot, each carrying every seat of "
          "its bot in every match (seats spread over the bots in turn). 0: "
          "one Play stream per seat, with its seat token.");
ABSL_FLAG(bool, observation_once, true,
          "Opt in to the Play stream feature observation-once (metadata "
          "pyramid-play-features): a DecisionRequest that would repeat the "
          "view of the DecisionResult just delivered leaves it out, and the "
          "seat takes its view from that result.");
ABSL_FLAG(bool, batch, true,
          "Opt in to the Play stream feature batch: the referee may send "
          "several messages as one PlayResponse.batch when more than one "
          "waits for a stream, and the client sends what it has to send at "
          "once as one PlayRequest.batch.");
ABSL_FLAG(int64_t, client_linger_us, 0,
          "Bot mode: how long a bot stream's message waits for others to "
          "join it in one write when nothing is queued or being written.");
ABSL_FLAG(int, think_ms, 0,
          "Paced bots: each seat waits a pseudo-random time in [0, think_ms] "
          "ms (uniform, from a generator seeded per seat) before each commit. "
          "0: flat out.");
ABSL_FLAG(int, verify_logs, 3,
          "Finished logs to verify with the replay verifier afterwards.");
ABSL_FLAG(int, max_seconds, 300,
          "Abort (and kill the server) if the whole run takes longer.");
ABSL_FLAG(std::string, tmp_dir, "",
          "Where the server's temporary data directory goes (default "
          "$TMPDIR or /tmp). It is removed at the end.");
ABSL_FLAG(bool, keep_data, false, "Keep the server's data directory.");
// Internal: the server side.
ABSL_FLAG(bool, serve, false, "Internal: run as the benchmark's server.");
ABSL_FLAG(std::string, serve_dir, "", "Internal: the server's data directory.");
ABSL_FLAG(std::string, attach_dir, "",
          "Profiling: use a server started by hand with `bench_load --serve "
          "--serve_dir=DIR` (same $PYRAMID_BENCH_ADMIN_TOKEN) instead of "
          "forking one.");
ABSL_FLAG(int, attach_pid, 0, "Profiling: the pid of that server.");
ABSL_FLAG(int, pause_at_barrier_ms, 0,
          "Profiling: pause this long with every match live, before the "
          "release.");

namespace pyramid::bench_load {
namespace {

namespace v1 = ::pyramid::referee::v1;
namespace bench = ::pyramid::bench::v1;

// The server's options from the referee flags above, its data in `dir`.
ServeOptions ServeOptionsFromFlags(const std::string& dir) {
  ServeOptions options;
  options.dir = dir;
  options.fsync = absl::GetFlag(FLAGS_fsync);
  options.sync_threads = absl::GetFlag(FLAGS_sync_threads);
  options.journal = absl::GetFlag(FLAGS_journal) &&
                    options.fsync == "checkpoints" && options.sync_threads > 0;
  options.registry = absl::GetFlag(FLAGS_registry);
  options.batch_linger_us = absl::GetFlag(FLAGS_batch_linger_us);
  options.play_queues = absl::GetFlag(FLAGS_play_queues);
  options.ack_hold_ms = absl::GetFlag(FLAGS_ack_hold_ms);
  options.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  return options;
}

std::string Kib(int64_t kib) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(kib) / 1024.0);
}

uint32_t Percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(p * static_cast<double>(sorted.size()));
  if (rank >= sorted.size()) rank = sorted.size() - 1;
  return sorted[rank];
}

std::string Ms(uint32_t us) { return absl::StrFormat("%.2f ms", us / 1000.0); }

void Row(const std::string& name, const std::string& value,
         const std::string& note = "") {
  std::cout << absl::StrFormat("  %-34s %-22s %s\n", name, value, note);
}

int Fail(const std::string& message) {
  std::cerr << "bench_load: " << message << "\n";
  return 1;
}

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

// One run of the client side: forks (or attaches to) the server, connects,
// plays the referee phase, then the raw echo phase on the same channels and
// threads, verifies a few logs and prints the report. Each phase is one
// method; what it measured stays in the members the report reads.
class ClientRun {
 public:
  // The exit code: 0 when the run completed cleanly. Never returns once the
  // server runs: Finish() exits the process.
  int Run() {
    if (absl::Status s = CheckFlags(); !s.ok()) {
      std::cerr << "bench_load: " << s.message() << "\n";
      return 2;
    }
    RaiseFileLimit();
    if (absl::Status s = StartServer(); !s.ok()) {
      Cleanup();
      return Fail(std::string(s.message()));
    }
    StartWatchdog();
    if (absl::Status s = Connect(); !s.ok()) {
      return Finish(Fail(std::string(s.message())));
    }
    RunRefereePhase();
    CollectLatencies();
    RunEchoPhase();
    // Every stream is finished unless the run failed (then the process
    // exits with the streams as they are).
    if (load_done_ && echo_done_) {
      for (auto& w : workers_) w->Shutdown();
    }
    VerifyLogs();
    ReportSetting();
    ReportReferee();
    ReportEcho();
    ReportMemory();
    ReportSummary();
    ReportKeyValues();
    const bool complete = load_done_ && AllEnded() && echo_done_ &&
                          (race_done_ || !run_echo_) && genuine_ == verified_ &&
                          load_->views_missing() == 0;
    if (!complete) {
      std::cerr << "bench_load: the run did not complete cleanly\n";
    }
    return Finish(complete ? 0 : 1);
  }

 private:
  // The flags whose values their parser cannot judge alone, checked before
  // anything starts: INVALID_ARGUMENT naming the flag, its value and what
  // it takes. Then whether the open-file limit takes --matches.
  absl::Status CheckFlags() {
    matches_ = absl::GetFlag(FLAGS_matches);
    threads_ = absl::GetFlag(FLAGS_threads);
    channels_ = absl::GetFlag(FLAGS_channels);
    fsync_ = absl::GetFlag(FLAGS_fsync);
    bots_ = absl::GetFlag(FLAGS_bots);
    // --NAME's `value` within [min, max] (no max: kNone), else why not;
    // `meaning` says what a value means ("" or " (0: ...)").
    constexpr int64_t kNone = -1;
    const auto within = [](const char* name, int64_t value, int64_t min,
                           int64_t max, const char* meaning = "") {
      if (value >= min && (max == kNone || value <= max)) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(
          max == kNone ? absl::StrCat("--", name, " is ", min, " or more",
                                      meaning, ", not ", value)
                       : absl::StrCat("--", name, " is ", min, " to ", max,
                                      meaning, ", not ", value));
    };
    const double echo_seconds = absl::GetFlag(FLAGS_echo_seconds);
    for (const absl::Status& s : {
             within("matches", matches_, 1, kNone),
             within("threads", threads_, 1, kNone),
             within("channels", channels_, 1, kNone),
             ParseFsyncPolicy(fsync_).status(),
             within("sync_threads", absl::GetFlag(FLAGS_sync_threads), 0, 1024,
                    " (0: sync inline)"),
             within("play_queues", absl::GetFlag(FLAGS_play_queues), 1, 64),
             within("bots", bots_, 0, 100, " (0: no bots)"),
             within("client_linger_us", absl::GetFlag(FLAGS_client_linger_us),
                    0, 1000000, " (0: no linger; 1000000: a second)"),
             within("think_ms", absl::GetFlag(FLAGS_think_ms), 0, kNone,
                    " (0: flat out)"),
             within("deadline_ms", absl::GetFlag(FLAGS_deadline_ms), 1, kNone),
             within("create_concurrency",
                    absl::GetFlag(FLAGS_create_concurrency), 1, kNone),
             within("ratio_rounds", absl::GetFlag(FLAGS_ratio_rounds), 1,
                    kNone),
             within("verify_logs", absl::GetFlag(FLAGS_verify_logs), 0, kNone),
             within("max_seconds", absl::GetFlag(FLAGS_max_seconds), 1, kNone),
             within("pause_at_barrier_ms",
                    absl::GetFlag(FLAGS_pause_at_barrier_ms), 0, kNone),
             within("attach_pid", absl::GetFlag(FLAGS_attach_pid), 0, kNone,
                    " (0: none)"),
         }) {
      if (!s.ok()) return s;
    }
    if (!std::isfinite(echo_seconds) || echo_seconds < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--echo_seconds is 0 (no echo phase) or more, not ",
                       absl::GetFlag(FLAGS_echo_seconds)));
    }
    if (const std::string attach_dir = absl::GetFlag(FLAGS_attach_dir);
        !attach_dir.empty()) {
      if (std::getenv(kAdminTokenEnv) == nullptr ||
          absl::GetFlag(FLAGS_attach_pid) <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--attach_dir needs --attach_pid and $", kAdminTokenEnv));
      }
    } else if (const std::string tmp_dir = absl::GetFlag(FLAGS_tmp_dir);
               !tmp_dir.empty()) {
      // The server's directory is made there: the place must be one.
      std::error_code error;
      if (!std::filesystem::is_directory(tmp_dir, error)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--tmp_dir=", tmp_dir, ": ",
                         error ? error.message() : "not a directory"));
      }
    }
    return CheckFileLimit();
  }

  // The server holds one open log per live match, besides its sockets and
  // databases: every match is live at once, so the open-file limit (which
  // the server, like this process, raises to its hard limit) must take
  // them all.
  absl::Status CheckFileLimit() const {
    rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return absl::OkStatus();
    const rlim_t needed = static_cast<rlim_t>(matches_) + kSpareFiles;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "--matches=%d needs %d open files in the server (a log per live "
          "match, plus %d), but the hard limit is %d (ulimit -Hn): raise it "
          "or run fewer matches",
          matches_, static_cast<int64_t>(needed), kSpareFiles,
          static_cast<int64_t>(limit.rlim_max)));
    }
    return absl::OkStatus();
  }
  static constexpr int kSpareFiles = 256;

  // Forks the server in a fresh temporary directory (or attaches to one
  // started by hand, with --attach_dir and --attach_pid), before this
  // process starts any thread or gRPC state.
  absl::Status StartServer() {
    const std::string attach_dir = absl::GetFlag(FLAGS_attach_dir);
    admin_token_ = MintToken().token;
    if (attach_dir.empty()) {
      std::string tmp_root = absl::GetFlag(FLAGS_tmp_dir);
      if (tmp_root.empty()) {
        const char* env = std::getenv("TMPDIR");
        tmp_root = env != nullptr && *env != '\0' ? env : "/tmp";
      }
      std::string dir_template = tmp_root + "/bench_load.XXXXXX";
      if (mkdtemp(dir_template.data()) == nullptr) {
        return absl::InternalError(
            absl::StrCat("cannot create a temporary directory under ", tmp_root,
                         ": ", std::strerror(errno)));
      }
      dir_ = dir_template;
      data_dir_ = dir_;
    } else {
      // Attached: nothing of ours to create or remove. Both are there
      // (CheckFlags).
      admin_token_ = std::getenv(kAdminTokenEnv);
      data_dir_ = attach_dir;
    }
    server_ = std::make_unique<ServerProcess>();
    absl::StatusOr<int> port =
        attach_dir.empty()
            ? server_->Start(ServeOptionsFromFlags(dir_), admin_token_)
            : server_->Attach(attach_dir, absl::GetFlag(FLAGS_attach_pid));
    if (!port.ok()) return port.status();
    port_ = *port;
    server_pid_ = server_->pid();
    return absl::OkStatus();
  }

  // Stops the server and removes its directory (unless --keep_data).
  void Cleanup() {
    if (server_ != nullptr) server_->Stop();
    RemoveData();
  }
  void RemoveData() const {
    if (!absl::GetFlag(FLAGS_keep_data) && !dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  // The run ends by itself, whatever happens: when the server dies, or
  // after --max_seconds.
  void StartWatchdog() {
    watchdog_ = std::thread([this] {
      const auto give_up =
          Clock::now() + std::chrono::seconds(absl::GetFlag(FLAGS_max_seconds));
      while (!done_.load()) {
        if (!server_->Alive()) {
          std::cerr << "bench_load: the server process died\n";
          RemoveData();
          _exit(3);
        }
        if (Clock::now() > give_up) {
          std::cerr << "bench_load: aborted after --max_seconds="
                    << absl::GetFlag(FLAGS_max_seconds) << "\n";
          if (absl::GetFlag(FLAGS_attach_dir).empty()) {
            kill(server_pid_, SIGKILL);
          }
          RemoveData();
          _exit(3);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }

  // Ends the run: stops the server, removes its directory and exits without
  // tearing down thousands of client streams object by object.
  int Finish(int code) {
    done_.store(true);
    watchdog_.join();
    Cleanup();
    std::cout << std::flush;
    std::cerr << std::flush;
    _exit(code);
    return code;
  }

  // --channels channels (one TCP connection each) with both services' stubs,
  // and --threads workers.
  absl::Status Connect() {
    const std::string target = absl::StrCat("127.0.0.1:", port_);
    for (int i = 0; i < channels_; ++i) {
      grpc::ChannelArguments args;
      // One TCP connection per channel: no sharing of subchannels.
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetInt("pyramid.bench_load.channel", i);
      auto channel = grpc::CreateCustomChannel(
          target, grpc::InsecureChannelCredentials(), args);
      if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                     std::chrono::seconds(10))) {
        return absl::UnavailableError("cannot connect to the server");
      }
      referee_stubs_.push_back(v1::Referee::NewStub(channel));
      echo_stubs_.push_back(bench::BenchEcho::NewStub(channel));
      channels_list_.push_back(std::move(channel));
    }
    for (int i = 0; i < threads_; ++i) {
      workers_.push_back(std::make_unique<Worker>(i));
      workers_.back()->Start();
    }
    return absl::OkStatus();
  }

  // Phase 1: every match created and every seat connected, then released
  // at once and played to the end.
  void RunRefereePhase() {
    baseline_ = ReadStatus(server_pid_);
    heap_baseline_ = server_->HeapKib();
    options_.matches = matches_;
    options_.deadline_ms = absl::GetFlag(FLAGS_deadline_ms);
    options_.create_concurrency =
        std::max(1, absl::GetFlag(FLAGS_create_concurrency));
    options_.bots = bots_;
    options_.think_ms = absl::GetFlag(FLAGS_think_ms);
    options_.client_linger_us = absl::GetFlag(FLAGS_client_linger_us);
    options_.observation_once = absl::GetFlag(FLAGS_observation_once);
    options_.batch = absl::GetFlag(FLAGS_batch);
    // The seats have until the run's time limit to connect; play starts
    // at the release, when every seat holds its seed decision.
    options_.seed_timeout_ms =
        static_cast<uint32_t>(1000 * absl::GetFlag(FLAGS_max_seconds));
    options_.admin_token = admin_token_;
    load_ = std::make_unique<LoadPhase>(options_, &referee_stubs_, &workers_);
    {
      RssSampler sampler(server_pid_, [&] { return server_->HeapKib(); });
      if (absl::Status s = load_->Begin(); !s.ok()) {
        Finish(Fail(std::string(s.message())));
      }
      double server_cpu0 = 0, client_cpu0 = 0;
      load_->OpenBarrier([&] {
        if (const int pause = absl::GetFlag(FLAGS_pause_at_barrier_ms);
            pause > 0) {
          std::cerr << "bench_load: every match live; pausing " << pause
                    << " ms\n";
          std::this_thread::sleep_for(std::chrono::milliseconds(pause));
        }
        at_release_ = ReadStatus(server_pid_);
        heap_release_ = server_->HeapKib();
        at_start_ = Take(workers_);
        server_cpu0 = CpuSeconds(server_pid_);
        client_cpu0 = SelfCpuSeconds();
      });
      load_done_ =
          load_->WaitDone(Clock::now() + std::chrono::seconds(
                                             absl::GetFlag(FLAGS_max_seconds)));
      at_end_ = Take(workers_);
      server_cpu_play_ = CpuSeconds(server_pid_) - server_cpu0;
      client_cpu_play_ = SelfCpuSeconds() - client_cpu0;
      load_peak_kib_ = sampler.peak_kib();
      heap_peak_ = sampler.peak_heap_kib();
    }
    after_load_ = ReadStatus(server_pid_);
    server_after_load_ = server_->Ask();
    heap_after_load_ = server_after_load_.heap_kib;
    SumErrors();
  }

  void SumErrors() {
    for (auto& w : workers_) {
      faults_ += w->stats().faults.load();
      timeouts_ += w->stats().timeouts.load();
      play_errors_ += w->stats().errors.load();
    }
    // Every Play message after the release (the set-up is not measured).
    load_messages_ = at_end_.messages() - at_start_.messages();
    load_wire_ = at_end_.wire - at_start_.wire;
    mean_bytes_ = at_end_.sized == 0 ? 64 : at_end_.bytes / at_end_.sized;
  }

  // Phase 2: the raw echo, same streams, same channels, same workers, as
  // many streams as seats, messages of the referee phase's mean size. The
  // race first (as many messages as the referee phase moved, released at
  // once: the ratio's baseline), then the steady window.
  void RunEchoPhase() {
    streams_ = kSeatsPerMatch * load_->created();
    echo_ = std::make_unique<EchoPhase>(std::max(streams_, 1), mean_bytes_,
                                        &echo_stubs_, &workers_);
    const double echo_seconds = absl::GetFlag(FLAGS_echo_seconds);
    run_echo_ = echo_seconds > 0;
    if (!run_echo_) return;
    echo_->Begin();
    echo_all_ = echo_->AllAnswered(Clock::now() + std::chrono::seconds(10));
    race_round_trips_ = std::max<int>(
        1,
        static_cast<int>(load_messages_ / (2.0 * std::max(streams_, 1)) + 0.5));
    race_done_ = RunRace(&race_);
    rounds_.push_back(Round{.referee_rate = LoadRate(),
                            .echo_rate = race_.Rate(),
                            .faults = faults_});
    for (int r = 1; race_done_ && r < absl::GetFlag(FLAGS_ratio_rounds); ++r) {
      Round round = RunRefereeRound();
      EchoRun race;
      race_done_ = RunRace(&race);
      round.echo_rate = race.Rate();
      rounds_.push_back(round);
    }
    echo_->Run();
    echo_->AllAnswered(Clock::now() + std::chrono::seconds(10));
    window_.Open(workers_, server_pid_);
    window_.begin = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(echo_seconds));
    window_.Close(workers_, server_pid_);
    window_.end = Clock::now();
    after_echo_ = ReadStatus(server_pid_);
    echo_->Stop();
    echo_done_ = echo_->WaitDone(Clock::now() + std::chrono::seconds(10));
  }

  // One echo race: every stream makes race_round_trips_ round trips.
  bool RunRace(EchoRun* race) {
    race->Open(workers_, server_pid_);
    race->begin = echo_->Race(race_round_trips_);
    const bool done = echo_->WaitRaced(
        Clock::now() + std::chrono::seconds(absl::GetFlag(FLAGS_max_seconds)));
    race->Close(workers_, server_pid_);
    race->end = echo_->race_end();
    return done;
  }

  // A further referee phase for the ratio: --matches more matches, set
  // up, released and played as the first were; its rate and its faults.
  Round RunRefereeRound() {
    auto phase =
        std::make_unique<LoadPhase>(options_, &referee_stubs_, &workers_);
    Round round;
    const uint64_t faults0 = SumFaults();
    if (absl::Status s = phase->Begin(); !s.ok()) {
      Finish(Fail(std::string(s.message())));
    }
    Snapshot start;
    phase->OpenBarrier([&] { start = Take(workers_); });
    if (!phase->WaitDone(Clock::now() + std::chrono::seconds(absl::GetFlag(
                                            FLAGS_max_seconds)))) {
      Finish(Fail("a further referee round did not finish"));
    }
    const Snapshot end = Take(workers_);
    const double play_s = Seconds(phase->last_end() - phase->release());
    round.referee_rate =
        play_s > 0 ? (end.messages() - start.messages()) / play_s : 0;
    round.faults = SumFaults() - faults0;
    extra_phases_.push_back(std::move(phase));
    return round;
  }

  uint64_t SumFaults() const {
    uint64_t faults = 0;
    for (const auto& w : workers_) faults += w->stats().faults.load();
    return faults;
  }

  void CollectLatencies() {
    for (auto& w : workers_) {
      std::lock_guard<std::mutex> lock(w->stats().latencies_mu);
      latencies_.insert(latencies_.end(), w->stats().latencies_us.begin(),
                        w->stats().latencies_us.end());
      last_ready_.insert(last_ready_.end(), w->stats().last_ready_us.begin(),
                         w->stats().last_ready_us.end());
      const auto& by_decision = w->stats().latencies_by_decision_us;
      if (latencies_by_decision_.size() < by_decision.size()) {
        latencies_by_decision_.resize(by_decision.size());
      }
      for (size_t d = 0; d < by_decision.size(); ++d) {
        latencies_by_decision_[d].insert(latencies_by_decision_[d].end(),
                                         by_decision[d].begin(),
                                         by_decision[d].end());
      }
    }
    std::sort(latencies_.begin(), latencies_.end());
    std::sort(last_ready_.begin(), last_ready_.end());
    for (std::vector<uint32_t>& samples : latencies_by_decision_) {
      std::sort(samples.begin(), samples.end());
    }
  }

  // A few logs through the verifier: the load must not corrupt anything.
  void VerifyLogs() {
    std::vector<std::string> ids = load_->match_ids();
    const int want =
        std::min<int>(absl::GetFlag(FLAGS_verify_logs), ids.size());
    for (int i = 0; i < want; ++i) {
      const std::string& id = ids[(static_cast<size_t>(i) * ids.size()) / want];
      absl::StatusOr<std::string> bytes = ReadFileToString(
          absl::StrCat(data_dir_, "/logs/rock_paper_pyramid-", id, ".pyrlog"));
      ++verified_;
      if (!bytes.ok()) continue;
      const Verdict verdict = VerifyLog(*bytes, VerifyOptions());
      if (verdict.kind == Verdict::Kind::kGenuine) ++genuine_;
    }
  }

  bool AllEnded() const {
    return load_->matches_ended() == load_->created() &&
           load_->created() == matches_;
  }
  double PlaySeconds() const {
    return Seconds(load_->last_end() - load_->release());
  }
  // Every move of every match applied (kMovesPerMatch each), with no
  // stream broken: a broken bot stream forfeits its seats without a
  // PlayError reaching the client, and its matches end early.
  bool PlayedThrough() const {
    return load_->stream_error_count() == 0 &&
           at_end_.moves - at_start_.moves ==
               static_cast<uint64_t>(kMovesPerMatch * matches_);
  }
  double MovesPerSecond() const {
    const double play_s = PlaySeconds();
    return play_s > 0 ? (at_end_.moves - at_start_.moves) / play_s : 0.0;
  }
  // Flat out, every seat always has a decision open, so by Little's law
  // the mean time from one of a seat's decisions to its next is the seats
  // over the seat-decisions completed per second (every move, and every
  // seat's seed contribution, played after the release too), whatever the
  // order the referee serves them in. A seat's decision latency is the
  // larger part of that cycle (the rest: the result reaching the seat and
  // its next request), so a p99 target far below it cannot be met at that
  // rate. 0 when nothing was played.
  double DecisionCycleMs() const {
    const double play_s = PlaySeconds();
    const double decisions =
        static_cast<double>(at_end_.moves - at_start_.moves) +
        kSeatsPerMatch * static_cast<double>(load_->created());
    if (play_s <= 0 || decisions <= 0) return 0.0;
    return 1000.0 * kSeatsPerMatch * load_->peak_live() / (decisions / play_s);
  }
  double MatchesPerSecond() const {
    const double play_s = PlaySeconds();
    return play_s > 0 ? load_->matches_ended() / play_s : 0.0;
  }
  double LoadRate() const {
    const double play_s = PlaySeconds();
    return play_s > 0 ? load_messages_ / play_s : 0;
  }
  // The race's rate: the baseline of the referee / echo ratio.
  double EchoRate() const { return race_done_ ? race_.Rate() : 0; }
  // Server memory per match, over the peak number live at once.
  double PerMatch(int64_t kib) const {
    const int live = load_->peak_live();
    return live > 0 ? static_cast<double>(kib) / live : 0.0;
  }
  double RssPerLiveKib() const {
    return PerMatch(std::max<int64_t>(0, load_peak_kib_ - baseline_.rss_kib));
  }
  // The RSS budget per live match: a stream per seat costs gRPC's own
  // per-stream state (about 13 KiB a seat); bot streams carry every seat.
  double RssTargetKib() const { return bots_ > 0 ? 16.0 : 64.0; }
  // The median of the rounds' ratios (the lower middle of an even count);
  // 0 unless every race finished.
  double EchoRatio() const {
    if (!race_done_ || rounds_.empty()) return 0;
    std::vector<double> ratios;
    for (const Round& round : rounds_) ratios.push_back(round.Ratio());
    std::sort(ratios.begin(), ratios.end());
    return ratios[(ratios.size() - 1) / 2];
  }
  bool Paced() const { return absl::GetFlag(FLAGS_think_ms) > 0; }
  // The decision latencies the p99 target is judged on: the referee's
  // share. Flat out, from the seat's readiness; paced, from the readiness
  // of the decision's last acting seat (from a seat's own readiness it
  // would hold the other seats' think time, which no referee can shorten).
  const std::vector<uint32_t>& JudgedLatencies() const {
    return Paced() ? last_ready_ : latencies_;
  }
  double P99Ms() const { return Percentile(JudgedLatencies(), 0.99) / 1000.0; }
  std::string P99Verdict() const {
    return JudgedLatencies().empty()
               ? "no decision completed: p99 target MISSED"
           : !PlayedThrough() ? "not every move was played: p99 target MISSED"
           : P99Ms() <= 500   ? "p99 target <= 500 ms: met"
                              : "p99 target <= 500 ms: MISSED";
  }

  void ReportSetting() const {
    std::cout << "bench_load: Rock, Paper, Pyramid! referee under load vs raw "
                 "gRPC echo (loopback, 2 processes)\n";
    std::cout << absl::StrFormat(
        "  server: pid %d, the real Lobby + RefereeService (+ the echo "
        "service) in one grpc::Server;\n          logs in a temporary "
        "directory on disk, --fsync=%s, a signed checkpoint every %u "
        "records\n",
        server_pid_, fsync_, absl::GetFlag(FLAGS_checkpoint_interval));
    std::cout << absl::StrFormat(
        "  client: this process, %d thread(s) (one completion queue each), %d "
        "channel(s) (one TCP connection each), async API; %u cores online\n",
        threads_, channels_, std::thread::hardware_concurrency());
    std::cout << absl::StrFormat(
        "  mode:   %s; think time %s; deadlines %d ms; observation-once "
        "%s; batch %s\n",
        bots_ > 0
            ? absl::StrFormat(
                  "bot mode, %d bot streams carry every seat%s", bots_,
                  options_.client_linger_us > 0
                      ? absl::StrFormat(
                            ", each lingering %d us to gather "
                            "its moves",
                            static_cast<int>(options_.client_linger_us))
                      : "")
            : std::string("one Play stream per seat, with its seat token"),
        absl::GetFlag(FLAGS_think_ms) > 0
            ? absl::StrFormat("uniform in [0, %d] ms per decision",
                              absl::GetFlag(FLAGS_think_ms))
            : std::string("none (flat out)"),
        options_.deadline_ms, options_.observation_once ? "on" : "off",
        options_.batch ? "on" : "off");
  }

  void ReportReferee() const {
    const int created = load_->created();
    std::cout << "\n  Referee phase\n";
    Row("matches", absl::StrCat(created, " of ", matches_),
        bots_ > 0 ? absl::StrCat(kSeatsPerMatch * created, " seats on ", bots_,
                                 " bot Play streams")
                  : absl::StrCat(kSeatsPerMatch * created,
                                 " Play streams, one per seat, each with its "
                                 "seat token"));
    Row("peak live", absl::StrCat(load_->peak_live()),
        "matches created and not yet ended at the same moment");
    Row("live at release", absl::StrCat(load_->live_at_release()),
        load_->barrier_complete()
            ? "every match created and every seat holding its seed decision "
              "before any seat played"
            : absl::StrCat("barrier gave up: ", load_->parked_at_release(),
                           " of ", kSeatsPerMatch * matches_,
                           " seats were ready"));
    Row("matches finished", absl::StrCat(load_->matches_ended()),
        AllEnded() ? "" : "NOT ALL MATCHES FINISHED");
    Row("set-up time",
        absl::StrFormat("%.2f s", Seconds(load_->release() - load_->begin())),
        "CreateMatch calls and streams, until all seats were ready");
    Row("play time", absl::StrFormat("%.2f s", PlaySeconds()),
        "measured: from the release of all seats to the last MatchEnded");
    Row("moves", absl::StrCat(at_end_.moves - at_start_.moves),
        absl::StrCat("applied RPP actions (acked reveals of decisions >= 1; ",
                     kMovesPerMatch,
                     " per match); seed contributions not counted"));
    Row("moves/s", absl::StrFormat("%.0f", MovesPerSecond()));
    ReportLatencies();
    ReportErrors();
    Row("messages", absl::StrCat(load_messages_),
        "client sent + received on the Play streams during the play");
    Row("messages/s (referee)", absl::StrFormat("%.0f", LoadRate()));
    Row("gRPC messages", absl::StrCat(load_wire_),
        absl::StrFormat("%.2f Play messages each (batch %s)",
                        load_wire_ == 0 ? 0.0
                                        : static_cast<double>(load_messages_) /
                                              static_cast<double>(load_wire_),
                        options_.batch ? "on" : "off"));
    Row("mean message size", absl::StrFormat("%zu bytes", mean_bytes_),
        "serialized, both directions (every 8th message measured)");
    Row("server CPU", absl::StrFormat("%.2f s", server_cpu_play_),
        absl::StrFormat("%.1f us per message (from the barrier release)",
                        PerMessageUs(server_cpu_play_, load_messages_)));
    Row("client CPU", absl::StrFormat("%.2f s", client_cpu_play_),
        absl::StrFormat("%.1f us per message",
                        PerMessageUs(client_cpu_play_, load_messages_)));
    Row("logs verified", absl::StrCat(genuine_, " of ", verified_, " genuine"),
        "replay verifier on finished logs");
  }

  void ReportErrors() const {
    Row("faults (PlayError faulted=true)", absl::StrCat(faults_),
        faults_ == 0 ? ""
                     : absl::StrCat("by decision: ", load_->FaultSummary()));
    Row("  of which timeouts", absl::StrCat(timeouts_),
        absl::StrCat("commit and reveal deadlines of ", options_.deadline_ms,
                     " ms"));
    Row("other PlayErrors", absl::StrCat(play_errors_));
    Row("stream errors", absl::StrCat(load_->stream_error_count()));
    Row("create failures", absl::StrCat(load_->create_failures()));
    Row("views taken from results", absl::StrCat(load_->views_from_results()),
        options_.observation_once
            ? absl::StrCat(
                  "observation-once; missing: ", load_->views_missing(),
                  load_->views_missing() == 0 ? "" : " (A BUG)")
            : "observation-once off (--observation_once=false)");
  }

  void ReportLatencies() const {
    Row("seat-decisions timed", absl::StrCat(latencies_.size()),
        "every seat's every decision, from the release (10 per seat)");
    Row("decision latency p50", Ms(Percentile(latencies_, 0.50)),
        "the referee's time, at the client, per seat: from the moment it");
    Row("decision latency p90", Ms(Percentile(latencies_, 0.90)),
        "  is ready to commit (DecisionRequest received and think time");
    Row("decision latency p99", Ms(Percentile(latencies_, 0.99)),
        "  over; seed decisions: the release) to the DecisionResult of");
    Row("decision latency max", Ms(latencies_.empty() ? 0 : latencies_.back()),
        "  that decision (the other seats' moves included)");
    Row("  from the last seat ready p50", Ms(Percentile(last_ready_, 0.50)),
        "the same, from the moment the decision's last acting seat was");
    Row("  from the last seat ready p99", Ms(Percentile(last_ready_, 0.99)),
        "  ready: without the other seats' think time");
    // Where in a match the slow decisions fall: e.g. those that follow
    // each match's first signed checkpoint, synced with --fsync=checkpoints.
    for (size_t d = 0; d < latencies_by_decision_.size(); ++d) {
      const std::vector<uint32_t>& samples = latencies_by_decision_[d];
      if (samples.empty()) continue;
      Row(absl::StrCat("  decision ", d, " p50 / p99"),
          absl::StrFormat("%.0f / %.0f ms", Percentile(samples, 0.50) / 1000.0,
                          Percentile(samples, 0.99) / 1000.0),
          d == 0 ? "by decision id (0: the seed decision), every seat's" : "");
    }
  }

  static double PerMessageUs(double cpu_seconds, uint64_t messages) {
    return messages ? 1e6 * cpu_seconds / messages : 0.0;
  }

  void ReportEcho() const {
    std::cout << "\n  Echo phase (same server process, channels and client "
                 "threads)\n";
    if (!run_echo_) {
      Row("skipped", "", "--echo_seconds=0");
      return;
    }
    Row("streams", absl::StrCat(streams_),
        echo_all_
            ? "as many as seats; request/response ping-pong"
            : absl::StrCat("only ", echo_->answered(), " answered at start"));
    Row("message size", absl::StrFormat("%zu bytes", echo_->message_bytes()),
        "the referee phase's mean");
    Row("race: round trips", absl::StrCat(race_round_trips_),
        "per stream, every stream released at once: the referee phase's "
        "message count");
    ReportEchoRun(race_, "from the release to the last stream's last answer");
    Row("  messages/s (echo)", absl::StrFormat("%.0f", EchoRate()),
        race_done_ ? "the ratio's baseline" : "NOT EVERY STREAM FINISHED");
    for (size_t r = 1; r < rounds_.size(); ++r) {
      Row(absl::StrCat("round ", r + 1, ": referee / race"),
          absl::StrFormat("%.0f / %.0f", rounds_[r].referee_rate,
                          rounds_[r].echo_rate),
          absl::StrCat("messages/s: ", matches_,
                       " more matches, then the race again; faults ",
                       rounds_[r].faults));
    }
    Row("steady window",
        absl::StrFormat("%.2f s", Seconds(window_.end - window_.begin)),
        "every stream running until stopped, after its first answer");
    ReportEchoRun(window_, "");
    Row("  messages/s (echo)", absl::StrFormat("%.0f", window_.Rate()),
        "the steady state: what raw gRPC allows at this many streams");
    Row("stream failures", absl::StrCat(echo_->failures()),
        echo_done_ ? "" : "not all echo streams finished");
  }

  static void ReportEchoRun(const EchoRun& run, const std::string& note) {
    const uint64_t messages = run.Messages();
    Row("  time", absl::StrFormat("%.2f s", Seconds(run.end - run.begin)),
        note);
    Row("  messages", absl::StrCat(messages), "client sent + received");
    Row("  server CPU", absl::StrFormat("%.2f s", run.server_cpu),
        absl::StrFormat("%.1f us per message",
                        PerMessageUs(run.server_cpu, messages)));
    Row("  client CPU", absl::StrFormat("%.2f s", run.client_cpu),
        absl::StrFormat("%.1f us per message",
                        PerMessageUs(run.client_cpu, messages)));
  }

  void ReportMemory() const {
    std::cout << "\n  Server memory (/proc/<pid>/status VmRSS; heap = "
              << AllocatorName() << "'s bytes in use)\n";
    Row("RSS baseline", Kib(baseline_.rss_kib),
        absl::StrFormat("server up, no match; heap %s", Kib(heap_baseline_)));
    Row("RSS all matches live", Kib(at_release_.rss_kib),
        absl::StrFormat("seats connected, seed decisions sent: +%.1f KiB per "
                        "live match (heap +%.1f)",
                        PerMatch(at_release_.rss_kib - baseline_.rss_kib),
                        PerMatch(heap_release_ - heap_baseline_)));
    Row("RSS peak (referee phase)", Kib(load_peak_kib_),
        absl::StrFormat("sampled every 20 ms; heap peak %s (every 1 s), "
                        "+%.1f KiB per live match",
                        Kib(heap_peak_),
                        PerMatch(heap_peak_ - heap_baseline_)));
    Row("VmHWM after referee phase", Kib(after_load_.hwm_kib));
    Row("heap after referee phase", Kib(heap_after_load_),
        absl::StrFormat("%.1f KiB per finished match, kept by the lobby",
                        PerMatch(heap_after_load_ - heap_baseline_)));
    if (run_echo_) Row("RSS after echo phase", Kib(after_echo_.rss_kib));
  }

  void ReportSummary() const {
    const double load_cpu = server_cpu_play_ + client_cpu_play_;
    const double echo_cpu = race_.server_cpu + race_.client_cpu;
    const uint64_t echo_messages = race_.Messages();
    const double cpu_ratio =
        load_cpu > 0 && echo_cpu > 0 && echo_messages > 0
            ? (load_messages_ / load_cpu) / (echo_messages / echo_cpu)
            : 0;
    std::cout << "\n  Summary\n";
    Row("peak live", absl::StrCat(load_->peak_live()),
        absl::StrCat("of --matches=", matches_, "; ",
                     load_->peak_live() == matches_ ? "all live at once"
                                                    : "NOT ALL LIVE AT ONCE"));
    Row("moves/s", absl::StrFormat("%.0f", MovesPerSecond()));
    Row("matches/s", absl::StrFormat("%.1f", MatchesPerSecond()),
        "matches played / play time");
    Row("decision latency p50 / p99",
        Ms(Percentile(latencies_, 0.50)) + " / " +
            Ms(Percentile(latencies_, 0.99)),
        Paced() ? "holds the other seats' think time" : P99Verdict());
    if (Paced()) {
      Row("  from the last seat ready",
          Ms(Percentile(last_ready_, 0.50)) + " / " +
              Ms(Percentile(last_ready_, 0.99)),
          "the referee's share: " + P99Verdict());
    } else if (const double cycle_ms = DecisionCycleMs(); cycle_ms > 0) {
      Row("  mean decision cycle", absl::StrFormat("%.0f ms", cycle_ms),
          "seats / seat-decisions per second (Little's law): what a seat's "
          "decision and the wait for its next take on average, in any order "
          "of service");
    }
    if (run_echo_) {
      std::vector<std::string> ratios;
      for (const Round& round : rounds_) {
        ratios.push_back(absl::StrFormat("%.3f", round.Ratio()));
      }
      Row("msgs/s referee / echo", absl::StrFormat("%.3f", EchoRatio()),
          absl::StrCat(rounds_.size() > 1 ? "the median of " : "",
                       absl::StrJoin(ratios, ", "),
                       EchoRatio() >= 0.8 ? "; target >= 0.8: met"
                                          : "; target >= 0.8: MISSED"));
      Row("  first pair per CPU-second", absl::StrFormat("%.3f", cpu_ratio),
          "messages per (server + client) CPU-second, referee / echo");
      Row("  first phase / steady window",
          absl::StrFormat(
              "%.3f", window_.Rate() > 0 ? LoadRate() / window_.Rate() : 0.0),
          "the echo without its ramp and tail");
      if (bots_ == 0) ReportEchoBounds();
    }
    Row("timeouts / faults", absl::StrCat(timeouts_, " / ", faults_),
        timeouts_ == 0 && faults_ == 0 ? "target 0: met" : "target 0: MISSED");
    Row("stream errors / moves",
        absl::StrCat(load_->stream_error_count(), " / ",
                     at_end_.moves - at_start_.moves),
        absl::StrCat(PlayedThrough() ? "" : "target ", "none broken and ",
                     kMovesPerMatch,
                     " per match: ", PlayedThrough() ? "met" : "MISSED"));
    Row("RSS per live match", absl::StrFormat("%.1f KiB", RssPerLiveKib()),
        absl::StrFormat("(peak - baseline) / %d peak live; target <= %.0f "
                        "KiB: %s",
                        load_->peak_live(), RssTargetKib(),
                        RssPerLiveKib() <= RssTargetKib() ? "met" : "MISSED"));
    Row("  all live, before play",
        absl::StrFormat("%.1f KiB",
                        PerMatch(at_release_.rss_kib - baseline_.rss_kib)),
        "(RSS all matches live - baseline) / peak live");
    ReportLateness();
    ReportErrorSamples();
  }

  // What raw gRPC allows at this many streams, from the echo phase, which
  // has a stream per seat in stream mode (a bot's batched stream has no
  // such twin). Raw gRPC would finish echo msgs/s / kMessagesPerSeatDecision
  // seat-decisions a second:
  //  - flat out every seat always has a decision open, so by Little's law
  //    no referee's mean decision latency could be below
  //    seats / (those seat-decisions a second);
  //  - for no deadline to pass, every seat must finish a decision per
  //    deadline at the least: seats x kMessagesPerSeatDecision / deadline
  //    messages a second.
  void ReportEchoBounds() const {
    const double seats = kSeatsPerMatch * load_->peak_live();
    const double echo_decisions = window_.Rate() / kMessagesPerSeatDecision;
    if (!Paced() && echo_decisions > 0) {
      const double floor_ms = 1000.0 * seats / echo_decisions;
      Row("  echo's latency floor", absl::StrFormat("%.0f ms", floor_ms),
          absl::StrFormat("mean at the echo's rate, flat out: p99 <= 500 ms %s",
                          floor_ms <= 500 ? "within raw gRPC's reach"
                                          : "beyond raw gRPC here"));
    }
    const double needed = seats * kMessagesPerSeatDecision * 1000.0 /
                          absl::GetFlag(FLAGS_deadline_ms);
    Row("  echo's rate / deadlines need",
        absl::StrFormat("%.0f / %.0f msgs/s", window_.Rate(), needed),
        window_.Rate() >= needed
            ? "a decision per seat per deadline within raw gRPC's reach"
            : "raw gRPC here cannot finish a decision per seat per "
              "deadline: 0 timeouts beyond reach");
  }

  // The server's deadline scheduler: how late it took its queue entries.
  void ReportLateness() const {
    const ServerProcess::Report& r = server_after_load_;
    const bool ok = r.lateness_count > 0 && r.lateness_p99_us <= 1000;
    Row("scheduler lateness p99 / max",
        absl::StrFormat("%.2f / %.2f ms", r.lateness_p99_us / 1000.0,
                        r.lateness_max_us / 1000.0),
        absl::StrFormat("%d deadline entries popped; p99 target <= 1 ms: %s",
                        r.lateness_count,
                        r.lateness_count == 0 ? "none popped"
                        : ok                  ? "met"
                                              : "MISSED"));
    // What the seats' messages waited for when a checkpoint's sync held
    // them (docs/durability.md, "Checkpoint syncs").
    Row("checkpoint syncs: wait / sync p99",
        absl::StrFormat("%.1f / %.1f ms", r.sync_wait_p99_us / 1000.0,
                        r.sync_p99_us / 1000.0),
        absl::StrFormat("%d on the pool since the server started; max %.1f "
                        "/ %.1f ms; at most %d queued",
                        r.syncs, r.sync_wait_max_us / 1000.0,
                        r.sync_max_us / 1000.0, r.syncs_max_queued));
    if (r.journal_commits > 0) {
      Row("journal: commits / fdatasyncs",
          absl::StrFormat("%d / %d", r.journal_commits, r.journal_syncs),
          absl::StrFormat("%.1f checkpoints per sync, at most %d",
                          static_cast<double>(r.journal_commits) /
                              std::max<int64_t>(r.journal_syncs, 1),
                          r.journal_largest_group));
    }
  }

  void ReportErrorSamples() const {
    for (const std::string& e : load_->create_errors()) {
      std::cout << "  create error: " << e << "\n";
    }
    for (const std::string& e : load_->play_errors()) {
      std::cout << "  play error: " << e << "\n";
    }
    for (const std::string& e : load_->stream_errors()) {
      std::cout << "  stream error: " << e << "\n";
    }
    if (absl::GetFlag(FLAGS_keep_data) && !dir_.empty()) {
      std::cout << "  server data kept in " << dir_ << "\n";
    }
  }

  // The last line of stdout, for scripts: see the header comment.
  void ReportKeyValues() const {
    std::cout << absl::StrFormat(
                     "peak_live=%d timeouts=%d p99_ms=%s echo_ratio=%s "
                     "rss_per_live_kib=%.1f stream_errors=%d",
                     load_->peak_live(), timeouts_,
                     JudgedLatencies().empty()
                         ? "-"
                         : absl::StrFormat("%.1f", P99Ms()),
                     run_echo_ ? absl::StrFormat("%.3f", EchoRatio()) : "-",
                     RssPerLiveKib(), load_->stream_error_count())
              << "\n"
              << std::flush;
  }

  // The command line.
  int matches_ = 0, threads_ = 0, channels_ = 0, bots_ = 0;
  std::string fsync_;
  // The server: its process, the directory we made for it (empty when
  // attached), where its data is, its port.
  std::unique_ptr<ServerProcess> server_;
  std::string dir_, data_dir_, admin_token_;
  int port_ = 0;
  pid_t server_pid_ = 0;
  std::atomic<bool> done_{false};
  std::thread watchdog_;
  // The client.
  std::vector<std::shared_ptr<grpc::Channel>> channels_list_;
  std::vector<std::unique_ptr<v1::Referee::Stub>> referee_stubs_;
  std::vector<std::unique_ptr<bench::BenchEcho::Stub>> echo_stubs_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // The referee phase.
  LoadPhase::Options options_;
  std::unique_ptr<LoadPhase> load_;
  bool load_done_ = false;
  ProcStatus baseline_, at_release_, after_load_;
  int64_t heap_baseline_ = 0, heap_release_ = 0, heap_after_load_ = 0;
  int64_t heap_peak_ = 0, load_peak_kib_ = 0;
  ServerProcess::Report server_after_load_;
  Snapshot at_start_, at_end_;
  double server_cpu_play_ = 0, client_cpu_play_ = 0;
  uint64_t faults_ = 0, timeouts_ = 0, play_errors_ = 0;
  uint64_t load_messages_ = 0;
  uint64_t load_wire_ = 0;  // The gRPC messages that carried them.
  size_t mean_bytes_ = 64;
  std::vector<uint32_t> latencies_;
  std::vector<uint32_t> last_ready_;
  std::vector<std::vector<uint32_t>> latencies_by_decision_;  // Sorted.

  int verified_ = 0, genuine_ = 0;
  // The echo phase.
  int streams_ = 0;
  std::unique_ptr<EchoPhase> echo_;
  bool run_echo_ = false, echo_all_ = false, echo_done_ = true;
  bool race_done_ = false;
  int race_round_trips_ = 0;
  EchoRun race_, window_;
  std::vector<Round> rounds_;  // The first phase's pair, then each round's.
  std::vector<std::unique_ptr<LoadPhase>> extra_phases_;
  ProcStatus after_echo_;
};

}  // namespace
}  // namespace pyramid::bench_load

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Load benchmark of the referee service: concurrent Rock, Paper, "
      "Pyramid! matches vs a raw gRPC echo baseline.");
  namespace bench_load = ::pyramid::bench_load;
  if (absl::GetFlag(FLAGS_serve)) {
    return bench_load::ServeMain(
        bench_load::ServeOptionsFromFlags(absl::GetFlag(FLAGS_serve_dir)));
  }
  // The server's allocator works as the referee's. The client's memory is
  // not what the run measures, and pages handed back and faulted in again
  // were 6.6% of its samples with a stream per seat at 10,000 matches.
  pyramid::KeepFreedPages();
  return bench_load::ClientRun().Run();
}
