#include "replay/record_encoding.h"

#include <string>
#include <string_view>

#include "google/protobuf/message.h"
#include "referee/games/wire_scanner.h"

namespace pyramid {
namespace {

constexpr char kNotCanonical[] =
    "is not in its canonical encoding (fields out of order or repeated, a "
    "default value written, or an over-long varint)";

}  // namespace

bool SameMessage(const google::protobuf::Message& a,
                 const google::protobuf::Message& b, std::string& scratch_a,
                 std::string& scratch_b) {
  SerializeInto(a, a.ByteSizeLong(), scratch_a);
  SerializeInto(b, b.ByteSizeLong(), scratch_b);
  return scratch_a == scratch_b;
}

bool StoredAs(const google::protobuf::Message& message, std::string_view stored,
              std::string& buffer) {
  const size_t size = message.ByteSizeLong();
  if (size != stored.size()) return false;
  SerializeInto(message, size, buffer);
  return std::string_view(buffer) == stored;
}

const char* NonCanonical(google::protobuf::Message& parsed,
                         std::string_view stored, std::string& buffer,
                         const WireScanner& scanner) {
  if (scanner.IsCanonical(stored)) return nullptr;
  if (!scanner.MayHoldUnknownFields(stored)) {
    return StoredAs(parsed, stored, buffer) ? nullptr : kNotCanonical;
  }
  const size_t with_unknown = parsed.ByteSizeLong();
  parsed.DiscardUnknownFields();
  if (StoredAs(parsed, stored, buffer)) return nullptr;
  return parsed.ByteSizeLong() != with_unknown ? "holds unknown fields"
                                               : kNotCanonical;
}

}  // namespace pyramid
