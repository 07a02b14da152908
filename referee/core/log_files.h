// The match logs a log directory holds, as the referee's start and its
// recovery count them: files named *.pyrlog (log_format::kFileExtension).
#ifndef PYRAMID_REFEREE_CORE_LOG_FILES_H_
#define PYRAMID_REFEREE_CORE_LOG_FILES_H_

#include <cstdint>
#include <limits>
#include <string>

namespace pyramid {

// How many entries of `dir` are named *.pyrlog, counting stops at
// `at_most` (CountLogFiles(dir, 1) > 0: whether it holds a log). What
// cannot be read counts as nothing: a missing directory, or one that is no
// directory, holds no log, and an error part way ends the count there.
uint64_t CountLogFiles(const std::string& dir,
                       uint64_t at_most = std::numeric_limits<uint64_t>::max());

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_FILES_H_
