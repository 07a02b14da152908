// The one reader of a whole file into memory, for every file a person
// names to our programs (core's ReadFileToString, crypto's key files,
// replay's roster and key arguments): it never waits on what may never
// come and never holds more than a bound. The lowest of our libraries
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
#ifndef PYRAMID_REFEREE_FILES_BOUNDED_READ_H_
#define PYRAMID_REFEREE_FILES_BOUNDED_READ_H_

#include <cstdint>
#include <string>

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
};

// The bytes of the file at `path`, read as the contract above says.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            const BoundedRead& options);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_BOUNDED_READ_H_
