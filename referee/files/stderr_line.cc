#include "referee/files/stderr_line.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace pyramid {
namespace {

// The description of its own of the pipe or terminal descriptor 2 is
// (-1: none, or /proc could not open it), and which file it is of.
std::mutex stderr_mutex;
int nonblocking_stderr = -1;
dev_t nonblocking_dev = 0;
ino_t nonblocking_ino = 0;

// Makes nonblocking_stderr a description of `stderr_file` (descriptor 2's
// fstat), if it is not already. With stderr_mutex held.
void ReopenStderrLocked(const struct stat& stderr_file) {
  if (nonblocking_stderr >= 0 && nonblocking_dev == stderr_file.st_dev &&
      nonblocking_ino == stderr_file.st_ino) {
    return;
  }
  if (nonblocking_stderr >= 0) close(nonblocking_stderr);
  nonblocking_stderr =
      open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  nonblocking_dev = stderr_file.st_dev;
  nonblocking_ino = stderr_file.st_ino;
}

// Whether descriptor 2 is a file whose writes never wait for a reader: a
// regular file or a block device (those wait for the disk only). A pipe, a
// socket or a terminal waits while its reader does not read.
bool NeverWaitsForAReader(const struct stat& stderr_file) {
  return S_ISREG(stderr_file.st_mode) || S_ISBLK(stderr_file.st_mode);
}

}  // namespace

void PrepareStderrLines() {
  struct stat stderr_file;
  if (fstat(STDERR_FILENO, &stderr_file) != 0) return;
  if (NeverWaitsForAReader(stderr_file) || S_ISSOCK(stderr_file.st_mode)) {
    return;
  }
  std::lock_guard<std::mutex> lock(stderr_mutex);
  ReopenStderrLocked(stderr_file);
}

bool WriteStderrLine(std::string_view line, StderrWait wait) {
  char cut[kMaxStderrLineBytes];
  if (line.size() > kMaxStderrLineBytes) {
    std::copy_n(line.data(), kMaxStderrLineBytes - 1, cut);
    cut[kMaxStderrLineBytes - 1] = '\n';
    line = std::string_view(cut, kMaxStderrLineBytes);
  }
  struct stat stderr_file;
  if (fstat(STDERR_FILENO, &stderr_file) != 0) return false;
  if (NeverWaitsForAReader(stderr_file)) {
    return write(STDERR_FILENO, line.data(), line.size()) > 0;
  }
  if (S_ISSOCK(stderr_file.st_mode)) {
    return send(STDERR_FILENO, line.data(), line.size(),
                MSG_DONTWAIT | MSG_NOSIGNAL) > 0;
  }
  {
    std::lock_guard<std::mutex> lock(stderr_mutex);
    ReopenStderrLocked(stderr_file);
    if (nonblocking_stderr >= 0) {
      return write(nonblocking_stderr, line.data(), line.size()) > 0;
    }
  }
  return wait == StderrWait::kIfNeeded &&
         write(STDERR_FILENO, line.data(), line.size()) > 0;
}

}  // namespace pyramid
