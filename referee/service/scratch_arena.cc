#include "referee/service/scratch_arena.h"

#include <algorithm>
#include <array>
#include <memory>

namespace pyramid {
namespace {

// The calling thread's reusable first blocks, each made on its first use,
// and which of them arenas alive on the thread use.
struct ThreadBlocks {
  std::array<std::unique_ptr<char[]>, ScratchArena::kReusedDepth> bytes;
  std::array<bool, ScratchArena::kReusedDepth> in_use{};
};

ThreadBlocks& ThisThreadsBlocks() {
  thread_local ThreadBlocks blocks;
  return blocks;
}

}  // namespace

google::protobuf::ArenaOptions ScratchArena::Options(int& block_index) {
  google::protobuf::ArenaOptions options;
  ThreadBlocks& blocks = ThisThreadsBlocks();
  const auto free =
      std::find(blocks.in_use.begin(), blocks.in_use.end(), false);
  if (free == blocks.in_use.end()) {
    options.start_block_size = kScratchBlockBytes;
    block_index = -1;
    return options;
  }
  *free = true;
  block_index = static_cast<int>(free - blocks.in_use.begin());
  std::unique_ptr<char[]>& block = blocks.bytes[block_index];
  // Not zeroed: a page of it becomes resident only once an arena uses it.
  // (new[] aligns to at least 8, as an arena's initial block needs.)
  if (block == nullptr) {
    block = std::make_unique_for_overwrite<char[]>(kScratchBlockBytes);
  }
  options.initial_block = block.get();
  options.initial_block_size = kScratchBlockBytes;
  return options;
}

ScratchArena::ScratchArena() : arena_(Options(block_index_)) {}

ScratchArena::~ScratchArena() {
  // Given back before the arena's destructor (which runs after this body)
  // destroys the messages in the block: nothing else can run on this thread
  // in between to take it. The arena frees the blocks it allocated itself,
  // never the initial one.
  if (block_index_ >= 0) ThisThreadsBlocks().in_use[block_index_] = false;
}

}  // namespace pyramid
