// A request the service reads raw (a grpc::ByteBuffer: RefereeService says
// why) parsed into its message, or the INVALID_ARGUMENT a request that does
// not parse is answered with, naming the message expected.
#ifndef PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_
#define PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_

#include "absl/status/status.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/proto_utils.h"

namespace pyramid {

// Why `raw`, which did not parse as a message of type `expected`, was
// refused: INVALID_ARGUMENT. When its bytes are protobuf's wire format but
// a string field (which proto3 requires to be UTF-8) holds bytes that are
// not UTF-8, naming that field ("malformed request: its string field
// pyramid.referee.v1.GetMatchRequest.match_id is not UTF-8 ..."); otherwise
// naming `expected` ("malformed request: not a ... (the bytes do not parse
// as protobuf)"). Reads `raw` again: for a parse that failed only.
absl::Status MalformedRequest(const grpc::ByteBuffer& raw,
                              const google::protobuf::Descriptor& expected);

// Parses a raw request; INVALID_ARGUMENT naming the message expected
// (MalformedRequest). `raw` is left as it was.
template <class Request>
absl::Status ParseRequest(const grpc::ByteBuffer& raw, Request* request) {
  grpc::ByteBuffer copy(raw);  // Deserialize consumes its buffer.
  if (grpc::SerializationTraits<Request>::Deserialize(&copy, request).ok()) {
    return absl::OkStatus();
  }
  return MalformedRequest(raw, *Request::descriptor());
}

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PARSE_REQUEST_H_
