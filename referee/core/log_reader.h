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

namespace pyramid {

// One record's stored bytes (without the length prefix), pointing into the
// buffer given to SplitLog, which must outlive it.
struct RawRecord {
  uint64_t offset = 0;  // Byte offset of the length prefix in the file.
  std::string_view bytes;
};

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
// result's tail, and the records before them are still returned.
SplitLogResult SplitLog(std::string_view file);

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

// Every record of `split`, parsed; the errors of ForEachRecord.
absl::StatusOr<std::vector<referee::v1::LogRecord>> ParseLogRecords(
    const SplitLogResult& split);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_READER_H_
