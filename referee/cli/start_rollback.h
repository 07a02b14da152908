// What a server's start adds to the disk, taken back when the start fails:
// a server that cannot start (its address taken, a damaged file, a bad
// token) leaves nothing new behind it, neither a fresh data directory nor
// a key or token nobody will use.
//
// The start creates its directories through CreateDirectories, which
// remembers the topmost one it made; names the existing directories whose
// new entries are its own (WatchDirectory: every entry added after the call
// is taken to be the start's), and any other file it made (Made); and,
// once the server serves, calls Keep. Until then Undo removes,
// recursively, each entry added and each directory made, then each file
// made. What the start changed inside entries that were there before stays
// (the referee's journal replay and match recovery, work a later start
// would redo alike).
//
// A watched directory's new entries must be the start's alone: watch a
// directory only once holding its lock (referee/service/directory_lock.h),
// and Undo before releasing it; a lock file the start made is given to
// Made, so that it goes last, once nothing else of the start's is left.
// Not thread-safe.
#ifndef PYRAMID_REFEREE_CLI_START_ROLLBACK_H_
#define PYRAMID_REFEREE_CLI_START_ROLLBACK_H_

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace pyramid {

class StartRollback {
 public:
  StartRollback() = default;
  StartRollback(const StartRollback&) = delete;
  StartRollback& operator=(const StartRollback&) = delete;

  // Creates `dir` and the directories above it that are missing (as
  // std::filesystem::create_directories), remembering the topmost one this
  // call made itself (one another process made meanwhile is not the
  // start's). FAILED_PRECONDITION naming `what` (e.g. "--data_dir"), the
  // directory and why when one cannot be made.
  absl::Status CreateDirectories(const std::filesystem::path& dir,
                                 const std::string& what);

  // Takes the entries of the existing directory `dir` now: those it holds
  // at Undo and not now are removed then.
  void WatchDirectory(const std::filesystem::path& dir);

  // A file (or directory) the start made at `path` that the calls above do
  // not cover: removed last.
  void Made(const std::filesystem::path& path) { made_last_.push_back(path); }

  // The start succeeded: Undo removes nothing from now on.
  void Keep() { kept_ = true; }

  // Unless Keep was called: removes the entries added to each watched
  // directory, then each directory made, with everything in it, then each
  // file Made. What cannot be removed stays. Undoes once.
  void Undo();

 private:
  std::vector<std::filesystem::path> made_;
  std::vector<std::filesystem::path> made_last_;
  std::vector<std::pair<std::filesystem::path, std::set<std::string>>> watched_;
  bool kept_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_START_ROLLBACK_H_
