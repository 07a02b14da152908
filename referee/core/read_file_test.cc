// ReadFileToString (referee/core/log_sink.h) on what is not a regular
// file: a named FIFO with no writer is refused at once (its blocking open
// waited for a writer forever), while a FIFO with a writer, a pipe and a
// device are read to their end. Its other cases are log_test's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/files/fifo_testing.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// ReadFileToString(path), with `max_bytes` when not 0, not waiting
// (referee/files/fifo_testing.h).
absl::StatusOr<std::string> ReadNow(const std::string& path,
                                    uint64_t max_bytes = 0) {
  return ReadWithoutWaiting(path, [&path, max_bytes] {
    return max_bytes == 0 ? ReadFileToString(path)
                          : ReadFileToString(path, max_bytes);
  });
}

TEST(ReadFileToStringFifoTest, AFifoWithNoWriterIsRefusedAtOnce) {
  const TempDir dir("read_fifo");
  ASSERT_TRUE(dir.ok());
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> read = ReadNow(fifo);
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", fifo,
                         ": a FIFO or pipe with no writer and nothing in it"));
  // With a bound too.
  read = ReadNow(fifo, 4096);
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();

  // A writer that writes a moment after the read began: read to its end.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const int writer = open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  close(reader);
  std::thread late([writer] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(write(writer, "late", 4), 4);
    close(writer);
  });
  read = ReadNow(fifo);
  late.join();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "late");
  // A device, as before.
  EXPECT_EQ(ReadFileToString("/dev/null").value_or("?"), "");
}

}  // namespace
}  // namespace pyramid
