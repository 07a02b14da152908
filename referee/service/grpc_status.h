// The status a call of the referee service ends with: an absl::Status as a
// grpc::Status, code for code (the two share their numbering), with a
// message short enough to reach the client.
#ifndef PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_
#define PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace pyramid {

// The longest status message a call is answered with: it travels in the
// call's trailers, and one over the client's metadata limit (8 KiB by
// default, a byte outside printable ASCII taking three) would reach the
// client as another error.
inline constexpr size_t kMaxStatusMessageBytes = 2048;

// absl::Status -> grpc::Status (the codes share their numbering); a message
// longer than kMaxStatusMessageBytes is cut, saying so.
grpc::Status ToGrpc(const absl::Status& status);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_
