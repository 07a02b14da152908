// What a server's start adds to the disk, taken back when the start fails:
// a server that cannot start (its address taken, a damaged file, a bad
// token) leaves nothing new behind it, neither a fresh data directory nor
// a key or token nobody will use.
//
// The start creates its directories through CreateDirectories, which
// remembers the topmost one it made; names the existing directories it
// writes into and the names of the entries it writes there
// (WatchDirectory: an entry of one of those names added after the call is
// taken to be the start's), and any other file it made (Made); and, once
// the server serves, calls Keep. Until then Undo removes, recursively,
// each such entry added and each directory made, then each file made.
// What the start changed inside entries that were there before stays (the
// referee's journal replay and match recovery, work a later start would
// redo alike), and so does every entry of another name: a data directory
// may be shared with other programs (a home directory, "."), whose files
// appear there as they please.
//
// Watch a directory only once holding its lock
// (referee/service/directory_lock.h), so that no other referee adds the
// same names meanwhile, and Undo before releasing it; a lock file the
// start made is given to Made, so that it goes last, once nothing else of
// the start's is left. Not thread-safe.
#ifndef PYRAMID_REFEREE_CLI_START_ROLLBACK_H_
#define PYRAMID_REFEREE_CLI_START_ROLLBACK_H_

#include <filesystem>
#include <set>
#include <string>
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

  // Takes the entries of the existing directory `dir` now: at Undo, those
  // it holds then and not now are removed if their name is one of
  // `own_names` or begins with one followed by '.' or '-' (a temporary
  // file, "NAME.tmp", or SQLite's "NAME-wal", "NAME-shm", "NAME-journal").
  void WatchDirectory(const std::filesystem::path& dir,
                      std::vector<std::string> own_names);

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
  struct Watched {
    std::filesystem::path dir;
    std::set<std::string> before;
    std::vector<std::string> own_names;
  };
  std::vector<Watched> watched_;
  bool kept_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_START_ROLLBACK_H_
