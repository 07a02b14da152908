#include "referee/core/log_files.h"

#include <filesystem>
#include <system_error>

#include "referee/core/log_format.h"

namespace pyramid {

uint64_t CountLogFiles(const std::string& dir, uint64_t at_most) {
  uint64_t logs = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end;
       !error && it != end && logs < at_most; it.increment(error)) {
    if (it->path().extension() == log_format::kFileExtension) ++logs;
  }
  return logs;
}

}  // namespace pyramid
