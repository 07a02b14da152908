#include "referee/service/scratch_arena.h"

#include <array>
#include <memory>

namespace pyramid {
namespace {

// The calling thread's reusable first blocks, each made on its first use;
// `depth` of them are in use, by the arenas alive on the thread.
struct ThreadBlocks {
  // new[] aligns to at least 8, as an arena's initial block needs.
  std::array<std::unique_ptr<char[]>, ScratchArena::kReusedDepth> bytes;
  int depth = 0;
};

ThreadBlocks& ThisThreadsBlocks() {
  thread_local ThreadBlocks blocks;
  return blocks;
}

}  // namespace

google::protobuf::ArenaOptions ScratchArena::Options(
    bool& reuses_thread_block) {
  google::protobuf::ArenaOptions options;
  ThreadBlocks& blocks = ThisThreadsBlocks();
  if (blocks.depth == kReusedDepth) {
    options.start_block_size = kScratchBlockBytes;
    reuses_thread_block = false;
    return options;
  }
  std::unique_ptr<char[]>& block = blocks.bytes[blocks.depth++];
  // Not zeroed: a page of it becomes resident only once an arena uses it.
  if (block == nullptr) {
    block = std::make_unique_for_overwrite<char[]>(kScratchBlockBytes);
  }
  options.initial_block = block.get();
  options.initial_block_size = kScratchBlockBytes;
  reuses_thread_block = true;
  return options;
}

ScratchArena::ScratchArena() : arena_(Options(reuses_thread_block_)) {}

ScratchArena::~ScratchArena() {
  // Given back before the arena's destructor (which runs after this body)
  // destroys the messages in the block: nothing else can run on this thread
  // in between to take it. Arenas of a thread end in the reverse order of
  // their making (they are not movable), so the block given back is the
  // last one taken. The arena frees the blocks it allocated itself, never
  // the initial one.
  if (reuses_thread_block_) --ThisThreadsBlocks().depth;
}

}  // namespace pyramid
