#include "tools/tournament/process_sweep.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace pyramid {
namespace {

// How long KillProcessesOf goes on killing before it gives up.
constexpr absl::Duration kKillProcessesOfTimeout = absl::Seconds(10);
// How long KillOrphans waits for the orphans it killed to end.
constexpr absl::Duration kKillOrphansTimeout = absl::Seconds(5);

// What /proc/PID/status says of a process: whether one of its real,
// effective and saved user ids (its "Uid:" line) is `uid`, and whether it
// has ended (a zombie, or dead, whose threads have all ended). False when
// there is no such process (or its status could not be read).
struct ProcessState {
  bool of_uid = false;
  bool ended = false;
};
bool ReadProcessState(pid_t pid, uid_t uid, ProcessState& state) {
  const std::string dir = absl::StrCat("/proc/", pid);
  const int fd = open((dir + "/status").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return false;
  buffer[n] = '\0';
  const char* state_line = std::strstr(buffer, "\nState:");
  const char* uid_line = std::strstr(buffer, "\nUid:");
  unsigned long ids[3];
  char letter = 0;
  if (state_line == nullptr || uid_line == nullptr ||
      std::sscanf(state_line, "\nState: %c", &letter) != 1 ||
      std::sscanf(uid_line, "\nUid: %lu %lu %lu", &ids[0], &ids[1], &ids[2]) !=
          3) {
    return false;
  }
  state.of_uid = ids[0] == uid || ids[1] == uid || ids[2] == uid;
  state.ended = false;
  if (letter == 'Z' || letter == 'X') {
    // A thread group leader that ended while its other threads run shows
    // as a zombie: it has ended only when it is its own last task.
    int tasks = 0;
    if (DIR* listing = opendir((dir + "/task").c_str())) {
      while (const dirent* entry = readdir(listing)) {
        tasks += entry->d_name[0] != '.';
      }
      closedir(listing);
    }
    state.ended = tasks <= 1;
  }
  return true;
}

// The pids that /proc lists now.
std::vector<pid_t> AllProcesses() {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0') pids.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return pids;
}

// The parent of process `pid` (in /proc/PID/stat), or -1 when that could
// not be read (the process has gone).
long ParentOf(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return -1;
  // "PID (COMM) STATE PPID ...": COMM may hold ") ".
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  char state = 0;
  long ppid = 0;
  if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) {
    return -1;
  }
  return ppid;
}

// The pids of this process's children (whose parent, in /proc/PID/stat,
// is this process).
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  const pid_t self = getpid();
  for (const pid_t pid : AllProcesses()) {
    if (ParentOf(pid) == self) children.push_back(pid);
  }
  return children;
}

// Sends `sig` to process `pid` if it still runs and is of `uid`: through a
// pidfd, opened before the check, so that a pid reused between the check
// and the signal is never signalled (the pidfd names the process the check
// read, or one that has ended). True when signalled; `pidfd` keeps the
// pidfd (-1 on a kernel without them, which signals the pid).
bool SignalIfOf(pid_t pid, uid_t uid, int sig, int& pidfd) {
  pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0 && errno != ENOSYS) return false;  // Gone.
  ProcessState state;
  if (!ReadProcessState(pid, uid, state) || !state.of_uid || state.ended) {
    if (pidfd >= 0) close(pidfd);
    pidfd = -1;
    return false;
  }
  if (pidfd < 0) return kill(pid, sig) == 0;
  if (syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) != 0) {
    close(pidfd);
    pidfd = -1;
    return false;
  }
  return true;
}

// Removes every System V IPC object of one kind (`table`: "shm", "msg" or
// "sem" under /proc/sysvipc) whose uid or cuid is `uid`, with `remove`
// (IPC_RMID). The columns are found by the header's names: the id is the
// second ("shmid", "msqid", "semid"). Appends what could not be removed
// to `failures`.
template <typename Remove>
void RemoveIpcOf(uid_t uid, const char* table, Remove remove,
                 std::vector<std::string>& failures) {
  std::ifstream in(absl::StrCat("/proc/sysvipc/", table));
  std::string line;
  if (!std::getline(in, line)) return;  // No System V IPC in this kernel.
  const std::vector<std::string> header =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  const auto column = [&header](const char* name) -> int {
    const auto at = std::find(header.begin(), header.end(), name);
    return at == header.end() ? -1 : static_cast<int>(at - header.begin());
  };
  const int uid_at = column("uid"), cuid_at = column("cuid");
  if (header.size() < 2 || uid_at < 0 || cuid_at < 0) {
    failures.push_back(absl::StrCat("cannot read /proc/sysvipc/", table));
    return;
  }
  while (std::getline(in, line)) {
    const std::vector<std::string> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() < header.size()) continue;
    const auto number = [](const std::string& field) {
      return std::strtoull(field.c_str(), nullptr, 10);
    };
    if (number(fields[uid_at]) != uid && number(fields[cuid_at]) != uid) {
      continue;
    }
    const int id = static_cast<int>(number(fields[1]));
    // Gone meanwhile: EINVAL or EIDRM.
    if (remove(id) != 0 && errno != EINVAL && errno != EIDRM) {
      failures.push_back(
          absl::StrCat(table, " ", id, " (", std::strerror(errno), ")"));
    }
  }
}

// Removes the System V IPC objects of `uid` (see KillProcessesOf).
absl::Status RemoveAllIpcOf(uid_t uid) {
  std::vector<std::string> failures;
  RemoveIpcOf(
      uid, "shm", [](int id) { return shmctl(id, IPC_RMID, nullptr); },
      failures);
  RemoveIpcOf(
      uid, "msg", [](int id) { return msgctl(id, IPC_RMID, nullptr); },
      failures);
  RemoveIpcOf(
      uid, "sem", [](int id) { return semctl(id, 0, IPC_RMID); }, failures);
  if (failures.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("cannot remove the System V IPC objects of uid ", uid, ": ",
                   absl::StrJoin(failures, ", ")));
}

}  // namespace

absl::Status KillProcessesOf(uid_t uid) {
  if (uid == 0 || uid == getuid() || uid == geteuid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("will not kill every process of uid ", uid));
  }
  // As root, without taking on `uid`: a process of that uid could signal
  // (stop, kill) a helper that did. Each round stops every process found
  // (a stopped process forks no more), then kills them; the sweep is over
  // when a round finds none (a zombie has ended already).
  const absl::Time deadline = absl::Now() + kKillProcessesOfTimeout;
  for (int round = 0;; ++round) {
    std::vector<std::pair<pid_t, int>> stopped;  // pid, pidfd
    for (const pid_t pid : AllProcesses()) {
      int pidfd = -1;
      if (SignalIfOf(pid, uid, SIGSTOP, pidfd)) stopped.push_back({pid, pidfd});
    }
    // None left to make more: its IPC objects go too.
    if (stopped.empty()) return RemoveAllIpcOf(uid);
    std::vector<pid_t> left;
    for (const auto& [pid, pidfd] : stopped) {
      if (pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
        close(pidfd);
      } else {
        kill(pid, SIGKILL);
      }
      left.push_back(pid);
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "cannot kill the processes of uid ", uid, ": ", left.size(),
          left.size() == 1 ? " process" : " processes", " (pid ",
          absl::StrJoin(left, ", "), ") still running after ",
          absl::FormatDuration(kKillProcessesOfTimeout)));
    }
    // What was killed takes a moment to end (the first rounds go at once:
    // a fork that raced the previous round).
    if (round >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

absl::Status AdoptOrphans() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return absl::InternalError(absl::StrCat("cannot become a child subreaper: ",
                                            std::strerror(errno)));
  }
  return absl::OkStatus();
}

void ReapOrphans(const std::set<pid_t>& bots) {
  for (const pid_t child : Children()) {
    if (bots.count(child) == 0) waitpid(child, nullptr, WNOHANG);
  }
}

OrphanSweep KillOrphans(const std::set<pid_t>& bots) {
  // Each round kills the orphans; the children they leave come to this
  // process (a subreaper) for the next round. The reaping is polled, up to
  // a deadline: one in uninterruptible sleep may outlast SIGKILL for long.
  OrphanSweep sweep;
  const absl::Time deadline = absl::Now() + kKillOrphansTimeout;
  std::set<pid_t> signalled;
  for (int round = 0; round < 100; ++round) {
    std::vector<pid_t> waiting;
    bool any = false;
    for (const pid_t child : Children()) {
      if (bots.count(child) != 0) continue;
      any = true;
      // One that has ended (a zombie) is only reaped, and not counted.
      if (waitpid(child, nullptr, WNOHANG) == 0 && kill(child, SIGKILL) == 0) {
        waiting.push_back(child);
        sweep.killed += signalled.insert(child).second;
      }
    }
    if (!any) break;
    while (!waiting.empty()) {
      std::erase_if(waiting, [](pid_t child) {
        return waitpid(child, nullptr, WNOHANG) != 0;
      });
      if (waiting.empty()) break;
      if (absl::Now() >= deadline) {
        sweep.left = std::move(waiting);
        return sweep;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return sweep;
}

}  // namespace pyramid
