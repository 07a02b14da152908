#include "referee/games/wire_scanner.h"

#include <map>
#include <memory>
#include <mutex>

#include "google/protobuf/wire_format_lite.h"

namespace pyramid {

namespace pb = ::google::protobuf;

// Every scanner built, by descriptor; never freed, so references stay valid.
class WireScannerTables {
 public:
  const WireScanner& For(const pb::Descriptor* descriptor) {
    std::lock_guard<std::mutex> lock(mutex_);
    return Build(descriptor);
  }

 private:
  // The largest field number a table holds; a message with a larger one is
  // scanned as if it had none there (every such tag sends to the slow test).
  static constexpr int kMaxFieldNumber = 4096;

  static WireScanner::Kind KindOf(pb::FieldDescriptor::Type type) {
    using Kind = WireScanner::Kind;
    switch (type) {
      case pb::FieldDescriptor::TYPE_INT32:
      case pb::FieldDescriptor::TYPE_ENUM:
        return Kind::kVarint32;
      case pb::FieldDescriptor::TYPE_UINT32:
      case pb::FieldDescriptor::TYPE_SINT32:
        return Kind::kVarintU32;
      case pb::FieldDescriptor::TYPE_INT64:
      case pb::FieldDescriptor::TYPE_UINT64:
      case pb::FieldDescriptor::TYPE_SINT64:
        return Kind::kVarint64;
      case pb::FieldDescriptor::TYPE_BOOL:
        return Kind::kBool;
      case pb::FieldDescriptor::TYPE_FIXED32:
      case pb::FieldDescriptor::TYPE_SFIXED32:
        return Kind::kFixed32;
      case pb::FieldDescriptor::TYPE_FIXED64:
      case pb::FieldDescriptor::TYPE_SFIXED64:
        return Kind::kFixed64;
      case pb::FieldDescriptor::TYPE_FLOAT:
      case pb::FieldDescriptor::TYPE_DOUBLE:
        return Kind::kFloat;
      case pb::FieldDescriptor::TYPE_STRING:
      case pb::FieldDescriptor::TYPE_BYTES:
        return Kind::kBytes;
      case pb::FieldDescriptor::TYPE_MESSAGE:
        return Kind::kMessage;
      default:
        return Kind::kUnknown;  // Groups: no field of proto/ is one.
    }
  }

  WireScanner::Field FieldOf(const pb::FieldDescriptor& field) {
    WireScanner::Field entry;
    entry.kind = KindOf(field.type());
    const int native = pb::internal::WireFormatLite::WireTypeForFieldType(
        static_cast<pb::internal::WireFormatLite::FieldType>(field.type()));
    entry.native_wire_type = static_cast<uint8_t>(native);
    entry.wire_types = static_cast<uint8_t>(1u << native);
    // The parser takes a repeated scalar packed or not, whatever the .proto
    // says; the serializer writes it packed unless [packed = false].
    if (field.is_packable()) entry.wire_types |= 1u << 2;
    entry.repeated = field.is_repeated();
    entry.packed = field.is_packed();
    entry.presence = field.has_presence();
    if (const pb::OneofDescriptor* oneof = field.real_containing_oneof()) {
      entry.oneof = oneof->index();
    }
    if (entry.kind == WireScanner::Kind::kMessage) {
      entry.message = &Build(field.message_type());
    }
    return entry;
  }

  const WireScanner& Build(const pb::Descriptor* descriptor) {
    auto [it, inserted] = scanners_.try_emplace(descriptor);
    if (!inserted) return *it->second;
    it->second.reset(new WireScanner());
    WireScanner& scanner = *it->second;
    scanner.oneofs_ = descriptor->real_oneof_decl_count();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor& field = *descriptor->field(i);
      if (field.number() > kMaxFieldNumber || field.is_map() ||
          KindOf(field.type()) == WireScanner::Kind::kUnknown) {
        continue;  // Never the case in proto/; scanned as unknown.
      }
      if (scanner.fields_.size() <= static_cast<size_t>(field.number())) {
        scanner.fields_.resize(field.number() + 1);
      }
      scanner.fields_[field.number()] = FieldOf(field);
    }
    return scanner;
  }

  std::mutex mutex_;
  std::map<const pb::Descriptor*, std::unique_ptr<WireScanner>> scanners_;
};

const WireScanner& WireScanner::For(const pb::Descriptor* descriptor) {
  static WireScannerTables* const tables = new WireScannerTables();
  return tables->For(descriptor);
}

namespace {

// Reads a varint of at most 10 bytes at `p`; null when there is none.
const uint8_t* ReadVarint(const uint8_t* p, const uint8_t* end,
                          uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t byte = *p++;
    value |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return p;
  }
  return nullptr;
}

// Reads a varint written as a serializer writes it: minimal (no final zero
// byte after the first) and within 64 bits. Null otherwise.
const uint8_t* ReadMinimalVarint(const uint8_t* p, const uint8_t* end,
                                 uint64_t& value) {
  const uint8_t* start = p;
  p = ReadVarint(p, end, value);
  if (p == nullptr) return nullptr;
  const size_t size = static_cast<size_t>(p - start);
  if (size > 1 && p[-1] == 0) return nullptr;
  if (size == 10 && p[-1] != 1) return nullptr;  // Bits beyond 64.
  return p;
}

// Protobuf's default recursion limit: deeper bytes do not parse.
constexpr int kMaxDepth = 100;

}  // namespace

bool WireScanner::MayHoldUnknownFields(std::string_view bytes) const {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  return ScanUnknown(p, p + bytes.size(), 0);
}

bool WireScanner::IsCanonical(std::string_view bytes) const {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  return ScanCanonical(p, p + bytes.size(), 0);
}

bool WireScanner::ScanUnknown(const uint8_t* p, const uint8_t* end,
                              int depth) const {
  if (depth > kMaxDepth) return true;
  while (p < end) {
    uint64_t tag = 0;
    p = ReadVarint(p, end, tag);
    if (p == nullptr) return true;
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (number >= fields_.size() ||
        (fields_[number].wire_types & (1u << wire_type)) == 0) {
      return true;
    }
    uint64_t value = 0;
    switch (wire_type) {
      case 0:
        p = ReadVarint(p, end, value);
        if (p == nullptr) return true;
        break;
      case 1:
      case 5: {
        const size_t size = wire_type == 1 ? 8 : 4;
        if (static_cast<size_t>(end - p) < size) return true;
        p += size;
        break;
      }
      case 2: {
        p = ReadVarint(p, end, value);
        if (p == nullptr || value > static_cast<uint64_t>(end - p)) {
          return true;
        }
        const WireScanner* message = fields_[number].message;
        if (message != nullptr &&
            message->ScanUnknown(p, p + value, depth + 1)) {
          return true;
        }
        p += value;
        break;
      }
      default:
        return true;  // Groups: no field of proto/ is one.
    }
  }
  return false;
}

bool WireScanner::ScanCanonical(const uint8_t* p, const uint8_t* end,
                                int depth) const {
  if (depth > kMaxDepth || oneofs_ > 64) return false;
  uint64_t last = 0;        // The previous field number (0: none yet).
  uint64_t oneofs_set = 0;  // Bit i: a member of oneof i was read.
  while (p < end) {
    uint64_t tag = 0;
    p = ReadMinimalVarint(p, end, tag);
    if (p == nullptr || tag > 0xffffffffu) return false;
    const uint64_t number = tag >> 3;
    if (number >= fields_.size()) return false;
    const Field& field = fields_[number];
    if (field.kind == Kind::kUnknown || number < last ||
        (number == last && (!field.repeated || field.packed))) {
      return false;  // Unknown, out of order, or repeated where it may not.
    }
    if (number != last && field.oneof >= 0) {
      const uint64_t bit = uint64_t{1} << field.oneof;
      if ((oneofs_set & bit) != 0) return false;  // Two members of a oneof.
      oneofs_set |= bit;
    }
    last = number;
    p = CanonicalValue(field, static_cast<int>(tag & 7), p, end, depth);
    if (p == nullptr) return false;
  }
  return true;
}

const uint8_t* WireScanner::CanonicalScalar(Kind kind, const uint8_t* p,
                                            const uint8_t* end, bool& zero) {
  uint64_t value = 0;
  switch (kind) {
    case Kind::kVarint32:
    case Kind::kVarintU32:
    case Kind::kVarint64:
    case Kind::kBool: {
      p = ReadMinimalVarint(p, end, value);
      if (p == nullptr) return nullptr;
      // A value the field cannot hold is cut when parsed, so written back
      // otherwise; an int32 or enum is written sign-extended to 64 bits.
      const bool holds =
          kind == Kind::kVarint32
              ? value ==
                    static_cast<uint64_t>(static_cast<int64_t>(
                        static_cast<int32_t>(static_cast<uint32_t>(value))))
          : kind == Kind::kVarintU32 ? value <= 0xffffffffu
          : kind == Kind::kBool      ? value <= 1
                                     : true;
      if (!holds) return nullptr;
      break;
    }
    case Kind::kFixed32:
    case Kind::kFixed64: {
      const size_t size = kind == Kind::kFixed32 ? 4 : 8;
      if (static_cast<size_t>(end - p) < size) return nullptr;
      for (size_t i = 0; i < size; ++i) value |= p[i];
      p += size;
      break;
    }
    default:
      return nullptr;  // Floating point: never judged fast.
  }
  zero = value == 0;
  return p;
}

const uint8_t* WireScanner::CanonicalValue(const Field& field, int wire_type,
                                           const uint8_t* p, const uint8_t* end,
                                           int depth) const {
  uint64_t size = 0;
  if (field.packed) {
    // One run of at least one element.
    if (wire_type != 2) return nullptr;
    p = ReadMinimalVarint(p, end, size);
    if (p == nullptr || size == 0 || size > static_cast<uint64_t>(end - p)) {
      return nullptr;
    }
    const uint8_t* const stop = p + size;
    bool zero = false;
    while (p != nullptr && p < stop) {
      p = CanonicalScalar(field.kind, p, stop, zero);
    }
    return p;
  }
  if (wire_type != field.native_wire_type) return nullptr;
  bool zero = false;
  if (field.kind == Kind::kBytes || field.kind == Kind::kMessage) {
    p = ReadMinimalVarint(p, end, size);
    if (p == nullptr || size > static_cast<uint64_t>(end - p)) return nullptr;
    if (field.kind == Kind::kMessage &&
        !field.message->ScanCanonical(p, p + size, depth + 1)) {
      return nullptr;
    }
    zero = size == 0;
    p += size;
  } else {
    p = CanonicalScalar(field.kind, p, end, zero);
    if (p == nullptr) return nullptr;
  }
  // A singular field without presence is written only when not default.
  if (zero && !field.repeated && !field.presence) return nullptr;
  return p;
}

}  // namespace pyramid
