// A message that is already serialized, as a gRPC stream can write it: its
// bytes in a refcounted grpc::Slice, handed to gRPC without a copy (gRPC's
// SerializationTraits extension point, as for any custom message type).
//
// A stream that writes grpc::ByteBuffer instead holds two ByteBuffers for
// every write in flight (its own, and the copy gRPC makes of it), each
// ~300 bytes of bookkeeping besides the bytes; this holds one.
#ifndef PYRAMID_REFEREE_SERVICE_SERIALIZED_MESSAGE_H_
#define PYRAMID_REFEREE_SERVICE_SERIALIZED_MESSAGE_H_

#include "google/protobuf/message_lite.h"
#include "grpc/slice.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/serialization_traits.h"

namespace pyramid {

struct SerializedMessage {
  // `message` serialized into a slice of exactly its size (one allocation,
  // none for a message that fits in a slice inline).
  static SerializedMessage Of(const google::protobuf::MessageLite& message) {
    grpc_slice slice = grpc_slice_malloc(message.ByteSizeLong());
    message.SerializeWithCachedSizesToArray(GRPC_SLICE_START_PTR(slice));
    return SerializedMessage{grpc::Slice(slice, grpc::Slice::STEAL_REF)};
  }

  grpc::Slice bytes;
};

}  // namespace pyramid

namespace grpc {

template <>
class SerializationTraits<pyramid::SerializedMessage> {
 public:
  static Status Serialize(const pyramid::SerializedMessage& message,
                          ByteBuffer* buffer, bool* own_buffer) {
    ByteBuffer bytes(&message.bytes, 1);  // Takes a reference, no copy.
    buffer->Swap(&bytes);
    *own_buffer = true;
    return Status::OK;
  }
  static Status Deserialize(ByteBuffer* buffer,
                            pyramid::SerializedMessage* message) {
    Status status = buffer->DumpToSingleSlice(&message->bytes);
    buffer->Clear();
    return status;
  }
};

}  // namespace grpc

#endif  // PYRAMID_REFEREE_SERVICE_SERIALIZED_MESSAGE_H_
