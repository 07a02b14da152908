#include "referee/games/unknown_fields.h"

#include <map>
#include <memory>
#include <mutex>

#include "google/protobuf/wire_format_lite.h"

namespace pyramid {

namespace pb = ::google::protobuf;

// Every scanner built, by descriptor; never freed, so references stay valid.
class UnknownFieldTables {
 public:
  const UnknownFieldScanner& For(const pb::Descriptor* descriptor) {
    std::lock_guard<std::mutex> lock(mutex_);
    return Build(descriptor);
  }

 private:
  // The largest field number a table holds; a message with a larger one is
  // scanned as if it had none there (every such tag answers `true`).
  static constexpr int kMaxFieldNumber = 4096;

  static uint8_t WireTypes(const pb::FieldDescriptor& field) {
    const int native = pb::internal::WireFormatLite::WireTypeForFieldType(
        static_cast<pb::internal::WireFormatLite::FieldType>(field.type()));
    uint8_t types = static_cast<uint8_t>(1u << native);
    // The parser takes a repeated scalar packed or not, whichever the
    // .proto says.
    if (field.is_packable()) types |= 1u << 2;
    return types;
  }

  const UnknownFieldScanner& Build(const pb::Descriptor* descriptor) {
    auto [it, inserted] = scanners_.try_emplace(descriptor);
    if (!inserted) return *it->second;
    it->second.reset(new UnknownFieldScanner());
    UnknownFieldScanner& scanner = *it->second;
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor& field = *descriptor->field(i);
      if (field.number() > kMaxFieldNumber || field.is_map() ||
          field.type() == pb::FieldDescriptor::TYPE_GROUP) {
        continue;  // Never the case in proto/; scanned as unknown.
      }
      if (scanner.fields_.size() <= static_cast<size_t>(field.number())) {
        scanner.fields_.resize(field.number() + 1);
      }
      UnknownFieldScanner::Field& entry = scanner.fields_[field.number()];
      entry.wire_types = WireTypes(field);
      if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) {
        entry.message = &Build(field.message_type());
      }
    }
    return scanner;
  }

  std::mutex mutex_;
  std::map<const pb::Descriptor*, std::unique_ptr<UnknownFieldScanner>>
      scanners_;
};

const UnknownFieldScanner& UnknownFieldScanner::For(
    const pb::Descriptor* descriptor) {
  static UnknownFieldTables* const tables = new UnknownFieldTables();
  return tables->For(descriptor);
}

bool UnknownFieldScanner::MayHoldUnknownFields(std::string_view bytes) const {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  return Scan(p, p + bytes.size(), 0);
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

// Protobuf's default recursion limit: deeper bytes do not parse.
constexpr int kMaxDepth = 100;

}  // namespace

bool UnknownFieldScanner::Scan(const uint8_t* p, const uint8_t* end,
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
        const UnknownFieldScanner* message = fields_[number].message;
        if (message != nullptr && message->Scan(p, p + value, depth + 1)) {
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

}  // namespace pyramid
