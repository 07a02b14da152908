// The one reader of a whole file into memory, for every file a person
// names to our programs (core's ReadFileToString, crypto's key files,
// replay's logs, proofs, roster and key arguments): it never waits on what
// may never come and never holds more than a bound. The lowest of our libraries
// (pyramid_files, below pyramid_crypto): it needs only the C library and
// absl.
//
// ReadBoundedFile(path, options) opens `path` without blocking (opening a
// FIFO never waits for a writer) and judges what it is by the descriptor
// it opened (no race between a check and the open):
//
//  - A regular file is read to its end. One whose size is over
//    options.max_bytes is refused unread: a sparse file of a terabyte is
//    never allocated. One that grows past the bound while read is refused
//    once it has.
//  - A directory is refused ("it is a directory"): read, it would yield
//    nothing, which a caller could take for an empty file.
//  - A pipe or FIFO (with options.pipes: `--key=<(pass show ...)`, a named
//    FIFO with a writer) or a character or block device (with
//    options.devices) is read to its end, at most options.max_bytes (more
//    is refused once it came). Waiting for more, it is polled in slices of
//    100 ms; with options.idle_ms >= 0, one that gives nothing for that
//    long is refused. A FIFO or pipe that reads as its end before anything
//    came from it (a named FIFO nobody has opened for writing, which a
//    blocking open would wait for forever, or a pipe whose writer ended
//    having written nothing) is refused or read as empty, as
//    options.no_writer says.
//  - Anything else is refused: "it is not a regular file (a FIFO or
//    pipe)", "(a character device)", ...
//
// Errors, each "cannot read PATH: WHY":
//  - NOT_FOUND: it cannot be opened because there is no such file (or the
//    name is one no file can have: perhaps not a path at all);
//    PERMISSION_DENIED: not ours to read; RESOURCE_EXHAUSTED: the process
//    or the system lacks a resource for now (EMFILE, ENFILE, ENOMEM,
//    ENOBUFS: "Too many open files", ...), so a later try may succeed;
//    FAILED_PRECONDITION: another reason to fail the open. These four say
//    options.open_failure instead of "cannot read", and strerror's words.
//  - FAILED_PRECONDITION: a directory, a kind of file not read, a FIFO or
//    pipe with no writer and nothing in it (options.no_writer kRefuse).
//  - RESOURCE_EXHAUSTED: more than options.max_bytes ("it is N bytes, more
//    than " options.over_size, or "it holds more than "
//    options.over_stream); or a read (or the fstat) failed for want of
//    kernel memory (ENOMEM, ENOBUFS), which a later try may have.
//  - DEADLINE_EXCEEDED: a pipe or device silent for options.idle_ms
//    ("nothing came from it for N ms").
//  - DATA_LOSS: a read (or the fstat) failed otherwise.
// IsShortage tells a lack of descriptors or kernel memory for now (a later
// try may succeed) from every other error, RESOURCE_EXHAUSTED's "more
// than max_bytes" included (which no later try changes).
//
// With options.expected_start (a format's magic), a file whose first bytes
// are not a prefix of it is read no further: the read stops at them and
// returns them, however large the file is or however long a pipe goes on,
// and the caller judges them.
//
// BoundedFile::Open and Read are ReadBoundedFile in two steps, for a
// caller that must know what it reads (a regular file's size) before it
// is read: to reserve memory for it, say. The file is opened once.
// BoundedFile::ReadPart reads it in parts, for a caller that counts what
// it holds as it grows (a pipe, whose size is known only at its end).
#ifndef PYRAMID_REFEREE_FILES_BOUNDED_READ_H_
#define PYRAMID_REFEREE_FILES_BOUNDED_READ_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pyramid {

struct BoundedRead {
  // The most bytes read: a regular file larger than this is refused
  // unread, a pipe or device once it has given more.
  uint64_t max_bytes = 0;
  // Whether a pipe or FIFO is read, or refused as not a regular file.
  bool pipes = false;
  // Whether a character or block device is read, or refused so.
  bool devices = false;
  // How long a pipe or device may give nothing before it is refused;
  // negative: as long as it has a writer.
  int idle_ms = -1;
  // What a FIFO or pipe that ends before anything came from it is.
  enum class NoWriter {
    kRefuse,  // FAILED_PRECONDITION, "a FIFO or pipe with no writer and
              // nothing in it".
    kEmpty,   // Read as empty: the caller says what it lacks.
  };
  NoWriter no_writer = NoWriter::kRefuse;
  // How errors name max_bytes after "more than ": for a file whose size is
  // over it ("it is 5000 bytes, more than 4096 (not read)"), and for a
  // pipe or device that gave more ("it holds more than 4096 bytes").
  // Empty: as in these examples.
  std::string over_size = "";
  std::string over_stream = "";
  // The words an error starts with when the file cannot be opened.
  const char* open_failure = "cannot read";
  // The bytes the file should start with (a format's magic), or empty: as
  // soon as the bytes read are not a prefix of these, the read stops and
  // returns them (at most expected_start.size() bytes, fewer when a pipe
  // gave fewer; nothing past them is read or held). A file that is a
  // prefix of them, or starts with all of them, is read to its end as
  // without it. Not owned: its bytes must outlive the read.
  std::string_view expected_start = "";
};

// The bytes of the file at `path`, read as the contract above says.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            const BoundedRead& options);

// Whether `status`, an error of ReadBoundedFile or BoundedFile, says the
// process or the system lacked a resource for now (EMFILE, ENFILE, ENOMEM,
// ENOBUFS): a later try may succeed.
bool IsShortage(const absl::Status& status);
// `status` as IsShortage knows it: for an error of the same kind from
// another way of opening or reading a file (FileLogSink's).
absl::Status AsShortage(absl::Status status);

// A file opened and judged as ReadBoundedFile opens and judges one, not
// read yet. Movable; its descriptor is closed when it goes.
class BoundedFile {
 public:
  // Opens `path` without blocking and judges it by its descriptor, with
  // ReadBoundedFile's errors for a file that cannot be opened, for a
  // directory or a kind of file not read, and for a regular file over
  // options.max_bytes (refused unread). `options` are kept for Read (its
  // expected_start's bytes must outlive the BoundedFile).
  static absl::StatusOr<BoundedFile> Open(const std::string& path,
                                          const BoundedRead& options);

  BoundedFile(BoundedFile&& other) noexcept;
  BoundedFile& operator=(BoundedFile&& other) noexcept;
  ~BoundedFile();

  // Whether it is a regular file; else a pipe or FIFO or a device.
  bool regular() const { return regular_; }
  // A regular file's size when it was opened (it may grow or shrink before
  // it is read); 0 for a pipe or device.
  uint64_t size() const { return size_; }

  // Its bytes from where it was opened to its end, read as ReadBoundedFile
  // reads them, with the options given to Open. Once: a second call reads
  // on from where the first ended.
  absl::StatusOr<std::string> Read();
  // Read in parts, for a caller that counts what it holds as it grows (a
  // pipe's bytes): reads on from where the last read ended, appending to
  // `*bytes` (REQUIRED: what the earlier ReadParts gave, unchanged), until
  // it holds `until` bytes (none read when it already does) or the file
  // ends, as Read reads (the bound, expected_start and options.idle_ms
  // within this call apply alike). Returns whether the read is over: the
  // file ended, or its first bytes are not expected_start's (read no
  // further: `*bytes` holds them); false when it stopped at `until`. On
  // an error, `*bytes` is unspecified.
  absl::StatusOr<bool> ReadPart(uint64_t until, std::string* bytes);

 private:
  BoundedFile(std::string path, const BoundedRead& options, int fd,
              bool regular, bool pipe, uint64_t size);

  // "cannot read PATH: WHY", with `code`.
  absl::Status Error(absl::StatusCode code, const std::string& why) const;

  std::string path_;
  BoundedRead options_;
  int fd_;  // -1 once moved from.
  bool regular_;
  bool pipe_;
  uint64_t size_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_BOUNDED_READ_H_
