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

// The size of the regular file at `path`: NOT_FOUND when it cannot be
// opened, FAILED_PRECONDITION when it is not a regular file (a directory,
// a pipe), DATA_LOSS when it cannot be examined. Each message names the
// path. Never waits on what it opens (a FIFO is opened non-blocking).
absl::StatusOr<uint64_t> RegularFileSize(const std::string& path);

// Replaces `out` with the `size` bytes of `path` from `offset` on (reusing
// its capacity). NOT_FOUND when the file cannot be opened, DATA_LOSS when
// it cannot be read or ends before `offset + size`.
absl::Status ReadFileRange(const std::string& path, uint64_t offset,
                           size_t size, std::string* out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_FILE_RANGE_H_
