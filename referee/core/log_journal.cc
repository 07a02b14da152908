#include "referee/core/log_journal.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "referee/core/log_format.h"
#include "referee/core/log_journal_io.h"
#include "referee/core/log_journal_recovery.h"
#include "referee/core/log_sink.h"

namespace pyramid {
namespace {

using journal_io::Errno;
using journal_io::SyncFileSystems;
using journal_io::WriteAt;

// Writes `entries` one after the other from byte `at` of the file, with as
// few system calls as the kernel allows (pwritev of up to IOV_MAX pieces).
template <typename Entries>
absl::Status WriteEntries(int fd, const Entries& entries, uint64_t at,
                          const std::string& path) {
  std::vector<struct iovec> pieces;
  pieces.reserve(std::min<size_t>(3 * entries.size(), IOV_MAX));
  auto flush = [&]() -> absl::Status {
    size_t first = 0;
    while (first < pieces.size()) {
      const ssize_t n = pwritev(fd, pieces.data() + first,
                                static_cast<int>(pieces.size() - first),
                                static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return absl::InternalError(Errno("cannot write", path));
      at += static_cast<uint64_t>(n);
      // Past the pieces written whole; into the one written in part.
      size_t done = static_cast<size_t>(n);
      while (first < pieces.size() && done >= pieces[first].iov_len) {
        done -= pieces[first++].iov_len;
      }
      if (first < pieces.size()) {
        pieces[first].iov_base =
            static_cast<char*>(pieces[first].iov_base) + done;
        pieces[first].iov_len -= done;
      }
    }
    pieces.clear();
    return absl::OkStatus();
  };
  for (const auto& entry : entries) {
    for (std::string_view piece :
         {std::string_view(entry.head), std::string_view(entry.bytes),
          AsView(entry.hash)}) {
      if (piece.empty()) continue;
      pieces.push_back({const_cast<char*>(piece.data()), piece.size()});
      if (pieces.size() == IOV_MAX) {
        if (absl::Status s = flush(); !s.ok()) return s;
      }
    }
  }
  return flush();
}

// Fills [from, to) of the file with zeros.
absl::Status WriteZeros(int fd, uint64_t from, uint64_t to,
                        const std::string& path) {
  static const std::string* const zeros =
      new std::string(LogJournal::kZeroAhead, '\0');
  while (from < to) {
    const uint64_t n = std::min<uint64_t>(to - from, zeros->size());
    if (absl::Status s =
            WriteAt(fd, std::string_view(*zeros).substr(0, n), from, path);
        !s.ok()) {
      return s;
    }
    from += n;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LogJournal>> LogJournal::Open(
    const std::string& dir, Options options) {
  if (options.log_dir.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the journal ", dir,
        " is given no log directory (LogJournal::Options::log_dir): its "
        "entries name their logs' files in it"));
  }
  Recovery recovery;
  absl::StatusOr<uint64_t> last_generation =
      ReplayJournal(dir, options.log_dir, recovery);
  if (!last_generation.ok()) return last_generation.status();
  auto journal = std::unique_ptr<LogJournal>(
      new LogJournal(dir, std::move(options), std::move(recovery)));
  // The first file is made for the first commit: a journal that is only
  // replayed (the referee opens it whatever its flags) writes nothing.
  {
    absl::MutexLock lock(&journal->mu_);
    journal->generation_ = *last_generation;
  }
  journal->writer_ = std::thread([j = journal.get()] { j->WriteLoop(); });
  journal->retirer_ = std::thread([j = journal.get()] { j->RetireLoop(); });
  return journal;
}

LogJournal::LogJournal(std::string dir, Options options, Recovery recovery)
    : dir_(std::move(dir)),
      options_(std::move(options)),
      recovery_(std::move(recovery)) {}

LogJournal::~LogJournal() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (writer_.joinable()) writer_.join();  // It writes what is queued first.
  {
    absl::MutexLock lock(&mu_);
    if (fd_ >= 0) RetireFileLocked();
    retirer_stopping_ = true;
  }
  if (retirer_.joinable()) retirer_.join();
}

absl::Status LogJournal::StartFile(uint64_t generation) {
  const std::string path = JournalFileName(dir_, generation);
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(Errno("cannot create the journal file", path));
  }
  absl::Status status = WriteAt(fd, kJournalMagic, 0, path);
  if (status.ok()) {
    status = WriteZeros(fd, kJournalMagic.size(), kZeroAhead, path);
  }
  if (status.ok() && fdatasync(fd) != 0) {
    status = absl::InternalError(Errno("cannot sync", path));
  }
  if (status.ok()) status = SyncDirectory(dir_);
  if (!status.ok()) {
    close(fd);
    unlink(path.c_str());
    return status;
  }
  absl::MutexLock lock(&mu_);
  if (fd_ >= 0) RetireFileLocked();
  fd_ = fd;
  file_size_ = kJournalMagic.size();
  zeroed_end_ = kZeroAhead;
  generation_ = generation;
  return absl::OkStatus();
}

void LogJournal::CommitAsync(std::string_view path, uint64_t offset,
                             std::string bytes,
                             std::function<void(absl::Status)> done) {
  Entry entry;
  // The log's file name: Open() resolves it against the log directory of
  // the process that replays the entry, wherever the directory is then.
  entry.head =
      JournalEntryHead(offset, log_format::LogFileName(path), bytes.size());
  entry.hash = JournalEntryHash(entry.head, bytes);
  entry.bytes = std::move(bytes);
  const uint64_t size =
      entry.head.size() + entry.bytes.size() + entry.hash.size();
  std::string log_dir = DirectoryOf(path);
  absl::MutexLock lock(&mu_);
  if (filling_ == nullptr) filling_ = std::make_unique<Group>();
  filling_->entries.push_back(std::move(entry));
  filling_->size += size;
  filling_->dones.push_back(std::move(done));
  filling_->log_dirs.insert(std::move(log_dir));
  ++stats_.commits;
}

void LogJournal::RetireCurrentFile() {
  absl::MutexLock lock(&mu_);
  retire_asked_ = true;
}

void LogJournal::RetireFileLocked() {
  close(fd_);
  fd_ = -1;
  retiring_.push_back({generation_, std::exchange(log_dirs_, {})});
}

absl::Status LogJournal::Commit(std::string_view path, uint64_t offset,
                                std::string_view bytes) {
  absl::Notification committed;
  absl::Status status;
  CommitAsync(path, offset, std::string(bytes), [&](absl::Status s) {
    status = std::move(s);
    committed.Notify();
  });
  committed.WaitForNotification();
  return status;
}

void LogJournal::WriteLoop() {
  while (true) {
    std::unique_ptr<Group> group;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || filling_ != nullptr || retire_asked_;
      };
      // While a file is open the wait is bounded: a file no commit came to
      // for retire_after_idle is retired, as is one asked to be that holds
      // more than its replacement takes (RetireCurrentFile).
      bool idle = false;
      if (fd_ < 0) {
        mu_.Await(absl::Condition(&ready));
      } else {
        idle = !mu_.AwaitWithTimeout(absl::Condition(&ready),
                                     options_.retire_after_idle);
      }
      const bool asked = std::exchange(retire_asked_, false);
      if (fd_ >= 0 && (idle || (asked && file_size_ >= kZeroAhead))) {
        RetireFileLocked();
      }
      if (filling_ == nullptr) {
        if (stopping_) return;  // Nothing is queued.
        continue;
      }
      group = std::move(filling_);
    }
    if (options_.before_write) options_.before_write();
    const absl::Status status = WriteGroup(*group);
    {
      absl::MutexLock lock(&mu_);
      ++stats_.syncs;
      stats_.largest_group =
          std::max<uint64_t>(stats_.largest_group, group->dones.size());
    }
    for (std::function<void(absl::Status)>& done : group->dones) done(status);
  }
}

absl::Status LogJournal::WriteGroup(const Group& group) {
  uint64_t generation = 0;
  {
    absl::MutexLock lock(&mu_);
    generation = generation_;
  }
  if (fd_ < 0) {
    // The first group, or an earlier group failed and no new file could be
    // made then.
    if (absl::Status s = StartFile(generation + 1); !s.ok()) return s;
    generation = generation + 1;
  }
  const std::string path = JournalFileName(dir_, generation);
  // Zeros first, past the group's end, so that the file's size changes once
  // a mebibyte and not at every sync.
  const uint64_t end = file_size_ + group.size;
  absl::Status status;
  if (end >= zeroed_end_) {
    const uint64_t to = (end / kZeroAhead + 1) * kZeroAhead;
    status = WriteZeros(fd_, std::max(zeroed_end_, end), to, path);
    if (status.ok()) zeroed_end_ = to;
  }
  if (status.ok()) status = WriteEntries(fd_, group.entries, file_size_, path);
  if (status.ok() && fdatasync(fd_) != 0) {
    status = absl::InternalError(Errno("cannot sync", path));
  }
  if (!status.ok()) {
    // The file may now end in a torn entry, or have lost pages, and a
    // reader stops at its first bad entry: later groups go to a new file.
    // Until one can be made there is none (the next group tries again).
    if (!StartFile(generation + 1).ok()) {
      absl::MutexLock lock(&mu_);
      RetireFileLocked();
    }
    return absl::InternalError(
        absl::StrCat("the journal could not make a checkpoint durable (",
                     status.message(), ")"));
  }
  file_size_ += group.size;
  log_dirs_.insert(group.log_dirs.begin(), group.log_dirs.end());
  if (file_size_ >= options_.rotate_bytes) {
    // A failure here leaves the full file in use, to be replaced later.
    StartFile(generation + 1).IgnoreError();
  }
  return absl::OkStatus();
}

void LogJournal::RetireLoop() {
  while (true) {
    std::vector<Retiree> retirees;
    bool stopping = false;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return retirer_stopping_ || !retiring_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      retirees = std::exchange(retiring_, {});
      stopping = retirer_stopping_;
    }
    // The logs each file names hold its bytes once their file systems are
    // synced; then the file is no longer needed. (A file whose logs could
    // not be synced stays, for the next Open to replay.)
    for (const Retiree& retiree : retirees) {
      const bool synced = SyncFileSystems(retiree.log_dirs).ok();
      const std::string path = JournalFileName(dir_, retiree.generation);
      if (synced && unlink(path.c_str()) == 0) {
        SyncDirectory(dir_).IgnoreError();
        absl::MutexLock lock(&mu_);
        ++stats_.retired;
      }
    }
    if (stopping) return;
  }
}

LogJournal::Stats LogJournal::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace pyramid