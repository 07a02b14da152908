#include "referee/cli/incoming_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/files/io_loops.h"

namespace pyramid {

IncomingFile::IncomingFile(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp") {}

IncomingFile::~IncomingFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(tmp_.c_str());
}

absl::Status IncomingFile::Restart() {
  if (fd_ < 0) {
    fd_ = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return Error("cannot create ", tmp_);
    return absl::OkStatus();
  }
  if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0) {
    return Error("cannot empty ", tmp_);
  }
  return absl::OkStatus();
}

absl::Status IncomingFile::Append(std::string_view bytes) {
  if (const IoProgress wrote = WriteAll(fd_, bytes);
      wrote.done < bytes.size()) {
    return absl::InternalError(
        absl::StrCat("cannot write ", tmp_, ": ", WriteStoppedText(wrote)));
  }
  return absl::OkStatus();
}

absl::Status IncomingFile::Commit() {
  if (fsync(fd_) != 0) return Error("cannot sync ", tmp_);
  if (close(std::exchange(fd_, -1)) != 0) return Error("cannot write ", tmp_);
  if (rename(tmp_.c_str(), path_.c_str()) != 0) {
    return Error("cannot write ", path_);
  }
  committed_ = true;
  return SyncDirectory(DirectoryOf(path_));
}

absl::Status IncomingFile::Error(const char* what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, path, ": ", std::strerror(errno)));
}

}  // namespace pyramid
