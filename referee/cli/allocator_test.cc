#include "referee/cli/allocator.h"

#include <cstring>
#include <memory>

#include "gtest/gtest.h"

namespace pyramid {
namespace {

// Built in the optimized builds only (the sanitizer build's allocator is
// its own, which neither mallinfo2 nor tcmalloc sees).
TEST(AllocatorTest, TheOptimizedBuildsUseTcmalloc) {
  EXPECT_EQ(AllocatorName(), "tcmalloc");
}

TEST(AllocatorTest, CurrentHeapCountsWhatIsAllocatedAndFreed) {
  TuneAllocator();
  constexpr size_t kBytes = size_t{8} << 20;
  const HeapBytes before = CurrentHeap();
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);  // Touched: resident, not elided.
  const HeapBytes during = CurrentHeap();
  EXPECT_GE(during.in_use, before.in_use + kBytes);
  EXPECT_GE(during.held, during.in_use);
  block.reset();
  const HeapBytes after = CurrentHeap();
  EXPECT_LE(after.in_use + kBytes, during.in_use);
}

}  // namespace
}  // namespace pyramid
