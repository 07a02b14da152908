// A test's child process whose stderr is a pipe nobody reads (full, as a
// stalled log collector leaves it), for the tests of what never waits for
// stderr's reader (referee/files/stderr_line.h and its users).
//
// WithAStalledStderr forks a ForkedChild that fills a pipe, makes it its
// stderr (blocking again, as a stderr pipe is) and runs `body(drain)`,
// where `drain()` empties the pipe (the reader comes back); what the pipe
// holds after `body` returns is `*said`. The child's alarm (20 s) ends it
// if a write waits: its end is then SIGALRM. Exit codes 2 to 5 are the
// rig's own failures; `body` may _exit with others.
#ifndef PYRAMID_TESTS_STALLED_STDERR_H_
#define PYRAMID_TESTS_STALLED_STDERR_H_

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "tests/forked_child.h"

namespace pyramid {

inline ChildEnd WithAStalledStderr(
    const std::function<void(const std::function<void()>& drain)>& body,
    std::string* said) {
  ForkedChild child([&body](int report) {
    alarm(20);
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) _exit(2);
    const std::string filler(4096, '.');
    while (write(ends[1], filler.data(), filler.size()) > 0) {
    }
    if (fcntl(ends[1], F_SETFL, 0) != 0) _exit(3);
    if (dup2(ends[1], STDERR_FILENO) != STDERR_FILENO) _exit(4);
    char part[8192];
    body([&] {
      while (read(ends[0], part, sizeof part) > 0) {
      }
    });
    const ssize_t size = read(ends[0], part, sizeof part);
    if (size > 0 && write(report, part, size) != size) _exit(5);
  });
  if (!child.ok()) {
    *said = std::strerror(errno);
    return ChildEnd();
  }
  *said = child.ReadToEnd();
  return child.Wait();
}

}  // namespace pyramid

#endif  // PYRAMID_TESTS_STALLED_STDERR_H_
