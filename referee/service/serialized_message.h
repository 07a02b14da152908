// A message that is already serialized, as a gRPC stream can write it: its
// bytes in a refcounted grpc::Slice, handed to gRPC without a copy (gRPC's
// SerializationTraits extension point, as for any custom message type).
//
// A stream that writes grpc::ByteBuffer instead holds two ByteBuffers for
// every write in flight (its own, and the copy gRPC makes of it), each
// ~300 bytes of bookkeeping besides the bytes; this holds one.
#ifndef PYRAMID_REFEREE_SERVICE_SERIALIZED_MESSAGE_H_
#define PYRAMID_REFEREE_SERVICE_SERIALIZED_MESSAGE_H_

#include <algorithm>
#include <cstdint>

#include "google/protobuf/io/coded_stream.h"
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

  // The messages [first, last) (SerializedMessages), as one message that
  // holds them, in order, as the repeated field `inner_field` of a message
  // that is its field `outer_field`; e.g. (8, 1) makes a PlayResponse whose
  // `batch` holds them as `responses`. Their bytes are copied once, never
  // parsed.
  template <typename Iterator>
  static SerializedMessage Nest(uint32_t outer_field, uint32_t inner_field,
                                Iterator first, Iterator last) {
    using google::protobuf::io::CodedOutputStream;
    const uint32_t outer_tag = outer_field << 3 | kLengthDelimited;
    const uint32_t inner_tag = inner_field << 3 | kLengthDelimited;
    size_t inner = 0;
    for (Iterator it = first; it != last; ++it) {
      const uint32_t size = static_cast<uint32_t>(it->bytes.size());
      inner += CodedOutputStream::VarintSize32(inner_tag) +
               CodedOutputStream::VarintSize32(size) + size;
    }
    const uint32_t inner_size = static_cast<uint32_t>(inner);
    grpc_slice slice = grpc_slice_malloc(
        CodedOutputStream::VarintSize32(outer_tag) +
        CodedOutputStream::VarintSize32(inner_size) + inner_size);
    uint8_t* out = GRPC_SLICE_START_PTR(slice);
    out = CodedOutputStream::WriteVarint32ToArray(outer_tag, out);
    out = CodedOutputStream::WriteVarint32ToArray(inner_size, out);
    for (Iterator it = first; it != last; ++it) {
      const uint32_t size = static_cast<uint32_t>(it->bytes.size());
      out = CodedOutputStream::WriteVarint32ToArray(inner_tag, out);
      out = CodedOutputStream::WriteVarint32ToArray(size, out);
      out = std::copy(it->bytes.begin(), it->bytes.end(), out);
    }
    return SerializedMessage{grpc::Slice(slice, grpc::Slice::STEAL_REF)};
  }

  // Parses the bytes into `message`; false when they are not one. For
  // in-process readers (tests, fuzzers); a stream hands them to gRPC.
  bool ParseTo(google::protobuf::MessageLite& message) const {
    return message.ParseFromArray(bytes.begin(),
                                  static_cast<int>(bytes.size()));
  }

  grpc::Slice bytes;

 private:
  static constexpr uint32_t kLengthDelimited = 2;  // The wire type.
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
