// The file operations the journal's writer (log_journal.cc) and its
// recovery (log_journal_recovery.cc) share. Internal to the journal.
#ifndef PYRAMID_REFEREE_CORE_LOG_JOURNAL_IO_H_
#define PYRAMID_REFEREE_CORE_LOG_JOURNAL_IO_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pyramid::journal_io {

// "`what` `path`: " and the text of errno.
std::string Errno(absl::string_view what, const std::string& path);

// Writes all of `bytes` at byte `at` of the file open as `fd` (`path`, for
// the message), or INTERNAL "cannot write PATH: ...".
absl::Status WriteAt(int fd, std::string_view bytes, uint64_t at,
                     const std::string& path);

// Syncs the file system of each of `dirs` (syncfs): every log in them then
// holds durably what was written to it. An empty name is the current
// directory.
absl::Status SyncFileSystems(const std::set<std::string>& dirs);

}  // namespace pyramid::journal_io

#endif  // PYRAMID_REFEREE_CORE_LOG_JOURNAL_IO_H_
