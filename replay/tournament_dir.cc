#include "replay/tournament_dir.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/games/printable_text.h"
#include "replay/log_file.h"

namespace pyramid {

namespace fs = std::filesystem;

void AddProblem(TournamentVerdict& verdict, std::string problem) {
  if (verdict.problem_count++ < kMaxListedProblems) {
    verdict.problems.push_back(std::move(problem));
  }
}

bool IsThere(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error) || error;
}

absl::Status NotAFile(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || fs::is_regular_file(status) || fs::is_directory(status) ||
      !fs::exists(status)) {
    return absl::OkStatus();
  }
  const char* what = fs::is_fifo(status)     ? "a FIFO"
                     : fs::is_socket(status) ? "a socket"
                                             : "a device";
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot read ", path.string(), ": it is ", what, ", not a file"));
}

absl::StatusOr<std::string> ReadEntry(const fs::path& path,
                                      uint64_t max_bytes) {
  if (absl::Status s = NotAFile(path); !s.ok()) return s;
  return ReadFileToString(path.string(), max_bytes);
}

absl::StatusOr<std::string> ReadSmallEntry(const fs::path& path) {
  return ReadEntry(path, kMaxSmallFileBytes);
}

absl::Status Prefixed(absl::string_view prefix, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(prefix, ": ", status.message()));
}

std::vector<fs::directory_entry> ListDirectory(const fs::path& root,
                                               const std::string& name,
                                               TournamentVerdict* verdict) {
  std::vector<fs::directory_entry> entries;
  const fs::path path = root / name;
  std::error_code error;
  fs::directory_iterator it(path, error);
  while (!error && it != fs::directory_iterator()) {
    entries.push_back(*it);
    it.increment(error);
  }
  if (verdict != nullptr && error &&
      error != std::errc::no_such_file_or_directory) {
    AddProblem(*verdict, absl::StrCat(name, "/: cannot list ", path.string(),
                                      ": ", error.message()));
  }
  return entries;
}

std::vector<fs::path> EntriesNotStray(const fs::path& root,
                                      const std::string& name,
                                      const WhyStray& why_stray,
                                      TournamentVerdict& verdict) {
  std::vector<fs::path> kept;
  for (const auto& entry : ListDirectory(root, name, &verdict)) {
    kept.push_back(entry.path());
  }
  std::sort(kept.begin(), kept.end());
  std::vector<fs::path> entries;
  for (fs::path& path : kept) {
    const std::string why = why_stray(path);
    if (why.empty()) {
      entries.push_back(std::move(path));
    } else {
      AddProblem(verdict, absl::StrCat(name, "/",
                                       PrintableText(path.filename().string()),
                                       ": ", why));
    }
  }
  return entries;
}

}  // namespace pyramid
