#include "referee/core/log_journal.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/sha256.h"

namespace pyramid {
namespace {

constexpr size_t kLengthSize = 4;
constexpr size_t kOffsetSize = 8;
constexpr size_t kPathLengthSize = 2;
constexpr size_t kHashSize = std::tuple_size_v<Digest>;
constexpr size_t kMaxPath = 4096;
// An entry holds the bytes a log wrote between two checkpoints; anything
// larger is damage, not an entry.
constexpr uint32_t kMaxBody = uint32_t{1} << 30;
// How far ahead of the entries a journal file is filled with zeros.
constexpr uint64_t kZeroAhead = uint64_t{1} << 20;

void PutLittleEndian(uint64_t value, size_t size, std::string& out) {
  for (size_t i = 0; i < size; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint64_t GetLittleEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

std::string Errno(absl::string_view what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

// Whether `name` is a journal file's name: 16 decimal digits, ".journal".
bool IsJournalName(const std::string& name, uint64_t& generation) {
  constexpr size_t kDigits = 16;
  if (name.size() != kDigits + 8 || name.substr(kDigits) != ".journal") {
    return false;
  }
  generation = 0;
  for (size_t i = 0; i < kDigits; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    generation = generation * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return true;
}

std::string FileName(const std::string& dir, uint64_t generation) {
  std::string digits = std::to_string(generation);
  return absl::StrCat(dir, "/", std::string(16 - digits.size(), '0'), digits,
                      ".journal");
}

// Syncs the file system of each of `dirs` (syncfs): every log in them then
// holds durably what was written to it. An empty name is the current
// directory.
absl::Status SyncFileSystems(const std::set<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    const std::string name = dir.empty() ? "." : dir;
    const int fd = open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return absl::InternalError(Errno("cannot open", name));
    const bool ok = syncfs(fd) == 0;
    const std::string why =
        ok ? "" : Errno("cannot sync the file system of", name);
    close(fd);
    if (!ok) return absl::InternalError(why);
  }
  return absl::OkStatus();
}

absl::Status WriteAt(int fd, std::string_view bytes, uint64_t at,
                     const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n =
        pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(Errno("cannot write", path));
    bytes.remove_prefix(static_cast<size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

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
  static const std::string* const zeros = new std::string(kZeroAhead, '\0');
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

// Makes the log `entry.path` hold `entry.bytes` at `entry.offset`. Sets
// `changed` when it did not already.
absl::Status ApplyEntry(const JournalEntry& entry, bool& changed) {
  changed = false;
  const std::string path(entry.path);
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
  size_t have = 0;
  while (have < held.size()) {
    const ssize_t n = pread(fd, held.data() + have, held.size() - have,
                            static_cast<off_t>(entry.offset + have));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
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

}  // namespace

namespace {

// An entry's bytes before its log's: body_length, offset, path_length, path.
std::string EntryHead(uint64_t offset, std::string_view path,
                      size_t bytes_size) {
  std::string head;
  head.reserve(kLengthSize + kOffsetSize + kPathLengthSize + path.size());
  PutLittleEndian(kOffsetSize + kPathLengthSize + path.size() + bytes_size,
                  kLengthSize, head);
  PutLittleEndian(offset, kOffsetSize, head);
  PutLittleEndian(path.size(), kPathLengthSize, head);
  head.append(path);
  return head;
}

// SHA-256 of an entry's body: its head after body_length, then the bytes.
Digest EntryHash(std::string_view head, std::string_view bytes) {
  return Sha256({head.substr(kLengthSize), bytes});
}

}  // namespace

std::string EncodeJournalEntry(uint64_t offset, std::string_view path,
                               std::string_view bytes) {
  std::string out = EntryHead(offset, path, bytes.size());
  const Digest hash = EntryHash(out, bytes);
  out.append(bytes);
  out.append(AsView(hash));
  return out;
}

ParsedJournal ParseJournal(std::string_view file) {
  ParsedJournal parsed;
  auto stop = [&](size_t at, std::string why) {
    parsed.stopped = std::move(why);
    parsed.stopped_at = at;
    return parsed;
  };
  if (file.size() < kJournalMagic.size()) {
    // A file whose creation was cut short holds a prefix of the magic.
    if (kJournalMagic.substr(0, file.size()) == file) return parsed;
    return stop(0, "not a journal file");
  }
  if (file.substr(0, kJournalMagic.size()) != kJournalMagic) {
    return stop(0, "not a journal file");
  }
  size_t at = kJournalMagic.size();
  while (at < file.size()) {
    const std::string_view rest = file.substr(at);
    if (rest.find_first_not_of('\0') == std::string_view::npos) {
      return parsed;  // The zeros after the last entry.
    }
    if (rest.size() < kLengthSize) return stop(at, "a torn entry");
    const uint64_t body = GetLittleEndian(rest.substr(0, kLengthSize));
    if (body < kOffsetSize + kPathLengthSize || body > kMaxBody) {
      return stop(at, "a damaged entry (its length)");
    }
    if (rest.size() < kLengthSize + body + kHashSize) {
      return stop(at, "a torn entry");
    }
    const std::string_view bytes = rest.substr(kLengthSize, body);
    if (AsView(Sha256(bytes)) != rest.substr(kLengthSize + body, kHashSize)) {
      return stop(at, "a damaged entry (its hash)");
    }
    const uint64_t path_length =
        GetLittleEndian(bytes.substr(kOffsetSize, kPathLengthSize));
    if (path_length == 0 || path_length > kMaxPath ||
        kOffsetSize + kPathLengthSize + path_length > body) {
      return stop(at, "a damaged entry (its path)");
    }
    JournalEntry& entry = parsed.entries.emplace_back();
    entry.offset = GetLittleEndian(bytes.substr(0, kOffsetSize));
    entry.path = bytes.substr(kOffsetSize + kPathLengthSize, path_length);
    entry.bytes = bytes.substr(kOffsetSize + kPathLengthSize + path_length);
    at += kLengthSize + body + kHashSize;
  }
  return parsed;
}

namespace {

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
    if (IsJournalName(item.path().filename().string(), generation)) {
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
    JournalEntry entry;       // A view into `contents`.
  };
  std::vector<std::string> contents;  // The files' bytes.
  std::vector<Found> found;
};

// Reads and parses every file of `files` into `entries` (a file's torn or
// damaged tail noted in `recovery`).
absl::Status ReadJournalFiles(const std::vector<JournalFile>& files,
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
      entries.found.push_back({&path, entry});
    }
  }
  std::stable_sort(
      entries.found.begin(), entries.found.end(),
      [](const JournalEntries::Found& a, const JournalEntries::Found& b) {
        return std::tie(a.entry.path, a.entry.offset) <
               std::tie(b.entry.path, b.entry.offset);
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
    if (absl::Status s = ApplyEntry(f.entry, changed); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat("journal ", *f.file, ": ", s.message(),
                       " (put the log back, or remove ", dir,
                       " to start without repairing it)"));
    }
    if (changed) repaired.emplace(f.entry.path);
    log_dirs.insert(DirectoryOf(f.entry.path));
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

absl::StatusOr<std::unique_ptr<LogJournal>> LogJournal::Open(
    const std::string& dir, Options options) {
  absl::StatusOr<std::vector<JournalFile>> files = ListJournalFiles(dir);
  if (!files.ok()) return files.status();
  // Every file is read before any entry is applied.
  Recovery recovery;
  JournalEntries entries;
  if (absl::Status s = ReadJournalFiles(*files, entries, recovery); !s.ok()) {
    return s;
  }
  if (absl::Status s = ApplyJournalEntries(dir, entries, recovery); !s.ok()) {
    return s;
  }
  if (absl::Status s = DeleteJournalFiles(dir, *files); !s.ok()) return s;
  auto journal = std::unique_ptr<LogJournal>(
      new LogJournal(dir, std::move(options), std::move(recovery)));
  // The first file is made for the first commit: a journal that is only
  // replayed (the referee opens it whatever its flags) writes nothing.
  {
    absl::MutexLock lock(&journal->mu_);
    journal->generation_ = files->empty() ? 0 : files->back().first;
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
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
      retiring_.push_back({generation_, std::exchange(log_dirs_, {})});
    }
    retirer_stopping_ = true;
  }
  if (retirer_.joinable()) retirer_.join();
}

absl::Status LogJournal::StartFile(uint64_t generation) {
  const std::string path = FileName(dir_, generation);
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
  if (fd_ >= 0) {
    close(fd_);
    retiring_.push_back({generation_, std::exchange(log_dirs_, {})});
  }
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
  entry.head = EntryHead(offset, path, bytes.size());
  entry.hash = EntryHash(entry.head, bytes);
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
        return stopping_ || filling_ != nullptr;
      };
      mu_.Await(absl::Condition(&ready));
      if (filling_ == nullptr) return;  // Stopping, and nothing is queued.
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
  const std::string path = FileName(dir_, generation);
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
      close(fd_);
      fd_ = -1;
      retiring_.push_back({generation, std::exchange(log_dirs_, {})});
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
      const std::string path = FileName(dir_, retiree.generation);
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
