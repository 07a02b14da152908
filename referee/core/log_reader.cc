#include "referee/core/log_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

// What is wrong with `frame` (not a record), as the splitter's tail says.
std::string FramingProblem(const LogFrame& frame) {
  switch (frame.kind) {
    case LogFrame::Kind::kRecord:
      break;
    case LogFrame::Kind::kEndsInPrefix:
      return "file ends inside a length prefix";
    case LogFrame::Kind::kEndsInBody:
      return "file ends inside a record";
    case LogFrame::Kind::kPrefixTooLong:
      return "record length prefix too long";
    case LogFrame::Kind::kPrefixNotMinimal:
      return "record length prefix is not minimal";
    case LogFrame::Kind::kLengthOverLimit:
      return absl::StrCat("record length ", frame.length, " exceeds the limit");
  }
  return "";
}

}  // namespace

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
  const LogFrame frame = FrameAt(file_, pos_);
  if (frame.kind == LogFrame::Kind::kRecord) {
    record = {pos_, file_.substr(frame.body, frame.end - frame.body)};
    pos_ = frame.end;
    ++count_;
    return true;
  }
  return Fail(frame.needs_more() ? SplitLogResult::Tail::kTruncated
                                 : SplitLogResult::Tail::kCorrupt,
              pos_, FramingProblem(frame));
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
