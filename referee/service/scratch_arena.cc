#include "referee/service/scratch_arena.h"

#include <memory>

namespace pyramid {
namespace {

// The calling thread's reusable first block, made on its first use.
struct ThreadBlock {
  std::unique_ptr<char[]> bytes;  // new[] aligns to at least 8, as needed.
  bool in_use = false;
};

ThreadBlock& ThisThreadsBlock() {
  thread_local ThreadBlock block;
  return block;
}

}  // namespace

google::protobuf::ArenaOptions ScratchArena::Options(
    bool& reuses_thread_block) {
  google::protobuf::ArenaOptions options;
  ThreadBlock& block = ThisThreadsBlock();
  if (block.in_use) {
    options.start_block_size = kScratchBlockBytes;
    reuses_thread_block = false;
    return options;
  }
  if (block.bytes == nullptr) {
    block.bytes = std::make_unique<char[]>(kScratchBlockBytes);
  }
  block.in_use = true;
  options.initial_block = block.bytes.get();
  options.initial_block_size = kScratchBlockBytes;
  reuses_thread_block = true;
  return options;
}

ScratchArena::ScratchArena() : arena_(Options(reuses_thread_block_)) {}

ScratchArena::~ScratchArena() {
  // Given back before the arena's destructor (which runs after this body)
  // destroys the messages in the block: nothing else can run on this thread
  // in between to take it. The arena frees the blocks it allocated itself,
  // never the initial one.
  if (reuses_thread_block_) ThisThreadsBlock().in_use = false;
}

}  // namespace pyramid
