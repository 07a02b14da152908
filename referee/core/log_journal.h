// A write-ahead journal shared by every match log of a referee, so that the
// checkpoints many matches reach at the same moment are made durable by a
// few fdatasyncs of one file instead of one each (group commit, as LevelDB's
// log writers do). docs/durability.md, "The journal", is the contract.
//
// CommitAsync(path, offset, bytes, done) queues a log's newly written
// bytes and returns; the journal's thread writes everything queued
// while its previous write and sync ran, syncs the journal once for all of
// it, and then calls each commit's `done`. The log files themselves are not
// synced. However many matches reach a checkpoint together, the device sees
// one flush per round, and the slower the device the more each round
// carries. After a power loss the logs may lack bytes the journal holds:
// Open() copies them back before anything else reads or writes a log.
//
// The journal is a directory of numbered files, each "pyramid-journal-1\n",
// then entries, then zeros to its end (log_journal_format.h is the format).
// The zeros are written ahead of the entries, a mebibyte at a time, so that
// an entry overwrites bytes already in the file and most of the journal's
// fdatasyncs write no metadata (the file's size stays): about half the
// cost of syncing a file that grows.
//
// A file is retired once it holds `rotate_bytes` (a new one is started),
// once no commit came to it for `retire_after_idle` or when asked to be
// (RetireCurrentFile: a full disk; the next commit starts a new one).
// Whatever the reason, one thread syncs the file systems of the logs it
// names (syncfs) and only then deletes it, since the logs themselves now
// hold its bytes durably. So the journal holds at most about
// `rotate_bytes` of its current file beyond the logs, plus the files that
// thread has not deleted yet, and nothing once commits stop.
//
// Thread-safe. Open's replay is log_journal_recovery.cc; the writer's and
// the retirer's threads are log_journal.cc.
#ifndef PYRAMID_REFEREE_CORE_LOG_JOURNAL_H_
#define PYRAMID_REFEREE_CORE_LOG_JOURNAL_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/log_journal_format.h"
#include "referee/crypto/bytes.h"

namespace pyramid {

class LogJournal {
 public:
  // How far ahead of its entries a file is filled with zeros: the size of a
  // new file.
  static constexpr uint64_t kZeroAhead = uint64_t{1} << 20;

  struct Options {
    // The log directory (required: Open refuses an empty one): every log
    // committed must be in it, and each entry names its log by its file
    // name within it, resolved against this directory when Open() replays
    // the entry (an entry that names a path, which a journal of an older
    // referee wrote: only its file name counts). So a data directory moved
    // after a crash repairs its own logs, a copy never the original's, and
    // no entry writes outside it.
    std::string log_dir;
    // A journal file this large is retired; the next commit starts a new
    // one.
    uint64_t rotate_bytes = uint64_t{8} << 20;
    // A journal file no commit came to for this long is retired (an idle
    // referee keeps no second copy of its logs' bytes); the next commit
    // starts a new one. InfiniteDuration: never for that reason.
    absl::Duration retire_after_idle = absl::Seconds(10);
    // Tests only: called on the journal's thread after it took a group of
    // commits and before it writes them.
    std::function<void()> before_write;
  };

  // What Open() found and did.
  struct Recovery {
    int files = 0;          // Journal files read.
    uint64_t entries = 0;   // Entries that checked.
    int logs_repaired = 0;  // Logs that lacked some of their bytes.
    // Directories of the logs the entries name, whose file systems were
    // synced before the files were deleted.
    int log_directories_synced = 0;
    std::vector<std::string> notes;  // A torn tail, each one named.
  };

  // Opens the journal in `dir` (created if missing). First replays what a
  // previous process left there: every entry's bytes are written into its
  // log (its file name in options.log_dir) where the log does not hold them
  // already (each log's entries in the order of their offsets, whatever order
  // the files hold them in), the file systems of every log named are synced
  // (the logs may hold their bytes in the page cache only), and the old files
  // deleted. An entry whose log ends before the entry's first byte (or is
  // missing, for an entry not at byte 0), or that cannot be written, is an
  // error that names the log: the referee must not start over a log it cannot
  // repair. INVALID_ARGUMENT when options.log_dir is empty.
  static absl::StatusOr<std::unique_ptr<LogJournal>> Open(
      const std::string& dir, Options options);
  // Writes what is queued and calls its commits' `done`, then retires the
  // current file too: a journal closed this way leaves nothing for the
  // next Open to replay.
  ~LogJournal();
  LogJournal(const LogJournal&) = delete;
  LogJournal& operator=(const LogJournal&) = delete;

  // Makes `bytes`, which the log at `path` holds from byte `offset` on,
  // durable: queues them (kept until written, not copied again) and
  // returns; `done` is called on the journal's thread once an fdatasync of
  // the journal covers them, or with the error when their round's write or
  // sync failed (the journal goes on for later commits). `path` must be a
  // log in the log directory (Options::log_dir): the entry names it by its
  // file name alone, which Open() of a later process resolves against the
  // log directory it is given. Commits of one log may be queued out of the
  // order of their offsets (Open sorts them).
  void CommitAsync(std::string_view path, uint64_t offset, std::string bytes,
                   std::function<void(absl::Status)> done);
  // CommitAsync, waiting for its `done`.
  absl::Status Commit(std::string_view path, uint64_t offset,
                      std::string_view bytes);
  // Asks for the current file to be retired as a full one is (its logs'
  // file systems synced, then the file deleted) if it holds at least
  // kZeroAhead bytes, what the new file the next commit starts takes at
  // first: a request frees space, never merely swaps a file for another.
  // Returns at once; stats().retired counts the file once it is deleted.
  // For a full disk (the lobby's free-space refusal); a smaller file is
  // retired once commits stop (retire_after_idle).
  void RetireCurrentFile();

  const Recovery& recovery() const { return recovery_; }
  const Options& options() const { return options_; }
  const std::string& dir() const { return dir_; }

  struct Stats {
    uint64_t commits = 0;
    uint64_t syncs = 0;          // Rounds: fdatasyncs of the journal.
    uint64_t largest_group = 0;  // Commits made durable by one round.
    int retired = 0;             // Files deleted once their logs were synced.
  };
  Stats stats() const;

 private:
  // One commit's entry, as written: `head` (body_length, offset,
  // path_length, path), `bytes`, `hash`.
  struct Entry {
    std::string head;
    std::string bytes;
    Digest hash;
  };
  // Commits that will be written and synced together.
  struct Group {
    std::vector<Entry> entries;
    uint64_t size = 0;  // Of their entries.
    std::vector<std::function<void(absl::Status)>> dones;
    std::set<std::string> log_dirs;  // Of the logs they name.
  };

  LogJournal(std::string dir, Options options, Recovery recovery);
  // Creates file `generation` (synced, with its directory) and makes it
  // the current one. Called by the writer.
  absl::Status StartFile(uint64_t generation);
  // Writes and syncs a group's bytes to the current file, then rotates the
  // file when it is full. Called by the writer, outside the lock.
  absl::Status WriteGroup(const Group& group);
  // Closes the current file and hands it to the retirer. Called by the
  // writer (or, once it stopped, the destructor).
  void RetireFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WriteLoop();
  void RetireLoop();

  const std::string dir_;
  const Options options_;
  const Recovery recovery_;

  mutable absl::Mutex mu_;
  int fd_ = -1;              // The current file; only the writer uses it.
  uint64_t file_size_ = 0;   // Where the next entry goes; only the writer
                             // uses it (as the next two).
  uint64_t zeroed_end_ = 0;  // The file's size: zeros from file_size_ on.
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  // The group new commits join; null when none is waiting.
  std::unique_ptr<Group> filling_ ABSL_GUARDED_BY(mu_);
  // Directories of the logs the current file names (for its retirement);
  // only the writer uses it.
  std::set<std::string> log_dirs_;
  struct Retiree {
    uint64_t generation;
    std::set<std::string> log_dirs;
  };
  std::vector<Retiree> retiring_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;      // For the writer.
  bool retire_asked_ ABSL_GUARDED_BY(mu_) = false;  // RetireCurrentFile.
  bool retirer_stopping_ ABSL_GUARDED_BY(mu_) = false;
  Stats stats_ ABSL_GUARDED_BY(mu_);
  std::thread writer_;
  std::thread retirer_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_JOURNAL_H_
