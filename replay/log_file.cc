#include "replay/log_file.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/files/bounded_read.h"
#include "replay/seal_watch.h"

namespace pyramid {

LogBudget::LogBudget(uint64_t bytes) : bytes_(bytes) {}

uint64_t LogBudget::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

size_t LogBudget::waiters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiters_;
}

void LogBudget::Take(uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  // Counted only while the lock is let go, that is while it waits.
  ++waiters_;
  room_.wait(lock, [&] {
    return serving_ == ticket && !growing_ &&
           (held_ == 0 || held_ + bytes <= bytes_);
  });
  --waiters_;
  held_ += bytes;
  ++serving_;
  room_.notify_all();  // The next in turn may fit too.
}

void LogBudget::Add(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ += bytes;
}

void LogBudget::Give(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ -= bytes;
  room_.notify_all();
}

void LogBudget::BeginStream() {
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return !streaming_; });
  streaming_ = true;
}

void LogBudget::Grow(uint64_t held, uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  growing_ = true;  // Ahead of every Take: none is served meanwhile.
  ++waiters_;
  room_.wait(lock, [&] { return held_ == held || held_ + bytes <= bytes_; });
  --waiters_;
  growing_ = false;
  held_ += bytes;
  room_.notify_all();  // The Take in turn may go on.
}

void LogBudget::EndStream() {
  std::lock_guard<std::mutex> lock(mutex_);
  streaming_ = false;
  room_.notify_all();
}

LogBudget& SharedLogBudget() {
  static LogBudget* const budget = new LogBudget(PhysicalMemoryBytes() / 2);
  return *budget;
}

LogFile::LogFile(std::string bytes, uint64_t file_size, LogBudget* budget,
                 uint64_t held)
    : bytes_(std::move(bytes)),
      file_size_(file_size),
      budget_(budget),
      held_(held) {}

LogFile::LogFile(LogFile&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      file_size_(other.file_size_),
      budget_(std::exchange(other.budget_, nullptr)),
      held_(std::exchange(other.held_, 0)) {}

LogFile& LogFile::operator=(LogFile&& other) noexcept {
  if (this != &other) {
    if (budget_ != nullptr) budget_->Give(held_);
    bytes_ = std::move(other.bytes_);
    file_size_ = other.file_size_;
    budget_ = std::exchange(other.budget_, nullptr);
    held_ = std::exchange(other.held_, 0);
  }
  return *this;
}

LogFile::~LogFile() {
  if (budget_ != nullptr) budget_->Give(held_);
}

namespace {

// The most a pipe counts ahead of what came from it.
constexpr uint64_t kMaxStreamPart = 1 << 20;

// A regular file is read in parts of this size, each judged (SealWatch)
// before the next is read, into a buffer of at first at most
// kFirstCapacity bytes, which grows (Reserve) as the log is found to go on.
constexpr uint64_t kFilePart = 1 << 20;
constexpr uint64_t kFirstCapacity = 64 << 20;

// Makes `bytes`'s capacity at least `capacity`, exactly that when it
// grows: a new buffer of that size, not one twice the old (as
// std::string::reserve may make it).
void Reserve(uint64_t capacity, std::string* bytes) {
  if (capacity <= bytes->capacity()) return;
  std::string grown;
  grown.reserve(capacity);
  grown.append(*bytes);
  bytes->swap(grown);
}

// The bytes of a regular file of `size` bytes (its magic read into `bytes`)
// to its end or to where `watch` cuts it, appended to `bytes`, read in
// parts: its buffer starts at kFirstCapacity at most and grows to the
// file's size at once when that is at most twice what it holds, else to
// twice that. Returns the file's size as known: what was read when it was
// read to its end, else its size when opened (or what was read, if more).
absl::StatusOr<uint64_t> ReadFileRest(BoundedFile& file, uint64_t size,
                                      SealWatch& watch, std::string* bytes) {
  Reserve(std::min(size, kFirstCapacity), bytes);
  while (true) {
    if (bytes->size() == bytes->capacity() && bytes->size() < size) {
      const uint64_t twice = 2 * bytes->capacity();
      Reserve(size <= twice ? size : twice, bytes);
    }
    // Within its buffer while the file is not all read; past it (a file
    // that grew) as it comes.
    uint64_t until = bytes->size() + kFilePart;
    if (bytes->size() < bytes->capacity()) {
      until = std::min<uint64_t>(until, bytes->capacity());
    }
    absl::StatusOr<bool> over = file.ReadPart(until, bytes);
    if (!over.ok()) return over.status();
    if (std::optional<uint64_t> cut = watch.CutAt(*bytes)) {
      const uint64_t read = bytes->size();
      bytes->resize(*cut);
      return *over ? read : std::max(size, read);
    }
    if (*over) return bytes->size();
  }
}

// A read of `file` (a log's magic read from it into `bytes`) to its end or
// to where a SealWatch cuts it, appended to `bytes`; `*file_size` set to
// the file's size as LogFile::file_size() says it. Returns what `bytes`
// then counts against `budget` (which may differ from their size: a
// regular file that grew or shrank meanwhile, or was cut); on an error,
// nothing counts.
absl::StatusOr<uint64_t> ReadRest(BoundedFile& file, LogBudget& budget,
                                  std::string* bytes, uint64_t* file_size) {
  SealWatch watch;
  if (file.regular()) {
    const uint64_t taken = file.size();
    budget.Take(taken);
    absl::StatusOr<uint64_t> size = ReadFileRest(file, taken, watch, bytes);
    if (!size.ok()) {
      budget.Give(taken);
      return size.status();
    }
    *file_size = *size;
    return taken;
  }
  // A pipe: counted a part ahead of what came (the magic included), the
  // first part in turn, the next ones as they are needed.
  const uint64_t part =
      std::clamp<uint64_t>(budget.bytes() / 16, 1, kMaxStreamPart);
  budget.BeginStream();
  budget.Take(part);
  uint64_t held = part;
  while (true) {
    absl::StatusOr<bool> over = file.ReadPart(held, bytes);
    if (!over.ok()) {
      budget.Give(held);
      budget.EndStream();
      return over.status();
    }
    if (std::optional<uint64_t> cut = watch.CutAt(*bytes)) {
      // How far it goes on is known only once it has ended.
      *file_size = *over ? bytes->size() : 0;
      bytes->resize(*cut);
      break;
    }
    if (*over) {
      *file_size = bytes->size();
      break;
    }
    budget.Grow(held, part);
    held += part;
  }
  budget.EndStream();
  return held;
}

}  // namespace

absl::StatusOr<LogFile> ReadLog(const std::string& path, LogBudget& budget) {
  const uint64_t memory = PhysicalMemoryBytes();
  const std::string limit =
      absl::StrCat("this machine's memory (", memory, " bytes)");
  // Opened once and judged by its descriptor: a directory, a device or a
  // file larger than memory (log or not) is refused here, without waiting
  // for room.
  absl::StatusOr<BoundedFile> file = BoundedFile::Open(
      path, BoundedRead{.max_bytes = memory,
                        .pipes = true,
                        .over_size = limit,
                        .over_stream = limit,
                        .open_failure = "cannot open",
                        .expected_start = log_format::kMagic});
  if (!file.ok()) return file.status();
  // Its first bytes, judged before anything counts: a file that does not
  // start as a log ends at them, however large it is or however long a
  // pipe goes on, and one that ends within the magic is held against
  // nothing.
  std::string bytes;
  absl::StatusOr<bool> over = file->ReadPart(log_format::kMagic.size(), &bytes);
  if (!over.ok()) return over.status();
  if (*over) {
    // Its end, or the first bytes of a file that is not a log.
    const uint64_t size = log_format::kMagic.starts_with(bytes) ? bytes.size()
                          : file->regular()                     ? file->size()
                                                                : 0;
    return LogFile(std::move(bytes), size, nullptr, 0);
  }
  uint64_t file_size = 0;
  absl::StatusOr<uint64_t> counted =
      ReadRest(*file, budget, &bytes, &file_size);
  if (!counted.ok()) return counted.status();
  // No more than the magic: held against nothing.
  if (bytes.size() <= log_format::kMagic.size()) {
    budget.Give(*counted);
    return LogFile(std::move(bytes), file_size, nullptr, 0);
  }
  // Counted as held: what it holds.
  const uint64_t held = bytes.size();
  if (held > *counted) budget.Add(held - *counted);
  if (held < *counted) budget.Give(*counted - held);
  return LogFile(std::move(bytes), file_size, &budget, held);
}

absl::StatusOr<LogFile> ReadLog(const std::string& path) {
  return ReadLog(path, SharedLogBudget());
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  return ReadBoundedFile(path, BoundedRead{.max_bytes = kMaxSmallFileBytes,
                                           .pipes = true,
                                           .open_failure = "cannot open"});
}

}  // namespace pyramid
