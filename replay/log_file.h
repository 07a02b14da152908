// Reading the files replay is given: match logs (ReadLog) and the small
// text files of the transparency log (ReadSmallFile: inclusion and
// consistency proofs, checkpoints). Both open a file once, by the name
// given, judge what it is by the descriptor they opened and never wait on
// a FIFO that has no writer (referee/files/bounded_read.h, which reads
// them). A regular file or a pipe or FIFO (`replay verify <(curl ...)`)
// is read; a directory, a character or block device (/dev/zero, a
// terminal) or a socket is refused at once: none holds a log or a proof,
// and a device may never end.
//
// A log has no size limit in its format, but the logs held in memory at
// once by every thread of a process share one budget (LogBudget): a log
// larger than the budget is read alone, and none is larger than this
// machine's memory.
#ifndef PYRAMID_REPLAY_LOG_FILE_H_
#define PYRAMID_REPLAY_LOG_FILE_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"

namespace pyramid {

// The most read of an inclusion or consistency proof or a checkpoint (a
// proof is a few KiB: at most 64 hashes and a checkpoint), as
// verify-tournament reads them (docs/transparency-log.md): a larger one is
// refused, unread when it is a regular file.
inline constexpr uint64_t kMaxSmallFileBytes = 1 << 20;

// The bytes of logs held in memory at once, shared by the threads that
// read them: a log's bytes count against it from before they are read
// until its LogFile goes. Thread-safe. Logs are served in the order they
// asked: one that waits for room holds up those that ask after it, so a
// large log is not kept waiting by smaller ones.
//
// A reader whose size is known only at its end (a pipe) counts its bytes
// as they come instead: one such stream at a time (BeginStream) takes a
// first part with Take and grows with Grow. A stream whose writer is
// silent holds what came and one part more, not the budget.
//
// No deadlock: Take and BeginStream wait only in a caller that holds
// nothing against the budget (REQUIRED: a thread that holds a LogFile of
// it reads no other log with it), so the one waiter that holds something
// is the stream in Grow, and there is at most one. Every other holder
// gives back without waiting on the budget: a LogFile when it goes (its
// thread reads no other log meanwhile), a regular file's read when it
// ends (it takes once, before it reads). So Grow ends once they have (at
// the latest when the stream holds all that is held), and then every
// Take in turn.
class LogBudget {
 public:
  explicit LogBudget(uint64_t bytes);
  LogBudget(const LogBudget&) = delete;
  LogBudget& operator=(const LogBudget&) = delete;

  uint64_t bytes() const { return bytes_; }
  // The bytes counted against it now (which may exceed bytes() while a log
  // larger than the budget is held, alone).
  uint64_t held() const;
  // How many threads wait now in Take or Grow (for room or their turn),
  // counted under the budget's lock: a call that need not wait is never
  // counted. Thread-safe; for tests and monitoring: a snapshot, which may
  // be stale by the time it is used.
  size_t waiters() const;

  // Waits until `bytes` can be held within the budget (for more than the
  // budget: until nothing else is held) and it is this call's turn (and
  // no stream waits in Grow), then counts them against it. REQUIRED: the
  // caller holds nothing against the budget.
  void Take(uint64_t bytes);
  // Counts `bytes` more without waiting (a file that grew while read).
  void Add(uint64_t bytes);
  // Gives back `bytes` taken, added or grown before.
  void Give(uint64_t bytes);

  // Waits until no other stream is read, then makes the caller the stream.
  // REQUIRED: the caller holds nothing against the budget; it calls
  // EndStream once its read is over.
  void BeginStream();
  // For the stream, which holds `held` (taken or grown before): counts
  // `bytes` more, at once when they fit within the budget, else waiting,
  // ahead of every Take, until they fit or nothing else is held (a log
  // larger than the budget is read alone).
  void Grow(uint64_t held, uint64_t bytes);
  // Ends the caller's stream (what it holds stays held): the next may
  // begin.
  void EndStream();

 private:
  const uint64_t bytes_;
  mutable std::mutex mutex_;
  std::condition_variable room_;
  uint64_t held_ = 0;         // Guarded by mutex_.
  uint64_t next_ticket_ = 0;  // The next Take's turn; guarded by mutex_.
  uint64_t serving_ = 0;      // The Take whose turn it is; guarded by mutex_.
  bool streaming_ = false;    // A stream is read; guarded by mutex_.
  bool growing_ = false;      // The stream waits in Grow; guarded by mutex_.
  size_t waiters_ = 0;        // Threads in Take or Grow; guarded by mutex_.
};

// The budget of every log a process reads with ReadLog: half this
// machine's physical memory (the rest for verifying them and for
// everything else).
LogBudget& SharedLogBudget();

// A log's bytes, held against its budget until it goes. Movable.
class LogFile {
 public:
  // `file_size`: as file_size() says it.
  LogFile(std::string bytes, uint64_t file_size, LogBudget* budget,
          uint64_t held);
  LogFile(LogFile&& other) noexcept;
  LogFile& operator=(LogFile&& other) noexcept;
  ~LogFile();

  // The whole file; or, when the file does not start as a log does (its
  // first bytes are not a prefix of the magic, docs/log-format.md), only
  // those first bytes (at most 8), the rest unread: every reader of a log
  // (SplitLog, and the verifier, transcript and viewer through it) stops
  // at them with "not a pyramid log (magic) at byte 0", as it would in the
  // whole file. Or, when the file goes on after a seal record, the bytes
  // through the seal and what the splitter frames next (the next record
  // whole, or a length prefix it refuses), the rest unread: the verifier
  // stops there ("record after the seal", or the bad prefix), as it would
  // in the whole file, however many bytes follow (a transcript lists the
  // records it has, up to that one).
  const std::string& bytes() const { return bytes_; }
  // The size of the file bytes() begins, when it is known: bytes().size()
  // for a file read whole; for a regular file read no further than its
  // first bytes or than the record after its seal, its size when opened
  // (or what was read of it, if more); 0 for a pipe so cut short (how far
  // it went on is not known).
  uint64_t file_size() const { return file_size_; }

 private:
  std::string bytes_;
  uint64_t file_size_;
  LogBudget* budget_;  // Not owned; null when nothing is held.
  uint64_t held_;
};

// Reads the log at `path`, its bytes counted against `budget`, which must
// outlive the LogFile. A thread that holds a LogFile of `budget` must not
// read another log with it: it could wait for room it holds itself. Its
// first bytes are judged before anything counts: a file that does not
// start as a log (however large, or a pipe however long) is read no
// further and counts nothing, nor does one of no more than the magic. Its
// records are framed as they come, and it is read no further than the
// record after a seal (LogFile::bytes()): a log followed by gigabytes holds
// no more than the log and that record, and what was counted for the rest
// is given back. A regular file's size counts before the rest is read (a
// file larger than the budget waits until it can be read alone), in parts
// of 1 MiB into a buffer of at first at most 64 MiB. A pipe, whose size is not
// known, is a stream of the budget (one at a time): it counts what came
// and the part it reads next, a sixteenth of the budget (at most 1 MiB), as
// it goes, and waits for room only for a part that does not fit (past the
// budget, until it is read alone); a writer that is silent keeps no other
// log from being read, but keeps a pipe after it waiting.
//
// A regular file larger than this machine's memory is refused unread,
// before its first bytes are judged; a pipe once more than that has come
// (RESOURCE_EXHAUSTED, "cannot read PATH: it is N bytes, more than this
// machine's memory (M bytes)", or "it holds more than ..."). A pipe is waited
// on as long as its writer keeps it open, except that its first bytes that are
// not the magic end the read at once. Other errors ("cannot read PATH: WHY", or
// "cannot open PATH: WHY" when it cannot be opened), as ReadBoundedFile says
// them: a directory, a device or a socket, or a FIFO with no writer and nothing
// in it (FAILED_PRECONDITION); no such file (NOT_FOUND); not ours to read
// (PERMISSION_DENIED); a read that failed (DATA_LOSS, or RESOURCE_EXHAUSTED
// for want of kernel memory).
absl::StatusOr<LogFile> ReadLog(const std::string& path, LogBudget& budget);
// The same, counted against SharedLogBudget().
absl::StatusOr<LogFile> ReadLog(const std::string& path);

// The bytes of an inclusion or consistency proof or a checkpoint at
// `path`: a regular file or a pipe of at most kMaxSmallFileBytes
// (RESOURCE_EXHAUSTED beyond, "cannot read PATH: it is N bytes, more than
// 1048576 (not read)"); errors otherwise as ReadLog's.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_LOG_FILE_H_
