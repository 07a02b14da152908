// What the libFuzzer targets of tests/fuzz (docs/fuzzing.md) share.
//
// Check(condition) is how a target states what must hold: it aborts when
// the condition is false, in every build (unlike assert, which NDEBUG
// removes), and libFuzzer reports the abort as a crash and saves the input.
//
// QuietProtobuf() silences protobuf's logging for the rest of the process:
// the first call sets protobuf's log handler to none, later calls do
// nothing. Call it before the first input reaches protobuf and before any
// thread that could log starts (protobuf's SetLogHandler is not
// thread-safe): first thing in LLVMFuzzerTestOneInput, or where the target
// sets itself up. A target whose inputs reach protobuf's parsers (strings
// that are not UTF-8, JSON that does not parse) would otherwise have
// protobuf write a line to stderr for a good share of the many thousands
// of inputs a run tries, which drowns libFuzzer's own output; what went
// wrong is in the status the target looks at anyway. Only protobuf's
// messages are silenced (a fatal one still ends the process).
#ifndef PYRAMID_TESTS_FUZZ_FUZZ_TARGET_H_
#define PYRAMID_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cstdlib>

#include "google/protobuf/stubs/logging.h"

namespace pyramid::fuzz {

inline void Check(bool condition) {
  if (!condition) std::abort();
}

inline void QuietProtobuf() {
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
}

}  // namespace pyramid::fuzz

#endif  // PYRAMID_TESTS_FUZZ_FUZZ_TARGET_H_
