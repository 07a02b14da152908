#include "tests/test_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "absl/time/clock.h"
#include "referee/core/log_sink.h"

namespace pyramid {
namespace testing_util {

Process::Process(const std::vector<std::string>& argv, const std::string& out,
                 const std::string& err)
    : out_(out), err_(err) {
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The files are emptied here, before the child exists, not in the child:
  // a test that reuses their names and reads them at once must not see the
  // previous process's output (and signal a child that has not yet
  // installed its handlers because of it).
  const int o =
      open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int e =
      open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(o, STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy.
    dup2(e, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  if (o >= 0) close(o);
  if (e >= 0) close(e);
}

Process::~Process() {
  if (running()) {
    kill(pid_, SIGKILL);
    Wait(absl::Seconds(5));
  }
}

void Process::Signal(int sig) {
  if (running()) kill(pid_, sig);
}

int Process::Wait(absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (running()) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (absl::Now() > end) return -1;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return code_;
}

bool Process::WaitForFile(const std::string& path, absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (!std::filesystem::exists(path) && absl::Now() < end &&
         Wait(absl::ZeroDuration()) == -1) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  return std::filesystem::exists(path);
}

std::string Process::out() const {
  absl::StatusOr<std::string> text = ReadFileToString(out_);
  return text.ok() ? *text : "";
}

std::string Process::err() const {
  absl::StatusOr<std::string> text = ReadFileToString(err_);
  return text.ok() ? *text : "";
}

ToolResult RunTool(const std::vector<std::string>& argv, const std::string& out,
                   const std::string& err, absl::Duration timeout) {
  Process process(argv, out, err);
  ToolResult result;
  result.code = process.Wait(timeout);
  result.out = process.out();
  result.err = process.err();
  return result;
}

}  // namespace testing_util
}  // namespace pyramid
