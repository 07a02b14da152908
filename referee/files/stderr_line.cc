#include "referee/files/stderr_line.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <utility>

namespace pyramid {
namespace {

std::mutex stderr_mutex;
// The description of its own of the pipe or terminal descriptor 2 is
// (-1: none, or /proc could not open it), and which file it is of.
int nonblocking_stderr = -1;
dev_t nonblocking_dev = 0;
ino_t nonblocking_ino = 0;
// Whether the file below holds the start of a line whose rest it did not
// take (a socket, terminal or full disk that took part of a write): the
// next line written to it begins with a newline that ends that part.
bool cut_short = false;
dev_t cut_short_dev = 0;
ino_t cut_short_ino = 0;

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

// How a line goes to stderr's file: writev(2), or sendmsg(2) without
// waiting.
enum class Send { kWrite, kSocket };

// Writes `line` to `fd` (stderr's file `stderr_file`), after the newline
// that ends a line cut short there before. With stderr_mutex held. Returns
// whether all of `line` was written; when only part of it was, the next
// line ends it.
bool WriteLineLocked(int fd, Send send, const struct stat& stderr_file,
                     std::string_view line) {
  const bool end_cut_line = cut_short && cut_short_dev == stderr_file.st_dev &&
                            cut_short_ino == stderr_file.st_ino;
  char newline = '\n';
  struct iovec parts[2] = {{&newline, 1},
                           {const_cast<char*>(line.data()), line.size()}};
  struct iovec* first = end_cut_line ? parts : parts + 1;
  const int count = end_cut_line ? 2 : 1;
  ssize_t written;
  if (send == Send::kSocket) {
    struct msghdr message = {};
    message.msg_iov = first;
    message.msg_iovlen = count;
    written = sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  } else {
    written = writev(fd, first, count);
  }
  if (written <= 0) return false;
  const size_t of_line = static_cast<size_t>(written) - (end_cut_line ? 1 : 0);
  if (of_line == line.size()) {
    cut_short = false;
    return true;
  }
  if (of_line > 0) {
    cut_short = true;
    cut_short_dev = stderr_file.st_dev;
    cut_short_ino = stderr_file.st_ino;
  } else {
    cut_short = false;  // The newline alone went: it ended the cut line.
  }
  return false;
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
  std::unique_lock<std::mutex> lock(stderr_mutex);
  if (NeverWaitsForAReader(stderr_file)) {
    return WriteLineLocked(STDERR_FILENO, Send::kWrite, stderr_file, line);
  }
  if (S_ISSOCK(stderr_file.st_mode)) {
    return WriteLineLocked(STDERR_FILENO, Send::kSocket, stderr_file, line);
  }
  ReopenStderrLocked(stderr_file);
  if (nonblocking_stderr >= 0) {
    return WriteLineLocked(nonblocking_stderr, Send::kWrite, stderr_file, line);
  }
  if (wait != StderrWait::kIfNeeded) return false;
  // A write that may wait, to a pipe or terminal /proc could not open
  // again: made without the lock, so that it never holds up a line that
  // must not wait (which takes the lock to write). A blocking write to a
  // pipe or terminal takes the whole line; it ends a line cut short before
  // in that file, which it owes, and leaves none.
  const bool end_cut_line = std::exchange(cut_short, false) &&
                            cut_short_dev == stderr_file.st_dev &&
                            cut_short_ino == stderr_file.st_ino;
  lock.unlock();
  char newline = '\n';
  struct iovec parts[2] = {{&newline, 1},
                           {const_cast<char*>(line.data()), line.size()}};
  const ssize_t written = writev(
      STDERR_FILENO, end_cut_line ? parts : parts + 1, end_cut_line ? 2 : 1);
  return written == static_cast<ssize_t>((end_cut_line ? 1 : 0) + line.size());
}

}  // namespace pyramid
