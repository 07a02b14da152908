// The programs the build makes (referee, bot, refctl, replay, ...) as the
// tests that run them find them, and a `referee` started for such a test.
#ifndef PYRAMID_TESTS_BINARIES_H_
#define PYRAMID_TESTS_BINARIES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "tests/test_process.h"

namespace pyramid {
namespace testing_util {

// The path of the built program `name`: in $PYRAMID_BIN when it is set and
// not empty, else in build/bin (relative to the working directory: ctest
// runs these tests from the source tree).
std::string Bin(std::string_view name);

// Starts the built `referee` with --listen=127.0.0.1:0 (a free loopback
// port), --port_file=`port_file` and then `flags` (a --listen among them
// wins), its standard output and error in the files `out` and `err`; and
// waits until it has written `port_file` (its start's last step: it serves
// then), has exited, or `timeout` has passed. A `port_file` left by an
// earlier start is removed first, so the wait is for this start's. The
// referee is returned either way: the caller checks that `port_file`
// exists (the referee's err() says why not).
std::unique_ptr<Process> StartReferee(const std::string& port_file,
                                      const std::vector<std::string>& flags,
                                      const std::string& out,
                                      const std::string& err,
                                      absl::Duration timeout);

// "127.0.0.1:PORT" for the port written in `port_file` (StartReferee's).
std::string LoopbackAddress(const std::string& port_file);

}  // namespace testing_util
}  // namespace pyramid

#endif  // PYRAMID_TESTS_BINARIES_H_
