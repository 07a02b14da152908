#include "referee/files/io_loops.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pyramid {
namespace {

// Calls `call(done)` (one system call for what remains after `done` bytes)
// until `size` bytes are done, a call fails with anything but EINTR, or a
// call moves nothing.
template <typename Call>
IoProgress Loop(size_t size, const Call& call) {
  IoProgress progress;
  while (progress.done < size) {
    const ssize_t n = call(progress.done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      progress.error = errno;
      break;
    }
    if (n == 0) break;
    progress.done += static_cast<size_t>(n);
  }
  return progress;
}

}  // namespace

IoProgress WriteAll(int fd, std::string_view data) {
  return Loop(data.size(), [&](size_t done) {
    return write(fd, data.data() + done, data.size() - done);
  });
}

IoProgress PwriteAll(int fd, std::string_view data, uint64_t offset) {
  return Loop(data.size(), [&](size_t done) {
    return pwrite(fd, data.data() + done, data.size() - done,
                  static_cast<off_t>(offset + done));
  });
}

const char* WriteStoppedText(const IoProgress& progress) {
  return progress.error == 0 ? "the file took no more bytes"
                             : std::strerror(progress.error);
}

IoProgress PreadFully(int fd, char* buffer, size_t size, uint64_t offset) {
  return Loop(size, [&](size_t done) {
    return pread(fd, buffer + done, size - done,
                 static_cast<off_t>(offset + done));
  });
}

}  // namespace pyramid
