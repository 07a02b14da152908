// The outgoing side of a gRPC callback stream as a Sink: a queue that writes
// one message at a time (gRPC allows one outstanding write per stream) and
// finishes the stream once the queue is drained after Close().
//
// `Reactor` is the stream's reactor: the writer calls its StartWrite and
// Finish. The reactor owns a shared_ptr to its writer, forwards OnWriteDone
// to it, and calls Detach() from OnDone; others (Connections, MatchHost) may
// hold the writer longer and keep calling Send, which is then a no-op.
//
// `Wire` is what the reactor writes and what the queue holds: the message
// itself (the default), or SerializedMessage, its bytes, serialized as it
// is sent. Thousands of streams each have a few messages queued at times,
// and what a queued message costs matters then: an observation with its
// history is thousands of bytes of small heap objects as a message, one
// allocation of its size serialized, and a grpc::ByteBuffer would add ~300
// bytes of bookkeeping to that (see serialized_message.h). A message
// leaves the queue when its write starts and is released when it is done.
//
// A subclass whose client reads several messages as one (the Play stream
// feature "batch") calls JoinWrites and implements Join: a write then
// carries every message queued behind the one in flight, up to a limit,
// so a busy stream pays gRPC's cost per write once for many messages. An
// idle stream still writes each message at once, alone. Cork holds writes
// back while a caller queues several messages it wants written together;
// corks nest (writes resume at the last Uncork).
//
// With WatchStalls, a write (or the Finish) in flight for the guard's
// timeout cancels the call (WriteStall): a client that takes nothing cannot
// keep its stream, and what it holds, for good. A stream with nothing in
// flight is never cancelled, however long it waits for its next message.
#ifndef PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_
#define PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_

#include <algorithm>
#include <iterator>
#include <limits>
#include <list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/connections.h"
#include "referee/service/serialized_message.h"
#include "referee/service/write_stall.h"

namespace pyramid {

//
// `Base` is the Sink interface the writer implements (e.g. PlaySink, whose
// stream features a subclass then reports).
template <typename Message, typename Reactor, typename Wire = Message,
          typename Base = Sink<Message>>
class StreamWriter : public Base {
  static_assert(std::is_base_of_v<Sink<Message>, Base>,
                "a stream writer is a Sink of its messages");
  static_assert(std::is_same_v<Wire, Message> ||
                    std::is_same_v<Wire, SerializedMessage>,
                "a stream writes its messages or their serialized bytes");

 public:
  // The stream is full when it holds `max_queue` unsent messages, or when
  // a message would take the bytes it holds (queued and in flight) past
  // `max_queue_bytes` while others are queued: a client that does not read.
  // Send then closes the stream RESOURCE_EXHAUSTED; Offer drops the queue.
  StreamWriter(Reactor* reactor, size_t max_queue,
               size_t max_queue_bytes = std::numeric_limits<size_t>::max())
      : reactor_(reactor),
        max_queue_bytes_(max_queue_bytes),
        max_queue_(max_queue) {}

  void Send(Message message) override {
    if (!Queue(std::move(message), /*drop_when_full=*/false)) {
      Close(grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the client is not reading its stream");
    }
  }

  bool Offer(Message message) override {
    return Queue(std::move(message), /*drop_when_full=*/true);
  }

  // Cancels the call of `context` when a write or the Finish stays in
  // flight for `stalls`' timeout (null: never). Call once, before the first
  // message is sent.
  void WatchStalls(WriteStallGuard* stalls, grpc::ServerContextBase* context) {
    stall_.Arm(stalls, context);
  }

  // Changes the bound on unsent messages (`max_queue` above) from now on;
  // messages already queued stay.
  void SetMaxQueue(size_t max_queue) {
    absl::MutexLock lock(&mu_);
    max_queue_ = max_queue;
  }

  bool closed() const override {
    absl::MutexLock lock(&mu_);
    return detached_ || closing_;
  }

  void Close(int code, std::string message) override {
    const Wire* to_write = nullptr;
    std::optional<grpc::Status> finish_now;
    {
      absl::MutexLock lock(&mu_);
      if (detached_ || closing_) return;
      closing_ = true;
      status_ = grpc::Status(static_cast<grpc::StatusCode>(code), message);
      if (!writing_) {  // What a Cork held back is still written.
        if (!queue_.empty()) {
          to_write = StartNextLocked();
        } else {
          finish_now = TakeFinish();
        }
      }
    }
    if (to_write != nullptr) reactor_->StartWrite(to_write);
    if (finish_now) reactor_->Finish(*finish_now);
  }

  // Holds back writes until the matching Uncork (messages queue as usual
  // meanwhile): the messages sent in between go out in as few writes as
  // Join allows.
  void Cork() override {
    absl::MutexLock lock(&mu_);
    ++corked_;
  }

  // Ends a Cork; after the last, writes what was queued unless a write is
  // in flight.
  void Uncork() override {
    const Wire* to_write = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (corked_ > 0) --corked_;
      if (corked_ == 0 && !writing_ && !queue_.empty() && !detached_) {
        to_write = StartNextLocked();
      }
    }
    if (to_write != nullptr) reactor_->StartWrite(to_write);
  }

  // The reactor's OnWriteDone.
  void OnWriteDone(bool ok) {
    const Wire* to_write = nullptr;
    std::optional<grpc::Status> finish_now;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      stall_.Stop();
      queued_bytes_ -= in_flight_bytes_;
      in_flight_bytes_ = 0;
      in_flight_ = Wire();
      if (!ok) {  // The client is gone: nothing more can be written.
        queue_.clear();
        queued_bytes_ = 0;
        if (!closing_) {
          closing_ = true;
          status_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream broken");
        }
      }
      // What was queued before Close is still written.
      if (!queue_.empty() && (corked_ == 0 || closing_)) {
        to_write = StartNextLocked();
      } else if (closing_) {
        finish_now = TakeFinish();
      }
    }
    if (to_write != nullptr) reactor_->StartWrite(to_write);
    if (finish_now) reactor_->Finish(*finish_now);
  }

  // The reactor is done (OnDone): forget it.
  void Detach() {
    {
      absl::MutexLock lock(&mu_);
      detached_ = true;
      queue_.clear();
      queued_bytes_ = 0;
      in_flight_bytes_ = 0;
      in_flight_ = Wire();
    }
    // Outside the lock: it waits for a TryCancel under way.
    stall_.Done();
  }

 protected:
  // Lets one write carry up to `max_messages` queued messages (or fewer,
  // once they reach `max_bytes`; always at least one), joined by Join.
  // Call it from the subclass's constructor.
  void JoinWrites(size_t max_messages, size_t max_bytes) {
    absl::MutexLock lock(&mu_);
    join_max_messages_ = std::max<size_t>(max_messages, 1);
    join_max_bytes_ = max_bytes;
  }

  // The one write that carries [first, last), two or more queued messages
  // in order. Called under the writer's lock: it must not call back.
  using QueueIterator = typename std::list<Wire>::const_iterator;
  virtual Wire Join(QueueIterator first, QueueIterator last) const {
    return *first;  // Unreachable unless JoinWrites was called.
  }

 private:
  // Queues `message` and starts writing it if nothing is in flight. When
  // the stream is full, returns false having queued nothing, and drops
  // every queued message first if `drop_when_full`. True, and nothing
  // queued, once the stream is closing.
  bool Queue(Message message, bool drop_when_full) {
    Wire queued = ToWire(std::move(message));  // Outside the lock.
    const size_t bytes = BytesOf(queued);
    const Wire* to_write = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (detached_ || closing_) return true;
      const bool full =
          queue_.size() + (writing_ ? 1 : 0) >= max_queue_ ||
          (!queue_.empty() && queued_bytes_ + bytes > max_queue_bytes_);
      if (full) {
        if (drop_when_full) {
          queue_.clear();
          queued_bytes_ = in_flight_bytes_;
        }
        return false;
      }
      queue_.push_back(std::move(queued));
      queued_bytes_ += bytes;
      if (!writing_ && corked_ == 0) to_write = StartNextLocked();
    }
    if (to_write != nullptr) reactor_->StartWrite(to_write);
    return true;
  }

  static size_t BytesOf(const Wire& wire) {
    if constexpr (std::is_same_v<Wire, SerializedMessage>) {
      return wire.bytes.size();
    } else {
      return wire.ByteSizeLong();
    }
  }

  static Wire ToWire(Message message) {
    if constexpr (std::is_same_v<Message, Wire>) {
      return message;
    } else {
      return SerializedMessage::Of(message);
    }
  }

  // Moves the queue's front (with what Join may add to it) into the write
  // in flight and returns it.
  const Wire* StartNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_ = true;
    stall_.Start();
    auto last = std::next(queue_.begin());
    in_flight_bytes_ = BytesOf(queue_.front());
    for (size_t n = 1; n < join_max_messages_ && last != queue_.end() &&
                       in_flight_bytes_ + BytesOf(*last) <= join_max_bytes_;
         ++n, ++last) {
      in_flight_bytes_ += BytesOf(*last);
    }
    if (last == std::next(queue_.begin())) {
      in_flight_ = std::move(queue_.front());
    } else {
      in_flight_ = Join(queue_.begin(), last);
    }
    queue_.erase(queue_.begin(), last);
    return &in_flight_;
  }

  std::optional<grpc::Status> TakeFinish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return std::nullopt;
    finished_ = true;
    stall_.Start();  // The Finish is in flight until the call is done.
    return status_;
  }

  Reactor* const reactor_;
  const size_t max_queue_bytes_;

  mutable absl::Mutex mu_;
  size_t max_queue_ ABSL_GUARDED_BY(mu_);
  // A list, not a deque: an empty std::deque already holds a 512-byte
  // block, i.e. 1.5 KiB per match of three idle seat streams.
  std::list<Wire> queue_ ABSL_GUARDED_BY(mu_);
  // The message being written (while writing_): gRPC reads it until
  // OnWriteDone.
  Wire in_flight_ ABSL_GUARDED_BY(mu_);
  // Bytes of the queued messages and of those in flight, as BytesOf counts
  // each message (not the few bytes Join adds).
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_flight_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // JoinWrites's limits: by default every message is a write of its own.
  size_t join_max_messages_ ABSL_GUARDED_BY(mu_) = 1;
  size_t join_max_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  int corked_ ABSL_GUARDED_BY(mu_) = 0;  // Corks not yet uncorked.
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool detached_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  // Started and stopped under mu_ (its checks need no lock of ours).
  WriteStall stall_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_
