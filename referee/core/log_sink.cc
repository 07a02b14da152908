#include "referee/core/log_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace pyramid {

absl::StatusOr<std::unique_ptr<FileLogSink>> FileLogSink::Create(
    const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
                0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create log ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<FileLogSink>(new FileLogSink(fd, path));
}

FileLogSink::~FileLogSink() { close(fd_); }

absl::Status FileLogSink::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("write ", path_, ": ", std::strerror(errno)));
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

absl::Status FileLogSink::Sync() {
  if (fdatasync(fd_) != 0) {
    return absl::InternalError(
        absl::StrCat("fsync ", path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return std::move(buffer).str();
}

}  // namespace pyramid
