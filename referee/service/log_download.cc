#include "referee/service/log_download.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "referee/service/file_range.h"
#include "referee/service/grpc_status.h"
#include "referee/service/public_reason.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// One GetLog call (NewLogDownload says what it does). Its stall watch
// (WriteStall) counts from the call's start, then from each write's end:
// the read of the next chunk, and its write or the Finish, are one span in
// flight.
class LogReactor final : public grpc::ServerWriteReactor<v1::LogChunk> {
 public:
  LogReactor(grpc::CallbackServerContext* context, std::string match_id,
             std::string path, uint64_t size, size_t chunk_bytes,
             const MessageSink* messages, std::atomic<size_t>* reading,
             WriteStallGuard* stalls, PeerSlot slot)
      : match_id_(std::move(match_id)),
        path_(std::move(path)),
        size_(size),
        chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
        messages_(messages),
        reading_(reading),
        slot_(std::move(slot)) {
    stall_.Arm(stalls, context);
    stall_.Start();
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
      return;
    }
    stall_.Stop();
    stall_.Start();
    WriteNext();
  }
  void OnDone() override {
    stall_.Done();
    reading_->fetch_sub(1);
    delete this;
  }

 private:
  void WriteNext() {
    if (offset_ >= size_) {
      Finish(grpc::Status::OK);
      return;
    }
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(chunk_bytes_, size_ - offset_));
    if (absl::Status read =
            ReadFileRange(path_, offset_, n, chunk_.mutable_data());
        !read.ok()) {
      Finish(ToGrpc(LogReadRefusal(match_id_, path_, read, *messages_)));
      return;
    }
    offset_ += n;
    StartWrite(&chunk_);
  }

  const std::string match_id_;
  const std::string path_;
  const uint64_t size_;
  const size_t chunk_bytes_;
  const MessageSink* const messages_;
  std::atomic<size_t>* const reading_;
  PeerSlot slot_;  // Given back when the reactor goes.
  WriteStall stall_;
  uint64_t offset_ = 0;  // Of the next chunk.
  v1::LogChunk chunk_;   // The one being written.
};

}  // namespace

absl::Status LogReadRefusal(const std::string& match_id,
                            const std::string& log_path,
                            const absl::Status& failure,
                            const MessageSink& messages) {
  // Why, as anyone may read it: the file's name, no directory.
  const std::string why = PublicBrokenReason(failure.message(), log_path);
  if (absl::IsUnavailable(failure)) {
    Say(messages, absl::StrCat("match ", match_id,
                               ": GetLog answered UNAVAILABLE (try again): ",
                               failure.message()));
    return absl::UnavailableError(
        absl::StrCat("the referee cannot read the log of match ", match_id,
                     " now (", why, "); try again"));
  }
  Say(messages,
      absl::StrCat("match ", match_id,
                   ": its log cannot be served (GetLog answered DATA_LOSS): ",
                   failure.message()));
  return absl::DataLossError(
      absl::StrCat("the log of match ", match_id,
                   " is gone from the referee's disk, or cannot be read "
                   "there (",
                   why, ")"));
}

grpc::ServerWriteReactor<v1::LogChunk>* NewLogDownload(
    grpc::CallbackServerContext* context, std::string match_id,
    std::string path, uint64_t size, size_t chunk_bytes,
    const MessageSink* messages, std::atomic<size_t>* reading,
    WriteStallGuard* stalls, PeerSlot slot) {
  return new LogReactor(context, std::move(match_id), std::move(path), size,
                        chunk_bytes, messages, reading, stalls,
                        std::move(slot));
}

}  // namespace pyramid
