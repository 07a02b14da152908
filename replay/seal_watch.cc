#include "replay/seal_watch.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"

namespace pyramid {

namespace {

// How the bytes at `start` of a log's bytes are framed, by LogSplitter's
// rules (referee/core/log_reader.cc, docs/log-format.md "Framing").
struct Frame {
  enum class Kind {
    kShort,    // The bytes end before the prefix or the record does.
    kRecord,   // A complete record: its body is [body, end).
    kCorrupt,  // A length prefix the splitter refuses, ending at `end`.
  };
  Kind kind = Kind::kShort;
  uint64_t body = 0;
  uint64_t end = 0;
};

Frame FrameAt(std::string_view bytes, uint64_t start) {
  uint64_t pos = start;
  uint64_t length = 0;
  int shift = 0;
  while (true) {
    if (pos >= bytes.size()) return {};
    const uint8_t byte = static_cast<uint8_t>(bytes[pos++]);
    length |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
    if (pos - start >= log_format::kMaxLengthPrefix) {
      return {.kind = Frame::Kind::kCorrupt, .end = pos};
    }
  }
  const bool not_minimal =
      pos - start > 1 && (length >> (7 * (pos - start - 1))) == 0;
  if (not_minimal || length > log_format::kMaxRecordSize) {
    return {.kind = Frame::Kind::kCorrupt, .end = pos};
  }
  if (length > bytes.size() - pos) return {};
  return {.kind = Frame::Kind::kRecord, .body = pos, .end = pos + length};
}

// Whether `record` (a record's stored bytes) parses as a seal. Its fields
// are walked first, and only a record with a seal field is parsed: one
// whose seal a later field of the oneof replaces is not a seal.
bool IsSeal(std::string_view record) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(record.data()),
      static_cast<int>(record.size()));
  bool seal_field = false;
  while (const uint32_t tag = in.ReadTag()) {
    if (google::protobuf::internal::WireFormatLite::GetTagFieldNumber(tag) ==
        referee::v1::LogRecord::kSealFieldNumber) {
      seal_field = true;
    }
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
  if (!seal_field) return false;
  referee::v1::LogRecord parsed;
  return parsed.ParseFromArray(record.data(),
                               static_cast<int>(record.size())) &&
         parsed.kind_case() == referee::v1::LogRecord::kSeal;
}

}  // namespace

std::optional<uint64_t> SealWatch::CutAt(std::string_view bytes) {
  while (!unframed_) {
    const Frame frame = FrameAt(bytes, next_);
    if (frame.kind == Frame::Kind::kShort) return std::nullopt;
    if (sealed_) return frame.end;
    if (frame.kind == Frame::Kind::kCorrupt) {
      // Not after a seal: read on, as every file that is not cut.
      unframed_ = true;
      break;
    }
    sealed_ = IsSeal(bytes.substr(frame.body, frame.end - frame.body));
    next_ = frame.end;
  }
  return std::nullopt;
}

}  // namespace pyramid
