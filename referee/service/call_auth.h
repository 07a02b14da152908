// Who makes a call to the referee service: the principal its
// "authorization: Bearer <token>" metadata names (token.h), as the lobby
// knows it. Whether that principal may make the call is the caller's to
// decide.
#ifndef PYRAMID_REFEREE_SERVICE_CALL_AUTH_H_
#define PYRAMID_REFEREE_SERVICE_CALL_AUTH_H_

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/lobby.h"
#include "referee/service/token.h"

namespace pyramid {

// The principal named by the call's "authorization: Bearer <token>"
// metadata; UNAUTHENTICATED when it is missing or unknown.
absl::StatusOr<Principal> Authenticate(const grpc::ServerContextBase* context,
                                       const Lobby& lobby);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_CALL_AUTH_H_
