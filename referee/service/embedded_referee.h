// A referee service running inside another program (the tournament runner,
// tests): a Lobby and its gRPC server on a free loopback port, plaintext,
// with health checking and reflection on, as the `referee` binary has. The
// one in-process referee of the project: tests use it too, with the limits
// they need.
#ifndef PYRAMID_REFEREE_SERVICE_EMBEDDED_REFEREE_H_
#define PYRAMID_REFEREE_SERVICE_EMBEDDED_REFEREE_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/health_service.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"

namespace pyramid {

struct EmbeddedRefereeOptions {
  // `lobby.admin_token` may be empty: a fresh one is minted.
  LobbyOptions lobby;
  ServiceLimits limits;
  // The largest message the server accepts; 0: gRPC's default (4 MiB).
  int max_message_bytes = 0;
  // Health Watch streams served at once (HealthService).
  size_t max_health_watchers = HealthService::kDefaultMaxWatchers;
  // Threads of gRPC's synchronous API, which serves only server reflection
  // here: each open reflection stream holds one (and its pollers one or
  // two), and a stream beyond them is refused RESOURCE_EXHAUSTED ("Server
  // Threadpool Exhausted"). The referee binary's --max_reflection_threads.
  int max_reflection_threads = kDefaultMaxReflectionThreads;
  static constexpr int kDefaultMaxReflectionThreads = 64;
};

class EmbeddedReferee {
 public:
  // Starts serving on 127.0.0.1 (a free port).
  static absl::StatusOr<std::unique_ptr<EmbeddedReferee>> Start(
      EmbeddedRefereeOptions options);
  static absl::StatusOr<std::unique_ptr<EmbeddedReferee>> Start(
      LobbyOptions options) {
    EmbeddedRefereeOptions embedded;
    embedded.lobby = std::move(options);
    return Start(std::move(embedded));
  }
  // Stops the server, then checkpoints running matches and the
  // transparency log (Lobby::SuspendAll).
  ~EmbeddedReferee();

  const std::string& address() const { return address_; }
  const std::string& admin_token() const { return admin_token_; }
  Lobby& lobby() { return *lobby_; }
  // What the health service reports (SetServing(false) as a stopping
  // referee does).
  HealthService& health() { return *health_; }
  const RefereeService& service() const { return *service_; }

 private:
  EmbeddedReferee() = default;
  std::string address_;
  std::string admin_token_;
  std::unique_ptr<Lobby> lobby_;
  std::unique_ptr<RefereeService> service_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_EMBEDDED_REFEREE_H_
