#include "referee/core/log_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

LogSplitter::LogSplitter(std::string_view file) : file_(file) {
  const std::string_view magic = log_format::kMagic;
  if (file.size() < magic.size()) {
    if (magic.substr(0, file.size()) == file) {
      Fail(SplitLogResult::Tail::kTruncated, 0, "file ends inside the magic");
    } else {
      Fail(SplitLogResult::Tail::kCorrupt, 0, "not a pyramid log (magic)");
    }
    return;
  }
  if (file.substr(0, magic.size()) != magic) {
    Fail(SplitLogResult::Tail::kCorrupt, 0, "not a pyramid log (magic)");
    return;
  }
  pos_ = magic.size();
}

bool LogSplitter::Fail(SplitLogResult::Tail tail, uint64_t offset,
                       std::string reason) {
  done_ = true;
  end_.tail = tail;
  end_.tail_offset = offset;
  end_.tail_reason = std::move(reason);
  return false;
}

bool LogSplitter::Next(RawRecord& record) {
  if (done_) return false;
  if (pos_ >= file_.size()) {
    done_ = true;  // Clean: the file ends after the last record.
    return false;
  }
  const uint64_t start = pos_;
  uint64_t pos = pos_;
  uint64_t length = 0;
  int shift = 0;
  bool ended = false;
  while (pos < file_.size()) {
    const uint8_t byte = static_cast<uint8_t>(file_[pos++]);
    length |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) {
      ended = true;
      break;
    }
    shift += 7;
    if (pos - start >= log_format::kMaxLengthPrefix) {
      return Fail(SplitLogResult::Tail::kCorrupt, start,
                  "record length prefix too long");
    }
  }
  if (!ended) {
    return Fail(SplitLogResult::Tail::kTruncated, start,
                "file ends inside a length prefix");
  }
  if (pos - start > 1 && (length >> (7 * (pos - start - 1))) == 0) {
    return Fail(SplitLogResult::Tail::kCorrupt, start,
                "record length prefix is not minimal");
  }
  if (length > log_format::kMaxRecordSize) {
    return Fail(SplitLogResult::Tail::kCorrupt, start,
                absl::StrCat("record length ", length, " exceeds the limit"));
  }
  if (length > file_.size() - pos) {
    return Fail(SplitLogResult::Tail::kTruncated, start,
                "file ends inside a record");
  }
  record = {start, file_.substr(pos, length)};
  pos_ = pos + length;
  ++count_;
  return true;
}

SplitLogResult SplitLog(std::string_view file) {
  LogSplitter splitter(file);
  std::vector<RawRecord> records;
  for (RawRecord record; splitter.Next(record);) records.push_back(record);
  SplitLogResult result = splitter.end();
  result.records = std::move(records);
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

absl::Status ForEachRecord(
    std::string_view file,
    absl::FunctionRef<bool(uint64_t index, v1::LogRecord& record)> visit) {
  LogSplitter splitter(file);
  v1::LogRecord record;  // Reused: parsing clears it.
  for (RawRecord raw; splitter.Next(raw);) {
    const uint64_t i = splitter.count() - 1;
    if (!record.ParseFromArray(raw.bytes.data(),
                               static_cast<int>(raw.bytes.size()))) {
      return absl::DataLossError(absl::StrCat("record ", i, " does not parse"));
    }
    if (!visit(i, record)) return absl::OkStatus();
  }
  return TailStatus(splitter.end());
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
