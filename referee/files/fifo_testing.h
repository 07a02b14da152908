// Test helpers for the readers of files that may be FIFOs (bounded_read_test,
// core's read_file_test, replay's seat_roster_test and log_file_test): a
// file holding text, a read that must not wait for a FIFO's writer, and a
// FIFO holding text whose writer is gone. Header-only, without GoogleTest.
#ifndef PYRAMID_REFEREE_FILES_FIFO_TESTING_H_
#define PYRAMID_REFEREE_FILES_FIFO_TESTING_H_

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tests/temp_dir.h"

namespace pyramid {

// The file `name` of `dir`, made to hold `text`.
inline std::string FileHolding(const TempDir& dir, const std::string& name,
                               const std::string& text) {
  const std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// `read()`, or DEADLINE_EXCEEDED "waited" when it had not returned within
// 10 s: then a writer that comes and goes at `fifo` lets an open that waits
// for one return, and the test goes on.
inline absl::StatusOr<std::string> ReadWithoutWaiting(
    const std::string& fifo,
    const std::function<absl::StatusOr<std::string>()>& read) {
  std::future<absl::StatusOr<std::string>> done =
      std::async(std::launch::async, read);
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::ready) {
    return done.get();
  }
  const int unblock = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  if (unblock >= 0) close(unblock);
  done.wait();
  return absl::DeadlineExceededError("waited");
}

// The FIFO at `path` holding `text`, its writer gone: a read of it gets the
// text, then its end. The FIFO keeps the text while this holds it open for
// reading, until destroyed. ok() is false when it could not be filled.
class FilledFifo {
 public:
  FilledFifo(const std::string& path, const std::string& text)
      : reader_(open(path.c_str(), O_RDONLY | O_NONBLOCK)) {
    if (reader_ < 0) return;
    const int writer = open(path.c_str(), O_WRONLY);
    ok_ = writer >= 0 && write(writer, text.data(), text.size()) ==
                             static_cast<ssize_t>(text.size());
    if (writer >= 0) close(writer);
  }
  ~FilledFifo() {
    if (reader_ >= 0) close(reader_);
  }
  FilledFifo(const FilledFifo&) = delete;
  FilledFifo& operator=(const FilledFifo&) = delete;
  bool ok() const { return ok_; }

 private:
  int reader_;
  bool ok_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_FIFO_TESTING_H_
