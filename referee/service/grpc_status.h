// The status a call of the referee service ends with: an absl::Status as a
// grpc::Status, code for code (the two share their numbering), with a
// message short enough to reach the client, and the trailers a client's
// program acts on (the message is for people: docs/protocol.md,
// "Trailers of a refusal").
#ifndef PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_
#define PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
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

// The trailer of CreateMatch's UNAVAILABLE while as many matches are live
// as the referee's --max_live_matches allows: that limit, in decimal.
inline constexpr char kMaxLiveMatchesTrailer[] = "pyramid-max-live-matches";

// `status` carrying the trailer `key: value` (key: a "pyramid-" name in
// lowercase ASCII; value: printable ASCII), as one of its payloads.
absl::Status WithTrailer(absl::Status status, absl::string_view key,
                         absl::string_view value);

// Adds to `context`'s trailing metadata every trailer `status` carries.
void AddTrailers(const absl::Status& status, grpc::ServerContextBase& context);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_GRPC_STATUS_H_
