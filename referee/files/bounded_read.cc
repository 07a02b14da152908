#include "referee/files/bounded_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// What a file of mode `mode` is, for "not a regular file (a FIFO or pipe)".
std::string KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "neither a file nor a pipe";
}

// Closes a descriptor when it goes.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Whether `error` (an errno) says the process or the system lacks a
// resource for now (descriptors, kernel memory) rather than anything about
// the file: a later try may succeed.
bool OutOfResources(int error) {
  return error == EMFILE || error == ENFILE || error == ENOMEM ||
         error == ENOBUFS;
}

// The code of a failed fstat or read: DATA_LOSS, unless it lacked a
// resource.
absl::StatusCode ReadFailure(int error) {
  return OutOfResources(error) ? absl::StatusCode::kResourceExhausted
                               : absl::StatusCode::kDataLoss;
}

}  // namespace

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            const BoundedRead& options) {
  const auto error = [&path](absl::StatusCode code, const std::string& why) {
    return absl::Status(code, absl::StrCat("cannot read ", path, ": ", why));
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int reason = errno;
    const absl::StatusCode code =
        reason == ENOENT || reason == ENOTDIR || reason == ENAMETOOLONG
            ? absl::StatusCode::kNotFound
        : reason == EACCES || reason == EPERM
            ? absl::StatusCode::kPermissionDenied
        : OutOfResources(reason) ? absl::StatusCode::kResourceExhausted
                                 : absl::StatusCode::kFailedPrecondition;
    return absl::Status(code, absl::StrCat(options.open_failure, " ", path,
                                           ": ", std::strerror(reason)));
  }
  const Descriptor file(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int reason = errno;
    return error(ReadFailure(reason), std::strerror(reason));
  }
  if (S_ISDIR(st.st_mode)) {
    return error(absl::StatusCode::kFailedPrecondition, "it is a directory");
  }
  const bool regular = S_ISREG(st.st_mode);
  const bool pipe = S_ISFIFO(st.st_mode);
  if (!regular && !(pipe && options.pipes) &&
      !((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && options.devices)) {
    return error(
        absl::StatusCode::kFailedPrecondition,
        absl::StrCat("it is not a regular file (", KindOf(st.st_mode), ")"));
  }
  if (regular && static_cast<uint64_t>(st.st_size) > options.max_bytes) {
    return error(
        absl::StatusCode::kResourceExhausted,
        absl::StrCat("it is ", st.st_size, " bytes, more than ",
                     options.over_size.empty()
                         ? absl::StrCat(options.max_bytes, " (not read)")
                         : options.over_size));
  }
  // Read in place up to the size fstat gave; past it (a pipe or a device,
  // which have none, or a file that grew) through a buffer, so that a
  // whole file is neither copied nor reallocated.
  std::string contents(regular ? static_cast<size_t>(st.st_size) : 0, '\0');
  char past_size[1 << 14];
  uint64_t done = 0;
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();  // When something last came.
  while (true) {
    const bool in_place = done < contents.size();
    char* into = in_place ? contents.data() + done : past_size;
    const size_t room = in_place ? contents.size() - done : sizeof(past_size);
    const ssize_t n = read(fd, into, room);
    if (n > 0) {
      done += static_cast<uint64_t>(n);
      if (done > options.max_bytes) {
        return error(
            absl::StatusCode::kResourceExhausted,
            absl::StrCat("it holds more than ",
                         options.over_stream.empty()
                             ? absl::StrCat(options.max_bytes, " bytes")
                             : options.over_stream));
      }
      if (!in_place) contents.append(past_size, static_cast<size_t>(n));
      last = Clock::now();
      continue;
    }
    if (n == 0) {
      // A FIFO with no writer reads as its end at once: waiting for one
      // (as a blocking open does) might never end.
      if (pipe && done == 0 &&
          options.no_writer == BoundedRead::NoWriter::kRefuse) {
        return error(absl::StatusCode::kFailedPrecondition,
                     "a FIFO or pipe with no writer and nothing in it");
      }
      break;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      const int reason = errno;
      return error(ReadFailure(reason), std::strerror(reason));
    }
    // A writer that has not written yet. Polled in slices: a FIFO opened
    // after its writer may never report POLLHUP when the writer closes,
    // while read then says so.
    int slice = 100;
    if (options.idle_ms >= 0) {
      const int64_t idle =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                last)
              .count();
      if (idle >= options.idle_ms) {
        return error(
            absl::StatusCode::kDeadlineExceeded,
            absl::StrCat("nothing came from it for ", options.idle_ms, " ms"));
      }
      slice =
          static_cast<int>(std::min<int64_t>(slice, options.idle_ms - idle));
    }
    pollfd wait{.fd = fd, .events = POLLIN, .revents = 0};
    poll(&wait, 1, slice);
  }
  contents.resize(done);  // A file that shrank meanwhile.
  return contents;
}

}  // namespace pyramid
