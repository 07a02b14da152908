#include "tools/bench_load/server.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench_echo.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "referee/cli/allocator.h"
#include "referee/cli/program.h"
#include "referee/core/log_journal.h"
#include "referee/core/log_sink.h"
#include "referee/service/async_stream.h"
#include "referee/service/deadline_scheduler.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "referee/service/registry.h"

namespace pyramid::bench_load {
namespace {

namespace bench = ::pyramid::bench::v1;

// The echo baseline, served as the referee serves Play: streams on gRPC's
// async API (AsyncBidiStream) over as many completion queues, each message
// parsed and written back serialized, as typed gRPC code would.
class EchoService final : public bench::BenchEcho::Service {
 public:
  explicit EchoService(int queues) : queues_(queues) { MarkMethodRaw(kEcho); }
  void RegisterWith(grpc::ServerBuilder& builder) {
    builder.RegisterService(this);
    queues_.AddTo(builder);
  }
  void Start() {
    queues_.Start([this](grpc::ServerCompletionQueue* queue) {
      Wait(queue);
      Wait(queue);
    });
  }

 private:
  static constexpr int kEcho = 0;  // The service's only method.

  class Stream final : public AsyncBidiStream {
   private:
    void OnStart() override { StartRead(&in_); }
    void OnReadDone(bool ok) override {
      if (!ok) {  // The client is done.
        Finish(grpc::Status::OK);
        return;
      }
      bench::EchoMessage message;
      if (!grpc::SerializationTraits<bench::EchoMessage>::Deserialize(&in_,
                                                                      &message)
               .ok()) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "not an EchoMessage"));
        return;
      }
      out_ = SerializedMessage::Of(message);
      StartWrite(&out_);
    }
    void OnWriteDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
        return;
      }
      StartRead(&in_);
    }
    void OnDone() override { delete this; }

    grpc::ByteBuffer in_;
    SerializedMessage out_;
  };

  void Wait(grpc::ServerCompletionQueue* queue) {
    auto* stream = new Stream();
    stream->Request(
        [this](grpc::ServerContext* context, grpc::ByteBuffer* /*request*/,
               grpc::GenericServerAsyncReaderWriter* call,
               grpc::CompletionQueue* call_queue,
               grpc::ServerCompletionQueue* notification_queue, void* tag) {
          RequestAsyncBidiStreaming(kEcho, context, call, call_queue,
                                    notification_queue, tag);
        },
        &queues_, queue, [this, queue] { Wait(queue); });
  }

  CompletionQueues queues_;
};

// Writes `text` to `path` through a temporary file, so the client never
// reads half of it.
void WriteWhole(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, path);
}

// The server's lobby: logs in DIR/logs, the options' checkpoint interval,
// sync threads, journal (DIR/journal), registry (DIR/registry.sqlite3) and
// `fsync` policy; its public key is written to DIR/referee.key.pub.
LobbyOptions LobbyOptionsFor(const ServeOptions& serve, FsyncPolicy fsync,
                             const std::string& admin_token) {
  const std::filesystem::path dir = serve.dir;
  std::filesystem::create_directories(dir / "logs");
  LobbyOptions options;
  options.log_dir = (dir / "logs").string();
  options.admin_token = admin_token;
  options.checkpoint_interval = serve.checkpoint_interval;
  options.fsync = fsync;
  options.sync_threads = std::max(0, serve.sync_threads);
  options.ack_hold = absl::Milliseconds(serve.ack_hold_ms);
  if (serve.journal) {
    // As the referee binary: only checkpoint syncs on the pool use it.
    LogJournal::Options journal_options;
    journal_options.log_dir = options.log_dir;
    absl::StatusOr<std::unique_ptr<LogJournal>> journal =
        LogJournal::Open((dir / "journal").string(), journal_options);
    if (journal.ok()) {
      options.journal = *std::move(journal);
    } else {
      std::cerr << "bench_load --serve: " << journal.status() << "\n";
    }
  }
  if (serve.registry) {
    absl::StatusOr<std::unique_ptr<Registry>> registry =
        OpenSqliteRegistry((dir / "registry.sqlite3").string());
    if (registry.ok()) {
      options.registry = *std::move(registry);
    } else {
      std::cerr << "bench_load --serve: " << registry.status() << "\n";
    }
  }
  std::ofstream(dir / "referee.key.pub", std::ios::binary)
      << options.referee_key.public_key();
  return options;
}

}  // namespace

std::vector<std::string> ServeOptions::Args() const {
  return {"--serve",
          "--serve_dir=" + dir,
          "--fsync=" + fsync,
          absl::StrCat("--sync_threads=", sync_threads),
          absl::StrCat("--journal=", journal ? "true" : "false"),
          absl::StrCat("--registry=", registry ? "true" : "false"),
          absl::StrCat("--batch_linger_us=", batch_linger_us),
          absl::StrCat("--play_queues=", play_queues),
          absl::StrCat("--ack_hold_ms=", ack_hold_ms),
          absl::StrCat("--checkpoint_interval=", checkpoint_interval)};
}

int ServeMain(const ServeOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  RaiseFileLimit();
  const std::filesystem::path dir = options.dir;
  const char* admin = std::getenv(kAdminTokenEnv);
  const absl::StatusOr<FsyncPolicy> fsync = ParseFsyncPolicy(options.fsync);
  if (dir.empty() || admin == nullptr || !fsync.ok()) {
    std::cerr << "bench_load --serve: internal mode, started by bench_load\n";
    return 2;
  }
  Lobby lobby(LobbyOptionsFor(options, *fsync, admin));
  ServiceLimits limits;
  limits.batch_linger = absl::Microseconds(options.batch_linger_us);
  limits.play_queues = std::clamp(options.play_queues, 1, 64);
  RefereeService referee(&lobby, limits);
  EchoService echo(limits.play_queues);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.SetMaxReceiveMessageSize(1 << 20);  // As the referee binary.
  referee.RegisterWith(builder);
  echo.RegisterWith(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::cerr << "bench_load --serve: cannot listen\n";
    return 2;
  }
  referee.Start();
  echo.Start();
  WriteWhole(dir / "port", absl::StrCat(port, "\n"));
  // SIGUSR1: write the heap statistics (bytes in use and held, allocator.h),
  // the deadline scheduler's lateness (entries popped, max and p99 in
  // microseconds) and the checkpoint sync pool's figures (jobs, their wait
  // p99 and max, their sync p99 and max, the deepest queue; the journal's
  // commits, syncs and largest group) for the client
  // to read; SIGINT/SIGTERM: stop.
  int signal_number = 0;
  while (true) {
    sigwait(&signals, &signal_number);
    if (signal_number != SIGUSR1) break;
    const HeapBytes heap = CurrentHeap();
    const LatencyHistogram lateness = lobby.scheduler().lateness();
    const SyncPool::Stats syncs =
        lobby.sync_stats().value_or(SyncPool::Stats());
    const LogJournal::Stats journal =
        lobby.journal_stats().value_or(LogJournal::Stats());
    const auto us = [](absl::Duration d) {
      return absl::ToInt64Microseconds(d);
    };
    WriteWhole(
        dir / "heap",
        absl::StrCat(heap.in_use, " ", heap.held, " ", lateness.count, " ",
                     us(lateness.max), " ", us(lateness.Percentile(0.99)), " ",
                     syncs.waits.count, " ", us(syncs.waits.Percentile(0.99)),
                     " ", us(syncs.waits.max), " ",
                     us(syncs.syncs.Percentile(0.99)), " ", us(syncs.syncs.max),
                     " ", syncs.max_queued, " ", journal.commits, " ",
                     journal.syncs, " ", journal.largest_group, "\n"));
  }
  lobby.connections().CloseAll(grpc::StatusCode::UNAVAILABLE,
                               "the benchmark is over");
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  // Skip tearing down thousands of matches one by one.
  _exit(0);
}

}  // namespace pyramid::bench_load
