// The outgoing side of a gRPC callback stream as a Sink: a queue that writes
// one message at a time (gRPC allows one outstanding write per stream) and
// finishes the stream once the queue is drained after Close().
//
// The reactor owns a shared_ptr to its writer, forwards OnWriteDone to it,
// and calls Detach() from OnDone; others (Connections, MatchHost) may hold
// the writer longer and keep calling Send, which is then a no-op.
//
// `Wire` is what the reactor writes. By default it is the message itself;
// a raw reactor (Wire = grpc::ByteBuffer) passes an `encode` that serializes
// each message as it is sent, so that the queue holds a few hundred bytes
// per message rather than the message's object tree (an observation with
// its history is thousands of bytes of small heap objects), which matters
// when thousands of streams each have several messages queued.
#ifndef PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_
#define PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_

#include <functional>
#include <list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/connections.h"

namespace pyramid {

template <typename Message, typename Wire = Message>
class StreamWriter final : public Sink<Message> {
 public:
  // Turns a message into what is queued and written (when Wire is not
  // Message; Wire then needs a default constructor and Swap(Wire*), as
  // grpc::ByteBuffer has).
  using Encode = std::function<void(const Message&, Wire*)>;

  // `start_write` and `finish` call the reactor's StartWrite and Finish.
  // More than `max_queue` unsent messages (a client that does not read)
  // closes the stream RESOURCE_EXHAUSTED.
  StreamWriter(std::function<void(const Wire*)> start_write,
               std::function<void(grpc::Status)> finish, size_t max_queue,
               Encode encode = nullptr)
      : start_write_(std::move(start_write)),
        finish_(std::move(finish)),
        max_queue_(max_queue),
        encode_(std::move(encode)) {}

  void Send(Message message) override {
    const Wire* to_write = nullptr;
    bool overflow = false;
    // The encoded message (nothing when the message is written as it is).
    [[maybe_unused]] std::conditional_t<kEncodes, Wire, std::monostate> encoded;
    if constexpr (kEncodes) {
      encode_(message, &encoded);  // Outside the lock.
    }
    {
      absl::MutexLock lock(&mu_);
      if (detached_ || closing_) return;
      if (queue_.size() >= max_queue_) {
        overflow = true;
      } else {
        if constexpr (kEncodes) {
          queue_.emplace_back();
          queue_.back().Swap(&encoded);
        } else {
          queue_.push_back(std::move(message));
        }
        if (!writing_) {
          writing_ = true;
          to_write = &queue_.front();
        }
      }
    }
    if (overflow) {
      Close(grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the client is not reading its stream");
      return;
    }
    if (to_write != nullptr) start_write_(to_write);
  }

  void Close(int code, std::string message) override {
    std::optional<grpc::Status> finish_now;
    {
      absl::MutexLock lock(&mu_);
      if (detached_ || closing_) return;
      closing_ = true;
      status_ = grpc::Status(static_cast<grpc::StatusCode>(code), message);
      if (!writing_) finish_now = TakeFinish();
    }
    if (finish_now) finish_(*finish_now);
  }

  // The reactor's OnWriteDone.
  void OnWriteDone(bool ok) {
    const Wire* to_write = nullptr;
    std::optional<grpc::Status> finish_now;
    {
      absl::MutexLock lock(&mu_);
      queue_.pop_front();
      if (!ok) {  // The client is gone: nothing more can be written.
        queue_.clear();
        if (!closing_) {
          closing_ = true;
          status_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream broken");
        }
      }
      if (!queue_.empty() && !closing_) {
        to_write = &queue_.front();
      } else if (!queue_.empty() && closing_ && ok) {
        to_write = &queue_.front();  // Drain what was queued before Close.
      } else {
        writing_ = false;
        if (closing_) finish_now = TakeFinish();
      }
    }
    if (to_write != nullptr) start_write_(to_write);
    if (finish_now) finish_(*finish_now);
  }

  // The reactor is done (OnDone): forget it.
  void Detach() {
    absl::MutexLock lock(&mu_);
    detached_ = true;
    queue_.clear();
  }

 private:
  static constexpr bool kEncodes = !std::is_same_v<Wire, Message>;

  std::optional<grpc::Status> TakeFinish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return std::nullopt;
    finished_ = true;
    return status_;
  }

  const std::function<void(const Wire*)> start_write_;
  const std::function<void(grpc::Status)> finish_;
  const size_t max_queue_;
  const Encode encode_;

  absl::Mutex mu_;
  // A list, not a deque: an empty std::deque already holds a 512-byte
  // block, i.e. 1.5 KiB per match of three idle seat streams. Elements
  // never move (the front is being written).
  std::list<Wire> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool detached_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_STREAM_WRITER_H_
