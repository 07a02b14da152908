#include "referee/core/log_journal_recovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/core/log_journal_format.h"
#include "referee/core/log_journal_io.h"
#include "referee/core/log_sink.h"
#include "referee/files/io_loops.h"

namespace pyramid {
namespace {

using journal_io::Errno;
using journal_io::SyncFileSystems;
using journal_io::WriteAt;

// Writes `entry`'s bytes into the log open for writing as `fd`, and syncs
// them.
absl::Status RepairAt(int fd, const JournalEntry& entry,
                      const std::string& path) {
  if (absl::Status s = WriteAt(fd, entry.bytes, entry.offset, path); !s.ok()) {
    return absl::DataLossError(
        absl::StrCat("cannot repair the log: ", s.message()));
  }
  if (fdatasync(fd) != 0) {
    return absl::DataLossError(Errno("cannot sync the repaired log", path));
  }
  return absl::OkStatus();
}

// RepairAt for the log `read_fd`, open for reading, whose mode is `mode`:
// opened again for writing; a log its owner may not write (a broken
// match's, marked read-only) is made writable for the repair only, and its
// mode is put back and synced after.
absl::Status RepairReopened(int read_fd, mode_t mode, const JournalEntry& entry,
                            const std::string& path) {
  const bool read_only = (mode & S_IWUSR) == 0;
  if (read_only && fchmod(read_fd, mode | S_IWUSR) != 0) {
    return absl::DataLossError(
        Errno("cannot make the read-only log writable to repair it", path));
  }
  absl::Status status;
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    status = absl::DataLossError(
        Errno("cannot open the log for writing to repair it", path));
  } else {
    status = RepairAt(fd, entry, path);
    close(fd);
  }
  if (read_only && (fchmod(read_fd, mode) != 0 || fsync(read_fd) != 0) &&
      status.ok()) {
    status = absl::DataLossError(
        Errno("cannot make the repaired log read-only again", path));
  }
  return status;
}

// Makes the log `path` (the file `entry` names, in the log directory) hold
// `entry.bytes` at `entry.offset`. Sets `changed` when it did not already.
absl::Status ApplyEntry(const JournalEntry& entry, const std::string& path,
                        bool& changed) {
  changed = false;
  bool created = false;
  // Read first: a log that already holds the bytes is not opened for
  // writing, which a log marked read-only (a broken match's, mode 0444:
  // log_sink.h) refuses to a referee not running as root.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && entry.offset == 0) {
    fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    created = fd >= 0;
  }
  if (fd < 0) {
    return absl::DataLossError(
        absl::StrCat("the journal holds bytes ", entry.offset, " to ",
                     entry.offset + entry.bytes.size(), " of the log ", path,
                     ", which cannot be opened: ", std::strerror(errno)));
  }
  // The entries of a log run on from where the log last synced itself, so
  // a log that ends before an entry's first byte lost bytes the journal
  // never held: writing the entry would leave a hole of zeros in it.
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const std::string why = Errno("cannot read the size of the log", path);
    close(fd);
    return absl::DataLossError(why);
  }
  if (static_cast<uint64_t>(st.st_size) < entry.offset) {
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    close(fd);
    return absl::DataLossError(absl::StrCat(
        "the log ", path, " ends at byte ", size,
        ", before the bytes the journal holds for it from byte ", entry.offset,
        " on: bytes ", size, " to ", entry.offset, " are lost"));
  }
  std::string held(entry.bytes.size(), '\0');
  const size_t have =
      PreadFully(fd, held.data(), held.size(), entry.offset).done;
  absl::Status status;
  if (have != held.size() || held != entry.bytes) {
    changed = true;
    status = created ? RepairAt(fd, entry, path)
                     : RepairReopened(fd, st.st_mode & 07777, entry, path);
  }
  close(fd);
  if (status.ok() && created) {
    status = SyncDirectory(DirectoryOf(path));
  }
  return status;
}

// A journal file: its generation and its path.
using JournalFile = std::pair<uint64_t, std::string>;

// The journal files in `dir` (created if missing), oldest first.
absl::StatusOr<std::vector<JournalFile>> ListJournalFiles(
    const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create the journal directory ", dir, ": ", error.message()));
  }
  std::vector<JournalFile> files;
  for (const auto& item : std::filesystem::directory_iterator(dir, error)) {
    uint64_t generation = 0;
    if (IsJournalFileName(item.path().filename().string(), generation)) {
      files.emplace_back(generation, item.path().string());
    }
  }
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read the journal directory ", dir, ": ", error.message()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The entries of a journal's files, each log's in the order of their
// offsets: the order they were committed in may differ (two syncs of one
// log that run on two threads can reach the journal in either order, even
// in two files).
struct JournalEntries {
  struct Found {
    const std::string* file;  // The journal file's path, for messages.
    std::string log;          // The log's path in the log directory.
    JournalEntry entry;       // A view into `contents`.
  };
  std::vector<std::string> contents;  // The files' bytes.
  std::vector<Found> found;
};

// Reads and parses every file of `files` into `entries` (a file's torn or
// damaged tail noted in `recovery`), each entry's log resolved by its file
// name against `log_dir` (JournalLogPath): an older journal's entries name
// paths, which a data directory moved since, or copied, no longer holds
// (or holds the original's logs). An entry that names no file is
// DATA_LOSS.
absl::Status ReadJournalFiles(const std::vector<JournalFile>& files,
                              const std::string& log_dir,
                              JournalEntries& entries,
                              LogJournal::Recovery& recovery) {
  entries.contents.reserve(files.size());  // The entries are views into them.
  for (const auto& [generation, path] : files) {
    absl::StatusOr<std::string> read = ReadFileToString(path);
    if (!read.ok()) return read.status();
    entries.contents.push_back(*std::move(read));
    ParsedJournal parsed = ParseJournal(entries.contents.back());
    ++recovery.files;
    if (!parsed.stopped.empty()) {
      recovery.notes.push_back(absl::StrCat(path, ": ", parsed.stopped,
                                            " at byte ", parsed.stopped_at,
                                            ", ignored from there"));
    }
    for (const JournalEntry& entry : parsed.entries) {
      std::string log = JournalLogPath(entry.path, log_dir);
      if (log.empty()) {
        return absl::DataLossError(absl::StrCat(
            "journal ", path, ": an entry names no log file (\"",
            std::string(entry.path), "\"); remove ", DirectoryOf(path),
            " to start without repairing the logs"));
      }
      entries.found.push_back({&path, std::move(log), entry});
    }
  }
  std::stable_sort(
      entries.found.begin(), entries.found.end(),
      [](const JournalEntries::Found& a, const JournalEntries::Found& b) {
        return std::tie(a.log, a.entry.offset) <
               std::tie(b.log, b.entry.offset);
      });
  return absl::OkStatus();
}

// Writes every entry into its log where the log lacks its bytes, then
// syncs the file systems of every log named.
absl::Status ApplyJournalEntries(const std::string& dir,
                                 const JournalEntries& entries,
                                 LogJournal::Recovery& recovery) {
  std::set<std::string> repaired;
  std::set<std::string> log_dirs;
  for (const JournalEntries::Found& f : entries.found) {
    bool changed = false;
    if (absl::Status s = ApplyEntry(f.entry, f.log, changed); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat("journal ", *f.file, ": ", s.message(),
                       " (put the log back, or remove ", dir,
                       " to start without repairing it)"));
    }
    if (changed) repaired.emplace(f.log);
    log_dirs.insert(DirectoryOf(f.log));
    ++recovery.entries;
  }
  // ApplyEntry synced the logs it wrote to; the others hold the bytes, but
  // perhaps in the page cache only (after a crash of the process it finds
  // them all there, never synced: the journal was their durable copy). So
  // their file systems are synced before the files are deleted.
  if (absl::Status s = SyncFileSystems(log_dirs); !s.ok()) {
    return absl::DataLossError(absl::StrCat(
        "the logs the journal ", dir, " holds bytes of cannot be synced (",
        s.message(), "); the journal is kept"));
  }
  recovery.log_directories_synced = static_cast<int>(log_dirs.size());
  recovery.logs_repaired = static_cast<int>(repaired.size());
  return absl::OkStatus();
}

// Deletes the journal files `files` of `dir`, durably.
absl::Status DeleteJournalFiles(const std::string& dir,
                                const std::vector<JournalFile>& files) {
  for (const auto& [generation, path] : files) {
    if (unlink(path.c_str()) != 0) {
      return absl::InternalError(Errno("cannot delete the journal file", path));
    }
  }
  if (files.empty()) return absl::OkStatus();
  return SyncDirectory(dir);
}

}  // namespace

absl::StatusOr<uint64_t> ReplayJournal(const std::string& dir,
                                       const std::string& log_dir,
                                       LogJournal::Recovery& recovery) {
  absl::StatusOr<std::vector<JournalFile>> files = ListJournalFiles(dir);
  if (!files.ok()) return files.status();
  // Every file is read before any entry is applied.
  JournalEntries entries;
  if (absl::Status s = ReadJournalFiles(*files, log_dir, entries, recovery);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ApplyJournalEntries(dir, entries, recovery); !s.ok()) {
    return s;
  }
  if (absl::Status s = DeleteJournalFiles(dir, *files); !s.ok()) return s;
  return files->empty() ? 0 : files->back().first;
}

}  // namespace pyramid
