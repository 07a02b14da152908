// Fake referees whose GetLog misbehaves, for the tests of what downloads a
// log (referee/cli/log_fetch_test.cc, tools/tournament/referee_link_test.cc):
// BigLogReferee sends more bytes than a client takes; StalledLogReferee sends
// one chunk and then nothing. Every other rpc is the generated service's
// UNIMPLEMENTED. Register one with a grpc::ServerBuilder; it must outlive the
// server.
#ifndef PYRAMID_TESTS_FAKE_LOG_REFEREES_H_
#define PYRAMID_TESTS_FAKE_LOG_REFEREES_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"

namespace pyramid::svctest {

// GetLog sends `size` bytes of 'x' in chunks of 64 KiB, and ends OK (or
// sooner, when the reader goes).
class BigLogReferee final : public referee::v1::Referee::Service {
 public:
  explicit BigLogReferee(uint64_t size) : size_(size) {}

  grpc::Status GetLog(
      grpc::ServerContext* context, const referee::v1::GetLogRequest*,
      grpc::ServerWriter<referee::v1::LogChunk>* writer) override {
    referee::v1::LogChunk chunk;
    for (uint64_t sent = 0; sent < size_ && !context->IsCancelled();) {
      const uint64_t n = std::min<uint64_t>(size_ - sent, 64 << 10);
      chunk.set_data(std::string(n, 'x'));
      if (!writer->Write(chunk)) break;
      sent += n;
    }
    return grpc::Status::OK;
  }

 private:
  const uint64_t size_;
};

// GetLog sends one chunk ("PYRLOG"), then nothing until the reader goes.
class StalledLogReferee final : public referee::v1::Referee::Service {
 public:
  grpc::Status GetLog(
      grpc::ServerContext* context, const referee::v1::GetLogRequest*,
      grpc::ServerWriter<referee::v1::LogChunk>* writer) override {
    referee::v1::LogChunk chunk;
    chunk.set_data("PYRLOG");
    writer->Write(chunk);
    while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(10));
    return grpc::Status::OK;
  }
};

}  // namespace pyramid::svctest

#endif  // PYRAMID_TESTS_FAKE_LOG_REFEREES_H_
