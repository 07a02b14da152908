// BoundHeapGrowth, in release and under ASan: a child that stays within its
// bound exits 0, one that takes more does not.
#include "tests/heap_bound.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include "gtest/gtest.h"
#include "tests/forked_child.h"

namespace pyramid {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// A child bound to 256 MiB more that allocates `mib` MiB, in pieces of
// `piece_mib` (each written to, so that it is really taken), and keeps them.
ChildEnd Allocate(size_t mib, size_t piece_mib) {
  ForkedChild child([mib, piece_mib](int) {
    if (!BoundHeapGrowth(256 * kMiB)) _exit(2);
    std::unique_ptr<std::unique_ptr<char[]>[]> pieces(
        new std::unique_ptr<char[]>[mib / piece_mib]);
    for (size_t i = 0; i < mib / piece_mib; ++i) {
      pieces[i] = std::make_unique<char[]>(piece_mib * kMiB);
      pieces[i][piece_mib * kMiB - 1] = 1;
    }
  });
  EXPECT_TRUE(child.ok()) << std::strerror(errno);
  return child.Wait();
}

TEST(HeapBoundTest, AChildWithinItsBoundExitsZero) {
  EXPECT_EQ(Allocate(/*mib=*/64, /*piece_mib=*/1).exit_code, 0);
  EXPECT_EQ(Allocate(/*mib=*/128, /*piece_mib=*/128).exit_code, 0);
}

TEST(HeapBoundTest, AChildPastItsBoundDoesNotExitZero) {
  for (const size_t piece_mib : {size_t{1}, size_t{512}}) {
    const ChildEnd end = Allocate(/*mib=*/1024, piece_mib);
    EXPECT_NE(end.exit_code, 0)
        << piece_mib << " MiB pieces: " << end.ToString();
    EXPECT_NE(end.exit_code, 2) << "the bound was not set";
  }
}

}  // namespace
}  // namespace pyramid
