// Running code in a child made with vfork, for a process that runs a gRPC
// server (the embedded referee): fork's atfork handlers disturb gRPC's
// in-flight streams, and vfork runs none. A vfork child shares its
// parent's memory until it execs or exits, and the parent's thread waits
// until then: what runs in it makes system calls only (no allocation, no
// lock, nothing of glibc's that keeps state), and everything it uses is
// prepared before the vfork.
#ifndef PYRAMID_TOOLS_TOURNAMENT_VFORK_CHILD_H_
#define PYRAMID_TOOLS_TOURNAMENT_VFORK_CHILD_H_

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace pyramid {

// vfork with every signal blocked in this thread meanwhile, so that no
// handler of the parent's runs in the child: the child calls `in_child`,
// which must not return (it execs or calls _exit; _exit(127) if it
// returns). The parent gets vfork's result, its signal mask restored and
// errno as vfork left it (the error when it returns -1).
template <typename F>
pid_t VforkWithSignalsBlocked(F in_child) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = vfork();
  if (pid == 0) {
    in_child();
    _exit(127);
  }
  const int vfork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = vfork_error;
  return pid;
}

// Runs `in_child` in a child made with VforkWithSignalsBlocked and waits
// for the child. `in_child` makes system calls only and returns the errno
// it failed with, or 0; that is returned (-1 when vfork itself failed).
template <typename F>
int RunInVforkChild(F in_child) {
  volatile int result = -1;
  const pid_t pid = VforkWithSignalsBlocked([&result, &in_child] {
    result = in_child();
    _exit(0);
  });
  if (pid > 0) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  return pid > 0 ? result : -1;
}

// Takes on `uid` and `gid` with no supplementary groups in a child made
// with vfork. Raw system calls, not glibc's setuid and friends: those make
// every thread of a multithreaded process change its ids (by signalling
// them), and a vfork child shares the parent's memory, hence glibc's view
// of the parent's threads; the raw calls change this child alone. 0 or the
// errno.
int BecomeInVforkChild(uid_t uid, gid_t gid);

// The highest descriptor this process may have, for CloseAboveStdio.
int MaxFd();

// Closes every descriptor above 2 (standard error), whether or not it was
// opened with O_CLOEXEC: no descriptor of the runner's (the match journal;
// one a library opened) reaches a bot. For a vfork child: system calls
// only; the loop up to `max_fd` is for a kernel without close_range (5.9).
void CloseAboveStdio(int max_fd);

// A copy of `fd` numbered above 2 (with O_CLOEXEC), or -1. The child
// dup2s its descriptors onto 0, 1 and 2: one of those numbers already
// (the runner started with that descriptor closed) would be overwritten
// before it is copied, or left as it is by dup2 onto itself, O_CLOEXEC
// set, so that the bot would start with it closed.
int AboveStdio(int fd);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_VFORK_CHILD_H_
