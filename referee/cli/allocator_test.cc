#include "referee/cli/allocator.h"

#include <cstring>
#include <memory>

#include "gperftools/malloc_extension.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

// Built in the optimized builds only (the sanitizer build's allocator is
// its own, which neither mallinfo2 nor tcmalloc sees).
TEST(AllocatorTest, TheOptimizedBuildsUseTcmalloc) {
  EXPECT_EQ(AllocatorName(), "tcmalloc");
}

size_t Property(const char* name) {
  size_t value = 0;
  EXPECT_TRUE(MallocExtension::instance()->GetNumericProperty(name, &value))
      << name;
  return value;
}

TEST(AllocatorTest, TuneHandsFreedPagesBackAndKeepFreedPagesStops) {
  TuneAllocator();
  EXPECT_EQ(Property("tcmalloc.aggressive_memory_decommit"), 1u);
  EXPECT_EQ(Property("tcmalloc.max_total_thread_cache_bytes"),
            size_t{16} << 20);
  KeepFreedPages();
  EXPECT_EQ(Property("tcmalloc.aggressive_memory_decommit"), 0u);
  TuneAllocator();
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
