#include "referee/cli/allocator.h"

#if PYRAMID_TCMALLOC
#include "gperftools/malloc_extension.h"
#else
#include <malloc.h>
#endif

namespace pyramid {

#if PYRAMID_TCMALLOC

void TuneAllocator() {
  // A span of pages freed is returned to the system (madvise) when it is
  // freed, not when the page heap grows past a bound.
  MallocExtension::instance()->SetNumericProperty(
      "tcmalloc.aggressive_memory_decommit", 1);
  // The threads' caches of freed objects, all together (32 MiB by default).
  MallocExtension::instance()->SetNumericProperty(
      "tcmalloc.max_total_thread_cache_bytes", size_t{16} << 20);
}

void KeepFreedPages() {
  MallocExtension::instance()->SetNumericProperty(
      "tcmalloc.aggressive_memory_decommit", 0);
}

std::string_view AllocatorName() { return "tcmalloc"; }

HeapBytes CurrentHeap() {
  HeapBytes bytes;
  MallocExtension* extension = MallocExtension::instance();
  extension->GetNumericProperty("generic.current_allocated_bytes",
                                &bytes.in_use);
  extension->GetNumericProperty("generic.heap_size", &bytes.held);
  size_t unmapped = 0;  // Part of heap_size, but given back to the system.
  extension->GetNumericProperty("tcmalloc.pageheap_unmapped_bytes", &unmapped);
  bytes.held -= unmapped;
  return bytes;
}

#else

void TuneAllocator() {}

void KeepFreedPages() {}

std::string_view AllocatorName() { return "glibc malloc"; }

HeapBytes CurrentHeap() {
  const struct mallinfo2 info = mallinfo2();
  return HeapBytes{.in_use = info.uordblks + info.hblkhd,
                   .held = info.arena + info.hblkhd};
}

#endif

}  // namespace pyramid
