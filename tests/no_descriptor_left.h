// A moment with no file descriptor left to the process, for tests of what
// a program does when a flood of clients has taken every descriptor it may
// have (EMFILE).
//
// While a NoDescriptorLeft lives, RLIMIT_NOFILE's soft limit is the lowest
// descriptor free, so that every open, dup, socket or pipe fails with
// EMFILE; its destructor puts the limit back. ok() says whether that took
// (a test asserts it). LowestFreeDescriptor() is the descriptor open()
// would take next.
//
// Under the sanitizers: UBSan's vptr check reads an object of a dynamic
// type it has not met before through a pipe (sanitizer_common's
// IsAccessibleMemoryRange), and with no descriptor left it reports that
// object as "invalid vptr". A test runs the code it checks once with
// descriptors to spare first, so that every type on the path is known.
//
// Header-only, without GoogleTest, as tests/temp_dir.h.
#ifndef PYRAMID_TESTS_NO_DESCRIPTOR_LEFT_H_
#define PYRAMID_TESTS_NO_DESCRIPTOR_LEFT_H_

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace pyramid {

inline int LowestFreeDescriptor() {
  const int fd = dup(0);
  if (fd >= 0) close(fd);
  return fd;
}

class NoDescriptorLeft {
 public:
  NoDescriptorLeft() {
    const int lowest_free = LowestFreeDescriptor();
    if (lowest_free < 0 || getrlimit(RLIMIT_NOFILE, &saved_) != 0) return;
    rlimit low = saved_;
    low.rlim_cur = static_cast<rlim_t>(lowest_free);
    ok_ = setrlimit(RLIMIT_NOFILE, &low) == 0 && dup(0) < 0 && errno == EMFILE;
  }
  ~NoDescriptorLeft() { setrlimit(RLIMIT_NOFILE, &saved_); }
  NoDescriptorLeft(const NoDescriptorLeft&) = delete;
  NoDescriptorLeft& operator=(const NoDescriptorLeft&) = delete;

  bool ok() const { return ok_; }

 private:
  rlimit saved_ = {};
  bool ok_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_TESTS_NO_DESCRIPTOR_LEFT_H_
