// A match's log downloaded from a referee (GetLog) as its clients take it,
// refctl get-log and the tournament runner alike: written as its chunks
// come (never held whole), retried by the caller's rule while the referee
// does not answer, and given up when the referee sends more than a log can
// be or stops sending. A referee the client does not control could
// otherwise fill its memory or disk, or hold it forever.
#ifndef PYRAMID_REFEREE_CLI_LOG_FETCH_H_
#define PYRAMID_REFEREE_CLI_LOG_FETCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"

namespace pyramid {

// What a download takes, and how messages name it.
struct LogFetchOptions {
  // The cap of one log. No sound bound follows from the games: a log's
  // length follows its options (Pyramid Shambo's max_throws goes up to
  // 2^32 - 1 throws), while a log under the default options is some MiB
  // (ten seats of Pyramid Shambo log about 0.5 KB a decision, and play at
  // most 10,000 throws). 256 MiB leaves room for long options and keeps a
  // referee that streams without end from filling the client's memory or
  // disk.
  static constexpr uint64_t kMaxLogBytes = uint64_t{256} << 20;
  // As long as a referee's own --log_stall_timeout_s lets a reader take
  // nothing of a log it sends.
  static constexpr absl::Duration kStallLimit = absl::Seconds(60);

  uint64_t max_bytes = kMaxLogBytes;  // At least 1.
  absl::Duration stall_limit = kStallLimit;
  // The referee's address, and who takes the log ("the runner",
  // "refctl"), for the messages below.
  std::string address;
  std::string taker;
  // Put before each message of a refusal, with ": " (e.g. "fetching the
  // log"); none when empty.
  std::string what;
};

// Where a download's chunks go: `restart` at the start of each attempt (a
// download broken by a lost connection starts again), then `append` with
// each chunk in order; an error from either ends the download with it.
struct LogChunks {
  std::function<absl::Status()> restart;
  std::function<absl::Status(std::string_view)> append;
};

// The caller's rule for retrying a call the referee did not answer: calls
// `attempt` with a new context (carrying the caller's credentials) until it
// returns what is not to be tried again, and returns that (or the last
// attempt's status when it gives up). A download's own refusals below come
// back as statuses no client retries (INTERNAL, RESOURCE_EXHAUSTED,
// DEADLINE_EXCEEDED), never as UNAVAILABLE or CANCELLED.
using RetryRule = std::function<grpc::Status(
    const std::function<grpc::Status(grpc::ClientContext&)>& attempt)>;

// Downloads the log of match `match_id` from `stub` into `chunks`, each
// attempt under `retry`. A referee that sends more than options.max_bytes
// is cancelled as soon as the next chunk would pass the cap (no more than
// the cap having reached `chunks`): RESOURCE_EXHAUSTED, "the referee at
// ADDRESS sent more than N bytes of match M's log, the most TAKER takes of
// one log; not fetched". One that sends nothing for options.stall_limit
// (from the call's start or its last chunk, on the monotonic clock:
// silence_watchdog.h) is cancelled: DEADLINE_EXCEEDED, "the referee at
// ADDRESS sent nothing of match M's log for D; not fetched". An error of
// `chunks` is returned as it is; the referee's own refusal with its code and
// its message escaped (printable_text.h). Every message but that of `chunks`
// begins with options.what.
absl::Status DownloadLog(referee::v1::Referee::Stub& stub,
                         const std::string& match_id,
                         const LogFetchOptions& options, const RetryRule& retry,
                         const LogChunks& chunks);

// DownloadLog into the file `path`, through an IncomingFile
// (incoming_file.h): written to PATH.tmp as the chunks come (started again
// at each attempt), then synced, renamed to `path` and its directory synced.
// No `path` unless the log came whole, and no PATH.tmp left when it did not.
// The number of bytes written on success.
absl::StatusOr<uint64_t> DownloadLogToFile(referee::v1::Referee::Stub& stub,
                                           const std::string& match_id,
                                           const LogFetchOptions& options,
                                           const RetryRule& retry,
                                           const std::string& path);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_LOG_FETCH_H_
