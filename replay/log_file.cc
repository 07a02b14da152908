#include "replay/log_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/files/bounded_read.h"

namespace pyramid {
namespace {

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

// Why `path` could not be opened (errno `reason`), with the codes and
// words ReadBoundedFile gives (referee/files/bounded_read.h).
absl::Status OpenFailure(const std::string& path, int reason) {
  const absl::StatusCode code =
      reason == ENOENT || reason == ENOTDIR || reason == ENAMETOOLONG
          ? absl::StatusCode::kNotFound
      : reason == EACCES || reason == EPERM
          ? absl::StatusCode::kPermissionDenied
      : reason == EMFILE || reason == ENFILE || reason == ENOMEM ||
              reason == ENOBUFS
          ? absl::StatusCode::kResourceExhausted
          : absl::StatusCode::kFailedPrecondition;
  return absl::Status(
      code, absl::StrCat("cannot open ", path, ": ", std::strerror(reason)));
}

// "cannot read PATH: WHY".
absl::Status CannotRead(const std::string& path, absl::StatusCode code,
                        const std::string& why) {
  return absl::Status(code, absl::StrCat("cannot read ", path, ": ", why));
}

// Why a file of mode `mode` is not read as a log, or "" when it is (a
// regular file, a pipe or FIFO); in ReadBoundedFile's words.
std::string Refusal(mode_t mode) {
  if (S_ISREG(mode) || S_ISFIFO(mode)) return "";
  if (S_ISDIR(mode)) return "it is a directory";
  const char* kind = S_ISCHR(mode)    ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "neither a file nor a pipe";
  return absl::StrCat("it is not a regular file (", kind, ")");
}

// Whether `first` (a file's first bytes, at most the magic's length) may
// start a log: a prefix of the magic.
bool MayBeLog(std::string_view first) {
  return log_format::kMagic.substr(0, first.size()) == first;
}

// Reads the first bytes of the pipe `fd` (non-blocking) into `first`, up
// to the magic's length or the pipe's end, waiting for its writer as long
// as it keeps the pipe open. Returns the errno of a failed read, or 0.
int ReadFirstBytes(int fd, std::string& first) {
  char bytes[log_format::kMagic.size()];
  size_t done = 0;
  while (done < sizeof(bytes)) {
    const ssize_t n = read(fd, bytes + done, sizeof(bytes) - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return errno;
    // As ReadBoundedFile: polled in slices, since a FIFO opened after its
    // writer may never report POLLHUP when the writer closes.
    pollfd wait{.fd = fd, .events = POLLIN, .revents = 0};
    poll(&wait, 1, 100);
  }
  first.assign(bytes, done);
  return 0;
}

}  // namespace

LogBudget::LogBudget(uint64_t bytes) : bytes_(bytes) {}

uint64_t LogBudget::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

void LogBudget::Take(uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  room_.wait(lock, [&] {
    return serving_ == ticket && (held_ == 0 || held_ + bytes <= bytes_);
  });
  held_ += bytes;
  ++serving_;
  room_.notify_all();  // The next in turn may fit too.
}

void LogBudget::Add(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ += bytes;
}

void LogBudget::Give(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ -= bytes;
  room_.notify_all();
}

LogBudget& SharedLogBudget() {
  static LogBudget* const budget = new LogBudget(PhysicalMemoryBytes() / 2);
  return *budget;
}

LogFile::LogFile(std::string bytes, LogBudget* budget, uint64_t held)
    : bytes_(std::move(bytes)), budget_(budget), held_(held) {}

LogFile::LogFile(LogFile&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      budget_(std::exchange(other.budget_, nullptr)),
      held_(std::exchange(other.held_, 0)) {}

LogFile& LogFile::operator=(LogFile&& other) noexcept {
  if (this != &other) {
    if (budget_ != nullptr) budget_->Give(held_);
    bytes_ = std::move(other.bytes_);
    budget_ = std::exchange(other.budget_, nullptr);
    held_ = std::exchange(other.held_, 0);
  }
  return *this;
}

LogFile::~LogFile() {
  if (budget_ != nullptr) budget_->Give(held_);
}

absl::StatusOr<LogFile> ReadLog(const std::string& path, LogBudget& budget) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return OpenFailure(path, errno);
  const Descriptor file(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return CannotRead(path, absl::StatusCode::kDataLoss, std::strerror(errno));
  }
  if (const std::string why = Refusal(st.st_mode); !why.empty()) {
    return CannotRead(path, absl::StatusCode::kFailedPrecondition, why);
  }
  const bool pipe = S_ISFIFO(st.st_mode);
  const uint64_t memory = PhysicalMemoryBytes();
  const std::string limit =
      absl::StrCat("this machine's memory (", memory, " bytes)");
  // A file larger than memory could not be held, log or not: refused
  // unread, without waiting for room.
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (!pipe && size > memory) {
    return CannotRead(
        path, absl::StatusCode::kResourceExhausted,
        absl::StrCat("it is ", size, " bytes, more than ", limit));
  }
  // The first bytes, before the rest is read: a file that is not a log
  // ends here, however large it is or however long a pipe goes on.
  std::string first;
  if (pipe) {
    if (const int reason = ReadFirstBytes(fd, first); reason != 0) {
      return CannotRead(path, absl::StatusCode::kDataLoss,
                        std::strerror(reason));
    }
    if (first.empty()) {
      return CannotRead(path, absl::StatusCode::kFailedPrecondition,
                        "a FIFO or pipe with no writer and nothing in it");
    }
  } else {
    char bytes[log_format::kMagic.size()];
    ssize_t n;
    do {
      n = pread(fd, bytes, sizeof(bytes), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      return CannotRead(path, absl::StatusCode::kDataLoss,
                        std::strerror(errno));
    }
    first.assign(bytes, static_cast<size_t>(n));
  }
  if (!MayBeLog(first)) return LogFile(std::move(first), nullptr, 0);
  // A pipe that ended inside the magic has given all it holds.
  if (pipe && first.size() < log_format::kMagic.size()) {
    return LogFile(std::move(first), nullptr, 0);
  }

  // The rest through ReadBoundedFile, on the file this descriptor opened
  // (its /dev/fd entry: the same file, or the same pipe, whatever its name
  // names now), each error naming `path`.
  const uint64_t taken = pipe ? budget.bytes() : size;
  budget.Take(taken);
  const std::string fd_path = absl::StrCat("/dev/fd/", fd);
  absl::StatusOr<std::string> bytes = ReadBoundedFile(
      fd_path, BoundedRead{.max_bytes = memory - (pipe ? first.size() : 0),
                           .pipes = true,
                           .no_writer = BoundedRead::NoWriter::kEmpty,
                           .over_size = limit,
                           .over_stream = limit,
                           .open_failure = "cannot open"});
  if (!bytes.ok()) {
    budget.Give(taken);
    return absl::Status(
        bytes.status().code(),
        absl::StrReplaceAll(bytes.status().message(), {{fd_path, path}}));
  }
  // The pipe's first bytes were read here already.
  if (pipe) bytes->insert(0, first);
  // Counted as held: what it holds (a pipe, or a file that grew or shrank
  // while read).
  const uint64_t held = bytes->size();
  if (held > taken) budget.Add(held - taken);
  if (held < taken) budget.Give(taken - held);
  return LogFile(*std::move(bytes), &budget, held);
}

absl::StatusOr<LogFile> ReadLog(const std::string& path) {
  return ReadLog(path, SharedLogBudget());
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  return ReadBoundedFile(path, BoundedRead{.max_bytes = kMaxSmallFileBytes,
                                           .pipes = true,
                                           .open_failure = "cannot open"});
}

}  // namespace pyramid
