// The bounded reader (referee/files/bounded_read.h): each kind of file read
// or refused as its contract says, never waiting on a FIFO with no writer,
// never holding more than its bound.
#include "referee/files/bounded_read.h"

#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/files/fifo_testing.h"
#include "tests/forked_child.h"
#include "tests/no_descriptor_left.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// ReadBoundedFile(path, options), not waiting (fifo_testing.h).
absl::StatusOr<std::string> ReadNow(const std::string& path,
                                    const BoundedRead& options) {
  return ReadWithoutWaiting(path,
                            [&] { return ReadBoundedFile(path, options); });
}

TEST(BoundedReadTest, ReadsARegularFileWholeAndRefusesADirectory) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes.push_back(static_cast<char>(i * 7));
  const std::string path = FileHolding(tmp, "file", bytes);
  EXPECT_EQ(*ReadBoundedFile(path, {.max_bytes = bytes.size()}), bytes);
  EXPECT_EQ(*ReadBoundedFile(FileHolding(tmp, "empty", ""), {.max_bytes = 0}),
            "");
  // A directory is named, not read as an empty file.
  const absl::StatusOr<std::string> directory =
      ReadBoundedFile(tmp.path(), {.max_bytes = 100});
  EXPECT_TRUE(absl::IsFailedPrecondition(directory.status()));
  EXPECT_EQ(directory.status().message(),
            absl::StrCat("cannot read ", tmp.path(), ": it is a directory"));
}

// NOT_FOUND for a file that is not there (or a name no file can have), in
// the words the caller chose.
TEST(BoundedReadTest, AFileThatCannotBeOpenedSaysWhy) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const std::string missing = tmp.File("missing");
  absl::StatusOr<std::string> read =
      ReadBoundedFile(missing, {.max_bytes = 100});
  EXPECT_TRUE(absl::IsNotFound(read.status())) << read.status();
  EXPECT_EQ(
      read.status().message(),
      absl::StrCat("cannot read ", missing, ": No such file or directory"));
  read = ReadBoundedFile(missing,
                         {.max_bytes = 100, .open_failure = "cannot open"});
  EXPECT_EQ(
      read.status().message(),
      absl::StrCat("cannot open ", missing, ": No such file or directory"));
  read = ReadBoundedFile(tmp.File("missing/below"), {.max_bytes = 100});
  EXPECT_TRUE(absl::IsNotFound(read.status())) << read.status();
  read = ReadBoundedFile(std::string(5000, 'x'), {.max_bytes = 100});
  EXPECT_TRUE(absl::IsNotFound(read.status())) << read.status();
}

// A file its mode keeps us from reading is PERMISSION_DENIED. Root reads
// every file: the reads are made by a child, which root's test makes
// nobody (uid and gid 65534) first, and which reports through a pipe and
// its exit status.
TEST(BoundedReadTest, AFileNotOursIsPermissionDenied) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  // Anyone may enter the directory: only the file's mode refuses it.
  ASSERT_EQ(chmod(tmp.path().c_str(), 0755), 0);
  const std::string secret = FileHolding(tmp, "secret", "x");
  ASSERT_EQ(chmod(secret.c_str(), 0), 0);
  const std::string readable = FileHolding(tmp, "readable", "y");
  ASSERT_EQ(chmod(readable.c_str(), 0644), 0);
  ForkedChild child([&](int report) {
    // Exit 0: the secret was refused PERMISSION_DENIED and the readable
    // file read; 1: not so, or root could not become nobody. What it found
    // goes through the pipe.
    auto finish = [&](bool ok, const std::string& found) {
      (void)!write(report, found.data(), found.size());
      _exit(ok ? 0 : 1);
    };
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 ||
                           setuid(65534) != 0 || geteuid() == 0)) {
      finish(false,
             absl::StrCat("cannot become nobody: ", std::strerror(errno)));
    }
    const absl::StatusOr<std::string> denied =
        ReadBoundedFile(secret, {.max_bytes = 100});
    const absl::StatusOr<std::string> read =
        ReadBoundedFile(readable, {.max_bytes = 100});
    finish(
        absl::IsPermissionDenied(denied.status()) &&
            denied.status().message() ==
                absl::StrCat("cannot read ", secret, ": Permission denied") &&
            read.ok() && *read == "y",
        absl::StrCat("uid ", geteuid(), ": ", denied.status().ToString(), "; ",
                     read.status().ToString()));
  });
  ASSERT_TRUE(child.ok());
  const std::string found = child.ReadToEnd();
  const ChildEnd end = child.Wait();
  EXPECT_EQ(end.exit_code, 0) << end.ToString() << ": " << found;
}

// A file that cannot be opened for want of a file descriptor is
// RESOURCE_EXHAUSTED, in the caller's words and strerror's: a later try
// may succeed (it was FAILED_PRECONDITION, which a caller took for a file
// it could never read).
TEST(BoundedReadTest, NoFileDescriptorLeftIsResourceExhausted) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const std::string path = FileHolding(tmp, "file", "bytes");
  // Once with descriptors to spare, so that a sanitizer meets every type
  // of this path before none is left (UBSan's vptr check needs a pipe).
  ASSERT_FALSE(ReadBoundedFile(tmp.File("missing"), {.max_bytes = 100}).ok());
  absl::StatusOr<std::string> read;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    read = ReadBoundedFile(path,
                           {.max_bytes = 100, .open_failure = "cannot open"});
  }
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_TRUE(IsShortage(read.status()));  // A later try may succeed.
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot open ", path, ": ", std::strerror(EMFILE)));
  // Once one is free again, the file is read.
  EXPECT_EQ(*ReadBoundedFile(path, {.max_bytes = 100}), "bytes");
}

// A file over the bound is refused unread when it says its size (a sparse
// file of a gigabyte is not allocated), in the words the caller chose.
TEST(BoundedReadTest, AFileOverTheBoundIsRefusedUnread) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const std::string ten = FileHolding(tmp, "ten", "0123456789");
  EXPECT_EQ(*ReadBoundedFile(ten, {.max_bytes = 10}), "0123456789");
  absl::StatusOr<std::string> read = ReadBoundedFile(ten, {.max_bytes = 9});
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_FALSE(IsShortage(read.status()));  // No later try changes it.
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", ten,
                         ": it is 10 bytes, more than 9 (not read)"));
  read = ReadBoundedFile(ten, {.max_bytes = 9, .over_size = "the bound"});
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", ten,
                         ": it is 10 bytes, more than the bound"));
  const std::string sparse = FileHolding(tmp, "sparse", "");
  ASSERT_EQ(truncate(sparse.c_str(), int64_t{1} << 30), 0);
  read = ReadBoundedFile(sparse, {.max_bytes = 4096});
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", sparse,
                         ": it is 1073741824 bytes, more than 4096 (not "
                         "read)"));
}

// A named FIFO with no writer is refused at once, or read as empty at once
// (opening it waited for a writer forever); one with a writer and its text
// is read; without options.pipes, neither.
TEST(BoundedReadTest, AFifoWithNoWriterIsRefusedOrEmptyWithoutWaiting) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const std::string fifo = tmp.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> read =
      ReadNow(fifo, {.max_bytes = 100, .pipes = true});
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", fifo,
                         ": a FIFO or pipe with no writer and nothing in it"));
  read = ReadNow(fifo, {.max_bytes = 100,
                        .pipes = true,
                        .no_writer = BoundedRead::NoWriter::kEmpty});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "");
  read = ReadNow(fifo, {.max_bytes = 100});
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", fifo,
                         ": it is not a regular file (a FIFO or pipe)"));

  // Its text written, its writer gone: read.
  const FilledFifo filled(fifo, "text");
  ASSERT_TRUE(filled.ok());
  read = ReadNow(fifo, {.max_bytes = 100, .pipes = true});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "text");
}

// A pipe (`<(...)`) is read to its end however late its writer writes,
// unless options.idle_ms bounds the wait; never more than max_bytes.
TEST(BoundedReadTest, APipeIsReadToItsEndWithinItsBounds) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(write(ends[1], "late ", 5), 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(write(ends[1], "text", 4), 4);
    close(ends[1]);
  });
  absl::StatusOr<std::string> read = ReadBoundedFile(
      absl::StrCat("/dev/fd/", ends[0]), {.max_bytes = 100, .pipes = true});
  late.join();
  close(ends[0]);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "late text");

  // A writer that never writes nor closes: refused once it was silent.
  ASSERT_EQ(pipe(ends), 0);
  const std::string path = absl::StrCat("/dev/fd/", ends[0]);
  read =
      ReadBoundedFile(path, {.max_bytes = 100, .pipes = true, .idle_ms = 200});
  EXPECT_TRUE(absl::IsDeadlineExceeded(read.status())) << read.status();
  EXPECT_EQ(
      read.status().message(),
      absl::StrCat("cannot read ", path, ": nothing came from it for 200 ms"));
  // Nor more than max_bytes from a pipe.
  const std::string many(101, '#');
  ASSERT_EQ(write(ends[1], many.data(), many.size()), 101);
  close(ends[1]);
  read = ReadBoundedFile(path, {.max_bytes = 100, .pipes = true});
  close(ends[0]);
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_EQ(
      read.status().message(),
      absl::StrCat("cannot read ", path, ": it holds more than 100 bytes"));

  // A pipe whose writer wrote nothing: as a FIFO with no writer.
  ASSERT_EQ(pipe(ends), 0);
  close(ends[1]);
  read = ReadBoundedFile(absl::StrCat("/dev/fd/", ends[0]),
                         {.max_bytes = 100, .pipes = true});
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  read = ReadBoundedFile(absl::StrCat("/dev/fd/", ends[0]),
                         {.max_bytes = 100,
                          .pipes = true,
                          .no_writer = BoundedRead::NoWriter::kEmpty});
  close(ends[0]);
  EXPECT_EQ(read.value_or("?"), "");
}

// A device is read, bounded, with options.devices; else named.
TEST(BoundedReadTest, ADeviceIsReadOnlyWhenAsked) {
  absl::StatusOr<std::string> read =
      ReadBoundedFile("/dev/null", {.max_bytes = 100, .pipes = true});
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            "cannot read /dev/null: it is not a regular file (a character "
            "device)");
  read = ReadBoundedFile("/dev/null", {.max_bytes = 100, .devices = true});
  EXPECT_EQ(read.value_or("?"), "");
  read = ReadBoundedFile(
      "/dev/zero",
      {.max_bytes = 100000, .devices = true, .over_stream = "the bound"});
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            "cannot read /dev/zero: it holds more than the bound");
}

// With options.expected_start, a file whose first bytes are not a prefix
// of it is read no further than them; one that starts with it, or is a
// prefix of it, is read whole. A file over max_bytes is still refused
// unread.
TEST(BoundedReadTest, AFileNotStartingAsExpectedIsReadNoFurther) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const BoundedRead options{.max_bytes = uint64_t{1} << 30,
                            .expected_start = "MAGIC"};
  const std::string text = FileHolding(tmp, "text", "hello, world\n");
  EXPECT_EQ(ReadBoundedFile(text, options).value_or("?"), "hello");
  EXPECT_EQ(ReadBoundedFile(FileHolding(tmp, "early", "MAX and more"), options)
                .value_or("?"),
            "MAX a");
  // 64 MiB of zeros that take no room: its first bytes alone.
  const std::string sparse = FileHolding(tmp, "sparse", "");
  ASSERT_EQ(truncate(sparse.c_str(), int64_t{64} << 20), 0);
  EXPECT_EQ(ReadBoundedFile(sparse, options).value_or("?"),
            std::string(5, '\0'));
  // Read whole: starting with it, a prefix of it, empty.
  std::string log = "MAGIC";
  for (int i = 0; i < 100000; ++i) log.push_back(static_cast<char>(i * 7));
  EXPECT_EQ(
      ReadBoundedFile(FileHolding(tmp, "log", log), options).value_or("?"),
      log);
  EXPECT_EQ(
      ReadBoundedFile(FileHolding(tmp, "prefix", "MAG"), options).value_or("?"),
      "MAG");
  EXPECT_EQ(
      ReadBoundedFile(FileHolding(tmp, "empty", ""), options).value_or("?"),
      "");
  const absl::StatusOr<std::string> over =
      ReadBoundedFile(sparse, {.max_bytes = 4096, .expected_start = "MAGIC"});
  EXPECT_TRUE(absl::IsResourceExhausted(over.status())) << over.status();
}

// A pipe whose first bytes are not the start expected is judged at once,
// though its writer keeps it open; one that gives the start in pieces, or
// ends inside it, is read to its end.
TEST(BoundedReadTest, APipeNotStartingAsExpectedIsNotWaitedOn) {
  const BoundedRead options{
      .max_bytes = 100, .pipes = true, .expected_start = "MAGIC"};
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::string path = absl::StrCat("/dev/fd/", ends[0]);
  ASSERT_EQ(write(ends[1], "MAX", 3), 3);
  absl::StatusOr<std::string> read = ReadNow(path, {.max_bytes = 100,
                                                    .pipes = true,
                                                    .idle_ms = 5000,
                                                    .expected_start = "MAGIC"});
  close(ends[1]);
  close(ends[0]);
  EXPECT_EQ(read.value_or("?"), "MAX");

  ASSERT_EQ(pipe(ends), 0);
  path = absl::StrCat("/dev/fd/", ends[0]);
  std::thread pieces([&] {
    EXPECT_EQ(write(ends[1], "MA", 2), 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(write(ends[1], "GIC and more", 12), 12);
    close(ends[1]);
  });
  read = ReadNow(path, options);
  pieces.join();
  close(ends[0]);
  EXPECT_EQ(read.value_or("?"), "MAGIC and more");

  ASSERT_EQ(pipe(ends), 0);
  path = absl::StrCat("/dev/fd/", ends[0]);
  ASSERT_EQ(write(ends[1], "MAG", 3), 3);
  close(ends[1]);
  read = ReadNow(path, options);
  close(ends[0]);
  EXPECT_EQ(read.value_or("?"), "MAG");
}

// BoundedFile: what ReadBoundedFile does, in two steps. Open refuses what
// is refused before reading and tells a regular file's size; Read reads
// the file Open opened, whatever its name names meanwhile.
TEST(BoundedReadTest, ABoundedFileIsJudgedWhenOpenedAndReadLater) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const std::string path = FileHolding(tmp, "file", "0123456789");
  absl::StatusOr<BoundedFile> file =
      BoundedFile::Open(path, {.max_bytes = 100});
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->regular());
  EXPECT_EQ(file->size(), 10u);
  ASSERT_EQ(unlink(path.c_str()), 0);
  FileHolding(tmp, "file", "another file");
  BoundedFile moved = *std::move(file);
  EXPECT_EQ(moved.Read().value_or("?"), "0123456789");

  absl::StatusOr<BoundedFile> refused =
      BoundedFile::Open(tmp.path(), {.max_bytes = 100});
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status()));
  EXPECT_EQ(refused.status().message(),
            absl::StrCat("cannot read ", tmp.path(), ": it is a directory"));
  refused = BoundedFile::Open(path, {.max_bytes = 11, .over_size = "11"});
  EXPECT_TRUE(absl::IsResourceExhausted(refused.status()));
  EXPECT_EQ(
      refused.status().message(),
      absl::StrCat("cannot read ", path, ": it is 12 bytes, more than 11"));
  refused = BoundedFile::Open(
      tmp.File("missing"), {.max_bytes = 100, .open_failure = "cannot open"});
  EXPECT_TRUE(absl::IsNotFound(refused.status()));

  // A pipe has no size; its errors name the path it was opened by.
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  const std::string pipe_path = absl::StrCat("/dev/fd/", ends[0]);
  absl::StatusOr<BoundedFile> piped =
      BoundedFile::Open(pipe_path, {.max_bytes = 3, .pipes = true});
  close(ends[0]);
  ASSERT_TRUE(piped.ok()) << piped.status();
  EXPECT_FALSE(piped->regular());
  EXPECT_EQ(piped->size(), 0u);
  ASSERT_EQ(write(ends[1], "four", 4), 4);
  close(ends[1]);
  const absl::StatusOr<std::string> read = piped->Read();
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_EQ(
      read.status().message(),
      absl::StrCat("cannot read ", pipe_path, ": it holds more than 3 bytes"));
}

// ReadPart reads on in parts up to the bound given, judging the start
// expected first: a file that is not as expected is over at its first
// bytes, one that is reads on to its end.
TEST(BoundedReadTest, ABoundedFileIsReadInParts) {
  const TempDir tmp("bounded_read");
  ASSERT_TRUE(tmp.ok());
  const BoundedRead options{
      .max_bytes = 100, .pipes = true, .expected_start = "MAGIC"};
  absl::StatusOr<BoundedFile> file =
      BoundedFile::Open(FileHolding(tmp, "file", "MAGIC0123456789"), options);
  ASSERT_TRUE(file.ok()) << file.status();
  std::string bytes;
  EXPECT_EQ(file->ReadPart(5, &bytes).value_or(true), false);
  EXPECT_EQ(bytes, "MAGIC");
  EXPECT_EQ(file->ReadPart(5, &bytes).value_or(true), false);  // Holds 5.
  EXPECT_EQ(bytes, "MAGIC");
  EXPECT_EQ(file->ReadPart(9, &bytes).value_or(true), false);
  EXPECT_EQ(bytes, "MAGIC0123");
  EXPECT_EQ(file->ReadPart(100, &bytes).value_or(false), true);
  EXPECT_EQ(bytes, "MAGIC0123456789");

  file = BoundedFile::Open(FileHolding(tmp, "other", "MAGNET"), options);
  ASSERT_TRUE(file.ok()) << file.status();
  bytes.clear();
  EXPECT_EQ(file->ReadPart(5, &bytes).value_or(false), true);
  EXPECT_EQ(bytes, "MAGNE");

  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  file = BoundedFile::Open(absl::StrCat("/dev/fd/", ends[0]), options);
  close(ends[0]);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(write(ends[1], "MAGIC01", 7), 7);
  bytes.clear();
  EXPECT_EQ(file->ReadPart(6, &bytes).value_or(true), false);
  EXPECT_EQ(bytes, "MAGIC0");
  close(ends[1]);
  EXPECT_EQ(file->ReadPart(100, &bytes).value_or(false), true);
  EXPECT_EQ(bytes, "MAGIC01");
}

}  // namespace
}  // namespace pyramid
