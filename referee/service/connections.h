// Routes messages to the client streams of the referee service. Knows
// nothing of gRPC's streams: a stream is a Sink that queues messages without
// blocking (Watch events travel as SerializedMessage, bytes in a gRPC slice
// that every watcher's queue shares).
#ifndef PYRAMID_REFEREE_SERVICE_CONNECTIONS_H_
#define PYRAMID_REFEREE_SERVICE_CONNECTIONS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "referee/service/serialized_message.h"

namespace pyramid {

// A client stream's outgoing side. Send queues and returns at once; messages
// arrive in the order sent. Close ends the stream with `status` once the
// queue is written. All may be called from any thread; calls after the
// stream is gone are ignored.
template <typename Message>
class Sink {
 public:
  virtual ~Sink() = default;
  // Queues `message`; a stream too full to take it is closed
  // RESOURCE_EXHAUSTED.
  virtual void Send(Message message) = 0;
  // Queues `message` and returns true; or, when the stream is too full to
  // take it, drops every message still queued (not the one being written),
  // queues nothing and returns false, so that the caller can send what
  // replaces them. A sink without a bound takes every message.
  virtual bool Offer(Message message) {
    Send(std::move(message));
    return true;
  }
  virtual void Close(int code, std::string message) = 0;
  // True once the stream is closing or gone: nothing sent reaches it.
  virtual bool closed() const { return false; }
  // Cork(), Send()..., Uncork(): the messages sent in between may go out
  // together (see StreamWriter); a sink that cannot join them ignores this.
  virtual void Cork() {}
  virtual void Uncork() {}
};

// A Play stream's outgoing side, with what its client opted into when it
// opened the stream (docs/protocol.md, "Play stream features"). It takes
// PlayResponses serialized: a sender builds each one where it likes (on an
// arena, say) and serializes it once; a queued message then holds one
// allocation, not a tree of small ones.
class PlaySink : public Sink<SerializedMessage> {
 public:
  // "observation-once": a DecisionRequest that follows, on this stream, the
  // DecisionResult carrying the same observation for the same match and seat
  // leaves it out (DecisionRequest.observation_in_result).
  virtual bool observation_once() const { return false; }
  // How many seats the stream plays: a bot's stream carries every seat of
  // the bot, and may queue more unsent messages the more seats it has.
  virtual void SetSeats(size_t seats) {}
  // Whether the stream's client takes acknowledgements (CommitAck,
  // RevealAck: evidence, nothing it must act on) a little late: a match
  // may then hold a step that sends only those, for the next message to
  // carry them along (see MatchHost).
  virtual bool holds_acknowledgements() const { return false; }
};
// Watch events go out already serialized: one event is serialized once and
// shared by every watcher's queue.
using WatchSink = Sink<SerializedMessage>;

// The current Play stream of each principal, by its route (Principal::route).
class Connections {
 public:
  // Makes `sink` the stream of `route`; a previous stream is closed ABORTED.
  void Attach(uint64_t route, std::shared_ptr<PlaySink> sink);
  // Forgets `sink` if it is still the stream of `route`.
  void Detach(uint64_t route, const PlaySink* sink);
  // The stream of `route`, or null.
  std::shared_ptr<PlaySink> Find(uint64_t route) const;
  // Changes whenever any route's stream does (Attach, Detach, CloseAll):
  // what Find returned after reading a version stays the answer while the
  // version reads the same, so a caller may keep it instead of asking
  // again. Read it before calling Find.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // Closes every stream (shutdown).
  void CloseAll(int code, const std::string& message);

 private:
  mutable absl::Mutex mu_;
  // Looked up for every message sent: hashed, read under a shared lock.
  absl::flat_hash_map<uint64_t, std::shared_ptr<PlaySink>> sinks_
      ABSL_GUARDED_BY(mu_);
  // Bumped under mu_ after each change of sinks_.
  std::atomic<uint64_t> version_{0};
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_CONNECTIONS_H_
