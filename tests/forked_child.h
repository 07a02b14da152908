// A function run in a forked child process, for a test that needs a second
// process of its own (one that holds a lock, drops its privileges, or is
// killed at a moment the test chooses), and how that child ended. The
// child may report to the test through a pipe.
//
// The constructor forks. The child runs `body(report)`, where `report` is
// the write end of a pipe whose read end is the test's (Read, ReadToEnd),
// and exits 0 if `body` returns; `body` may end the child itself instead
// (_exit with a code of its own, or a signal); if `body` throws, the child
// exits with kThrew. The child never returns from
// the constructor, so it never destroys the test's objects (a TempDir, a
// lock) nor runs the rest of the test. If the pipe or the fork fails, ok()
// is false and errno says why as the constructor returns.
//
// A process the child forks inherits `report`: ReadToEnd returns only once
// that process has ended or closed it too.
//
// The destructor kills the child (SIGKILL) and reaps it, unless Wait has
// reaped it: a child left running would hold the test's output open. The
// pid is never reused meanwhile, since the child is not reaped before.
//
// It does not use GoogleTest: the test checks ok() and how the child ended
// itself, as in `ASSERT_EQ(child.Wait().exit_code, 0)`.
#ifndef PYRAMID_TESTS_FORKED_CHILD_H_
#define PYRAMID_TESTS_FORKED_CHILD_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>

namespace pyramid {

// How a child ended, as the wait for it said.
struct ChildEnd {
  int exit_code = -1;  // Its exit code when it exited, else -1.
  int signal = 0;      // The signal that ended it when one did, else 0.

  // "exit code N", "signal N (its name)", or "not seen to end" (the wait
  // failed), for a failed assertion's message.
  std::string ToString() const {
    if (exit_code >= 0) return "exit code " + std::to_string(exit_code);
    if (signal > 0) {
      return "signal " + std::to_string(signal) + " (" + strsignal(signal) +
             ")";
    }
    return "not seen to end";
  }
};

class ForkedChild {
 public:
  // The exit code of a child whose body threw (std::bad_alloc under a
  // memory bound, say).
  static constexpr int kThrew = 125;

  explicit ForkedChild(const std::function<void(int report)>& body) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ends[0]);
      try {
        body(ends[1]);
      } catch (...) {
        // Not to the test's own handlers: the child would run on as the test.
        _exit(kThrew);
      }
      _exit(0);
    }
    const int fork_errno = errno;
    close(ends[1]);
    if (pid_ < 0) {
      close(ends[0]);
      errno = fork_errno;
      return;
    }
    report_ = ends[0];
  }
  ~ForkedChild() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    if (report_ >= 0) close(report_);
  }

  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;

  bool ok() const { return pid_ > 0; }
  // The child's pid (-1 when !ok()).
  pid_t pid() const { return pid_; }

  // Up to `n` bytes of what the child reported, waiting for them: fewer
  // only once every writer has closed `report` (or a read fails).
  std::string Read(size_t n) { return ReadUpTo(n); }
  // All the child reports: waits until every writer has closed `report`.
  std::string ReadToEnd() { return ReadUpTo(std::string::npos); }

  // Sends `signal` to the child unless it has been reaped; whether it was
  // sent.
  bool Kill(int signal) {
    return pid_ > 0 && !reaped_ && kill(pid_, signal) == 0;
  }

  // Waits for the child to end and reaps it.
  ChildEnd Wait() {
    if (pid_ <= 0 || reaped_) return ChildEnd();
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    if (waited != pid_) return ChildEnd();
    reaped_ = true;
    ChildEnd end;
    if (WIFEXITED(status)) end.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    return end;
  }

  // Waits for the child to end without reaping it: it stays a zombie,
  // which kill(pid, 0) still finds, until Wait or the destructor.
  ChildEnd WaitLeavingAZombie() {
    if (pid_ <= 0 || reaped_) return ChildEnd();
    siginfo_t info = {};
    int waited;
    while ((waited = waitid(P_PID, pid_, &info, WEXITED | WNOWAIT)) != 0 &&
           errno == EINTR) {
    }
    ChildEnd end;
    if (waited != 0) return end;
    if (info.si_code == CLD_EXITED) end.exit_code = info.si_status;
    if (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) {
      end.signal = info.si_status;
    }
    return end;
  }

 private:
  std::string ReadUpTo(size_t n) {
    std::string bytes;
    char buffer[4096];
    while (report_ >= 0 && bytes.size() < n) {
      const size_t want = std::min(sizeof(buffer), n - bytes.size());
      const ssize_t got = read(report_, buffer, want);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      bytes.append(buffer, static_cast<size_t>(got));
    }
    return bytes;
  }

  pid_t pid_ = -1;
  int report_ = -1;  // The read end of the child's report pipe.
  bool reaped_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_TESTS_FORKED_CHILD_H_
