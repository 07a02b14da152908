#include "referee/service/parse_request.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"

namespace pyramid {
namespace {

using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::FileDescriptor;
using ::google::protobuf::internal::WireFormatLite;

// Nesting beyond protobuf's own default limit fails the parse for that
// reason; no field is looked for deeper.
constexpr int kMaxDepth = 100;

// The first field of `type` in `bytes` (its wire format) that protobuf
// refuses for not being UTF-8: a proto3 string field, at any depth of
// message fields (map entries included), named by its path ("game.game");
// nullopt when there is none, or when `bytes` is not wire format. Reads
// the bytes where they are (no copy).
std::optional<std::string> NonUtf8Field(absl::string_view bytes,
                                        const Descriptor& type, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  while (const uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
      continue;
    }
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return std::nullopt;
    const size_t at = static_cast<size_t>(in.CurrentPosition());
    if (length > bytes.size() - at) return std::nullopt;
    const absl::string_view value = bytes.substr(at, length);
    if (!in.Skip(static_cast<int>(length))) return std::nullopt;
    const FieldDescriptor* field =
        type.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
    if (field == nullptr) continue;  // Unknown: kept as bytes.
    if (field->type() == FieldDescriptor::TYPE_STRING &&
        field->file()->syntax() == FileDescriptor::SYNTAX_PROTO3) {
      // The check protobuf's parser makes of a proto3 string.
      if (!google::protobuf::internal::IsStructurallyValidUTF8(
              value.data(), static_cast<int>(value.size()))) {
        return field->name();
      }
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (std::optional<std::string> inner =
              NonUtf8Field(value, *field->message_type(), depth + 1)) {
        return absl::StrCat(field->name(), ".", *inner);
      }
    }
  }
  // A tag of 0 ends the message, and so does anything not a tag.
  return std::nullopt;
}

}  // namespace

absl::Status MalformedRequest(const grpc::ByteBuffer& raw,
                              const Descriptor& expected) {
  std::string bytes;
  std::vector<grpc::Slice> slices;
  if (raw.Dump(&slices).ok()) {
    for (const grpc::Slice& slice : slices) {
      bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
  }
  if (std::optional<std::string> field = NonUtf8Field(bytes, expected, 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed request: its string field ", expected.full_name(), ".",
        *field,
        " is not UTF-8 (protobuf takes only UTF-8 text in a string field)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("malformed request: not a ", expected.full_name(),
                   " (the bytes do not parse as protobuf)"));
}

}  // namespace pyramid
