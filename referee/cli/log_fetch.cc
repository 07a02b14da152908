#include "referee/cli/log_fetch.h"

#include "absl/strings/str_cat.h"
#include "referee/cli/incoming_file.h"
#include "referee/cli/silence_watchdog.h"
#include "referee/games/printable_text.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

std::string Prefixed(const LogFetchOptions& options, absl::string_view text) {
  return options.what.empty() ? std::string(text)
                              : absl::StrCat(options.what, ": ", text);
}

}  // namespace

absl::Status DownloadLog(v1::Referee::Stub& stub, const std::string& match_id,
                         const LogFetchOptions& options, const RetryRule& retry,
                         const LogChunks& chunks) {
  v1::GetLogRequest request;
  request.set_match_id(match_id);
  bool too_long = false;
  bool stalled = false;
  absl::Status kept;  // The error of `chunks`, which ended the download.
  // Cancels an attempt that stalls (its thread serves every attempt).
  SilenceWatchdog watchdog;
  const grpc::Status status = retry([&](grpc::ClientContext& context) {
    too_long = false;
    stalled = false;
    auto reader = stub.GetLog(&context, request);
    watchdog.Add(&context, options.stall_limit);
    kept = chunks.restart();
    uint64_t received = 0;
    v1::LogChunk chunk;
    while (kept.ok() && reader->Read(&chunk)) {
      watchdog.Heard(&context, options.stall_limit);
      if (chunk.data().size() > options.max_bytes - received) {
        too_long = true;
        break;
      }
      received += chunk.data().size();
      kept = chunks.append(chunk.data());
    }
    if (too_long || !kept.ok()) context.TryCancel();
    const grpc::Status finished = reader->Finish();
    stalled = watchdog.Remove(&context) && !finished.ok();
    // None is a lost connection, to be fetched again.
    if (!kept.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, "");
    if (too_long) return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "");
    if (stalled) return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "");
    return finished;
  });
  if (!kept.ok()) return kept;
  if (too_long) {
    return absl::ResourceExhaustedError(Prefixed(
        options,
        absl::StrCat("the referee at ", options.address, " sent more than ",
                     options.max_bytes, " bytes of match ", match_id,
                     "'s log, the most ", options.taker,
                     " takes of one log; not fetched")));
  }
  if (stalled) {
    return absl::DeadlineExceededError(Prefixed(
        options,
        absl::StrCat("the referee at ", options.address,
                     " sent nothing of match ", match_id, "'s log for ",
                     absl::FormatDuration(options.stall_limit),
                     "; not fetched")));
  }
  if (!status.ok()) {
    return absl::Status(
        static_cast<absl::StatusCode>(status.error_code()),
        Prefixed(options, PrintableText(status.error_message())));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> DownloadLogToFile(v1::Referee::Stub& stub,
                                           const std::string& match_id,
                                           const LogFetchOptions& options,
                                           const RetryRule& retry,
                                           const std::string& path) {
  IncomingFile incoming(path);
  uint64_t bytes = 0;
  if (absl::Status s = DownloadLog(stub, match_id, options, retry,
                                   {.restart =
                                        [&] {
                                          bytes = 0;
                                          return incoming.Restart();
                                        },
                                    .append =
                                        [&](std::string_view chunk) {
                                          bytes += chunk.size();
                                          return incoming.Append(chunk);
                                        }});
      !s.ok()) {
    return s;
  }
  // Synced, with its directory, before the caller says it is there.
  if (absl::Status s = incoming.Commit(); !s.ok()) return s;
  return bytes;
}

}  // namespace pyramid
