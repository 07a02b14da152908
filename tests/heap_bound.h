// Bounds how much more memory the calling process may allocate, for a
// test's forked child (tests/forked_child.h) that checks a piece of code
// judges a large input without taking memory in proportion to it.
//
// BoundHeapGrowth(extra_bytes): from the call on, the process may take at
// most about `extra_bytes` more. Past it:
//  - in a build without AddressSanitizer, its address space is bounded
//    (RLIMIT_AS, to what it maps now plus extra_bytes), so the allocation
//    that would cross it fails (std::bad_alloc: a ForkedChild exits with
//    ForkedChild::kThrew, a bare child aborts);
//  - under AddressSanitizer, whose shadow memory reserves terabytes of
//    address space so that RLIMIT_AS cannot bound it, a malloc hook ends
//    the process with _exit(kHeapBoundExceeded) at the allocation that
//    takes the heap past what it held at the call plus extra_bytes.
// Either way the child does not exit 0. Returns false (errno set) when the
// bound could not be set. Call it once per process, in the child only.
#ifndef PYRAMID_TESTS_HEAP_BOUND_H_
#define PYRAMID_TESTS_HEAP_BOUND_H_

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

#include "tests/sanitizers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(PYRAMID_TESTS_UNDER_ASAN)
#include <sanitizer/allocator_interface.h>
#endif

namespace pyramid {

// The exit code of a sanitized child that took more than its bound.
inline constexpr int kHeapBoundExceeded = 86;

namespace heap_bound_internal {

#if defined(__SANITIZE_ADDRESS__) || defined(PYRAMID_TESTS_UNDER_ASAN)
// The most the heap may hold; set once, before the hook is installed.
inline size_t ceiling = 0;

inline void OnMalloc(const volatile void*, size_t) {
  if (__sanitizer_get_current_allocated_bytes() > ceiling) {
    _exit(kHeapBoundExceeded);
  }
}
inline void OnFree(const volatile void*) {}
#endif

// The bytes this process maps now (/proc/self/statm's first field, in
// pages), or 0 when it cannot be read.
inline size_t MappedBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long pages = 0;
  const bool read = std::fscanf(statm, "%lu", &pages) == 1;
  std::fclose(statm);
  return read ? pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace heap_bound_internal

inline bool BoundHeapGrowth(size_t extra_bytes) {
#if defined(__SANITIZE_ADDRESS__) || defined(PYRAMID_TESTS_UNDER_ASAN)
  heap_bound_internal::ceiling =
      __sanitizer_get_current_allocated_bytes() + extra_bytes;
  return __sanitizer_install_malloc_and_free_hooks(
             heap_bound_internal::OnMalloc, heap_bound_internal::OnFree) != 0;
#else
  const size_t mapped = heap_bound_internal::MappedBytes();
  if (mapped == 0) return false;
  const rlimit bound = {.rlim_cur = mapped + extra_bytes,
                        .rlim_max = mapped + extra_bytes};
  return setrlimit(RLIMIT_AS, &bound) == 0;
#endif
}

}  // namespace pyramid

#endif  // PYRAMID_TESTS_HEAP_BOUND_H_
