// bench_load: the referee service's load benchmark (a tool, not a test).
//
// Two processes on one machine, over loopback:
//   * the server: this binary re-executed with --serve. It hosts the real
//     referee service (Lobby + RefereeService, configured as the `referee`
//     binary configures them, writing real signed logs into a temporary
//     data directory on disk) and, in the same grpc::Server, a raw
//     bidirectional echo service (tools/bench_echo.proto), the baseline.
//     The echo service exists only here, never in the referee binary.
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
//     of its bot in every match, as a bot platform's API does.
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
//   * faults and timeouts: PlayErrors with faulted=true (target: none);
//   * messages: every message the client sent or received on the Play
//     streams, per second of play (release to the last MatchEnded).
// Server memory comes from /proc/<pid>/status (VmRSS) and from the server's
// own mallinfo2 (heap bytes in use, asked for with SIGUSR1): at the start,
// with every match live just before the release, and the peak during play.
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
// ping-pong with messages of the referee phase's mean serialized size, for
// --echo_seconds; messages are counted the same way. The ratio is referee
// messages/s over echo messages/s. Both processes share the machine's
// cores, so the wall clock ratio moves with whatever else runs; the ratio of
// messages per CPU second (server + client) is printed too and is what a
// dedicated, CPU-bound machine would show. In stream mode, whose echo
// phase has a stream per seat, the report also says what raw gRPC itself
// allows at that many streams: the mean decision latency flat out (Little's
// law at the echo's rate) and whether the echo moves as many messages as
// every seat needs to finish a decision per deadline.
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
//              [--echo_seconds=5] [--threads=2] [--channels=4]
//              [--fsync=checkpoints] [--deadline_ms=2000]
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench_echo.grpc.pb.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/program.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/service/deadline_scheduler.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "referee/service/token.h"
#include "replay/verifier.h"

ABSL_FLAG(int, matches, 1000, "Concurrent Rock, Paper, Pyramid! matches.");
ABSL_FLAG(double, echo_seconds, 5,
          "Length of the measured window of the echo baseline (0: skip the "
          "echo phase, e.g. when profiling the referee alone).");
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

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
namespace bench = ::pyramid::bench::v1;
using Clock = std::chrono::steady_clock;

constexpr char kAdminTokenEnv[] = "PYRAMID_BENCH_ADMIN_TOKEN";
// A Rock, Paper, Pyramid! match as this benchmark plays it: 3 seats, each
// acting in its 9 decisions after the seed decision.
constexpr int kSeatsPerMatch = 3;
constexpr int64_t kMovesPerMatch = 27;
// Play messages, both ways, for one seat's part in one decision on a stream
// of its own: DecisionRequest, CommitMove, its ack, RevealRequest, Reveal,
// its ack, DecisionResult (a played-through run measures 7.0 a seat-decision
// with MatchEnded and the rest included).
constexpr int kMessagesPerSeatDecision = 7;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// ---------------------------------------------------------------------------
// Server side (--serve).

class EchoService final : public bench::BenchEcho::CallbackService {
 public:
  grpc::ServerBidiReactor<bench::EchoMessage, bench::EchoMessage>* Echo(
      grpc::CallbackServerContext* context) override {
    return new Reactor();
  }

 private:
  class Reactor final
      : public grpc::ServerBidiReactor<bench::EchoMessage, bench::EchoMessage> {
   public:
    Reactor() { StartRead(&message_); }
    void OnReadDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status::OK);
        return;
      }
      StartWrite(&message_);
    }
    void OnWriteDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
        return;
      }
      StartRead(&message_);
    }
    void OnDone() override { delete this; }

   private:
    bench::EchoMessage message_;
  };
};

// Raises this process's open-file limit to its hard limit (a stream or
// connection per seat).
void RaiseFileLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Writes `text` to `path` through a temporary file, so the client never
// reads half of it.
void WriteWhole(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, path);
}

// The server's lobby: logs in DIR/logs, the flags' checkpoint interval,
// fsync policy and sync threads; its public key is written to
// DIR/referee.key.pub.
LobbyOptions ServerOptions(const std::filesystem::path& dir,
                           const std::string& admin_token) {
  std::filesystem::create_directories(dir / "logs");
  LobbyOptions options;
  options.log_dir = (dir / "logs").string();
  options.admin_token = admin_token;
  options.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  const std::string fsync = absl::GetFlag(FLAGS_fsync);
  options.fsync = fsync == "never"          ? FsyncPolicy::kNever
                  : fsync == "every_record" ? FsyncPolicy::kEveryRecord
                                            : FsyncPolicy::kCheckpoints;
  options.sync_threads = std::max(0, absl::GetFlag(FLAGS_sync_threads));
  std::ofstream(dir / "referee.key.pub", std::ios::binary)
      << options.referee_key.public_key();
  return options;
}

int ServeMain() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  RaiseFileLimit();
  const std::filesystem::path dir = absl::GetFlag(FLAGS_serve_dir);
  const char* admin = std::getenv(kAdminTokenEnv);
  if (dir.empty() || admin == nullptr) {
    std::cerr << "bench_load --serve: internal mode, started by bench_load\n";
    return 2;
  }
  Lobby lobby(ServerOptions(dir, admin));
  ServiceLimits limits;
  limits.batch_linger =
      absl::Microseconds(absl::GetFlag(FLAGS_batch_linger_us));
  limits.ack_hold = absl::Milliseconds(absl::GetFlag(FLAGS_ack_hold_ms));
  RefereeService referee(&lobby, limits);
  EchoService echo;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.SetMaxReceiveMessageSize(1 << 20);  // As the referee binary.
  builder.RegisterService(&referee);
  builder.RegisterService(&echo);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::cerr << "bench_load --serve: cannot listen\n";
    return 2;
  }
  WriteWhole(dir / "port", absl::StrCat(port, "\n"));
  // SIGUSR1: write the heap statistics (bytes malloc holds in use), the
  // deadline scheduler's lateness (entries popped, max and p99 in
  // microseconds) and the checkpoint sync pool's figures (jobs, their wait
  // p99 and max, their sync p99 and max, the deepest queue) for the client
  // to read; SIGINT/SIGTERM: stop.
  int signal_number = 0;
  while (true) {
    sigwait(&signals, &signal_number);
    if (signal_number != SIGUSR1) break;
    const struct mallinfo2 info = mallinfo2();
    const LatencyHistogram lateness = lobby.scheduler().lateness();
    const SyncPool::Stats syncs =
        lobby.sync_stats().value_or(SyncPool::Stats());
    const auto us = [](absl::Duration d) {
      return absl::ToInt64Microseconds(d);
    };
    WriteWhole(
        dir / "heap",
        absl::StrCat(info.uordblks + info.hblkhd, " ", info.arena + info.hblkhd,
                     " ", lateness.count, " ", us(lateness.max), " ",
                     us(lateness.Percentile(0.99)), " ", syncs.waits.count, " ",
                     us(syncs.waits.Percentile(0.99)), " ", us(syncs.waits.max),
                     " ", us(syncs.syncs.Percentile(0.99)), " ",
                     us(syncs.syncs.max), " ", syncs.max_queued, "\n"));
  }
  lobby.connections().CloseAll(grpc::StatusCode::UNAVAILABLE,
                               "the benchmark is over");
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  // Skip tearing down thousands of matches one by one.
  _exit(0);
}

// ---------------------------------------------------------------------------
// The server process as seen from the client.

struct ProcStatus {
  int64_t rss_kib = 0;  // VmRSS.
  int64_t hwm_kib = 0;  // VmHWM (peak resident set).
};

ProcStatus ReadStatus(pid_t pid) {
  ProcStatus status;
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      status.rss_kib = std::strtoll(line.c_str() + 6, nullptr, 10);
    } else if (line.rfind("VmHWM:", 0) == 0) {
      status.hwm_kib = std::strtoll(line.c_str() + 6, nullptr, 10);
    }
  }
  return status;
}

// User + system CPU seconds of a process.
double CpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {  // Field 3 is the state.
    if (i == 14 || i == 15) ticks += std::strtod(field.c_str(), nullptr);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double SelfCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

class ServerProcess {
 public:
  ~ServerProcess() { Stop(); }

  // Forks and re-executes this binary with --serve; returns its port.
  absl::StatusOr<int> Start(const std::string& dir,
                            const std::string& admin_token) {
    dir_ = dir;
    const std::vector<std::string> args = {
        "bench_load",
        "--serve",
        "--serve_dir=" + dir,
        "--fsync=" + absl::GetFlag(FLAGS_fsync),
        absl::StrCat("--sync_threads=", absl::GetFlag(FLAGS_sync_threads)),
        absl::StrCat("--batch_linger_us=",
                     absl::GetFlag(FLAGS_batch_linger_us)),
        absl::StrCat("--ack_hold_ms=", absl::GetFlag(FLAGS_ack_hold_ms)),
        absl::StrCat("--checkpoint_interval=",
                     absl::GetFlag(FLAGS_checkpoint_interval))};
    std::vector<char*> argv;
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    setenv(kAdminTokenEnv, admin_token.c_str(), 1);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) return absl::InternalError("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // Never outlive the benchmark.
      if (getppid() != parent) _exit(1);
      execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    unsetenv(kAdminTokenEnv);
    const std::filesystem::path port_file = std::filesystem::path(dir) / "port";
    const auto give_up = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < give_up) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return absl::InternalError("the server process exited at start");
      }
      std::ifstream in(port_file);
      int port = 0;
      if (in >> port && port > 0) return port;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return absl::DeadlineExceededError("the server did not start in 20 s");
  }

  // A server started by hand (`bench_load --serve --serve_dir=DIR`, e.g.
  // under a profiler); it is left running.
  absl::StatusOr<int> Attach(const std::string& dir, pid_t pid) {
    dir_ = dir;
    attached_pid_ = pid;
    std::ifstream in(std::filesystem::path(dir) / "port");
    int port = 0;
    if (in >> port && port > 0) return port;
    return absl::NotFoundError("no port file in --attach_dir");
  }

  pid_t pid() const { return attached_pid_ > 0 ? attached_pid_ : pid_; }

  // What the server reports on SIGUSR1 (ServeMain); heap_kib is -1 if the
  // server does not answer within a second.
  struct Report {
    int64_t heap_kib = -1;  // Bytes malloc hands out, in KiB.
    int64_t arena_kib = 0;
    // The deadline scheduler's lateness: entries popped, max, p99.
    int64_t lateness_count = 0, lateness_max_us = 0, lateness_p99_us = 0;
    // The checkpoint sync pool since the server started: jobs, how long
    // they waited for a thread and how long their fdatasync took (p99,
    // max), and the most jobs queued at once.
    int64_t syncs = 0, sync_wait_p99_us = 0, sync_wait_max_us = 0;
    int64_t sync_p99_us = 0, sync_max_us = 0, syncs_max_queued = 0;
  };
  Report Ask() {
    std::lock_guard<std::mutex> lock(heap_mu_);
    const std::filesystem::path file = std::filesystem::path(dir_) / "heap";
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
    kill(pid(), SIGUSR1);
    const auto give_up = Clock::now() + std::chrono::seconds(1);
    Report report;
    while (Clock::now() < give_up) {
      std::ifstream in(file);
      if (in >> report.heap_kib >> report.arena_kib >> report.lateness_count >>
          report.lateness_max_us >> report.lateness_p99_us >> report.syncs >>
          report.sync_wait_p99_us >> report.sync_wait_max_us >>
          report.sync_p99_us >> report.sync_max_us >> report.syncs_max_queued) {
        report.heap_kib /= 1024;
        report.arena_kib /= 1024;
        return report;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return Report();
  }
  int64_t HeapKib() { return Ask().heap_kib; }

  // Reaps the child if it exited. Call from one thread at a time.
  bool Alive() {
    if (attached_pid_ > 0) return kill(attached_pid_, 0) == 0;
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == 0) return true;
    pid_ = -1;
    return false;
  }

  // SIGTERM, then SIGKILL after 3 s; reaps the child.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    const auto give_up = Clock::now() + std::chrono::seconds(3);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > give_up) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
  }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  pid_t attached_pid_ = -1;
  std::mutex heap_mu_;
};

// Samples the server's RSS every few milliseconds, and its heap in use
// every second (mallinfo2 walks the whole heap under its locks: every
// 100 ms it took 10% of the server's CPU at 10,000 matches), while a phase
// runs.
class RssSampler {
 public:
  RssSampler(pid_t pid, std::function<int64_t()> heap_kib)
      : pid_(pid),
        heap_kib_(std::move(heap_kib)),
        thread_([this] { Loop(); }) {}
  ~RssSampler() {
    stop_ = true;
    thread_.join();
  }
  int64_t peak_kib() const { return peak_.load(); }
  int64_t peak_heap_kib() const { return peak_heap_.load(); }

 private:
  static void Max(std::atomic<int64_t>& peak, int64_t value) {
    int64_t old = peak.load();
    while (value > old && !peak.compare_exchange_weak(old, value)) {
    }
  }
  void Loop() {
    auto next_heap = Clock::now();
    while (!stop_) {
      Max(peak_, ReadStatus(pid_).rss_kib);
      if (Clock::now() >= next_heap) {
        Max(peak_heap_, heap_kib_());
        next_heap = Clock::now() + std::chrono::seconds(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const pid_t pid_;
  const std::function<int64_t()> heap_kib_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> peak_heap_{0};
  std::thread thread_;
};

// ---------------------------------------------------------------------------
// Client machinery: completion-queue workers and tagged handlers.

class Handler {
 public:
  virtual ~Handler() = default;
  virtual void OnEvent(int kind, bool ok) = 0;
  // What Worker::Defer put off: called once the worker has no event ready.
  virtual void OnIdle() {}
};

struct Tag {
  Handler* handler;
  int kind;
};

// Per-worker counters. Only the worker's thread writes them; other threads
// read the atomics for snapshots.
struct alignas(64) Stats {
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> received{0};
  // gRPC messages of the Play streams, both ways: a batch counts once.
  std::atomic<uint64_t> wire{0};
  // Serialized bytes of a sample of the messages (every 8th), both ways,
  // and how many messages were sampled.
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> sized{0};
  uint64_t sample_clock = 0;  // Worker thread only.
  std::atomic<uint64_t> moves{0};
  std::atomic<uint64_t> faults{0};
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> errors{0};  // PlayErrors that were not faults.
  std::mutex latencies_mu;          // Uncontended but for the final read.
  std::vector<uint32_t> latencies_us;
  std::vector<uint32_t> last_ready_us;   // From the last seat's readiness.
  uint64_t rng = 0x9e3779b97f4a7c15ULL;  // Worker thread only.

  // Whether to measure the size of this message (every 8th).
  bool Sample() { return (sample_clock++ & 7) == 0; }
  void Add(std::atomic<uint64_t>& counter, uint64_t n = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + n,
                  std::memory_order_relaxed);
  }
  uint64_t Next() {  // xorshift64*: choosing moves, not secrets.
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
  }
};

struct Snapshot {
  uint64_t sent = 0, received = 0, wire = 0, bytes = 0, sized = 0, moves = 0;
  uint64_t messages() const { return sent + received; }
};

// A client thread with its completion queue, and timers of its own (think
// times: a grpc::Alarm per decision cost the client as much CPU as the
// rest of its work).
class Worker {
 public:
  explicit Worker(int index) {
    stats_.rng += static_cast<uint64_t>(index) * 0x632be59bd9b4e019ULL;
  }
  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }
  void Shutdown() {
    cq_.Shutdown();
    if (thread_.joinable()) thread_.join();
  }
  grpc::CompletionQueue* cq() { return &cq_; }
  Stats& stats() { return stats_; }

  // `n` bytes from the system's CSPRNG (salts, seed contributions), taken
  // from a buffer refilled kRandomBuffer bytes at a time: one getrandom
  // call for a hundred salts instead of one each. Call only from this
  // worker's thread.
  std::string RandomBytes(size_t n) {
    if (random_.size() - random_used_ < n) {
      random_ = SystemRandomBytes(std::max(n, kRandomBuffer));
      random_used_ = 0;
    }
    std::string bytes = random_.substr(random_used_, n);
    random_used_ += n;
    return bytes;
  }

  // Calls `handler`'s OnIdle once this worker has handled every event that
  // is ready (or, when events keep coming, kMaxEventsBeforeIdle of them),
  // once however often it is deferred meanwhile: what a round of events
  // makes a stream send goes out together. Call only from this worker's
  // thread.
  void Defer(Handler* handler) {
    if (std::find(deferred_.begin(), deferred_.end(), handler) ==
        deferred_.end()) {
      deferred_.push_back(handler);
    }
  }

  // Delivers `tag` (ok = true) on this worker's thread once `delay_us`
  // microseconds have passed. Call only from this worker's thread.
  void After(int64_t delay_us, Tag* tag) {
    timers_.push({gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                               gpr_time_from_micros(delay_us, GPR_TIMESPAN)),
                  tag});
  }

 private:
  static constexpr size_t kRandomBuffer = 4096;
  std::string random_;
  size_t random_used_ = 0;

  struct Timer {
    gpr_timespec when;
    Tag* tag;
    bool operator>(const Timer& other) const {
      return gpr_time_cmp(when, other.when) > 0;
    }
  };

  static constexpr int kMaxEventsBeforeIdle = 64;

  static gpr_timespec CeilToMillisecond(gpr_timespec when) {
    constexpr int32_t kNanosPerMs = 1000000;
    const int32_t past = when.tv_nsec % kNanosPerMs;
    if (past == 0) return when;
    return gpr_time_add(when,
                        gpr_time_from_nanos(kNanosPerMs - past, GPR_TIMESPAN));
  }

  void Loop() {
    void* tag = nullptr;
    bool ok = false;
    int events = 0;  // Since the deferred handlers last ran.
    while (true) {
      // With work deferred, only look for an event that is ready. Timers
      // wake the thread on whole milliseconds, each wake-up firing every
      // timer due by then (a seat's think time may end up to 1 ms late):
      // thousands of seats thinking would otherwise cost a wake-up each.
      const gpr_timespec deadline =
          !deferred_.empty() ? gpr_inf_past(GPR_CLOCK_MONOTONIC)
          : timers_.empty()  ? gpr_inf_future(GPR_CLOCK_MONOTONIC)
                             : CeilToMillisecond(timers_.top().when);
      const auto status = cq_.AsyncNext(&tag, &ok, deadline);
      if (status == grpc::CompletionQueue::SHUTDOWN) return;
      if (status == grpc::CompletionQueue::GOT_EVENT) {
        Tag* t = static_cast<Tag*>(tag);
        t->handler->OnEvent(t->kind, ok);
        ++events;
      }
      const gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
      while (!timers_.empty() && gpr_time_cmp(timers_.top().when, now) <= 0) {
        Tag* due = timers_.top().tag;
        timers_.pop();
        due->handler->OnEvent(due->kind, true);
        ++events;
      }
      if (status == grpc::CompletionQueue::TIMEOUT ||
          events >= kMaxEventsBeforeIdle) {
        events = 0;
        for (Handler* handler : std::exchange(deferred_, {})) {
          handler->OnIdle();
        }
      }
    }
  }

  grpc::CompletionQueue cq_;
  std::thread thread_;
  Stats stats_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::vector<Handler*> deferred_;
};

Snapshot Take(const std::vector<std::unique_ptr<Worker>>& workers) {
  Snapshot s;
  for (const auto& w : workers) {
    s.sent += w->stats().sent.load(std::memory_order_relaxed);
    s.received += w->stats().received.load(std::memory_order_relaxed);
    s.wire += w->stats().wire.load(std::memory_order_relaxed);
    s.bytes += w->stats().bytes.load(std::memory_order_relaxed);
    s.sized += w->stats().sized.load(std::memory_order_relaxed);
    s.moves += w->stats().moves.load(std::memory_order_relaxed);
  }
  return s;
}

// Waits on a predicate with a deadline, polling (no lost wake-ups to reason
// about; the resolution is far below what is measured).
template <typename Pred>
bool WaitUntil(Pred pred, Clock::time_point deadline) {
  while (!pred()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return true;
}

// ---------------------------------------------------------------------------
// The referee phase.

class LoadPhase;
class PlayStream;

google::protobuf::ArenaOptions ArenaOptionsFor(char* block, size_t size) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = size;
  return options;
}

// splitmix64: seeds think times (not secrets).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// When the last acting seat of a match's decision was ready to commit, for
// the decision latency without the other seats' think time. Seats of one
// match may be on different threads. Two slots: a seat's result of decision
// d comes before its request of d + 1, so d + 2 cannot open before every
// seat has had its result of d.
class MatchTiming {
 public:
  void Ready(uint64_t decision, Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    Slot& slot = slots_[decision % 2];
    if (slot.decision != decision) {
      slot = {decision, now};
    } else {
      slot.last_ready = std::max(slot.last_ready, now);
    }
  }
  std::optional<Clock::time_point> LastReady(uint64_t decision) {
    std::lock_guard<std::mutex> lock(mu_);
    const Slot& slot = slots_[decision % 2];
    if (slot.decision != decision) return std::nullopt;
    return slot.last_ready;
  }

 private:
  struct Slot {
    uint64_t decision = ~uint64_t{0};
    Clock::time_point last_ready;
  };
  std::mutex mu_;
  Slot slots_[2];
};

// One seat of one match as the client plays it: commit-reveal, random legal
// moves. It belongs to the PlayStream that carries it and is touched only
// on that stream's worker thread.
struct SeatState final : public Handler {
  SeatState(PlayStream* stream, MatchTiming* timing,
            const std::string& match_id, uint32_t seat)
      : stream(stream),
        timing(timing),
        match_id(match_id),
        raw_match_id(FromHex(match_id).value_or("")),
        seat(seat),
        think_rng(Mix(std::hash<std::string>()(match_id) ^ seat)) {}
  void OnEvent(int kind, bool ok) override;  // Its think time is over.

  // A uniform pseudo-random wait in [0, max_us] microseconds.
  int64_t NextThinkUs(int64_t max_us) {
    think_rng = Mix(think_rng);
    return static_cast<int64_t>((think_rng >> 11) * 0x1.0p-53 *
                                static_cast<double>(max_us + 1));
  }

  PlayStream* const stream;
  MatchTiming* const timing;  // The phase's, for this match.
  const std::string match_id;
  const std::string raw_match_id;
  const uint32_t seat;
  uint64_t think_rng;
  // The move chosen for a decision, not yet sent: its commit, prepared as
  // the request arrives (the request itself, with its view and legal
  // actions, is not kept while the seat thinks).
  struct Move {
    uint64_t decision = 0;
    bool committed = false;    // The referee already holds the commitment.
    bool single_seat = false;  // Reveal right after the commit.
    std::string commitment;    // CommitMove.commitment.
  };
  // The move this seat holds back: parked until the release, or being
  // thought about.
  std::optional<Move> waiting;
  std::optional<uint64_t> last_decision;  // Duplicates are ignored.
  // A DecisionResult (with the seat's view) came since the last request.
  bool result_seen = false;
  bool ended = false;
  // The pending reveal.
  uint64_t reveal_decision = 0;
  bool reveal_pending = false;
  std::string salt;
  std::string action_bytes;
  // Latency of the open decision (only decisions taken after the release).
  uint64_t timed_decision = 0;
  std::optional<Clock::time_point> decision_start;
  Tag think_tag{this, 0};  // The end of its think time (Worker::After).
};

// One Play stream: a seat token's (one seat of one match) or a bot
// token's (every seat of that bot in every match; messages name the match
// and seat). Its seats are made as their first message arrives. All its
// events arrive on one worker's queue (one thread).
class PlayStream final : public Handler {
 public:
  enum Kind { kStart, kRead, kWrite, kWritesDone, kFinish, kRelease };

  // `seats`: how many seats the stream carries in all; it half-closes once
  // each of them has had its MatchEnded.
  // `features`: the Play stream features it opts into, comma-separated
  // (it handles "batch" and "observation-once").
  PlayStream(LoadPhase* phase, Worker* worker, const std::string& token,
             int seats, const std::string& features)
      : phase_(phase),
        worker_(worker),
        expected_seats_(seats),
        batch_(absl::StrContains(features, "batch")) {
    context_.AddMetadata("authorization", "Bearer " + token);
    if (!features.empty()) {
      context_.AddMetadata("pyramid-play-features", features);
    }
  }

  void Start(v1::Referee::Stub* stub) {
    stream_ = stub->PrepareAsyncPlay(&context_, worker_->cq());
    stream_->StartCall(&tags_[kStart]);
  }

  // Called by the phase once the barrier opens (from another thread): the
  // alarm brings the stream's own thread to play its parked seed decisions.
  void Release() {
    release_alarm_.Set(worker_->cq(), gpr_now(GPR_CLOCK_MONOTONIC),
                       &tags_[kRelease]);
  }

  void OnEvent(int kind, bool ok) override;
  // A seat's think time is over: it commits.
  void OnThought(SeatState& seat, bool ok);

 private:
  SeatState& SeatFor(const std::string& match_id, uint32_t seat);
  void OnRead();
  // A batch's messages one by one, or the message.
  void Handle(const v1::PlayResponse& response);
  void HandleOne(const v1::PlayResponse& response);
  // Handle() for each kind of message that needs more than a count.
  void OnDecision(SeatState& seat, const v1::DecisionRequest& decision);
  void OnRevealRequest(SeatState& seat, const v1::RevealRequest& r);
  void OnResult(SeatState& seat, const v1::DecisionResult& result);
  void OnEnded(SeatState& seat);
  void OnError(const v1::PlayError& error);
  // Chooses the seat's move for `request` (and its salt): the commit to send.
  SeatState::Move Choose(SeatState& seat, const v1::DecisionRequest& request);
  // Commits after the seat's think time (at once when --think_ms=0).
  void Think(SeatState& seat, SeatState::Move move);
  // Sends the commit (and a single-seat decision's reveal): the seat is
  // ready, and the decision is timed from here.
  void Decide(SeatState& seat, SeatState::Move move);
  // Reveals the move committed to last (salt and action, once).
  void SendReveal(SeatState& seat);
  // A message to send, as its fields: the PlayRequest is built when it is
  // written, on an arena (no heap message per request to make and free).
  struct Outgoing {
    enum Kind { kCommit, kReveal } kind;
    SeatState* seat;  // Lives as long as the stream.
    uint64_t decision;
    std::string first;   // The commitment, or the reveal's salt.
    std::string second;  // The reveal's action bytes.
    void Fill(v1::PlayRequest& request) const;
  };
  // Queues a message; it goes out once the worker has handled the events
  // that are ready (OnIdle), with whatever else they made this stream send.
  void Send(Outgoing message) {
    outbox_.push_back(std::move(message));
    worker_->Defer(this);
  }
  void OnIdle() override { Pump(); }
  void Pump();
  void MaybeFinish();

  LoadPhase* const phase_;
  Worker* const worker_;
  const int expected_seats_;
  const bool batch_;  // Writes several queued messages as one batch.
  Tag tags_[6] = {{this, kStart},      {this, kRead},   {this, kWrite},
                  {this, kWritesDone}, {this, kFinish}, {this, kRelease}};
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<v1::PlayRequest, v1::PlayResponse>>
      stream_;
  grpc::Alarm release_alarm_;
  // By match id: its seats on this stream (one, but for a bot that holds
  // several seats of a match).
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<SeatState>>>
      seats_;
  std::vector<SeatState*> parked_;  // Holding a decision until the release.
  int ended_seats_ = 0;
  // Each message is parsed into an arena that is reset after it is handled:
  // no malloc/free per sub-message (observations carry dozens). The client
  // stays cheap, so the referee is what the run measures. A bot's batch
  // stream reads many messages at once: its first block is larger.
  const size_t arena_bytes_ =
      batch_ && expected_seats_ > 1 ? size_t{256} << 10 : size_t{8} << 10;
  const std::unique_ptr<char[]> arena_block_{new char[arena_bytes_]};
  google::protobuf::Arena arena_{
      ArenaOptionsFor(arena_block_.get(), arena_bytes_)};
  v1::PlayResponse* response_ =
      google::protobuf::Arena::CreateMessage<v1::PlayResponse>(&arena_);
  // The write in flight's message, on its own arena, reset when the next
  // write is built (the one before is done by then).
  static constexpr size_t kWriteArenaBytes = 16 << 10;
  const std::unique_ptr<char[]> write_block_{new char[kWriteArenaBytes]};
  google::protobuf::Arena write_arena_{
      ArenaOptionsFor(write_block_.get(), kWriteArenaBytes)};
  std::deque<Outgoing> outbox_;
  bool started_ = false;
  bool writing_ = false;
  bool want_writes_done_ = false;
  bool writes_done_sent_ = false;
  bool writes_done_pending_ = false;
  bool read_closed_ = false;
  bool finish_called_ = false;
  grpc::Status status_;
};

void SeatState::OnEvent(int kind, bool ok) { stream->OnThought(*this, ok); }

class LoadPhase {
 public:
  struct Options {
    int matches = 0;
    int bots = 0;  // 0: a stream per seat.
    int deadline_ms = 0;
    uint32_t seed_timeout_ms = 0;
    int think_ms = 0;
    bool observation_once = false;
    bool batch = false;
    int create_concurrency = 0;
    std::string admin_token;
  };

  LoadPhase(Options options,
            std::vector<std::unique_ptr<v1::Referee::Stub>>* stubs,
            std::vector<std::unique_ptr<Worker>>* workers)
      : options_(std::move(options)), stubs_(stubs), workers_(workers) {}

  // Registers the bots and opens their streams (bot mode), then launches
  // the CreateMatch calls; in stream mode a match's seats open their
  // streams as it is created.
  absl::Status Begin();

  // Waits for the barrier (every seat holds its seed decision; or a match
  // ended, a call failed, or the seed decisions' deadline comes close) and
  // releases every seat. `at_barrier` runs just before the release.
  void OpenBarrier(const std::function<void()>& at_barrier);

  // Waits until every stream has finished, or `deadline`; false if not.
  bool WaitDone(Clock::time_point deadline) {
    WaitUntil(
        [&] {
          return finished_streams_.load() >= TotalStreams() ||
                 (failed_.load() && matches_ended_.load() >= created_.load());
        },
        deadline);
    return finished_streams_.load() >= TotalStreams();
  }

  bool released() const { return released_.load(std::memory_order_acquire); }

  // From streams (their worker threads).
  // A seat got its seed decision during set-up.
  void OnReady() { parked_.fetch_add(1); }
  // A DecisionRequest said its view is in the last result: `found` when a
  // result with a view had come just before, as observation-once promises.
  void OnViewFromResult(bool found) {
    views_from_results_.fetch_add(1);
    if (!found) views_missing_.fetch_add(1);
  }
  void OnMatchEnded(const std::string& match_id);
  // The match's timing (made on first use; lives as long as the phase).
  MatchTiming* TimingFor(const std::string& match_id) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<MatchTiming>& timing = timings_[match_id];
    if (timing == nullptr) timing = std::make_unique<MatchTiming>();
    return timing.get();
  }
  void OnStreamFinished(const grpc::Status& status);
  void NotePlayError(const v1::PlayError& error);

  // Results.
  int TotalStreams() const {
    return options_.bots > 0 ? options_.bots
                             : kSeatsPerMatch * options_.matches;
  }
  Clock::time_point begin() const { return begin_; }
  Clock::time_point release() const {
    return Clock::time_point(Clock::duration(release_ns_.load()));
  }
  Clock::time_point last_end() const {
    return Clock::time_point(Clock::duration(last_end_ns_.load()));
  }
  int created() const { return created_.load(); }
  int matches_ended() const { return matches_ended_.load(); }
  int peak_live() const { return peak_live_.load(); }
  int64_t views_from_results() const { return views_from_results_.load(); }
  int64_t views_missing() const { return views_missing_.load(); }
  int live_at_release() const { return live_at_release_; }
  int parked_at_release() const { return parked_at_release_; }
  bool barrier_complete() const { return barrier_complete_; }
  int create_failures() const { return create_failures_.load(); }
  std::vector<std::string> create_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return create_errors_;
  }
  std::vector<std::string> play_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return play_errors_;
  }
  std::vector<std::string> stream_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_errors_;
  }
  int stream_error_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_error_count_;
  }
  std::vector<std::string> match_ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return match_ids_;
  }
  const Options& options() const { return options_; }
  // "decision:count ..." of the faults, and when the first came.
  std::string FaultSummary() const;

 private:
  class CreateCall;

  absl::Status RegisterBots();
  // The CreateMatch request of match `index`.
  v1::CreateMatchRequest CreateRequest(int index) const;
  void LaunchCreate();
  void OnCreated(int index, const grpc::Status& status,
                 const v1::CreateMatchResponse& response);
  void NoteCreateFailure(const grpc::Status& status);
  // Opens a stream for `token` carrying `seats` seats, on the worker and
  // channel of `index`.
  void OpenStream(int index, const std::string& token, int seats);

  const Options options_;
  std::vector<std::unique_ptr<v1::Referee::Stub>>* const stubs_;
  std::vector<std::unique_ptr<Worker>>* const workers_;

  std::mutex mu_;
  std::vector<std::unique_ptr<PlayStream>> streams_;
  std::vector<std::string> bot_ids_;  // Bot mode.
  std::vector<std::string> match_ids_;
  // Seats that had MatchEnded, by match (the first one ends the match).
  absl::flat_hash_map<std::string, int> ended_seats_;
  absl::flat_hash_map<std::string, std::unique_ptr<MatchTiming>> timings_;
  std::vector<std::string> create_errors_;
  std::vector<std::string> play_errors_;
  std::vector<std::string> stream_errors_;
  int stream_error_count_ = 0;

  std::atomic<int> next_create_{0};
  std::atomic<int> created_{0};
  std::atomic<int> live_{0};
  std::atomic<int> peak_live_{0};
  std::atomic<int> create_failures_{0};
  std::atomic<bool> failed_{false};
  std::atomic<int> matches_ended_{0};
  std::atomic<int> parked_{0};
  std::atomic<int64_t> views_from_results_{0};
  std::atomic<int64_t> views_missing_{0};
  std::atomic<int> finished_streams_{0};
  std::atomic<int64_t> first_created_{0};
  std::atomic<int64_t> last_end_ns_{0};
  std::atomic<int> fault_decisions_[16] = {};
  std::atomic<int64_t> first_fault_ms_{-1};  // After the release.
  std::atomic<bool> released_{false};
  std::atomic<int64_t> release_ns_{0};
  Clock::time_point begin_;
  int live_at_release_ = 0;
  int parked_at_release_ = 0;
  bool barrier_complete_ = false;
};

class LoadPhase::CreateCall final : public Handler {
 public:
  CreateCall(LoadPhase* phase, int index, Worker* worker,
             v1::Referee::Stub* stub)
      : phase_(phase), index_(index) {
    context_.AddMetadata("authorization",
                         "Bearer " + phase->options_.admin_token);
    reader_ = stub->AsyncCreateMatch(&context_, phase->CreateRequest(index),
                                     worker->cq());
    reader_->Finish(&response_, &status_, &tag_);
  }
  void OnEvent(int kind, bool ok) override {
    phase_->OnCreated(
        index_,
        ok ? status_ : grpc::Status(grpc::StatusCode::UNKNOWN, "call failed"),
        response_);
    delete this;
  }

 private:
  LoadPhase* const phase_;
  const int index_;
  Tag tag_{this, 0};
  grpc::ClientContext context_;
  v1::CreateMatchResponse response_;
  grpc::Status status_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateMatchResponse>>
      reader_;
};

absl::Status LoadPhase::Begin() {
  begin_ = Clock::now();
  if (options_.bots > 0) {
    if (absl::Status s = RegisterBots(); !s.ok()) return s;
  }
  const int n = std::min(options_.create_concurrency, options_.matches);
  for (int i = 0; i < n; ++i) LaunchCreate();
  return absl::OkStatus();
}

// Bot b plays global seat k = kSeatsPerMatch * match + seat when k % bots == b.
absl::Status LoadPhase::RegisterBots() {
  const int bots = options_.bots;
  const int seats = kSeatsPerMatch * options_.matches;
  for (int b = 0; b < bots; ++b) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + options_.admin_token);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    v1::RegisterBotRequest request;
    request.set_name(absl::StrCat("bench-bot-", b));
    v1::RegisterBotResponse response;
    const grpc::Status status = (*stubs_)[b % stubs_->size()]->RegisterBot(
        &context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("RegisterBot: ", status.error_message()));
    }
    bot_ids_.push_back(response.bot_id());
    OpenStream(b, response.bot_token(), seats / bots + (b < seats % bots));
  }
  return absl::OkStatus();
}

void LoadPhase::OpenStream(int index, const std::string& token, int seats) {
  Worker* worker = (*workers_)[index % workers_->size()].get();
  PlayStream* stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> features;
    if (options_.observation_once) features.push_back("observation-once");
    if (options_.batch) features.push_back("batch");
    streams_.push_back(std::make_unique<PlayStream>(
        this, worker, token, seats, absl::StrJoin(features, ",")));
    stream = streams_.back().get();
  }
  stream->Start((*stubs_)[index % stubs_->size()].get());
}

v1::CreateMatchRequest LoadPhase::CreateRequest(int index) const {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int s = 0; s < kSeatsPerMatch; ++s) {
    v1::SeatSpec* seat = request.add_seats();
    if (options_.bots > 0) {
      seat->set_bot_id(bot_ids_[(kSeatsPerMatch * index + s) % options_.bots]);
    }
  }
  v1::ClockSettings* clocks = request.mutable_clocks();
  clocks->set_commit_timeout_ms(options_.deadline_ms);
  clocks->set_reveal_timeout_ms(options_.deadline_ms);
  // The time every seat has to connect before play starts.
  clocks->set_seed_timeout_ms(options_.seed_timeout_ms);
  request.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
  return request;
}

void LoadPhase::LaunchCreate() {
  const int index = next_create_.fetch_add(1);
  if (index >= options_.matches) return;
  Worker* worker = (*workers_)[index % workers_->size()].get();
  new CreateCall(this, index, worker, (*stubs_)[index % stubs_->size()].get());
}

void LoadPhase::NoteCreateFailure(const grpc::Status& status) {
  create_failures_.fetch_add(1);
  failed_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  if (create_errors_.size() < 5) {
    create_errors_.push_back(
        absl::StrCat(status.error_code(), ": ", status.error_message()));
  }
}

void LoadPhase::OnCreated(int index, const grpc::Status& status,
                          const v1::CreateMatchResponse& response) {
  if (!status.ok() || response.seat_tokens_size() != kSeatsPerMatch) {
    NoteCreateFailure(status);
    return;
  }
  int64_t zero = 0;
  first_created_.compare_exchange_strong(
      zero, Clock::now().time_since_epoch().count());
  created_.fetch_add(1);
  const int live = live_.fetch_add(1) + 1;
  int peak = peak_live_.load();
  while (live > peak && !peak_live_.compare_exchange_weak(peak, live)) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    match_ids_.push_back(response.match_id());
  }
  LaunchCreate();
  if (options_.bots > 0) return;  // The bots' streams carry its seats.
  // Stream mode: the match's seats open their streams (its seed decision
  // waits for them, see seed_timeout_ms).
  for (int s = 0; s < kSeatsPerMatch; ++s) {
    OpenStream(kSeatsPerMatch * index + s, response.seat_tokens(s), 1);
  }
}

void LoadPhase::OpenBarrier(const std::function<void()>& at_barrier) {
  const int seats = kSeatsPerMatch * options_.matches;
  WaitUntil([&] { return first_created_.load() != 0 || failed_.load(); },
            Clock::now() + std::chrono::seconds(30));
  // Release while the seed decisions still have a deadline in hand.
  const auto first = Clock::time_point(Clock::duration(first_created_.load()));
  const auto give_up = first +
                       std::chrono::milliseconds(options_.seed_timeout_ms) -
                       std::chrono::milliseconds(options_.deadline_ms);
  WaitUntil(
      [&] {
        return parked_.load() >= seats || failed_.load() ||
               matches_ended_.load() > 0;
      },
      give_up);
  at_barrier();
  live_at_release_ = created_.load() - matches_ended_.load();
  parked_at_release_ = parked_.load();
  barrier_complete_ =
      parked_at_release_ >= seats && live_at_release_ == options_.matches;
  release_ns_.store(Clock::now().time_since_epoch().count());
  released_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& stream : streams_) stream->Release();
}

void LoadPhase::OnMatchEnded(const std::string& match_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (++ended_seats_[match_id] > 1) return;
  }
  live_.fetch_sub(1);
  matches_ended_.fetch_add(1);
  last_end_ns_.store(Clock::now().time_since_epoch().count());
}

void LoadPhase::OnStreamFinished(const grpc::Status& status) {
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stream_errors_.size() < 5) {
      stream_errors_.push_back(
          absl::StrCat(status.error_code(), ": ", status.error_message()));
    }
    ++stream_error_count_;
  }
  finished_streams_.fetch_add(1);
}

void LoadPhase::NotePlayError(const v1::PlayError& error) {
  if (error.faulted()) {
    fault_decisions_[std::min<uint64_t>(error.decision_id(), 15)].fetch_add(1);
    const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           Clock::now() - release())
                           .count();
    int64_t first = first_fault_ms_.load();
    while ((first < 0 || ms < first) &&
           !first_fault_ms_.compare_exchange_weak(first, ms)) {
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (play_errors_.size() < 5) {
    play_errors_.push_back(
        absl::StrCat("match ", error.match_id(), " seat ", error.seat(),
                     " decision ", error.decision_id(), ": ", error.message()));
  }
}

std::string LoadPhase::FaultSummary() const {
  std::string out;
  for (int d = 0; d < 16; ++d) {
    if (const int n = fault_decisions_[d].load(); n > 0) {
      absl::StrAppend(&out, out.empty() ? "" : " ", "d", d, d == 15 ? "+" : "",
                      ":", n);
    }
  }
  if (!out.empty()) {
    absl::StrAppend(&out, "; first ", first_fault_ms_.load(),
                    " ms after the release");
  }
  return out;
}

void PlayStream::OnEvent(int kind, bool ok) {
  switch (kind) {
    case kStart:
      if (!ok) {
        read_closed_ = true;
        MaybeFinish();
        return;
      }
      started_ = true;
      stream_->Read(response_, &tags_[kRead]);
      Pump();
      return;
    case kRead:
      if (!ok) {
        read_closed_ = true;
        MaybeFinish();
        return;
      }
      OnRead();
      return;
    case kWrite:
      writing_ = false;
      if (!ok) {
        outbox_.clear();
        want_writes_done_ = false;
        MaybeFinish();
        return;
      }
      Pump();
      return;
    case kWritesDone:
      writes_done_pending_ = false;
      MaybeFinish();
      return;
    case kFinish:
      phase_->OnStreamFinished(status_);
      return;
    case kRelease:
      for (SeatState* seat : parked_) {
        SeatState::Move move = std::move(*seat->waiting);
        seat->waiting.reset();
        Think(*seat, std::move(move));
      }
      parked_.clear();
      return;
  }
}

void PlayStream::OnRead() {
  Stats& stats = worker_->stats();
  stats.Add(stats.wire);
  Handle(*response_);
  arena_.Reset();
  response_ = google::protobuf::Arena::CreateMessage<v1::PlayResponse>(&arena_);
  stream_->Read(response_, &tags_[kRead]);
}

void PlayStream::Pump() {
  if (!started_ || writing_ || finish_called_) return;
  Stats& stats = worker_->stats();
  if (!outbox_.empty()) {
    // Up to kMaxBatch queued messages in one write, on a batch stream.
    constexpr size_t kMaxBatch = 256;
    const size_t n = batch_ ? std::min(outbox_.size(), kMaxBatch) : 1;
    write_arena_.Reset();  // The last write is done (writing_ is false).
    v1::PlayRequest* message =
        google::protobuf::Arena::CreateMessage<v1::PlayRequest>(&write_arena_);
    v1::PlayRequestBatch* batch = n == 1 ? nullptr : message->mutable_batch();
    stats.Add(stats.wire);
    for (size_t i = 0; i < n; ++i) {
      v1::PlayRequest& request = n == 1 ? *message : *batch->add_requests();
      outbox_[i].Fill(request);
      stats.Add(stats.sent);
      if (stats.Sample()) {
        stats.Add(stats.sized);
        stats.Add(stats.bytes, request.ByteSizeLong());
      }
    }
    outbox_.erase(outbox_.begin(), outbox_.begin() + n);
    writing_ = true;
    stream_->Write(*message, &tags_[kWrite]);
  } else if (want_writes_done_ && !writes_done_sent_) {
    writes_done_sent_ = true;
    writes_done_pending_ = true;
    stream_->WritesDone(&tags_[kWritesDone]);
  }
}

void PlayStream::MaybeFinish() {
  if (!read_closed_ || writing_ || writes_done_pending_ || finish_called_) {
    return;
  }
  finish_called_ = true;
  stream_->Finish(&status_, &tags_[kFinish]);
}

SeatState& PlayStream::SeatFor(const std::string& match_id, uint32_t seat) {
  std::vector<std::unique_ptr<SeatState>>& seats = seats_[match_id];
  for (const auto& s : seats) {
    if (s->seat == seat) return *s;
  }
  seats.push_back(std::make_unique<SeatState>(this, phase_->TimingFor(match_id),
                                              match_id, seat));
  return *seats.back();
}

void PlayStream::Handle(const v1::PlayResponse& response) {
  if (response.kind_case() != v1::PlayResponse::kBatch) {
    HandleOne(response);
    return;
  }
  for (const v1::PlayResponse& inner : response.batch().responses()) {
    HandleOne(inner);
  }
}

void PlayStream::HandleOne(const v1::PlayResponse& response) {
  Stats& stats = worker_->stats();
  stats.Add(stats.received);
  if (stats.Sample()) {
    stats.Add(stats.sized);
    stats.Add(stats.bytes, response.ByteSizeLong());
  }
  switch (response.kind_case()) {
    case v1::PlayResponse::kDecision: {
      const v1::DecisionRequest& d = response.decision();
      OnDecision(SeatFor(d.match_id(), d.seat()), d);
      return;
    }
    case v1::PlayResponse::kRevealRequest: {
      const v1::RevealRequest& r = response.reveal_request();
      OnRevealRequest(SeatFor(r.match_id(), r.seat()), r);
      return;
    }
    case v1::PlayResponse::kRevealAck:
      if (response.reveal_ack().decision_id() > 0) stats.Add(stats.moves);
      return;
    case v1::PlayResponse::kResult: {
      const v1::DecisionResult& r = response.result();
      OnResult(SeatFor(r.match_id(), r.seat()), r);
      return;
    }
    case v1::PlayResponse::kMatchEnded: {
      const v1::MatchEnded& e = response.match_ended();
      OnEnded(SeatFor(e.match_id(), e.seat()));
      return;
    }
    case v1::PlayResponse::kError:
      OnError(response.error());
      return;
    default:
      return;  // Commit acks need no answer.
  }
}

void PlayStream::OnDecision(SeatState& seat,
                            const v1::DecisionRequest& decision) {
  const uint64_t id = decision.decision_id();
  if (seat.last_decision == id) return;  // Sent again on (re)connection.
  seat.last_decision = id;
  // With observation-once the seat's view is the observation of the result
  // just delivered (a random player needs no view, but it must be there).
  if (decision.observation_in_result()) {
    phase_->OnViewFromResult(seat.result_seen);
  }
  seat.result_seen = false;
  if (!phase_->released()) {
    // Set-up: only seed decisions come; each waits for the release.
    if (id == 0) phase_->OnReady();
    seat.waiting = Choose(seat, decision);
    parked_.push_back(&seat);
    return;
  }
  Think(seat, Choose(seat, decision));
}

void PlayStream::Think(SeatState& seat, SeatState::Move move) {
  const int64_t think_ms = phase_->options().think_ms;
  if (think_ms <= 0) {
    Decide(seat, std::move(move));
    return;
  }
  seat.waiting = std::move(move);
  worker_->After(seat.NextThinkUs(1000 * think_ms), &seat.think_tag);
}

void PlayStream::OnThought(SeatState& seat, bool ok) {
  if (!ok || !seat.waiting) return;
  SeatState::Move move = std::move(*seat.waiting);
  seat.waiting.reset();
  Decide(seat, std::move(move));
}

void PlayStream::OnRevealRequest(SeatState& seat, const v1::RevealRequest& r) {
  if (!seat.reveal_pending || r.decision_id() != seat.reveal_decision) return;
  SendReveal(seat);
}

// The decision's latency, when it is the one being timed.
void PlayStream::OnResult(SeatState& seat, const v1::DecisionResult& result) {
  seat.result_seen = result.has_observation();
  if (!seat.decision_start || result.decision_id() != seat.timed_decision) {
    return;
  }
  const auto now = Clock::now();
  auto us = [now](Clock::time_point since) {
    return static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(now - since)
            .count());
  };
  const std::optional<Clock::time_point> last_ready =
      seat.timing->LastReady(result.decision_id());
  Stats& stats = worker_->stats();
  std::lock_guard<std::mutex> lock(stats.latencies_mu);
  stats.latencies_us.push_back(us(*seat.decision_start));
  if (last_ready) stats.last_ready_us.push_back(us(*last_ready));
  seat.decision_start.reset();
}

void PlayStream::OnEnded(SeatState& seat) {
  phase_->OnMatchEnded(seat.match_id);
  if (seat.ended) return;
  seat.ended = true;
  // A seat may still be thinking when its match ends (a seat of it
  // forfeited): it has nothing left to commit, and once every seat of the
  // stream has ended the stream is half-closed and takes no more writes.
  seat.waiting.reset();
  if (++ended_seats_ < expected_seats_) return;
  want_writes_done_ = true;
  Pump();
}

void PlayStream::OnError(const v1::PlayError& error) {
  Stats& stats = worker_->stats();
  if (error.faulted()) {
    stats.Add(stats.faults);
    if (error.message().find("TIMEOUT") != std::string::npos) {
      stats.Add(stats.timeouts);
    }
  } else {
    stats.Add(stats.errors);
  }
  phase_->NotePlayError(error);
}

SeatState::Move PlayStream::Choose(SeatState& seat,
                                   const v1::DecisionRequest& request) {
  SeatState::Move move;
  move.decision = request.decision_id();
  move.committed = request.committed();
  if (move.committed) return move;
  v1::Action action;
  if (request.decision_id() == 0) {
    action.mutable_seed()->set_contribution(
        worker_->RandomBytes(kSeedContributionSize));
  } else if (request.legal_actions_size() > 0) {
    Stats& stats = worker_->stats();
    action = request.legal_actions(
        static_cast<int>(stats.Next() % request.legal_actions_size()));
  }
  seat.salt = worker_->RandomBytes(kSaltSize);
  seat.action_bytes = action.SerializeAsString();
  seat.reveal_decision = request.decision_id();
  seat.reveal_pending = true;
  const Digest commitment =
      CommitmentHash(seat.raw_match_id, seat.seat, request.decision_id(),
                     seat.salt, seat.action_bytes);
  move.commitment = std::string(AsView(commitment));
  // A single-seat decision opens its reveal phase right after the commit.
  move.single_seat = request.acting_seats_size() == 1;
  return move;
}

// The decision is timed from here: the seat is ready to commit (its
// DecisionRequest received and its think time over).
void PlayStream::Decide(SeatState& seat, SeatState::Move move) {
  seat.decision_start = Clock::now();
  seat.timed_decision = move.decision;
  seat.timing->Ready(move.decision, *seat.decision_start);
  if (move.committed) return;
  Send(Outgoing{Outgoing::kCommit, &seat, move.decision,
                std::move(move.commitment), ""});
  if (move.single_seat) SendReveal(seat);
}

void PlayStream::SendReveal(SeatState& seat) {
  seat.reveal_pending = false;
  Send(Outgoing{Outgoing::kReveal, &seat, seat.reveal_decision,
                std::move(seat.salt), std::move(seat.action_bytes)});
}

void PlayStream::Outgoing::Fill(v1::PlayRequest& request) const {
  if (kind == kCommit) {
    v1::CommitMove* commit = request.mutable_commit();
    commit->set_match_id(seat->match_id);
    commit->set_seat(seat->seat);
    commit->set_decision_id(decision);
    commit->set_commitment(first);
  } else {
    v1::RevealMove* reveal = request.mutable_reveal();
    reveal->set_match_id(seat->match_id);
    reveal->set_seat(seat->seat);
    reveal->set_decision_id(decision);
    reveal->set_salt(first);
    reveal->set_action(second);
  }
}

// ---------------------------------------------------------------------------
// The echo phase.

class EchoPhase;

class EchoStream final : public Handler {
 public:
  enum Kind { kStart, kRead, kWrite, kWritesDone, kFinish };
  EchoStream(EchoPhase* phase, Worker* worker,
             const bench::EchoMessage* message)
      : phase_(phase), worker_(worker), message_(message) {}
  void Start(bench::BenchEcho::Stub* stub) {
    stream_ = stub->PrepareAsyncEcho(&context_, worker_->cq());
    stream_->StartCall(&tags_[kStart]);
  }
  void OnEvent(int kind, bool ok) override;

 private:
  EchoPhase* const phase_;
  Worker* const worker_;
  const bench::EchoMessage* const message_;
  Tag tags_[5] = {{this, kStart},
                  {this, kRead},
                  {this, kWrite},
                  {this, kWritesDone},
                  {this, kFinish}};
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<bench::EchoMessage, bench::EchoMessage>>
      stream_;
  bench::EchoMessage reply_;
  bool first_ = true;
  grpc::Status status_;
};

class EchoPhase {
 public:
  EchoPhase(int streams, size_t message_bytes,
            std::vector<std::unique_ptr<bench::BenchEcho::Stub>>* stubs,
            std::vector<std::unique_ptr<Worker>>* workers)
      : streams_(streams), stubs_(stubs), workers_(workers) {
    // An EchoMessage of `message_bytes` serialized bytes (tag + length +
    // payload), like the mean referee message.
    size_t payload = 0;
    if (message_bytes >= 2 + 128) {
      payload = message_bytes - 3;
    } else if (message_bytes > 2) {
      payload = message_bytes - 2;
    }
    message_.set_payload(std::string(payload, 'x'));
  }

  void Begin() {
    for (int i = 0; i < streams_; ++i) {
      Worker* worker = (*workers_)[i % workers_->size()].get();
      streams_list_.push_back(
          std::make_unique<EchoStream>(this, worker, &message_));
    }
    for (int i = 0; i < streams_; ++i) {
      streams_list_[i]->Start((*stubs_)[i % stubs_->size()].get());
    }
  }
  bool AllAnswered(Clock::time_point deadline) {
    return WaitUntil([&] { return answered_.load() >= streams_; }, deadline);
  }
  void Stop() { stop_.store(true); }
  bool WaitDone(Clock::time_point deadline) {
    return WaitUntil([&] { return finished_.load() >= streams_; }, deadline);
  }
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  void OnAnswered() { answered_.fetch_add(1); }
  void OnFinished(const grpc::Status& status) {
    if (!status.ok()) failures_.fetch_add(1);
    finished_.fetch_add(1);
  }
  int failures() const { return failures_.load(); }
  int answered() const { return answered_.load(); }
  size_t message_bytes() const { return message_.ByteSizeLong(); }

 private:
  const int streams_;
  std::vector<std::unique_ptr<bench::BenchEcho::Stub>>* const stubs_;
  std::vector<std::unique_ptr<Worker>>* const workers_;
  bench::EchoMessage message_;
  std::vector<std::unique_ptr<EchoStream>> streams_list_;
  std::atomic<int> answered_{0};
  std::atomic<int> finished_{0};
  std::atomic<int> failures_{0};
  std::atomic<bool> stop_{false};
};

void EchoStream::OnEvent(int kind, bool ok) {
  Stats& stats = worker_->stats();
  switch (kind) {
    case kStart:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stats.Add(stats.sent);
      stream_->Write(*message_, &tags_[kWrite]);
      return;
    case kWrite:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stream_->Read(&reply_, &tags_[kRead]);
      return;
    case kRead:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stats.Add(stats.received);
      if (first_) {
        first_ = false;
        phase_->OnAnswered();
      }
      if (phase_->stopping()) {
        stream_->WritesDone(&tags_[kWritesDone]);
        return;
      }
      stats.Add(stats.sent);
      stream_->Write(*message_, &tags_[kWrite]);
      return;
    case kWritesDone:
      stream_->Finish(&status_, &tags_[kFinish]);
      return;
    case kFinish:
      phase_->OnFinished(status_);
      return;
  }
}

// ---------------------------------------------------------------------------
// The driver.

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
      return Fail(std::string(s.message()));
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
    RunEchoPhase();
    // Every stream is finished unless the run failed (then the process
    // exits with the streams as they are).
    if (load_done_ && echo_done_) {
      for (auto& w : workers_) w->Shutdown();
    }
    CollectLatencies();
    VerifyLogs();
    ReportSetting();
    ReportReferee();
    ReportEcho();
    ReportMemory();
    ReportSummary();
    ReportKeyValues();
    const bool complete = load_done_ && AllEnded() && echo_done_ &&
                          genuine_ == verified_ && load_->views_missing() == 0;
    if (!complete) {
      std::cerr << "bench_load: the run did not complete cleanly\n";
    }
    return Finish(complete ? 0 : 1);
  }

 private:
  absl::Status CheckFlags() {
    matches_ = absl::GetFlag(FLAGS_matches);
    threads_ = absl::GetFlag(FLAGS_threads);
    channels_ = absl::GetFlag(FLAGS_channels);
    fsync_ = absl::GetFlag(FLAGS_fsync);
    if (matches_ < 1 || threads_ < 1 || channels_ < 1) {
      return absl::InvalidArgumentError(
          "--matches, --threads and --channels must be positive");
    }
    if (fsync_ != "never" && fsync_ != "checkpoints" &&
        fsync_ != "every_record") {
      return absl::InvalidArgumentError(
          "--fsync is never, checkpoints or every_record");
    }
    bots_ = absl::GetFlag(FLAGS_bots);
    if (bots_ < 0 || bots_ > 100) {
      return absl::InvalidArgumentError("--bots is 0 (no bots) to 100");
    }
    if (absl::GetFlag(FLAGS_think_ms) < 0 ||
        absl::GetFlag(FLAGS_deadline_ms) < 1 ||
        absl::GetFlag(FLAGS_max_seconds) < 1) {
      return absl::InvalidArgumentError(
          "--think_ms must not be negative; --deadline_ms and --max_seconds "
          "must be positive");
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
            "cannot create a temporary directory under " + tmp_root);
      }
      dir_ = dir_template;
      data_dir_ = dir_;
    } else {
      // Attached: nothing of ours to create or remove.
      const char* env = std::getenv(kAdminTokenEnv);
      if (env == nullptr || absl::GetFlag(FLAGS_attach_pid) <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--attach_dir needs --attach_pid and $", kAdminTokenEnv));
      }
      admin_token_ = env;
      data_dir_ = attach_dir;
    }
    server_ = std::make_unique<ServerProcess>();
    absl::StatusOr<int> port =
        attach_dir.empty()
            ? server_->Start(dir_, admin_token_)
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
  // many streams as seats, messages of the referee phase's mean size.
  void RunEchoPhase() {
    streams_ = kSeatsPerMatch * load_->created();
    echo_ = std::make_unique<EchoPhase>(std::max(streams_, 1), mean_bytes_,
                                        &echo_stubs_, &workers_);
    const double echo_seconds = absl::GetFlag(FLAGS_echo_seconds);
    run_echo_ = echo_seconds > 0;
    if (!run_echo_) return;
    echo_->Begin();
    echo_all_ = echo_->AllAnswered(Clock::now() + std::chrono::seconds(10));
    echo0_ = Take(workers_);
    const double server_cpu0 = CpuSeconds(server_pid_);
    const double client_cpu0 = SelfCpuSeconds();
    echo_begin_ = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(echo_seconds));
    echo1_ = Take(workers_);
    echo_end_ = Clock::now();
    echo_server_cpu_ = CpuSeconds(server_pid_) - server_cpu0;
    echo_client_cpu_ = SelfCpuSeconds() - client_cpu0;
    after_echo_ = ReadStatus(server_pid_);
    echo_->Stop();
    echo_done_ = echo_->WaitDone(Clock::now() + std::chrono::seconds(10));
  }

  void CollectLatencies() {
    for (auto& w : workers_) {
      std::lock_guard<std::mutex> lock(w->stats().latencies_mu);
      latencies_.insert(latencies_.end(), w->stats().latencies_us.begin(),
                        w->stats().latencies_us.end());
      last_ready_.insert(last_ready_.end(), w->stats().last_ready_us.begin(),
                         w->stats().last_ready_us.end());
    }
    std::sort(latencies_.begin(), latencies_.end());
    std::sort(last_ready_.begin(), last_ready_.end());
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
  double MatchesPerSecond() const {
    const double play_s = PlaySeconds();
    return play_s > 0 ? load_->matches_ended() / play_s : 0.0;
  }
  double LoadRate() const {
    const double play_s = PlaySeconds();
    return play_s > 0 ? load_messages_ / play_s : 0;
  }
  uint64_t EchoMessages() const {
    return echo1_.messages() - echo0_.messages();
  }
  double EchoRate() const {
    const double echo_s = Seconds(echo_end_ - echo_begin_);
    return echo_s > 0 ? EchoMessages() / echo_s : 0;
  }
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
  double EchoRatio() const {
    return EchoRate() > 0 ? LoadRate() / EchoRate() : 0;
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
            ? absl::StrFormat("bot mode, %d bot streams carry every seat",
                              bots_)
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
    const uint64_t echo_messages = EchoMessages();
    Row("streams", absl::StrCat(streams_),
        echo_all_
            ? "as many as seats; request/response ping-pong"
            : absl::StrCat("only ", echo_->answered(), " answered at start"));
    Row("message size", absl::StrFormat("%zu bytes", echo_->message_bytes()),
        "the referee phase's mean");
    Row("window", absl::StrFormat("%.2f s", Seconds(echo_end_ - echo_begin_)),
        "after every stream's first answer");
    Row("messages", absl::StrCat(echo_messages), "client sent + received");
    Row("messages/s (echo)", absl::StrFormat("%.0f", EchoRate()));
    Row("server CPU", absl::StrFormat("%.2f s", echo_server_cpu_),
        absl::StrFormat("%.1f us per message",
                        PerMessageUs(echo_server_cpu_, echo_messages)));
    Row("client CPU", absl::StrFormat("%.2f s", echo_client_cpu_),
        absl::StrFormat("%.1f us per message",
                        PerMessageUs(echo_client_cpu_, echo_messages)));
    Row("stream failures", absl::StrCat(echo_->failures()),
        echo_done_ ? "" : "not all echo streams finished");
  }

  void ReportMemory() const {
    std::cout << "\n  Server memory (/proc/<pid>/status VmRSS; heap = "
                 "mallinfo2 bytes in use)\n";
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
    const double echo_cpu = echo_server_cpu_ + echo_client_cpu_;
    const uint64_t echo_messages = EchoMessages();
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
    }
    if (run_echo_) {
      Row("msgs/s referee / echo", absl::StrFormat("%.3f", EchoRatio()),
          EchoRatio() >= 0.8 ? "target >= 0.8: met" : "target >= 0.8: MISSED");
      Row("  per CPU-second instead", absl::StrFormat("%.3f", cpu_ratio),
          "messages per (server + client) CPU-second, referee / echo");
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
    const double echo_decisions = EchoRate() / kMessagesPerSeatDecision;
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
        absl::StrFormat("%.0f / %.0f msgs/s", EchoRate(), needed),
        EchoRate() >= needed
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
  int verified_ = 0, genuine_ = 0;
  // The echo phase.
  int streams_ = 0;
  std::unique_ptr<EchoPhase> echo_;
  bool run_echo_ = false, echo_all_ = false, echo_done_ = true;
  Snapshot echo0_, echo1_;
  double echo_server_cpu_ = 0, echo_client_cpu_ = 0;
  Clock::time_point echo_begin_ = Clock::now(), echo_end_ = echo_begin_;
  ProcStatus after_echo_;
};

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "Load benchmark of the referee service: concurrent Rock, Paper, "
      "Pyramid! matches vs a raw gRPC echo baseline.");
  if (absl::GetFlag(FLAGS_serve)) return pyramid::ServeMain();
  return pyramid::ClientRun().Run();
}
