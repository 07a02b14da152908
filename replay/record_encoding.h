// The referee's stored layout of a LogRecord and the canonical-encoding
// check (docs/log-format.md, "Canonical encoding"), for the verifier's hot
// path.
//
// Contract: SplitRecord admits exactly the bytes every referee writes
// (prev_hash first, then one field of the `kind` oneof, minimally framed),
// and for those, parsing the record whole yields prev_hash plus the kind's
// message parsed from the payload (MutableKind, ParsePayload). Bytes it
// does not admit may still be a LogRecord in another encoding: the caller
// parses them whole. NonCanonical gives exactly the answer of the slow test
// (serializing the parsed message again and comparing, with no unknown
// fields), using a WireScanner to skip it on the common path. Comparisons
// are of deterministic serializations, which equal the default ones for
// the log's messages (none has a map field).
#ifndef PYRAMID_REPLAY_RECORD_ENCODING_H_
#define PYRAMID_REPLAY_RECORD_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/message_lite.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"
#include "referee/games/wire_scanner.h"

namespace pyramid {

// Replaces `out` with the deterministic serialization of `message`, reusing
// the string's memory. `size` is message.ByteSizeLong(), just computed.
//
// Serialized straight into the array, without setting up a
// CodedOutputStream for each comparison: deterministic serialization
// differs from the default only in the order of map entries, and no
// message of the log has a map field (verifier_test checks it).
inline void SerializeInto(const google::protobuf::Message& message, size_t size,
                          std::string& out) {
  out.resize(size);
  message.SerializeWithCachedSizesToArray(
      reinterpret_cast<uint8_t*>(out.data()));
}

// Whether `a` and `b` are the same message, unknown fields included: equal
// deterministic serializations. `scratch_a` and `scratch_b` are reused
// buffers.
bool SameMessage(const google::protobuf::Message& a,
                 const google::protobuf::Message& b, std::string& scratch_a,
                 std::string& scratch_b);

// Whether `stored` is exactly the deterministic serialization of `message`
// (`buffer` is a reused scratch buffer). When it is, the message parsed from
// `stored` equals `message`: a cheap, exact stand-in for SameMessage on the
// common path, which must still decide when it is not.
bool StoredAs(const google::protobuf::Message& message, std::string_view stored,
              std::string& buffer);

// Why `stored`, from which `parsed` was just parsed, is not the canonical
// encoding of its message (docs/log-format.md, "Canonical encoding"): the
// deterministic serialization, with no unknown fields. Null when it is.
// Discards `parsed`'s unknown fields. `scanner` is the one of `parsed`'s
// type: when it finds the bytes canonical, nothing else is done; when it
// rules unknown fields out, the reflection walk is skipped.
const char* NonCanonical(google::protobuf::Message& parsed,
                         std::string_view stored, std::string& buffer,
                         const WireScanner& scanner);

// A record's stored bytes in the layout every referee writes: prev_hash
// (field 1, 32 bytes) first, then exactly one field of the `kind` oneof,
// its length a minimal varint, and nothing after it.
struct RecordLayout {
  std::string_view prev_hash;
  int kind = 0;  // The field number, which is also the KindCase value.
  std::string_view payload;
};

// `bytes` laid out as above; nullopt when they are not in that layout.
inline std::optional<RecordLayout> SplitRecord(std::string_view bytes) {
  using ::pyramid::referee::v1::LogRecord;
  constexpr size_t kKindTag = 2 + 32;  // After 0x0a 0x20 <32 bytes>.
  if (bytes.size() < kKindTag + 2 || bytes[0] != 0x0a || bytes[1] != 0x20) {
    return std::nullopt;
  }
  const uint8_t tag = static_cast<uint8_t>(bytes[kKindTag]);
  const int field = tag >> 3;
  if ((tag & 7) != 2 || field < LogRecord::kHeaderFieldNumber ||
      field > LogRecord::kSealFieldNumber) {
    return std::nullopt;
  }
  size_t pos = kKindTag + 1;
  uint64_t length = 0;
  for (int i = 0;; ++i) {
    if (i == static_cast<int>(log_format::kMaxLengthPrefix) ||
        pos == bytes.size()) {
      return std::nullopt;
    }
    const uint8_t byte = static_cast<uint8_t>(bytes[pos++]);
    length |= uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) {
      if (i > 0 && byte == 0) return std::nullopt;  // Not minimal.
      break;
    }
  }
  if (length != bytes.size() - pos) return std::nullopt;
  return RecordLayout{bytes.substr(2, 32), field, bytes.substr(pos)};
}

// The member of `record` for the record kind numbered `kind` (a LogRecord
// field number SplitRecord admits), cleared for parsing; null for another.
inline google::protobuf::MessageLite* MutableKind(
    ::pyramid::referee::v1::LogRecord& record, int kind) {
  using ::pyramid::referee::v1::LogRecord;
  switch (kind) {
    case LogRecord::kHeaderFieldNumber:
      return record.mutable_header();
    case LogRecord::kDecisionOpenedFieldNumber:
      return record.mutable_decision_opened();
    case LogRecord::kCommitFieldNumber:
      return record.mutable_commit();
    case LogRecord::kRevealFieldNumber:
      return record.mutable_reveal();
    case LogRecord::kFaultFieldNumber:
      return record.mutable_fault();
    case LogRecord::kSeedRevealFieldNumber:
      return record.mutable_seed_reveal();
    case LogRecord::kAppliedFieldNumber:
      return record.mutable_applied();
    case LogRecord::kCheckpointFieldNumber:
      return record.mutable_checkpoint();
    case LogRecord::kOutcomeFieldNumber:
      return record.mutable_outcome();
    case LogRecord::kSealFieldNumber:
      return record.mutable_seal();
    default:
      return nullptr;
  }
}

// Parses `payload` into `kind`, the whole of it, within protobuf's
// recursion limit less one (the record itself is the outer level).
inline bool ParsePayload(std::string_view payload,
                         google::protobuf::MessageLite& kind) {
  // Every nesting level (a message or a group) takes at least two bytes, so
  // a shorter payload cannot reach the recursion limit at either depth.
  const int limit =
      google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit() - 1;
  if (payload.size() < 2 * static_cast<size_t>(limit)) {
    return kind.ParseFromArray(payload.data(),
                               static_cast<int>(payload.size()));
  }
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(payload.data()),
      static_cast<int>(payload.size()));
  input.SetRecursionLimit(limit);
  return kind.ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_RECORD_ENCODING_H_
