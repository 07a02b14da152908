// A protobuf arena for messages that are built, serialized and dropped
// within one call, as the referee does with a seat's DecisionRequest and a
// move's results (dozens of submessages each).
//
// Its first block is a buffer kept by the calling thread and reused by the
// next ScratchArena of that thread, so that building a message of up to
// kScratchBlockBytes allocates nothing on the heap (a heap message costs an
// allocation per submessage and per string, and a plain arena one
// allocation of its first block). Arenas nest: one made while others of
// the same thread are alive (a request parsed on one, the answers built on
// another) takes a free buffer of the thread's, which keeps kReusedDepth;
// when all are in use it gets a block of its own from the heap, as a plain
// arena would (safe, only slower). Each thread keeps the buffers it used
// until it ends. For a message of two or three parts (an acknowledgement) an
// arena's set-up costs more than it saves.
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
  // the thread keeps (in any order of making and ending).
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
  bool reuses_thread_block() const { return block_index_ >= 0; }

 private:
  // Takes a free block of the thread's for the arena's first, setting
  // `block_index` to its index, or -1 when every one is in use.
  static google::protobuf::ArenaOptions Options(int& block_index);

  // Declared before arena_: Options() sets it while arena_ is constructed.
  int block_index_ = -1;
  google::protobuf::Arena arena_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_SCRATCH_ARENA_H_
