// Reading a file a piece at a time, opening it for each piece: for a reader
// that may wait indefinitely between pieces (a GetLog stream whose client
// reads slowly, or not at all), which then holds neither the whole file in
// memory nor a file descriptor.
#ifndef PYRAMID_REFEREE_SERVICE_FILE_RANGE_H_
#define PYRAMID_REFEREE_SERVICE_FILE_RANGE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pyramid {

// The size of the regular file at `path`: UNAVAILABLE when it cannot be
// opened for want of file descriptors or memory (EMFILE, ENFILE, ENOMEM: a
// shortage that passes), NOT_FOUND when it cannot be opened otherwise (it
// is missing, or not readable), FAILED_PRECONDITION when it is not a
// regular file (a directory, a pipe), DATA_LOSS when it cannot be
// examined. Each message names the path as given, and why: it is for the
// operator (a caller that answers a client says it without the directory:
// log_download.h). Never waits on what it opens (a FIFO is opened
// non-blocking).
absl::StatusOr<uint64_t> RegularFileSize(const std::string& path);

// Replaces `out` with the `size` bytes of `path` from `offset` on (reusing
// its capacity). UNAVAILABLE and NOT_FOUND when the file cannot be opened,
// as RegularFileSize says; DATA_LOSS when it cannot be read or ends before
// `offset + size`. The message names the path, as RegularFileSize's does.
absl::Status ReadFileRange(const std::string& path, uint64_t offset,
                           size_t size, std::string* out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_FILE_RANGE_H_
