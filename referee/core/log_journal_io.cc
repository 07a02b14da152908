#include "referee/core/log_journal_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "referee/files/io_loops.h"

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
  const IoProgress wrote = PwriteAll(fd, bytes, at);
  if (wrote.done < bytes.size()) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", WriteStoppedText(wrote)));
  }
  return absl::OkStatus();
}

}  // namespace pyramid::journal_io
