// The memory allocator of every program of ours (the referee, the
// tournament runner, the verifier, the bots, the benchmarks): gperftools'
// tcmalloc (Debian's libtcmalloc-minimal4) in the optimized builds, glibc's
// malloc in the sanitizer build, whose own allocator must see every
// allocation. InitProgram (program.h) calls TuneAllocator; replay, which
// parses its own arguments, calls it itself.
//
// Why: every message a match sends or receives allocates (protobuf messages,
// gRPC slices, log buffers), from several threads at once; with tcmalloc
// the referee spends up to 20% less CPU per message at 10,000 live matches,
// and the verifier 5-9% less per log (docs/performance-history.md, session
// 24). tcmalloc keeps freed memory for reuse; TuneAllocator makes it hand
// freed pages back to the system at once, so that the resident size follows
// the matches that are live, as an operator expects (without it, 10-12 KiB
// more per live match at 10,000), and bounds the threads' caches of freed
// objects at 16 MiB in all.
#ifndef PYRAMID_REFEREE_CLI_ALLOCATOR_H_
#define PYRAMID_REFEREE_CLI_ALLOCATOR_H_

#include <cstddef>
#include <string_view>

namespace pyramid {

// Call first thing in main, before threads start: sets the allocator's
// policy above. Does nothing under glibc's malloc.
void TuneAllocator();

// Stops handing freed pages back, for a process whose memory is not what
// matters and which frees and reuses much (bench_load's client): each page
// handed back is faulted in again, zeroed, when it is reused.
void KeepFreedPages();

// "tcmalloc" or "glibc malloc": which allocator this build uses.
std::string_view AllocatorName();

struct HeapBytes {
  size_t in_use = 0;  // Allocated by the program and not yet freed.
  size_t held = 0;    // Taken from the system by the allocator, free or not.
};
// What the allocator holds now. Walks glibc's arenas under their locks
// (mallinfo2): for reports, not for a hot path.
HeapBytes CurrentHeap();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_ALLOCATOR_H_
