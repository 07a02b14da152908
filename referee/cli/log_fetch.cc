#include "referee/cli/log_fetch.h"

#include <chrono>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/cli/incoming_file.h"
#include "referee/games/printable_text.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Cancels one call that stays silent for `limit`: each Heard moves its
// deadline on. Its thread ends with Stop (or the StallTimer). Its time is
// the monotonic clock's: a suspended machine, or a wall clock set forward,
// cancels nothing.
class StallTimer {
 public:
  StallTimer(grpc::ClientContext* context, absl::Duration limit)
      : context_(context), limit_(limit) {
    deadline_ = Clock::now() + absl::ToChronoNanoseconds(limit_);
    thread_ = std::thread([this] { Loop(); });
  }
  StallTimer(const StallTimer&) = delete;
  StallTimer& operator=(const StallTimer&) = delete;
  ~StallTimer() { Stop(); }

  void Heard() {
    absl::MutexLock lock(&mu_);
    deadline_ = Clock::now() + absl::ToChronoNanoseconds(limit_);
  }

  // Stops watching; true when the call was cancelled for its silence.
  bool Stop() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    if (thread_.joinable()) thread_.join();
    absl::MutexLock lock(&mu_);
    return stalled_;
  }

 private:
  void Loop() {
    absl::MutexLock lock(&mu_);
    while (!stop_) {
      const Clock::time_point now = Clock::now();
      if (now >= deadline_) {
        stalled_ = true;
        context_->TryCancel();
        return;
      }
      mu_.AwaitWithTimeout(absl::Condition(&stop_),
                           absl::FromChrono(deadline_ - now));
    }
  }

  using Clock = std::chrono::steady_clock;

  grpc::ClientContext* const context_;
  const absl::Duration limit_;
  absl::Mutex mu_;
  Clock::time_point deadline_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool stalled_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

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
  const grpc::Status status = retry([&](grpc::ClientContext& context) {
    too_long = false;
    stalled = false;
    auto reader = stub.GetLog(&context, request);
    StallTimer timer(&context, options.stall_limit);
    kept = chunks.restart();
    uint64_t received = 0;
    v1::LogChunk chunk;
    while (kept.ok() && reader->Read(&chunk)) {
      timer.Heard();
      if (chunk.data().size() > options.max_bytes - received) {
        too_long = true;
        break;
      }
      received += chunk.data().size();
      kept = chunks.append(chunk.data());
    }
    if (too_long || !kept.ok()) context.TryCancel();
    const grpc::Status finished = reader->Finish();
    stalled = timer.Stop() && !finished.ok();
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
