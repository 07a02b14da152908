// Lines on stderr that never wait for its reader. A server's stderr is
// often a pipe or socket to a collector (`referee 2>&1 | logger`, a
// container runtime, journald); when that reader stalls, a blocking write
// stops the thread that writes, and with it whatever that thread serves: a
// gRPC poller, a match, the thread that waits for SIGTERM. A line written
// here is written at once or not at all; its writer counts what was not
// and says so later.
//
// Contract of WriteStderrLine: to a regular file or a block device (which
// wait for the disk only) the line is written as usual; to a socket with
// MSG_DONTWAIT; to a pipe or terminal through a file description of its
// own with O_NONBLOCK, opened through /proc/self/fd (setting O_NONBLOCK on
// descriptor 2 itself would change it for everyone sharing its
// description: the process's other writers, whose lines would then be
// lost, and the shell that started it), kept open so that a line can be
// written when no descriptor is left, and opened again when descriptor 2
// is another file than the one it was opened for. A line of at most
// PIPE_BUF bytes goes to a pipe whole or not at all. A socket, terminal or
// full disk may take only the start of a line: the line counts as not
// written, and the next line written to that file begins with a newline,
// so that every line stays a line of its own. A pipe or terminal
// that /proc cannot open again (another user's: `sudo -u USER referee 2>&1
// | collector`, a container's runtime) is written only if the caller says
// it may wait, and then as usual, never holding up meanwhile a line
// written by another thread that must not wait. Thread-safe; no allocation
// (callable where memory or descriptors ran out).
#ifndef PYRAMID_REFEREE_FILES_STDERR_LINE_H_
#define PYRAMID_REFEREE_FILES_STDERR_LINE_H_

#include <limits.h>

#include <cstddef>
#include <string_view>

namespace pyramid {

// The longest line WriteStderrLine writes; it cuts a longer one to this
// length, its last byte a newline. One byte short of what a pipe takes
// whole, for the newline that may go before it (below).
inline constexpr size_t kMaxStderrLineBytes = PIPE_BUF - 1;

// Whether a write to stderr may wait for its reader.
enum class StderrWait {
  kNever,     // Not written when stderr cannot take it at once.
  kIfNeeded,  // As kNever where stderr allows it; else as usual, waiting.
};

// Opens the description of its own that a pipe or terminal stderr needs,
// now (before descriptors may run out); nothing for other files.
void PrepareStderrLines();

// Writes `line` (ending in a newline; cut to kMaxStderrLineBytes) on
// stderr (the header's contract). Returns whether all of it was written.
bool WriteStderrLine(std::string_view line, StderrWait wait);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_STDERR_LINE_H_
