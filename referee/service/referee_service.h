// The gRPC face of the referee (proto/.../referee_service.proto): thin
// handlers that authenticate, translate between gRPC and the Lobby /
// MatchHost (which hold all the logic), and map absl::Status codes onto
// gRPC status codes one for one.
#ifndef PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_
#define PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_

#include <atomic>
#include <cstddef>

#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/service/lobby.h"
#include "referee/service/serialized_message.h"

namespace pyramid {

struct ServiceLimits {
  // Unsent messages a stream may queue before it is closed
  // RESOURCE_EXHAUSTED (a client that stopped reading).
  size_t max_queued_messages = 4096;
  // Refused Play messages a stream may send in a burst, and how many more
  // it earns per second, before it is closed RESOURCE_EXHAUSTED.
  double flood_burst = 64;
  double flood_refill_per_second = 16;
  // Bytes per GetLog chunk.
  size_t log_chunk_bytes = 64 << 10;
};

// Play reads raw ByteBuffers so that a message that does not parse as a
// PlayRequest gets the documented in-band PlayError INVALID_ARGUMENT; with
// the typed API gRPC reports it to the reactor exactly like the client's
// half-close, and the stream would just end with OK. It writes the
// PlayResponses its StreamWriter has serialized (SerializedMessage). This is
// the generated WithRawCallbackMethod_Play with that response type.
template <class BaseClass>
class WithSerializedPlayMethod : public BaseClass {
 public:
  WithSerializedPlayMethod() {
    grpc::Service::MarkMethodRawCallback(
        kPlayMethodIndex,
        new grpc::internal::CallbackBidiHandler<grpc::ByteBuffer,
                                                SerializedMessage>(
            [this](grpc::CallbackServerContext* context) {
              return Play(context);
            }));
  }
  virtual grpc::ServerBidiReactor<grpc::ByteBuffer, SerializedMessage>* Play(
      grpc::CallbackServerContext* context) = 0;

 private:
  // Play's position in the service (its order in referee_service.proto), as
  // the generated code numbers the methods.
  static constexpr int kPlayMethodIndex = 2;
};

using RefereeCallbackBase =
    referee::v1::Referee::WithCallbackMethod_CreateMatch<
        referee::v1::Referee::WithCallbackMethod_RegisterBot<
            WithSerializedPlayMethod<
                referee::v1::Referee::WithCallbackMethod_Watch<
                    referee::v1::Referee::WithCallbackMethod_GetMatch<
                        referee::v1::Referee::WithCallbackMethod_ListMatches<
                            referee::v1::Referee::WithCallbackMethod_GetLog<
                                referee::v1::Referee::Service>>>>>>>;
class RefereeService final : public RefereeCallbackBase {
 public:
  RefereeService(Lobby* lobby, ServiceLimits limits = {});

  grpc::ServerUnaryReactor* CreateMatch(
      grpc::CallbackServerContext* context,
      const referee::v1::CreateMatchRequest* request,
      referee::v1::CreateMatchResponse* response) override;
  grpc::ServerUnaryReactor* RegisterBot(
      grpc::CallbackServerContext* context,
      const referee::v1::RegisterBotRequest* request,
      referee::v1::RegisterBotResponse* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, SerializedMessage>* Play(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<referee::v1::WatchEvent>* Watch(
      grpc::CallbackServerContext* context,
      const referee::v1::WatchRequest* request) override;
  grpc::ServerUnaryReactor* GetMatch(
      grpc::CallbackServerContext* context,
      const referee::v1::GetMatchRequest* request,
      referee::v1::MatchInfo* response) override;
  grpc::ServerUnaryReactor* ListMatches(
      grpc::CallbackServerContext* context,
      const referee::v1::ListMatchesRequest* request,
      referee::v1::ListMatchesResponse* response) override;
  grpc::ServerWriteReactor<referee::v1::LogChunk>* GetLog(
      grpc::CallbackServerContext* context,
      const referee::v1::GetLogRequest* request) override;

 private:
  Lobby* const lobby_;
  const ServiceLimits limits_;
};

// absl::Status -> grpc::Status (the codes share their numbering).
grpc::Status ToGrpc(const absl::Status& status);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_
