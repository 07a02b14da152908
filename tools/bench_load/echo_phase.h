// bench_load's echo phase, the baseline: as many raw gRPC streams as the
// referee phase had seats, over the same channels and client threads, each
// in request/response ping-pong with messages of the referee phase's mean
// size (tools/bench_load/bench_echo.proto), counted as the referee's are.
//
// Every stream opens and makes one round trip, then waits. Two measured
// runs follow, each released on every stream at once as the referee phase's
// seats are: Race(n), where every stream makes n round trips (the referee
// phase's message count, the baseline issue 18 names: the same client and
// message count, ramp and tail included), then Run(), the steady state until
// Stop().
#ifndef PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_
#define PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
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

  // Opens every stream; each makes one round trip and waits.
  void Begin();
  // Whether every stream has answered since it was last released (by
  // Begin, Race or Run), waiting until `deadline`.
  bool AllAnswered(Clock::time_point deadline) {
    return WaitUntil([&] { return answered_.load() >= streams_; }, deadline);
  }
  // Releases every waiting stream for `round_trips` round trips (after
  // which it waits again); returns the moment of the release. Call once
  // every stream waits (AllAnswered after Begin).
  Clock::time_point Race(int round_trips);
  // Whether every stream has finished its race (or failed), by `deadline`.
  bool WaitRaced(Clock::time_point deadline) {
    return WaitUntil(
        [&] { return raced_.load() + finished_.load() >= streams_; }, deadline);
  }
  // When the last stream to finish its race had its last answer.
  Clock::time_point race_end() const {
    return Clock::time_point(Clock::duration(race_end_ns_.load()));
  }
  // Releases every waiting stream until Stop.
  void Run() { Release(0); }
  // Closes every stream: a running one after its current round trip, a
  // waiting one at once.
  void Stop();
  bool WaitDone(Clock::time_point deadline) {
    return WaitUntil([&] { return finished_.load() >= streams_; }, deadline);
  }

  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  // Round trips per release; 0: until Stop.
  int round_trips() const { return round_trips_.load(); }
  void OnAnswered() { answered_.fetch_add(1); }
  void OnRaced(Clock::time_point at);
  void OnFinished(const grpc::Status& status) {
    if (!status.ok()) failures_.fetch_add(1);
    finished_.fetch_add(1);
  }
  int failures() const { return failures_.load(); }
  int answered() const { return answered_.load(); }
  size_t message_bytes() const { return message_.ByteSizeLong(); }

 private:
  // Sets the round trips and wakes every stream on its worker's thread.
  void Release(int round_trips);

  const int streams_;
  std::vector<std::unique_ptr<bench::v1::BenchEcho::Stub>>* const stubs_;
  std::vector<std::unique_ptr<Worker>>* const workers_;
  bench::v1::EchoMessage message_;
  std::vector<std::unique_ptr<EchoStream>> streams_list_;
  std::atomic<int> round_trips_{0};
  std::atomic<int> answered_{0};
  std::atomic<int> raced_{0};
  std::atomic<int64_t> race_end_ns_{0};
  std::atomic<int> finished_{0};
  std::atomic<int> failures_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_ECHO_PHASE_H_
