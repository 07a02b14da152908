#include "tools/tournament/vfork_child.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pyramid {

int BecomeInVforkChild(uid_t uid, gid_t gid) {
  if (syscall(SYS_setgroups, 0, nullptr) != 0 ||
      syscall(SYS_setgid, gid) != 0 || syscall(SYS_setuid, uid) != 0) {
    return errno != 0 ? errno : EPERM;
  }
  // Never go on as root (an uid that did not take would be).
  if (syscall(SYS_getuid) != uid || syscall(SYS_geteuid) != uid) return EPERM;
  return 0;
}

int MaxFd() {
  const long max = sysconf(_SC_OPEN_MAX);
  return max > 0 && max <= (1 << 20) ? static_cast<int>(max - 1) : (1 << 20);
}

void CloseAboveStdio(int max_fd) {
  if (syscall(SYS_close_range, 3, ~0U, 0) == 0) return;
  for (int fd = 3; fd <= max_fd; ++fd) close(fd);
}

int AboveStdio(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 3); }

}  // namespace pyramid
