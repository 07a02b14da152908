#include "referee/core/log_journal_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace pyramid::journal_io {

std::string Errno(absl::string_view what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

absl::Status SyncFileSystems(const std::set<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    const std::string name = dir.empty() ? "." : dir;
    const int fd = open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return absl::InternalError(Errno("cannot open", name));
    const bool ok = syncfs(fd) == 0;
    const std::string why =
        ok ? "" : Errno("cannot sync the file system of", name);
    close(fd);
    if (!ok) return absl::InternalError(why);
  }
  return absl::OkStatus();
}

absl::Status WriteAt(int fd, std::string_view bytes, uint64_t at,
                     const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n =
        pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(Errno("cannot write", path));
    bytes.remove_prefix(static_cast<size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace pyramid::journal_io
