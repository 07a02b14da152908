// A child process for end-to-end tests: started with fork/execv, its
// standard output and error in files, killed when the test process dies
// (PR_SET_PDEATHSIG) or when the object is destroyed.
#ifndef PYRAMID_TESTS_TEST_PROCESS_H_
#define PYRAMID_TESTS_TEST_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace pyramid {
namespace testing_util {

class Process {
 public:
  // Runs `argv` (argv[0] is a path) with stdout and stderr written to the
  // files `out` and `err`.
  Process(const std::vector<std::string>& argv, const std::string& out,
          const std::string& err);
  ~Process();  // SIGKILL if still running.

  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exited_; }
  void Signal(int sig);
  // The exit code (128 + n for signal n), or -1 if still running after
  // `timeout`.
  int Wait(absl::Duration timeout);
  // Waits until the file `path` exists, the process has exited, or
  // `timeout` has passed; returns whether the file exists. For a program
  // that writes a file (a port file) as its start's last step.
  bool WaitForFile(const std::string& path, absl::Duration timeout);
  std::string out() const;
  std::string err() const;

 private:
  const std::string out_, err_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
};

// A tool run to its end: its exit code (as Process::Wait's; -1 when it was
// still running after the timeout, and was killed) and what it wrote.
struct ToolResult {
  int code = -1;
  std::string out, err;
};

// Runs `argv` as a Process with its output in the files `out` and `err`,
// and waits up to `timeout` for it to end.
ToolResult RunTool(const std::vector<std::string>& argv, const std::string& out,
                   const std::string& err, absl::Duration timeout);

}  // namespace testing_util
}  // namespace pyramid

#endif  // PYRAMID_TESTS_TEST_PROCESS_H_
