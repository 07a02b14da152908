#include "replay/log_file.h"

#include <cstdint>
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

void LogBudget::Take(uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  room_.wait(lock, [&] {
    return serving_ == ticket && (held_ == 0 || held_ + bytes <= bytes_);
  });
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
  // Counted before it is read: a regular file's size; a pipe, whose size is
  // not known, the whole budget (read alone).
  const uint64_t taken = file->regular() ? file->size() : budget.bytes();
  budget.Take(taken);
  // A file that does not start as a log ends at its first bytes, however
  // large it is or however long a pipe goes on.
  absl::StatusOr<std::string> bytes = file->Read();
  if (!bytes.ok()) {
    budget.Give(taken);
    return bytes.status();
  }
  // Not a log (its first bytes alone), or no more than the magic: held
  // against nothing.
  if (bytes->size() <= log_format::kMagic.size()) {
    budget.Give(taken);
    return LogFile(*std::move(bytes), nullptr, 0);
  }
  // Counted as held: what it holds (a pipe, or a file that grew or shrank
  // while read).
  const uint64_t held = bytes->size();
  if (held > taken) budget.Add(held - taken);
  if (held < taken) budget.Give(taken - held);
  return LogFile(*std::move(bytes), &budget, held);
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
