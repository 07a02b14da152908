// A protobuf arena for messages that are built, serialized and dropped
// within one call, as the referee does with a seat's DecisionRequest and a
// move's results (dozens of submessages each).
//
// Its first block is a buffer kept by the calling thread and reused by the
// next ScratchArena of that thread, so that building a message of up to
// kScratchBlockBytes allocates nothing on the heap (a heap message costs an
// allocation per submessage and per string, and a plain arena one
// allocation of its first block). Arenas nest: one made while another of
// the same thread is alive (a request parsed on one, the answers built on
// another) takes the thread's next buffer, up to kReusedDepth deep; deeper
// than that it gets a block of its own from the heap, as a plain arena
// would (safe, only slower). Each thread keeps the buffers it used until it
// ends. For a message of two or three parts (an acknowledgement) an arena's
// set-up costs more than it saves.
//
// Messages made on it die with it: serialize or copy them out first.
// Neither copyable nor movable; use it on the thread that made it.
#ifndef PYRAMID_REFEREE_SERVICE_SCRATCH_ARENA_H_
#define PYRAMID_REFEREE_SERVICE_SCRATCH_ARENA_H_

#include <cstddef>

#include "google/protobuf/arena.h"

namespace pyramid {

class ScratchArena {
 public:
  // Enough for every seat's observation in most positions of every game.
  static constexpr size_t kScratchBlockBytes = 16 * 1024;
  // How many arenas of one thread may be alive at once, each in a buffer
  // the thread keeps.
  static constexpr int kReusedDepth = 4;

  ScratchArena();
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  // A new, empty message of type T on the arena.
  template <typename T>
  T& Make() {
    return *google::protobuf::Arena::CreateMessage<T>(&arena_);
  }
  google::protobuf::Arena& arena() { return arena_; }

  // Whether this arena starts in a buffer the thread keeps (false for one
  // nested more than kReusedDepth deep).
  bool reuses_thread_block() const { return reuses_thread_block_; }

 private:
  static google::protobuf::ArenaOptions Options(bool& reuses_thread_block);

  // Declared before arena_: Options() sets it while arena_ is constructed.
  bool reuses_thread_block_ = false;
  google::protobuf::Arena arena_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_SCRATCH_ARENA_H_
