#include "referee/core/log_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

SplitLogResult SplitLog(std::string_view file) {
  SplitLogResult result;
  auto fail = [&result](SplitLogResult::Tail tail, uint64_t offset,
                        std::string reason) {
    result.tail = tail;
    result.tail_offset = offset;
    result.tail_reason = std::move(reason);
    return result;
  };
  const std::string_view magic = log_format::kMagic;
  if (file.size() < magic.size()) {
    if (magic.substr(0, file.size()) == file) {
      return fail(SplitLogResult::Tail::kTruncated, 0,
                  "file ends inside the magic");
    }
    return fail(SplitLogResult::Tail::kCorrupt, 0, "not a pyramid log (magic)");
  }
  if (file.substr(0, magic.size()) != magic) {
    return fail(SplitLogResult::Tail::kCorrupt, 0, "not a pyramid log (magic)");
  }
  uint64_t pos = magic.size();
  while (pos < file.size()) {
    const uint64_t start = pos;
    uint64_t length = 0;
    int shift = 0;
    bool done = false;
    while (pos < file.size()) {
      const uint8_t byte = static_cast<uint8_t>(file[pos++]);
      length |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        done = true;
        break;
      }
      shift += 7;
      if (pos - start >= log_format::kMaxLengthPrefix) {
        return fail(SplitLogResult::Tail::kCorrupt, start,
                    "record length prefix too long");
      }
    }
    if (!done) {
      return fail(SplitLogResult::Tail::kTruncated, start,
                  "file ends inside a length prefix");
    }
    if (pos - start > 1 && (length >> (7 * (pos - start - 1))) == 0) {
      return fail(SplitLogResult::Tail::kCorrupt, start,
                  "record length prefix is not minimal");
    }
    if (length > log_format::kMaxRecordSize) {
      return fail(SplitLogResult::Tail::kCorrupt, start,
                  absl::StrCat("record length ", length, " exceeds the limit"));
    }
    if (length > file.size() - pos) {
      return fail(SplitLogResult::Tail::kTruncated, start,
                  "file ends inside a record");
    }
    result.records.push_back({start, file.substr(pos, length)});
    pos += length;
  }
  return result;
}

absl::Status TailStatus(const SplitLogResult& split) {
  if (split.tail == SplitLogResult::Tail::kClean) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat(split.tail_reason, " at byte ", split.tail_offset));
}

absl::Status ForEachRecord(
    const SplitLogResult& split,
    absl::FunctionRef<bool(uint64_t index, v1::LogRecord& record)> visit) {
  v1::LogRecord record;  // Reused: parsing clears it.
  for (uint64_t i = 0; i < split.records.size(); ++i) {
    const std::string_view bytes = split.records[i].bytes;
    if (!record.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return absl::DataLossError(absl::StrCat("record ", i, " does not parse"));
    }
    if (!visit(i, record)) return absl::OkStatus();
  }
  return TailStatus(split);
}

absl::StatusOr<std::vector<v1::LogRecord>> ParseLogRecords(
    const SplitLogResult& split) {
  std::vector<v1::LogRecord> records;
  records.reserve(split.records.size());
  absl::Status status =
      ForEachRecord(split, [&records](uint64_t, v1::LogRecord& record) {
        records.push_back(std::move(record));
        return true;
      });
  if (!status.ok()) return status;
  return records;
}

}  // namespace pyramid
