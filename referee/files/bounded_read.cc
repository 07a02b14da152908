#include "referee/files/bounded_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
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

constexpr char kShortagePayload[] = "pyramid.files/shortage";

// `status`, marked as IsShortage's when `error` says a resource was
// lacking.
absl::Status MarkShortage(absl::Status status, int error) {
  if (OutOfResources(error)) status.SetPayload(kShortagePayload, absl::Cord());
  return status;
}

}  // namespace

bool IsShortage(const absl::Status& status) {
  return status.GetPayload(kShortagePayload).has_value();
}

absl::Status AsShortage(absl::Status status) {
  status.SetPayload(kShortagePayload, absl::Cord());
  return status;
}

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            const BoundedRead& options) {
  absl::StatusOr<BoundedFile> file = BoundedFile::Open(path, options);
  if (!file.ok()) return file.status();
  return file->Read();
}

absl::StatusOr<BoundedFile> BoundedFile::Open(const std::string& path,
                                              const BoundedRead& options) {
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
    return MarkShortage(
        absl::Status(code, absl::StrCat(options.open_failure, " ", path, ": ",
                                        std::strerror(reason))),
        reason);
  }
  // Closes it on every refusal below.
  BoundedFile file(path, options, fd, /*regular=*/false, /*pipe=*/false,
                   /*size=*/0);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int reason = errno;
    return MarkShortage(file.Error(ReadFailure(reason), std::strerror(reason)),
                        reason);
  }
  if (S_ISDIR(st.st_mode)) {
    return file.Error(absl::StatusCode::kFailedPrecondition,
                      "it is a directory");
  }
  file.regular_ = S_ISREG(st.st_mode);
  file.pipe_ = S_ISFIFO(st.st_mode);
  if (!file.regular_ && !(file.pipe_ && options.pipes) &&
      !((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && options.devices)) {
    return file.Error(
        absl::StatusCode::kFailedPrecondition,
        absl::StrCat("it is not a regular file (", KindOf(st.st_mode), ")"));
  }
  if (file.regular_) file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ > options.max_bytes) {
    return file.Error(
        absl::StatusCode::kResourceExhausted,
        absl::StrCat("it is ", file.size_, " bytes, more than ",
                     options.over_size.empty()
                         ? absl::StrCat(options.max_bytes, " (not read)")
                         : options.over_size));
  }
  return file;
}

BoundedFile::BoundedFile(std::string path, const BoundedRead& options, int fd,
                         bool regular, bool pipe, uint64_t size)
    : path_(std::move(path)),
      options_(options),
      fd_(fd),
      regular_(regular),
      pipe_(pipe),
      size_(size) {}

BoundedFile::BoundedFile(BoundedFile&& other) noexcept
    : path_(std::move(other.path_)),
      options_(std::move(other.options_)),
      fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_),
      pipe_(other.pipe_),
      size_(other.size_) {}

BoundedFile& BoundedFile::operator=(BoundedFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    options_ = std::move(other.options_);
    fd_ = std::exchange(other.fd_, -1);
    regular_ = other.regular_;
    pipe_ = other.pipe_;
    size_ = other.size_;
  }
  return *this;
}

BoundedFile::~BoundedFile() {
  if (fd_ >= 0) close(fd_);
}

absl::Status BoundedFile::Error(absl::StatusCode code,
                                const std::string& why) const {
  return absl::Status(code, absl::StrCat("cannot read ", path_, ": ", why));
}

absl::StatusOr<std::string> BoundedFile::Read() {
  std::string contents;
  absl::StatusOr<bool> over =
      ReadPart(std::numeric_limits<uint64_t>::max(), &contents);
  if (!over.ok()) return over.status();
  return contents;
}

absl::StatusOr<bool> BoundedFile::ReadPart(uint64_t until, std::string* bytes) {
  // The bytes that must come first, judged before anything past them is
  // read or held.
  const std::string_view start = options_.expected_start;
  // Once they are judged, read in place up to the size fstat gave (or
  // `until`); they and what comes past that size (from a pipe or a
  // device, which have none, or a file that grew) through a buffer, so
  // that a whole file is neither copied nor reallocated.
  std::string& contents = *bytes;
  const uint64_t in_place_end = std::min(size_, until);
  char buffer[1 << 14];
  uint64_t done = contents.size();
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();  // When something last came.
  bool ended = false;
  while (done < until) {
    const bool judging = done < start.size();
    if (!judging && contents.size() < in_place_end) {
      contents.resize(in_place_end);
    }
    const bool in_place = done < contents.size();
    char* into = in_place ? contents.data() + done : buffer;
    const uint64_t room =
        std::min<uint64_t>(until - done, in_place  ? contents.size() - done
                                         : judging ? start.size() - done
                                                   : sizeof(buffer));
    const ssize_t n = read(fd_, into, room);
    if (n > 0) {
      done += static_cast<uint64_t>(n);
      if (done > options_.max_bytes) {
        return Error(
            absl::StatusCode::kResourceExhausted,
            absl::StrCat("it holds more than ",
                         options_.over_stream.empty()
                             ? absl::StrCat(options_.max_bytes, " bytes")
                             : options_.over_stream));
      }
      if (!in_place) contents.append(buffer, static_cast<size_t>(n));
      // Not the start expected: the caller judges what came.
      if (judging && !start.starts_with(contents)) return true;
      last = Clock::now();
      continue;
    }
    if (n == 0) {
      // A FIFO with no writer reads as its end at once: waiting for one
      // (as a blocking open does) might never end.
      if (pipe_ && done == 0 &&
          options_.no_writer == BoundedRead::NoWriter::kRefuse) {
        return Error(absl::StatusCode::kFailedPrecondition,
                     "a FIFO or pipe with no writer and nothing in it");
      }
      ended = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      const int reason = errno;
      return MarkShortage(Error(ReadFailure(reason), std::strerror(reason)),
                          reason);
    }
    // A writer that has not written yet. Polled in slices: a FIFO opened
    // after its writer may never report POLLHUP when the writer closes,
    // while read then says so.
    int slice = 100;
    if (options_.idle_ms >= 0) {
      const int64_t idle =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                last)
              .count();
      if (idle >= options_.idle_ms) {
        return Error(
            absl::StatusCode::kDeadlineExceeded,
            absl::StrCat("nothing came from it for ", options_.idle_ms, " ms"));
      }
      slice =
          static_cast<int>(std::min<int64_t>(slice, options_.idle_ms - idle));
    }
    pollfd wait{.fd = fd_, .events = POLLIN, .revents = 0};
    poll(&wait, 1, slice);
  }
  contents.resize(done);  // A file that shrank meanwhile.
  return ended;
}

}  // namespace pyramid
