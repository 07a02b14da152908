#include "referee/core/log_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_journal.h"
#include "referee/files/bounded_read.h"
#include "referee/files/io_loops.h"

namespace pyramid {

absl::StatusOr<FsyncPolicy> ParseFsyncPolicy(std::string_view name) {
  if (name == "never") return FsyncPolicy::kNever;
  if (name == "checkpoints") return FsyncPolicy::kCheckpoints;
  if (name == "every_record") return FsyncPolicy::kEveryRecord;
  return absl::InvalidArgumentError(
      absl::StrCat("--fsync is never, checkpoints or every_record, not \"",
                   std::string(name), "\""));
}

absl::StatusOr<std::unique_ptr<FileLogSink>> FileLogSink::Create(
    const std::string& path) {
  // Readable too: a journal's sync job reads the bytes back (SyncLater).
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
                0600);
  if (fd < 0) {
    const int error = errno;
    const std::string why =
        absl::StrCat("cannot create log ", path, ": ", std::strerror(error));
    if (error == EMFILE || error == ENFILE || error == ENOSPC ||
        error == EDQUOT) {
      return absl::ResourceExhaustedError(why);
    }
    return absl::FailedPreconditionError(why);
  }
  return std::unique_ptr<FileLogSink>(
      new FileLogSink(fd, path, 0, /*name_synced=*/false));
}

absl::StatusOr<std::unique_ptr<FileLogSink>> FileLogSink::OpenForAppend(
    const std::string& path, uint64_t size) {
  int fd = open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string why =
        absl::StrCat("cannot open log ", path, ": ", std::strerror(error));
    if (error == EMFILE || error == ENFILE || error == ENOMEM) {
      return AsShortage(absl::ResourceExhaustedError(why));
    }
    return absl::FailedPreconditionError(why);
  }
  // Owner-only, as Create makes a log (one written before logs were, too).
  if (fchmod(fd, 0600) != 0 || ftruncate(fd, static_cast<off_t>(size)) != 0 ||
      fdatasync(fd) != 0) {
    const int error = errno;
    close(fd);
    return absl::InternalError(
        absl::StrCat("cannot cut log ", path, ": ", std::strerror(error)));
  }
  return std::unique_ptr<FileLogSink>(
      new FileLogSink(fd, path, size, /*name_synced=*/true));
}

struct FileLogSink::Descriptor {
  explicit Descriptor(int fd) : fd(fd) {}
  ~Descriptor() { close(fd); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  const int fd;
};

FileLogSink::FileLogSink(int fd, std::string path, uint64_t size,
                         bool name_synced)
    : file_(std::make_shared<const Descriptor>(fd)),
      fd_(fd),
      path_(std::move(path)),
      size_(size),
      synced_(size),
      name_synced_(name_synced) {}

// The descriptor stays open while a SyncLater job holds it.
FileLogSink::~FileLogSink() = default;

void FileLogSink::set_journal(std::shared_ptr<LogJournal> journal) {
  journal_ = std::move(journal);
  std::error_code error;
  const std::filesystem::path absolute =
      std::filesystem::absolute(path_, error);
  absolute_path_ = error ? path_ : absolute.lexically_normal().string();
}

absl::Status FileLogSink::Append(std::string_view bytes) {
  const IoProgress wrote = WriteAll(fd_, bytes);
  size_ += wrote.done;
  if (wrote.done < bytes.size()) {
    return absl::InternalError(
        absl::StrCat("write ", path_, ": ", WriteStoppedText(wrote)));
  }
  return absl::OkStatus();
}

absl::Status FileLogSink::Sync() {
  if (fdatasync(fd_) != 0) {
    return absl::InternalError(
        absl::StrCat("fsync ", path_, ": ", std::strerror(errno)));
  }
  if (!name_synced_) {
    if (absl::Status s = SyncDirectory(DirectoryOf(path_)); !s.ok()) return s;
    name_synced_ = true;
  }
  synced_ = size_;
  return absl::OkStatus();
}

SyncJob FileLogSink::SyncLater() {
  // The job holds the file open, whatever becomes of this sink meanwhile,
  // through the sink's own descriptor: no new one (a dup would fail when
  // the process has none left, and break a match whose bytes are fine).
  const uint64_t from = std::exchange(synced_, size_);
  if (journal_ == nullptr) {
    const bool sync_name = !std::exchange(name_synced_, true);
    return BlockingSync([file = file_, path = path_,
                         sync_name]() -> absl::Status {
      if (fdatasync(file->fd) != 0) {
        return absl::InternalError(
            absl::StrCat("fsync ", path, ": ", std::strerror(errno)));
      }
      return sync_name ? SyncDirectory(DirectoryOf(path)) : absl::OkStatus();
    });
  }
  return [file = file_, journal = journal_, path = absolute_path_, from,
          to = size_](SyncDone done) {
    if (from == to) {  // Nothing new to keep.
      done(absl::OkStatus());
      return;
    }
    std::string bytes(to - from, '\0');
    const IoProgress read =
        PreadFully(file->fd, bytes.data(), bytes.size(), from);
    if (read.done < bytes.size()) {
      done(absl::InternalError(absl::StrCat("cannot read back ", path, ": ",
                                            read.error == 0
                                                ? "it is shorter than written"
                                                : std::strerror(read.error))));
      return;
    }
    journal->CommitAsync(path, from, std::move(bytes), std::move(done));
  };
}

namespace {

// ReadFileToString, refusing more than `max_bytes`, which `limit` names
// ("the 4 bytes read of one file").
absl::StatusOr<std::string> ReadAtMost(const std::string& path,
                                       uint64_t max_bytes,
                                       const std::string& limit) {
  return ReadBoundedFile(path, BoundedRead{.max_bytes = max_bytes,
                                           .pipes = true,
                                           .devices = true,
                                           .over_size = limit,
                                           .over_stream = limit,
                                           .open_failure = "cannot open"});
}

}  // namespace

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // Unknown: no limit.
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  const uint64_t memory = PhysicalMemoryBytes();
  return ReadAtMost(path, memory,
                    absl::StrCat("this machine's memory (", memory, " bytes)"));
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             uint64_t max_bytes) {
  return ReadAtMost(path, max_bytes,
                    absl::StrCat("the ", max_bytes, " bytes read of one file"));
}

absl::Status WriteSecretFile(const std::string& path,
                             const std::string& contents) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  // An existing file keeps its mode through O_CREAT: set it before writing.
  bool ok = fchmod(fd, 0600) == 0;
  ok = ok && write(fd, contents.data(), contents.size()) ==
                 static_cast<ssize_t>(contents.size());
  ok = close(fd) == 0 && ok;
  if (!ok) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status MakeLogPublic(const std::string& path) {
  if (chmod(path.c_str(), 0644) != 0 && errno != ENOENT) {
    return absl::InternalError(absl::StrCat(
        "cannot make ", path, " readable to all: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status MarkLogBroken(const std::string& path) {
  if (chmod(path.c_str(), 0444) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(
        "cannot mark ", path, " broken (mode 0444): ", std::strerror(errno)));
  }
  // Best effort: the inode's new mode reaches the disk before a power loss
  // if this fsync succeeds; if it fails, the mark holds for as long as the
  // machine runs.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  return absl::OkStatus();
}

bool LogIsMarkedBroken(const std::string& path) {
  struct stat info = {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         (info.st_mode & 0777) == 0444;
}

namespace {

// Writes `contents` to PATH.tmp (synced when `sync`) and renames it over
// `path`; the temporary file goes again when any step fails.
absl::Status WriteAndRename(const std::string& path, std::string_view contents,
                            bool sync) {
  const std::string tmp = path + ".tmp";
  const int fd =
      open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  }
  // WriteAll leaves errno as a failed write set it, for the message below.
  bool ok = WriteAll(fd, contents).done == contents.size();
  ok = ok && (!sync || fsync(fd) == 0);
  ok = close(fd) == 0 && ok;
  ok = ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    const std::string error = std::strerror(errno);
    unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", error));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReplaceFileWhole(const std::string& path,
                              std::string_view contents) {
  return WriteAndRename(path, contents, /*sync=*/false);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents) {
  if (absl::Status s = WriteAndRename(path, contents, /*sync=*/true); !s.ok()) {
    return s;
  }
  return SyncDirectory(DirectoryOf(path));
}

absl::Status SyncDirectory(const std::string& dir) {
  const std::string name = dir.empty() ? "." : dir;
  const int fd = open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open the directory ", name,
                                            ": ", std::strerror(errno)));
  }
  const bool ok = fsync(fd) == 0;
  const int error = errno;
  close(fd);
  if (!ok) {
    return absl::InternalError(absl::StrCat("cannot sync the directory ", name,
                                            ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

std::string DirectoryOf(std::string_view path) {
  return std::filesystem::path(path).parent_path().string();
}

}  // namespace pyramid
