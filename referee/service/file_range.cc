#include "referee/service/file_range.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "referee/files/io_loops.h"

namespace pyramid {
namespace {

// The file at `path` opened for reading; UNAVAILABLE naming it when the
// process or the system is short of file descriptors or memory (it may
// open the next time), NOT_FOUND naming it when it cannot be opened
// otherwise.
// O_NONBLOCK: opening a FIFO (or a device) found at `path` returns at once
// rather than waiting, on gRPC's callback thread, for a writer to open it;
// the caller then refuses it as not a regular file (or fails to pread
// it). On a regular file O_NONBLOCK changes nothing, so it is left set.
absl::StatusOr<int> OpenForReading(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    std::string message =
        absl::StrCat("cannot open ", path, ": ", std::strerror(error));
    if (error == EMFILE || error == ENFILE || error == ENOMEM) {
      return absl::UnavailableError(std::move(message));
    }
    return absl::NotFoundError(std::move(message));
  }
  return fd;
}

}  // namespace

absl::StatusOr<uint64_t> RegularFileSize(const std::string& path) {
  absl::StatusOr<int> fd = OpenForReading(path);
  if (!fd.ok()) return fd.status();
  absl::Cleanup closer = [fd = *fd] { close(fd); };
  struct stat st;
  if (fstat(*fd, &st) != 0) {
    return absl::DataLossError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", path, ": not a regular file"));
  }
  return static_cast<uint64_t>(st.st_size);
}

absl::Status ReadFileRange(const std::string& path, uint64_t offset,
                           size_t size, std::string* out) {
  absl::StatusOr<int> fd = OpenForReading(path);
  if (!fd.ok()) return fd.status();
  absl::Cleanup closer = [fd = *fd] { close(fd); };
  out->resize(size);
  const IoProgress read = PreadFully(*fd, out->data(), size, offset);
  if (read.error != 0) {
    return absl::DataLossError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(read.error)));
  }
  if (read.done < size) {
    return absl::DataLossError(
        absl::StrCat("cannot read ", path, ": it ends at byte ",
                     offset + read.done, ", before byte ", offset + size));
  }
  return absl::OkStatus();
}

}  // namespace pyramid
