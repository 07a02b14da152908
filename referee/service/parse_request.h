// A request the service reads raw (a grpc::ByteBuffer: RefereeService says
// why) parsed into its message, or the INVALID_ARGUMENT a request that does
// not parse is answered with, naming the message expected.
#ifndef PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_
#define PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/proto_utils.h"

namespace pyramid {

// Parses a raw request; INVALID_ARGUMENT naming the message expected.
// `raw` is left as it was.
template <class Request>
absl::Status ParseRequest(const grpc::ByteBuffer& raw, Request* request) {
  grpc::ByteBuffer copy(raw);  // Deserialize consumes its buffer.
  if (grpc::SerializationTraits<Request>::Deserialize(&copy, request).ok()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "malformed request: not a ", Request::descriptor()->full_name(),
      " (the bytes do not parse as protobuf)"));
}

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_
