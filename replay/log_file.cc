#include "replay/log_file.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/files/bounded_read.h"

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

LogFile::LogFile(std::string bytes, LogBudget* budget, uint64_t held)
    : bytes_(std::move(bytes)), budget_(budget), held_(held) {}

LogFile::LogFile(LogFile&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      budget_(std::exchange(other.budget_, nullptr)),
      held_(std::exchange(other.held_, 0)) {}

LogFile& LogFile::operator=(LogFile&& other) noexcept {
  if (this != &other) {
    if (budget_ != nullptr) budget_->Give(held_);
    bytes_ = std::move(other.bytes_);
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

// A read of `file` (a log's magic read from it into `bytes`) to its end,
// appended to `bytes`. Returns what `bytes` then counts against `budget`
// (which may differ from their size: a regular file that grew or shrank
// meanwhile); on an error, nothing counts.
absl::StatusOr<uint64_t> ReadRest(BoundedFile& file, LogBudget& budget,
                                  std::string* bytes) {
  if (file.regular()) {
    const uint64_t taken = file.size();
    budget.Take(taken);
    absl::StatusOr<bool> over =
        file.ReadPart(std::numeric_limits<uint64_t>::max(), bytes);
    if (!over.ok()) {
      budget.Give(taken);
      return over.status();
    }
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
    if (*over) break;
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
  if (*over) return LogFile(std::move(bytes), nullptr, 0);
  absl::StatusOr<uint64_t> counted = ReadRest(*file, budget, &bytes);
  if (!counted.ok()) return counted.status();
  // No more than the magic: held against nothing.
  if (bytes.size() <= log_format::kMagic.size()) {
    budget.Give(*counted);
    return LogFile(std::move(bytes), nullptr, 0);
  }
  // Counted as held: what it holds.
  const uint64_t held = bytes.size();
  if (held > *counted) budget.Add(held - *counted);
  if (held < *counted) budget.Give(*counted - held);
  return LogFile(std::move(bytes), &budget, held);
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
