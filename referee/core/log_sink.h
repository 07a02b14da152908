// Where a log's bytes go. The writer hands each framed record, or a batch of
// whole records (LogWriter::BeginBatch), to Append in one call, so a crash
// leaves whole records (or, at worst, one torn final record on a failing
// disk).
#ifndef PYRAMID_REFEREE_CORE_LOG_SINK_H_
#define PYRAMID_REFEREE_CORE_LOG_SINK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pyramid {

// How a deferred sync went: called exactly once.
using SyncDone = std::function<void(absl::Status)>;
// A deferred sync (LogSink::SyncLater). Running it makes durable what its
// sink held when the job was made, then calls `done`: before it returns,
// when the job waits on the device itself (an fdatasync: run it on a thread
// that may wait), or later from another thread, when it hands the bytes to
// something that syncs for many (a LogJournal).
using SyncJob = std::function<void(SyncDone done)>;

// A SyncJob that runs `sync`, which may wait on the device, and reports
// what it returns.
inline SyncJob BlockingSync(std::function<absl::Status()> sync) {
  return [sync = std::move(sync)](SyncDone done) { done(sync()); };
}

class LogSink {
 public:
  virtual ~LogSink() = default;
  // Appends `bytes`; when this returns OK they have reached the operating
  // system (no user-space buffering).
  virtual absl::Status Append(std::string_view bytes) = 0;
  // Makes everything appended so far durable (fsync for files).
  virtual absl::Status Sync() = 0;

  // A job that makes everything appended so far durable, as Sync does, and
  // that may run on another thread while this sink goes on taking appends,
  // or after it is gone. This default syncs now and returns a job that
  // reports how that went.
  virtual SyncJob SyncLater() {
    return [status = Sync()](SyncDone done) { done(status); };
  }
};

// When a FileLogSink's writer asks it to fsync.
enum class FsyncPolicy {
  kNever,        // Leave it to the operating system.
  kCheckpoints,  // At every checkpoint and at the seal.
  kEveryRecord,  // After every record (slowest, strongest).
};

// The policy named `name` as the programs' --fsync flag names it: never,
// checkpoints or every_record. InvalidArgument for another name.
absl::StatusOr<FsyncPolicy> ParseFsyncPolicy(std::string_view name);

class LogJournal;

// Appends to a file with write(2), one call per Append.
class FileLogSink final : public LogSink {
 public:
  // Creates `path`, which must not exist (a log is never overwritten),
  // mode 0600: a running match's log holds its seed, from which its hidden
  // cards follow. MakeLogPublic opens it to all once the match has ended
  // (MarkLogBroken, once it broke).
  // RESOURCE_EXHAUSTED when the process has no file descriptor left or the
  // disk no space or quota (a later try may succeed); FAILED_PRECONDITION
  // for any other reason.
  static absl::StatusOr<std::unique_ptr<FileLogSink>> Create(
      const std::string& path);
  // Opens the existing log `path` to append to it after its first `size`
  // bytes; whatever follows them (a record torn by a crash) is cut off.
  // Mode 0600, as Create's. RESOURCE_EXHAUSTED when the process has no file
  // descriptor or memory left (a later try may succeed; IsShortage).
  static absl::StatusOr<std::unique_ptr<FileLogSink>> OpenForAppend(
      const std::string& path, uint64_t size);
  ~FileLogSink() override;

  absl::Status Append(std::string_view bytes) override;
  // fdatasync; the first one of a file Create made syncs its directory too.
  absl::Status Sync() override;
  // fdatasync of the file's descriptor, which the job shares with this sink
  // (it is closed once both have let go), so that a sync never needs a new
  // descriptor: a process out of them (EMFILE) still syncs its logs. With a
  // journal, the job reads the bytes appended since the last sync back
  // through it and hands them to the journal (LogJournal::CommitAsync),
  // which reports when they are durable; the file itself is not synced.
  SyncJob SyncLater() override;

  // Makes SyncLater's jobs commit to `journal` (null: fdatasync again).
  void set_journal(std::shared_ptr<LogJournal> journal);

 private:
  // An open file descriptor, closed when the last holder lets go: this sink
  // and the SyncLater jobs it made.
  struct Descriptor;
  FileLogSink(int fd, std::string path, uint64_t size, bool name_synced);
  std::shared_ptr<const Descriptor> file_;
  int fd_;  // file_'s.
  std::string path_;
  uint64_t size_;    // Bytes in the file.
  uint64_t synced_;  // Bytes made durable (synced or committed) so far.
  // Whether the file's name in its directory is durable: a file this sink
  // created has its directory synced with its first sync.
  bool name_synced_;
  std::shared_ptr<LogJournal> journal_;
  std::string absolute_path_;  // As the journal names the log.
};

// Keeps the bytes in memory (tests, benchmarks, in-process tools).
class StringLogSink final : public LogSink {
 public:
  explicit StringLogSink(std::string* out) : out_(out) {}
  absl::Status Append(std::string_view bytes) override {
    out_->append(bytes);
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }

 private:
  std::string* out_;  // Not owned.
};

// Reads a whole file into memory: a regular file, or a pipe or device to
// its end (as long as a writer keeps it open: `<(...)`, /dev/stdin). A file
// larger than this machine's physical memory, which could not be held, is
// refused (RESOURCE_EXHAUSTED, "cannot read PATH: it is N bytes, more than
// this machine's memory (M bytes)") without reading it when it says its
// size, else once more than that has come: a sparse file of a terabyte
// must not make the reader allocate a terabyte. Read through
// referee/files/bounded_read.h: opened without blocking, so a named FIFO
// with no writer (or a pipe whose writer wrote nothing) is refused at once
// (FAILED_PRECONDITION, "cannot read PATH: a FIFO or pipe with no writer
// and nothing in it") instead of waited on forever; a directory is refused
// (FAILED_PRECONDITION, "it is a directory"); a file that cannot be opened
// is "cannot open PATH: WHY" (NOT_FOUND when it is not there,
// PERMISSION_DENIED when not ours, RESOURCE_EXHAUSTED when the process or
// the system lacks a descriptor or memory for now, "... Too many open
// files": a later try may succeed; else FAILED_PRECONDITION).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// The same with `max_bytes` as the limit ("... more than the N bytes read
// of one file").
absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             uint64_t max_bytes);

// This machine's physical memory, in bytes.
uint64_t PhysicalMemoryBytes();

// Writes `contents` to `path` (created or truncated) readable by its owner
// only: the file is mode 0600 before the first byte is written, whatever
// the umask. For tokens and other secrets.
absl::Status WriteSecretFile(const std::string& path,
                             const std::string& contents);

// An ended match's log, public from now on (GetLog serves it to anyone):
// mode 0644, as it was 0600 while the match ran (FileLogSink::Create). A
// log that is not there (a match broken before it wrote one) is no error.
absl::Status MakeLogPublic(const std::string& path);

// Marks the log of a match that broke (its log could not be written: a
// full disk, an I/O error) as broken: mode 0444. The mark needs no free
// space (a chmod changes the inode only) and outlives the process, so a
// referee killed before the registry could record the end still finds the
// match broken at its next start (LogIsMarkedBroken), not running. 0444
// because a broken log is never written again, and readable by all as a
// finished match's (0644), since the match is over. The change is made
// durable against a power loss as far as it can be, by an fsync of the
// file through a read-only descriptor; that fsync's failure is ignored
// (the mark stands in the page cache, and the disk may be the one that
// failed). A log that is not there (a match broken before it wrote one) is
// no error.
absl::Status MarkLogBroken(const std::string& path);

// Whether the log `path` is marked broken (MarkLogBroken): its mode is
// 0444. A running match's log is 0600 (0644 for a log of a referee older
// than that), a finished one's 0644: never 0444. False for a log that is
// not there or cannot be examined.
bool LogIsMarkedBroken(const std::string& path);

// Makes the names in the directory `dir` durable (an fsync of the
// directory): a file created, renamed or deleted there before the call
// survives a power loss. "" is the current directory.
absl::Status SyncDirectory(const std::string& dir);

// The directory of the file `path` ("" for a bare name).
std::string DirectoryOf(std::string_view path);

// Replaces `path` with `contents` (mode 0644) written whole to PATH.tmp
// and renamed over it, so that a reader, or a killed process, sees either
// the old file or the whole new one. Not synced: after a power loss the
// file may be either, or empty; for many files synced together later
// (syncfs) or made again when lost.
absl::Status ReplaceFileWhole(const std::string& path,
                              std::string_view contents);

// Replaces `path` with `contents` (mode 0644) so that a reader, or a crash
// at any instant, sees either the old file or the whole new one: written to
// a temporary file beside it, synced, renamed over it, and the directory
// synced.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_SINK_H_
