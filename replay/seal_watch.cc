#include "replay/seal_watch.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_reader.h"

namespace pyramid {

namespace {

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
    const LogFrame frame = FrameAt(bytes, next_);
    if (frame.needs_more()) return std::nullopt;
    if (sealed_) return frame.end;
    if (frame.bad_prefix()) {
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
