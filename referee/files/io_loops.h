// The loops around read and write calls that may do only part of what is
// asked: a signal (EINTR, or a short count once some bytes moved), a pipe,
// a file size limit, a file's end. Each loop goes on until all is done or a
// call fails, and says how far it got, so that its caller words its own
// error. Nothing here allocates or makes a message.
#ifndef PYRAMID_REFEREE_FILES_IO_LOOPS_H_
#define PYRAMID_REFEREE_FILES_IO_LOOPS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pyramid {

// How far a loop got. `done` bytes moved, all of them asked unless the
// loop stopped early: at a call that failed, `error` being its errno (and
// errno left as that call set it), or, with `error` 0, at a call that
// moved nothing: a read at the file's end, a write that took no byte.
struct IoProgress {
  size_t done = 0;
  int error = 0;
};

// write(2)s all of `data` to `fd`, again after EINTR and after a short
// count.
IoProgress WriteAll(int fd, std::string_view data);

// pwrite(2)s all of `data` at byte `offset` of `fd`, as WriteAll.
IoProgress PwriteAll(int fd, std::string_view data, uint64_t offset);

// Why a write loop stopped short, as a message says it: its error's
// strerror(3), or, for a call that took no byte (error 0), that it did.
const char* WriteStoppedText(const IoProgress& progress);

// pread(2)s `size` bytes at byte `offset` of `fd` into `buffer`, again after
// EINTR and after a short count, until the file's end (`done` < `size`,
// `error` 0).
IoProgress PreadFully(int fd, char* buffer, size_t size, uint64_t offset);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_IO_LOOPS_H_
