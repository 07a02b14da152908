// Splits a log file into its records (framing only; docs/log-format.md),
// and parses them for the readers that only print or re-run them. Judging
// the records is the verifier's job.
#ifndef PYRAMID_REFEREE_CORE_LOG_READER_H_
#define PYRAMID_REFEREE_CORE_LOG_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"

namespace pyramid {

// One record's stored bytes (without the length prefix), pointing into the
// buffer given to SplitLog, which must outlive it.
struct RawRecord {
  uint64_t offset = 0;  // Byte offset of the length prefix in the file.
  std::string_view bytes;
};

// How a log's bytes frame at `start`, where a length prefix is due, by
// docs/log-format.md's framing rules 2 to 5: the one statement of them,
// which every reader that frames a log uses (LogSplitter, and replay's
// SealWatch, which must cut a log where the splitter does).
struct LogFrame {
  enum class Kind : uint8_t {
    kRecord,            // A whole record: its body is [body, end).
    kEndsInPrefix,      // The bytes end inside the length prefix.
    kEndsInBody,        // The bytes end inside the record's body.
    kPrefixTooLong,     // No end within kMaxLengthPrefix bytes.
    kPrefixNotMinimal,  // A longer prefix than `length` needs.
    kLengthOverLimit,   // `length` is more than kMaxRecordSize.
  };
  // More bytes may make it a record (the splitter's truncated tail).
  bool needs_more() const {
    return kind == Kind::kEndsInPrefix || kind == Kind::kEndsInBody;
  }
  // A length prefix no bytes after it make good (the splitter's corrupt
  // tail), ending at `end`.
  bool bad_prefix() const { return kind >= Kind::kPrefixTooLong; }

  Kind kind = Kind::kEndsInPrefix;
  uint64_t body = 0;    // kRecord and kEndsInBody: where the body starts.
  uint64_t end = 0;     // kRecord: the body's end; bad_prefix(): the prefix's.
  uint64_t length = 0;  // The prefix's value, once it ends (not kEndsInPrefix).
};

// `bytes`' frame at `start` (a log's bytes, the magic included; `start`
// at most bytes.size()). Inline, without allocation: it is on the
// verifier's path once per record.
inline LogFrame FrameAt(std::string_view bytes, uint64_t start) {
  using Kind = LogFrame::Kind;
  uint64_t pos = start;
  uint64_t length = 0;
  int shift = 0;
  while (true) {
    if (pos >= bytes.size()) return {.kind = Kind::kEndsInPrefix};
    const uint8_t byte = static_cast<uint8_t>(bytes[pos++]);
    length |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
    if (pos - start >= log_format::kMaxLengthPrefix) {
      return {.kind = Kind::kPrefixTooLong, .end = pos};
    }
  }
  if (pos - start > 1 && (length >> (7 * (pos - start - 1))) == 0) {
    return {.kind = Kind::kPrefixNotMinimal, .end = pos, .length = length};
  }
  if (length > log_format::kMaxRecordSize) {
    return {.kind = Kind::kLengthOverLimit, .end = pos, .length = length};
  }
  if (length > bytes.size() - pos) {
    return {.kind = Kind::kEndsInBody, .body = pos, .length = length};
  }
  return {.kind = Kind::kRecord,
          .body = pos,
          .end = pos + length,
          .length = length};
}

struct SplitLogResult {
  enum class Tail {
    kClean,      // The file ends exactly after the last record.
    kTruncated,  // The file ends inside a length prefix or a record.
    kCorrupt,    // Bad magic, an over-long varint or an oversized length.
  };
  std::vector<RawRecord> records;  // Every complete record before the tail.
  Tail tail = Tail::kClean;
  uint64_t tail_offset = 0;  // Where the problem starts (kTruncated/kCorrupt).
  std::string tail_reason;   // Human-readable; empty when kClean.
};

// Splits `file` into records. Never fails: problems are described in the
// result's tail, and the records before them are still returned. Its index
// costs 24 bytes per record, many times the file's size for a file of
// tiny records: a reader of files from outside that judges records in
// order takes them one at a time from a LogSplitter instead.
SplitLogResult SplitLog(std::string_view file);

// `file`'s records one at a time, framed as SplitLog frames them (by
// FrameAt), none kept: what it holds does not grow with the file.
class LogSplitter {
 public:
  // `file` must outlive the splitter and the records it gives.
  explicit LogSplitter(std::string_view file);

  // The next complete record in `record`: true. False at the end of the
  // file or at the first problem, and from then on; end() then says which.
  bool Next(RawRecord& record);

  // The records given so far.
  uint64_t count() const { return count_; }

  // How the file ends, once Next has returned false: SplitLog's result
  // without its records.
  const SplitLogResult& end() const { return end_; }

 private:
  // Ends the splitting with `tail` at `offset`: false.
  bool Fail(SplitLogResult::Tail tail, uint64_t offset, std::string reason);

  std::string_view file_;
  uint64_t pos_ = 0;
  uint64_t count_ = 0;
  bool done_ = false;
  SplitLogResult end_;
};

// OK when `split` ends cleanly; otherwise DATA_LOSS "<tail_reason> at byte
// <tail_offset>".
absl::Status TailStatus(const SplitLogResult& split);

// Parses `split`'s records in order and calls `visit` with each record's
// index and the record, which `visit` may move from. Stops, returning OK,
// as soon as `visit` returns false. Otherwise DATA_LOSS "record <index>
// does not parse" at the first record that does not, or, once every record
// is visited, TailStatus(split).
absl::Status ForEachRecord(
    const SplitLogResult& split,
    absl::FunctionRef<bool(uint64_t index, referee::v1::LogRecord& record)>
        visit);

// As above, for `file`'s records taken one at a time (LogSplitter): for a
// file from outside, whose record count the reader does not bound.
absl::Status ForEachRecord(
    std::string_view file,
    absl::FunctionRef<bool(uint64_t index, referee::v1::LogRecord& record)>
        visit);

// Every record of `split`, parsed; the errors of ForEachRecord.
absl::StatusOr<std::vector<referee::v1::LogRecord>> ParseLogRecords(
    const SplitLogResult& split);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_READER_H_
