// bench_load's echo phase, the baseline: as many raw gRPC streams as the
// referee phase had seats, over the same channels and client threads, each
// in request/response ping-pong with messages of the referee phase's mean
// size (tools/bench_load/bench_echo.proto), counted as the referee's are.
#ifndef PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_
#define PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "bench_echo.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "tools/bench_load/client.h"

namespace pyramid::bench_load {

class EchoStream;

class EchoPhase {
 public:
  // `streams` streams over `stubs` and `workers` in turn, with messages of
  // `message_bytes` serialized bytes.
  EchoPhase(int streams, size_t message_bytes,
            std::vector<std::unique_ptr<bench::v1::BenchEcho::Stub>>* stubs,
            std::vector<std::unique_ptr<Worker>>* workers);
  ~EchoPhase();

  // Opens every stream; each starts its ping-pong at once.
  void Begin();
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
  std::vector<std::unique_ptr<bench::v1::BenchEcho::Stub>>* const stubs_;
  std::vector<std::unique_ptr<Worker>>* const workers_;
  bench::v1::EchoMessage message_;
  std::vector<std::unique_ptr<EchoStream>> streams_list_;
  std::atomic<int> answered_{0};
  std::atomic<int> finished_{0};
  std::atomic<int> failures_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_
