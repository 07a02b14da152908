// The messages of the protocol buffers and gRPC libraries on stderr,
// rate-limited: for a server, whose clients can make the libraries write
// them.
//
// Parsing a request whose string field is not UTF-8 makes protobuf write
// "[libprotobuf ERROR ...] String field '...' contains invalid UTF-8 data
// when parsing a protocol buffer. ..." (about 230 bytes) before any handler
// sees the call, so before any credential is checked; and a connection to a
// TLS server that is not TLS makes gRPC write "E... Handshake failed with
// fatal error SSL_ERROR_SSL: ..." (about 170). Anyone could write megabytes
// a second to the server's stderr, and fill the disk it goes to.
//
// LimitLibraryLogs installs a handler in each library (protobuf's
// SetLogHandler, gRPC's gpr_set_log_function) that writes the first
// kLibraryLogLines messages of each place in the libraries' code (file and
// line) per kLibraryLogWindow, in the library's own format, so that one
// place a client can reach does not hide the others; the messages held back
// after them are counted, and said in one line ("[libprotobuf] N more
// messages from FILE:LINE suppressed ...") before the next one of that
// place that is written, or by FlushLibraryLogs. protobuf's FATAL messages
// are always written, over the budget too, and never counted as held back
// (it aborts after them); gRPC's gpr_log has no such severity (a failed
// GPR_ASSERT logs one ERROR from its own place, then aborts). No line
// waits for stderr's reader (referee/files/stderr_line.h): a message that
// a stalled stderr does not take at once is counted as held back, so that
// a client that makes a library log cannot stop the gRPC thread that logs.
#ifndef PYRAMID_REFEREE_CLI_LIBRARY_LOG_H_
#define PYRAMID_REFEREE_CLI_LIBRARY_LOG_H_

#include <cstdint>

#include "absl/time/time.h"
#include "referee/files/line_budget.h"

namespace pyramid {

inline constexpr int kLibraryLogLines = 3;
inline constexpr absl::Duration kLibraryLogWindow = absl::Seconds(10);

// Installs the limits. Call in main() before any thread starts (protobuf's
// handler is not set atomically).
void LimitLibraryLogs();

// Writes the count of every place's messages held back since its last line,
// if any (at the program's end).
void FlushLibraryLogs();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_LIBRARY_LOG_H_
