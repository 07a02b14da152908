#include "referee/service/call_auth.h"

#include <optional>
#include <string>

namespace pyramid {

absl::StatusOr<Principal> Authenticate(const grpc::ServerContextBase* context,
                                       const Lobby& lobby) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError("missing authorization metadata");
  }
  const std::string value(it->second.data(), it->second.size());
  std::optional<std::string> token = BearerToken(value);
  if (!token) {
    return absl::UnauthenticatedError(
        "authorization must be \"Bearer <token>\"");
  }
  std::optional<Principal> principal = lobby.Authenticate(*token);
  if (!principal) return absl::UnauthenticatedError("unknown token");
  return *principal;
}

}  // namespace pyramid
