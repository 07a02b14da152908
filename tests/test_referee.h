// The in-process referee the service tests start (tests/service_test.cc,
// tests/hidden_info_test.cc, tools/bot/play_client_test.cc): the embedded
// referee (referee/service/embedded_referee.h: a Lobby and RefereeService
// behind a real grpc::Server on a free 127.0.0.1 port, plaintext, health
// checking and reflection on), writing its logs into a fresh TempDir
// (tests/temp_dir.h), with a channel to it and a Referee stub on that
// channel.
//
// Lifetime: the constructor makes the directory, starts the referee, then
// opens the channel and the stub. Stop(), or the destructor, drops the stub
// and the channel first, then stops the referee (EmbeddedReferee's
// destructor: running matches are checkpointed, open streams end
// UNAVAILABLE). The directory, with every log and checkpoint in it, stays
// until the TestReferee is destroyed, so a test may read the logs after
// Stop(). Clients a test makes on channel() or NewChannel() are its own:
// they should be done before the referee stops.
//
// If the directory or the referee cannot be made, the constructor records a
// (non-fatal) GoogleTest failure and ok() is false; then only dir() (empty
// if the directory failed) may be used. A fixture asserts ok() in SetUp.
#ifndef PYRAMID_TESTS_TEST_REFEREE_H_
#define PYRAMID_TESTS_TEST_REFEREE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/service/embedded_referee.h"
#include "referee/service/health_service.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "tests/temp_dir.h"

namespace pyramid::svctest {

namespace v1 = ::pyramid::referee::v1;

// The settings a test may turn; the referee's defaults are the embedded
// referee's.
struct TestRefereeOptions {
  // The directory is <tmp>/<dir_prefix>-XXXXXX (TempDir).
  std::string dir_prefix = "test-referee";
  // The largest message the server accepts; 0: gRPC's default (4 MiB).
  int max_message_bytes = 0;
  ServiceLimits limits;
  // LobbyOptions' fields of the same names.
  uint32_t checkpoint_interval = LobbyOptions().checkpoint_interval;
  absl::Duration ack_hold = LobbyOptions().ack_hold;
};

class TestReferee {
 public:
  explicit TestReferee(const TestRefereeOptions& options = {});
  ~TestReferee();  // Stop(), then removes the directory.
  TestReferee(const TestReferee&) = delete;
  TestReferee& operator=(const TestReferee&) = delete;

  bool ok() const { return referee_ != nullptr; }
  // Drops the stub and the channel, then stops the referee; the directory
  // stays. Nothing but dir() and public_key() may be used after it.
  void Stop();

  // A channel of its own (each client gets a separate connection: the
  // subchannel pool is the channel's), receiving messages up to 64 MiB.
  std::shared_ptr<grpc::Channel> NewChannel() const;
  // The channel the stub uses, made by NewChannel().
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  v1::Referee::Stub& stub() { return *stub_; }

  const std::string& admin_token() const { return referee_->admin_token(); }
  // The referee's public key, to pin when verifying its logs.
  const std::string& public_key() const { return public_key_; }
  // The directory the referee writes its logs in.
  const std::string& dir() const { return dir_.path(); }
  Lobby& lobby() { return referee_->lobby(); }
  HealthService& health() { return referee_->health(); }

 private:
  const TempDir dir_;  // Declared first: removed after the referee is gone.
  std::string public_key_;
  std::unique_ptr<EmbeddedReferee> referee_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Referee::Stub> stub_;
};

}  // namespace pyramid::svctest

#endif  // PYRAMID_TESTS_TEST_REFEREE_H_
