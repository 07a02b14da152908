#include "referee/service/log_download.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "referee/service/file_range.h"
#include "referee/service/grpc_status.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// One GetLog call (NewLogDownload says what it does). The stall checks:
// one pending per call, each posting the next, so a stall is seen within a
// delay of `stall_timeout` passing.
class LogReactor final : public grpc::ServerWriteReactor<v1::LogChunk> {
 public:
  LogReactor(grpc::CallbackServerContext* context, std::string path,
             uint64_t size, size_t chunk_bytes, std::atomic<size_t>* reading,
             DelayedRunner* stalls, absl::Duration stall_timeout)
      : path_(std::move(path)),
        size_(size),
        chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
        reading_(reading),
        progress_(std::make_shared<Progress>(context)) {
    if (stalls != nullptr) CheckProgress(stalls, stall_timeout, progress_);
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
      return;
    }
    {
      absl::MutexLock lock(&progress_->mu);
      progress_->last_write_done = absl::Now();
    }
    WriteNext();
  }
  void OnDone() override {
    {
      absl::MutexLock lock(&progress_->mu);
      // A check's TryCancel under way uses the context, which lasts until
      // this returns: wait for it.
      progress_->mu.Await(absl::Condition(
          +[](bool* cancelling) { return !*cancelling; },
          &progress_->cancelling));
      progress_->context = nullptr;
    }
    reading_->fetch_sub(1);
    delete this;
  }

 private:
  // What the stall checks see of the call; outlives it.
  struct Progress {
    explicit Progress(grpc::CallbackServerContext* context)
        : context(context) {}
    absl::Mutex mu;
    // The call's, until its OnDone (then null).
    grpc::CallbackServerContext* context ABSL_GUARDED_BY(mu);
    // A check is calling context->TryCancel() (without `mu`): OnDone waits
    // until it is false, so that the context outlives the call.
    bool cancelling ABSL_GUARDED_BY(mu) = false;
    // When the last write finished (at first: when the call came).
    absl::Time last_write_done ABSL_GUARDED_BY(mu) = absl::Now();
  };

  // After `stalls`' delay: cancels the call if no write has finished for
  // `timeout`, else checks again after the next delay.
  static void CheckProgress(DelayedRunner* stalls, absl::Duration timeout,
                            std::shared_ptr<Progress> progress) {
    stalls->Post([stalls, timeout, progress = std::move(progress)] {
      grpc::CallbackServerContext* context = nullptr;
      {
        absl::MutexLock lock(&progress->mu);
        if (progress->context == nullptr) return;  // Done.
        if (absl::Now() - progress->last_write_done < timeout) {
          CheckProgress(stalls, timeout, progress);
          return;
        }
        context = progress->context;
        progress->cancelling = true;
      }
      // The contract: TryCancel is called without `mu`, so that whatever
      // it runs inline (an OnCancel, say) may take `mu`; the context stays
      // valid meanwhile because OnDone, after which gRPC frees it, waits
      // for `cancelling` to clear. This relies on gRPC never running OnDone
      // within TryCancel (it runs OnDone on its own threads, once every
      // operation and OnCancel are done), else OnDone would wait on itself.
      // The write in flight ends (not ok), and the call with it.
      context->TryCancel();
      absl::MutexLock lock(&progress->mu);
      progress->cancelling = false;
    });
  }

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
      Finish(ToGrpc(read));
      return;
    }
    offset_ += n;
    StartWrite(&chunk_);
  }

  const std::string path_;
  const uint64_t size_;
  const size_t chunk_bytes_;
  std::atomic<size_t>* const reading_;
  const std::shared_ptr<Progress> progress_;
  uint64_t offset_ = 0;  // Of the next chunk.
  v1::LogChunk chunk_;   // The one being written.
};

}  // namespace

grpc::ServerWriteReactor<v1::LogChunk>* NewLogDownload(
    grpc::CallbackServerContext* context, std::string path, uint64_t size,
    size_t chunk_bytes, std::atomic<size_t>* reading, DelayedRunner* stalls,
    absl::Duration stall_timeout) {
  return new LogReactor(context, std::move(path), size, chunk_bytes, reading,
                        stalls, stall_timeout);
}

}  // namespace pyramid
