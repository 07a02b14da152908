// bench_load: the referee service's load benchmark (a tool, not a test).
// This file is its command line and the run; the parts are beside it in
// tools/bench_load/: server (--serve), server_process (the server as the
// client sees it), client (worker threads), load_phase (the referee phase),
// play_stream (its Play streams), echo_phase (the baseline) and report (what
// the run measured, and the printed report).
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
#include "bench_echo.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/allocator.h"
#include "referee/cli/program.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/service/token.h"
#include "replay/verifier.h"
#include "tools/bench_load/client.h"
#include "tools/bench_load/echo_phase.h"
#include "tools/bench_load/load_phase.h"
#include "tools/bench_load/report.h"
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
ABSL_FLAG(uint32_t, checkpoint_interval, pyramid::kDefaultCheckpointInterval,
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

int Fail(const std::string& message) {
  std::cerr << "bench_load: " << message << "\n";
  return 1;
}

// One run of the client side: forks (or attaches to) the server, connects,
// plays the referee phase, then the raw echo phase on the same channels and
// threads, verifies a few logs and prints the report. Each phase is one
// method; what it measures goes into figures_, all the report (report.h)
// reads.
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
    if (figures_.load_done && figures_.echo_done) {
      for (auto& w : workers_) w->Shutdown();
    }
    VerifyLogs();
    Report();
    const bool complete =
        figures_.load_done && figures_.AllEnded() && figures_.echo_done &&
        (figures_.race_done || !figures_.run_echo) &&
        figures_.genuine == figures_.verified && load_->views_missing() == 0;
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
    num_channels_ = absl::GetFlag(FLAGS_channels);
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
             within("channels", num_channels_, 1, kNone),
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
    for (int i = 0; i < num_channels_; ++i) {
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
      channels_.push_back(std::move(channel));
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
    figures_.baseline = ReadStatus(server_pid_);
    figures_.heap_baseline = server_->HeapKib();
    load_options_.matches = matches_;
    load_options_.deadline_ms = absl::GetFlag(FLAGS_deadline_ms);
    load_options_.create_concurrency =
        std::max(1, absl::GetFlag(FLAGS_create_concurrency));
    load_options_.bots = bots_;
    load_options_.think_ms = absl::GetFlag(FLAGS_think_ms);
    load_options_.client_linger_us = absl::GetFlag(FLAGS_client_linger_us);
    load_options_.observation_once = absl::GetFlag(FLAGS_observation_once);
    load_options_.batch = absl::GetFlag(FLAGS_batch);
    // The seats have until the run's time limit to connect; play starts
    // at the release, when every seat holds its seed decision.
    load_options_.seed_timeout_ms =
        static_cast<uint32_t>(1000 * absl::GetFlag(FLAGS_max_seconds));
    load_options_.admin_token = admin_token_;
    load_ =
        std::make_unique<LoadPhase>(load_options_, &referee_stubs_, &workers_);
    figures_.load = load_.get();
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
        figures_.at_release = ReadStatus(server_pid_);
        figures_.heap_release = server_->HeapKib();
        figures_.at_start = Take(workers_);
        server_cpu0 = CpuSeconds(server_pid_);
        client_cpu0 = SelfCpuSeconds();
      });
      figures_.load_done =
          load_->WaitDone(Clock::now() + std::chrono::seconds(
                                             absl::GetFlag(FLAGS_max_seconds)));
      figures_.at_end = Take(workers_);
      figures_.server_cpu_play = CpuSeconds(server_pid_) - server_cpu0;
      figures_.client_cpu_play = SelfCpuSeconds() - client_cpu0;
      figures_.load_peak_kib = sampler.peak_kib();
      figures_.heap_peak = sampler.peak_heap_kib();
    }
    figures_.after_load = ReadStatus(server_pid_);
    figures_.server_after_load = server_->Ask();
    figures_.heap_after_load = figures_.server_after_load.heap_kib;
    SumErrors();
  }

  void SumErrors() {
    for (auto& w : workers_) {
      figures_.faults += w->stats().faults.load();
      figures_.timeouts += w->stats().timeouts.load();
      figures_.play_errors += w->stats().errors.load();
    }
    // Every Play message after the release (the set-up is not measured).
    figures_.load_messages =
        figures_.at_end.messages() - figures_.at_start.messages();
    figures_.load_wire = figures_.at_end.wire - figures_.at_start.wire;
    figures_.mean_bytes = figures_.at_end.sized == 0
                              ? 64
                              : figures_.at_end.bytes / figures_.at_end.sized;
  }

  // Phase 2: the raw echo, same streams, same channels, same workers, as
  // many streams as seats, messages of the referee phase's mean size. The
  // race first (as many messages as the referee phase moved, released at
  // once: the ratio's baseline), then the steady window.
  void RunEchoPhase() {
    figures_.echo_streams = kSeatsPerMatch * load_->created();
    echo_ = std::make_unique<EchoPhase>(std::max(figures_.echo_streams, 1),
                                        figures_.mean_bytes, &echo_stubs_,
                                        &workers_);
    figures_.echo = echo_.get();
    const double echo_seconds = absl::GetFlag(FLAGS_echo_seconds);
    figures_.run_echo = echo_seconds > 0;
    if (!figures_.run_echo) return;
    echo_->Begin();
    figures_.echo_all =
        echo_->AllAnswered(Clock::now() + std::chrono::seconds(10));
    figures_.race_round_trips = std::max<int>(
        1, static_cast<int>(figures_.load_messages /
                                (2.0 * std::max(figures_.echo_streams, 1)) +
                            0.5));
    figures_.race_done = RunRace(&figures_.race);
    figures_.rounds.push_back(Round{.referee_rate = figures_.LoadRate(),
                                    .echo_rate = figures_.race.Rate(),
                                    .faults = figures_.faults});
    for (int r = 1; figures_.race_done && r < absl::GetFlag(FLAGS_ratio_rounds);
         ++r) {
      Round round = RunRefereeRound();
      EchoRun race;
      figures_.race_done = RunRace(&race);
      round.echo_rate = race.Rate();
      figures_.rounds.push_back(round);
    }
    echo_->Run();
    echo_->AllAnswered(Clock::now() + std::chrono::seconds(10));
    figures_.window.Open(workers_, server_pid_);
    figures_.window.begin = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(echo_seconds));
    figures_.window.Close(workers_, server_pid_);
    figures_.window.end = Clock::now();
    figures_.after_echo = ReadStatus(server_pid_);
    echo_->Stop();
    figures_.echo_done =
        echo_->WaitDone(Clock::now() + std::chrono::seconds(10));
  }

  // One echo race: every stream makes figures_.race_round_trips round trips.
  bool RunRace(EchoRun* race) {
    race->Open(workers_, server_pid_);
    race->begin = echo_->Race(figures_.race_round_trips);
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
        std::make_unique<LoadPhase>(load_options_, &referee_stubs_, &workers_);
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
      figures_.latencies.insert(figures_.latencies.end(),
                                w->stats().latencies_us.begin(),
                                w->stats().latencies_us.end());
      figures_.last_ready.insert(figures_.last_ready.end(),
                                 w->stats().last_ready_us.begin(),
                                 w->stats().last_ready_us.end());
      const auto& by_decision = w->stats().latencies_by_decision_us;
      if (figures_.latencies_by_decision.size() < by_decision.size()) {
        figures_.latencies_by_decision.resize(by_decision.size());
      }
      for (size_t d = 0; d < by_decision.size(); ++d) {
        figures_.latencies_by_decision[d].insert(
            figures_.latencies_by_decision[d].end(), by_decision[d].begin(),
            by_decision[d].end());
      }
    }
    std::sort(figures_.latencies.begin(), figures_.latencies.end());
    std::sort(figures_.last_ready.begin(), figures_.last_ready.end());
    for (std::vector<uint32_t>& samples : figures_.latencies_by_decision) {
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
      absl::StatusOr<std::string> bytes = ReadFileToString(absl::StrCat(
          data_dir_, "/logs/", log_format::FileName("rock_paper_pyramid", id)));
      ++figures_.verified;
      if (!bytes.ok()) continue;
      const Verdict verdict = VerifyLog(*bytes, VerifyOptions());
      if (verdict.kind == Verdict::Kind::kGenuine) ++figures_.genuine;
    }
  }

  // The setting, beside what the run measured, and the report.
  void Report() {
    figures_.load_options = load_options_;
    figures_.threads = threads_;
    figures_.num_channels = num_channels_;
    figures_.fsync = fsync_;
    figures_.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
    figures_.server_pid = server_pid_;
    if (absl::GetFlag(FLAGS_keep_data)) figures_.kept_dir = dir_;
    PrintReport(figures_);
  }

  // The command line.
  int matches_ = 0, threads_ = 0, num_channels_ = 0, bots_ = 0;
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
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<v1::Referee::Stub>> referee_stubs_;
  std::vector<std::unique_ptr<bench::BenchEcho::Stub>> echo_stubs_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // The phases: the first referee phase, the echo phase and the further
  // referee phases of the ratio's rounds.
  LoadPhase::Options load_options_;
  std::unique_ptr<LoadPhase> load_;
  std::unique_ptr<EchoPhase> echo_;
  std::vector<std::unique_ptr<LoadPhase>> extra_phases_;
  // What the run measured, for the report.
  RunFigures figures_;
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
