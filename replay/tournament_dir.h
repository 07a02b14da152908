// The entries of a tournament directory (`replay verify-tournament DIR`,
// replay/tournament_check.h) as its checks read them: DIR is outside
// input, so an entry is looked at without throwing, read only when it is a
// file (never a FIFO or a device) and never past a bound, and a
// subdirectory's entries are listed whole, sorted, each one either kept or
// named as a problem. Shared by the driver (tournament_check.cc) and the
// schedule's binding to tournament.txt (schedule_check.cc).
#ifndef PYRAMID_REPLAY_TOURNAMENT_DIR_H_
#define PYRAMID_REPLAY_TOURNAMENT_DIR_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "replay/tournament_check.h"

namespace pyramid {

// Adds `problem` to `verdict` (TournamentVerdict's contract): listed
// while fewer than kMaxListedProblems are, counted always. A hostile
// schedule of millions of bad entries would otherwise be millions of
// lines.
void AddProblem(TournamentVerdict& verdict, std::string problem);

// Whether an entry is at `path`: a file or directory, or one that cannot
// be looked at (a loop of symbolic links, no permission), which the read
// that follows names with why. fs::exists without an error_code throws on
// the last, which a tournament directory, outside input, may hold.
bool IsThere(const std::filesystem::path& path);

// Why the entry at `path` of a tournament directory is not read: a FIFO
// would wait for a writer forever, and a device (a link to /dev/zero)
// would be read without end. OK for a regular file, a directory and an
// entry that cannot be looked at, which the read that follows names.
absl::Status NotAFile(const std::filesystem::path& path);

// The whole file at `path`, an entry of a tournament directory: as
// ReadFileToString(path, max_bytes) (a larger file refused unread, a file
// that grows past it refused once it has), but only a file (NotAFile).
absl::StatusOr<std::string> ReadEntry(const std::filesystem::path& path,
                                      uint64_t max_bytes);

// ReadEntry of a small file of the directory (an inclusion proof: at most
// 64 hashes and a checkpoint, a few KiB; the checkpoint; the tournament
// file), at most kMaxSmallFileBytes (replay/log_file.h): a larger one is
// refused unread, so that a hostile directory cannot make the check hold
// gigabytes per file.
absl::StatusOr<std::string> ReadSmallEntry(const std::filesystem::path& path);

// `status` with its message after `prefix` and ": " (the entry it is of).
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status);

// The entries of `root`/`name`, a subdirectory of a tournament directory:
// none when it is missing (what it should hold is then missing, and said
// so where it is looked for); a directory that is there but cannot be
// listed (no permission, not a directory) adds a problem to `verdict`
// (unless null), naming why. In the order the system lists them.
std::vector<std::filesystem::directory_entry> ListDirectory(
    const std::filesystem::path& root, const std::string& name,
    TournamentVerdict* verdict);

// What is wrong with an entry of a subdirectory of a tournament directory
// (its path): "" when nothing, else why it is a stray.
using WhyStray = std::function<std::string(const std::filesystem::path&)>;

// The entries of `root`/`name` (ListDirectory) that `why_stray` finds
// nothing wrong with, sorted; each other adds the problem "NAME/ENTRY:
// WHY" to `verdict`. So that neither logs/ nor proofs/ holds an entry
// that the check passes over in silence.
std::vector<std::filesystem::path> EntriesNotStray(
    const std::filesystem::path& root, const std::string& name,
    const WhyStray& why_stray, TournamentVerdict& verdict);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_TOURNAMENT_DIR_H_
