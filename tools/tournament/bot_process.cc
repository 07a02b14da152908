#include "tools/tournament/bot_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "absl/algorithm/container.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

extern "C" char** environ;

namespace pyramid {

absl::StatusOr<std::string> FindProgram(const std::string& program) {
  // Why `file` cannot be executed, or "" when it can.
  auto unrunnable = [](const std::string& file) -> std::string {
    struct stat st;
    if (stat(file.c_str(), &st) != 0) return std::strerror(errno);
    if (!S_ISREG(st.st_mode)) return "not a file";
    if (access(file.c_str(), X_OK) != 0) return std::strerror(errno);
    return "";
  };
  if (program.find('/') != std::string::npos) {
    if (const std::string why = unrunnable(program); !why.empty()) {
      return absl::NotFoundError(
          absl::StrCat("cannot run ", program, ": ", why));
    }
    return program;
  }
  const char* path = getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate =
        absl::StrCat(dir.empty() ? "." : dir, "/", program);
    if (unrunnable(candidate).empty()) return candidate;
  }
  return absl::NotFoundError(
      absl::StrCat("cannot run ", program, ": not found on PATH"));
}

namespace {

// Runs `in_child` in a child made with vfork (see BotProcess::Start for
// why vfork) with every signal blocked in this thread meanwhile, and waits
// for the child. `in_child` makes system calls only and returns the errno
// it failed with, or 0; that is returned (-1 when vfork itself failed).
template <typename F>
int RunInVforkChild(F in_child) {
  volatile int result = -1;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = vfork();
  if (pid == 0) {
    result = in_child();
    _exit(0);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
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
int BecomeInVforkChild(uid_t uid, gid_t gid) {
  if (syscall(SYS_setgroups, 0, nullptr) != 0 ||
      syscall(SYS_setgid, gid) != 0 || syscall(SYS_setuid, uid) != 0) {
    return errno != 0 ? errno : EPERM;
  }
  // Never go on as root (an uid that did not take would be).
  if (syscall(SYS_getuid) != uid || syscall(SYS_geteuid) != uid) return EPERM;
  return 0;
}

// The pids of this process's children (whose parent, in /proc/PID/stat,
// is this process).
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "PID (COMM) STATE PPID ...": COMM may hold ") ".
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) {
      continue;
    }
    if (ppid == self) children.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return children;
}

// The highest descriptor this process may have, for CloseAboveStdio.
int MaxFd() {
  const long max = sysconf(_SC_OPEN_MAX);
  return max > 0 && max <= (1 << 20) ? static_cast<int>(max - 1) : (1 << 20);
}

// Closes every descriptor above 2 (standard error), whether or not it was
// opened with O_CLOEXEC: no descriptor of the runner's (the match journal;
// one a library opened) reaches a bot. For a vfork child: system calls
// only; the loop up to `max_fd` is for a kernel without close_range (5.9).
void CloseAboveStdio(int max_fd) {
  if (syscall(SYS_close_range, 3, ~0U, 0) == 0) return;
  for (int fd = 3; fd <= max_fd; ++fd) close(fd);
}

// A copy of `fd` numbered above 2 (with O_CLOEXEC), or -1. The child
// dup2s its descriptors onto 0, 1 and 2: one of those numbers already
// (the runner started with that descriptor closed) would be overwritten
// before it is copied, or left as it is by dup2 onto itself, O_CLOEXEC
// set, so that the bot would start with it closed.
int AboveStdio(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 3); }

}  // namespace

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

absl::Status CheckAccessAs(uid_t uid, gid_t gid, const std::string& path,
                           int mode) {
  const char* file = path.c_str();
  const int error = RunInVforkChild([uid, gid, file, mode]() -> int {
    if (const int e = BecomeInVforkChild(uid, gid); e != 0) return e;
    return access(file, mode) == 0 ? 0 : errno;
  });
  if (error == 0) return absl::OkStatus();
  return absl::PermissionDeniedError(error < 0 ? "vfork failed"
                                               : std::strerror(error));
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

// The pipe from a bot's standard output and error to its log, copied by a
// thread of its own: up to the limit into the log, then read and dropped.
class BotProcess::LogPump {
 public:
  static absl::StatusOr<std::unique_ptr<LogPump>> Open(
      const std::string& name, const std::string& log_path, int64_t limit) {
    const int log_fd =
        open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      return absl::InternalError(
          absl::StrCat("cannot open ", log_path, ": ", std::strerror(errno)));
    }
    int fds[2];
    const int wake_fd = eventfd(0, EFD_CLOEXEC);
    if (wake_fd < 0 || pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      close(log_fd);
      if (wake_fd >= 0) close(wake_fd);
      return absl::InternalError(absl::StrCat("cannot make a pipe for ", name,
                                              ": ", std::strerror(error)));
    }
    // The read end only: the bot's writes block as ever when the pipe is
    // full, which lasts only until the thread reads it.
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    return std::unique_ptr<LogPump>(
        new LogPump(name, limit, log_fd, fds[0], fds[1], wake_fd));
  }
  ~LogPump() { Close(); }

  // The end the bot's standard output and error are.
  int write_fd() const { return write_fd_; }
  bool closed() const { return closed_; }

  void Close() {
    if (closed_) return;
    closed_ = true;
    close(write_fd_);
    const uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof one) < 0) {
      // Cannot happen for an eventfd far from its maximum.
    }
    thread_.join();
    if (dropped_ > 0) {
      const std::string note = absl::StrCat(
          ends_line_ ? "" : "\n", "tournament: ", dropped_,
          " more bytes of bot ", name_,
          "'s output were dropped: its log keeps ", limit_, " bytes per run\n");
      WriteAll(note.data(), note.size());
    }
    close(read_fd_);
    close(wake_fd_);
    close(log_fd_);
  }

 private:
  LogPump(std::string name, int64_t limit, int log_fd, int read_fd,
          int write_fd, int wake_fd)
      : name_(std::move(name)),
        limit_(limit),
        log_fd_(log_fd),
        read_fd_(read_fd),
        write_fd_(write_fd),
        wake_fd_(wake_fd),
        thread_([this] { Run(); }) {}

  void Run() {
    for (;;) {
      pollfd fds[2] = {{read_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) {
        // Closing: what is in the pipe now, without waiting for a process
        // that still holds its other end (and bounded, if one still writes).
        for (int i = 0; i < 64 && ReadOnce() > 0; ++i) {
        }
        return;
      }
      if (ReadOnce() == 0) return;
    }
  }

  // Reads what the pipe holds (up to a buffer) and keeps or drops it: the
  // bytes read, 0 at the end of the pipe, -1 for nothing to read now.
  ssize_t ReadOnce() {
    ssize_t n = read(read_fd_, buffer_, sizeof buffer_);
    if (n < 0) return errno == EAGAIN || errno == EINTR ? -1 : 0;
    const int64_t room = std::max<int64_t>(0, limit_ - kept_);
    const size_t keep = static_cast<size_t>(std::min<int64_t>(n, room));
    if (keep > 0) {
      WriteAll(buffer_, keep);
      kept_ += keep;
      ends_line_ = buffer_[keep - 1] == '\n';
    }
    dropped_ += n - keep;
    return n;
  }

  // A failed write (a full disk) loses the bytes: the pipe must still be
  // read, or the bot blocks.
  void WriteAll(const char* data, size_t size) {
    while (size > 0) {
      const ssize_t n = write(log_fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data += n;
      size -= n;
    }
  }

  const std::string name_;
  const int64_t limit_;
  const int log_fd_, read_fd_, write_fd_, wake_fd_;
  int64_t kept_ = 0, dropped_ = 0;  // Of the pump thread, then of Close.
  bool ends_line_ = true;           // The log's last byte kept is '\n'.
  bool closed_ = false;
  char buffer_[1 << 16];
  std::thread thread_;  // Last: started once the rest is set.
};

BotProcess::BotProcess(std::string name, std::vector<std::string> argv,
                       std::map<std::string, std::string> env,
                       std::string log_path, BotSettings settings)
    : name_(std::move(name)),
      argv_(std::move(argv)),
      env_(std::move(env)),
      log_path_(std::move(log_path)),
      settings_(std::move(settings)) {}

BotProcess::~BotProcess() {
  Stop().IgnoreError();  // Stop's caller hears of a failed sweep.
  CloseLog();
}

void BotProcess::CloseLog() {
  if (log_ != nullptr) log_->Close();
}

absl::Status BotProcess::KillLeftovers() {
  if (!settings_.uid.has_value()) return absl::OkStatus();
  return KillProcessesOf(*settings_.uid);
}

namespace {

// Whether a bot run as a uid of its own is given the runner's variable
// `key` (BotEnvironment): the locale, time zone, terminal and search paths
// a program commonly needs, nothing that may hold a secret.
bool GivenToAConfinedBot(const std::string& key) {
  static constexpr const char* kNames[] = {"HOME",      "LANG",   "LANGUAGE",
                                           "NODE_PATH", "PATH",   "PYTHONPATH",
                                           "TERM",      "TMPDIR", "TZ"};
  for (const char* name : kNames) {
    if (key == name) return true;
  }
  return absl::StartsWith(key, "LC_");
}

}  // namespace

std::vector<std::string> BotEnvironment(
    char** runner_env, const std::map<std::string, std::string>& overrides,
    bool confined) {
  std::map<std::string, std::string> env;
  for (char** e = runner_env; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string key = entry.substr(0, eq);
    if (absl::c_linear_search(kSecretsNeverGivenToBots, key) ||
        (confined && !GivenToAConfinedBot(key))) {
      continue;
    }
    env[std::move(key)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : overrides) env[key] = value;
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  return env_strings;
}

// Started with vfork, not fork: in a process that runs a gRPC server (the
// embedded referee), fork's atfork handlers disturb gRPC's in-flight streams;
// vfork runs none. Everything is prepared before vfork; the child makes only
// system calls (its own process group, its user, the parent-death signal,
// stdio, exec) and reports a failure through `child_error` (its memory is
// the parent's until it execs or exits).
absl::Status BotProcess::Start() {
  if (argv_.empty()) return absl::InvalidArgumentError("empty bot command");
  absl::StatusOr<std::string> found = FindProgram(argv_[0]);
  if (!found.ok()) return found.status();
  const std::string& program = *found;
  if (log_ == nullptr) {
    absl::StatusOr<std::unique_ptr<LogPump>> log =
        LogPump::Open(name_, log_path_, settings_.log_limit);
    if (!log.ok()) return log.status();
    log_ = *std::move(log);
  }
  if (log_->closed()) {
    return absl::FailedPreconditionError(
        absl::StrCat("bot ", name_, " cannot start: its log is closed"));
  }
  // What an earlier run of this uid left (also a runner killed by SIGKILL):
  // nothing of the uid may run when the child takes it on (see below).
  if (absl::Status s = KillLeftovers(); !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("bot ", name_, " cannot start: ", s.message()));
  }
  // With a uid, open_file_limit soft and hard; else soft_open_file_limit
  // (0: this process's soft limit) soft and this process's hard limit. Both
  // under this process's hard limit, which only a process with
  // CAP_SYS_RESOURCE could raise (root in a container may lack it).
  rlimit64 now;
  if (getrlimit64(RLIMIT_NOFILE, &now) != 0) {
    return absl::InternalError(absl::StrCat(
        "cannot start bot ", name_,
        ": cannot read the open-file limit: ", std::strerror(errno)));
  }
  rlimit64 open_file_limit;
  if (settings_.uid.has_value()) {
    const rlim64_t limit = std::min(
        static_cast<rlim64_t>(settings_.open_file_limit), now.rlim_max);
    open_file_limit = {limit, limit};
  } else {
    const rlim64_t soft =
        settings_.soft_open_file_limit == 0
            ? now.rlim_cur
            : static_cast<rlim64_t>(settings_.soft_open_file_limit);
    open_file_limit = {std::min(soft, now.rlim_max), now.rlim_max};
  }
  std::vector<char*> args;
  for (const std::string& arg : argv_) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  std::vector<std::string> env_strings =
      BotEnvironment(environ, env_, settings_.uid.has_value());
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  // Both above 2 (AboveStdio): copies, closed after the vfork.
  const int opened_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int null_fd = opened_null >= 0 ? AboveStdio(opened_null) : -1;
  const int log_fd = null_fd >= 0 ? AboveStdio(log_->write_fd()) : -1;
  const int error = errno;
  if (opened_null >= 0) close(opened_null);
  if (null_fd < 0 || log_fd < 0) {
    for (const int fd : {null_fd, log_fd}) {
      if (fd >= 0) close(fd);
    }
    // Else the bot would have the runner's standard input, or none.
    return absl::InternalError(
        absl::StrCat("cannot start bot ", name_,
                     ": cannot open /dev/null or copy the pipe "
                     "to its log: ",
                     std::strerror(error)));
  }
  const int max_fd = MaxFd();
  const rlimit64 process_limit = {
      static_cast<rlim64_t>(settings_.process_limit),
      static_cast<rlim64_t>(settings_.process_limit)};
  const pid_t parent = getpid();
  const bool as_uid = settings_.uid.has_value();
  const uid_t uid = settings_.uid.value_or(0);
  volatile int child_error = 0;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // No handler runs in the child.
  const pid_t pid = vfork();
  if (pid == 0) {
    // Everything that needs no change of user comes first: once the child
    // is the bot's uid, a process of that uid may signal it (and stopping
    // it would stop this thread, which vfork suspends until the exec).
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    setpgid(0, 0);
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    CloseAboveStdio(max_fd);
    // Lowering it needs no privilege; with a uid, the hard limit too, as
    // root, before the change of user.
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &open_file_limit, nullptr) !=
        0) {
      child_error = errno;
      _exit(127);
    }
    if (as_uid) {
      // RLIMIT_NPROC counts the processes of the real uid the child is
      // about to take on (none now: KillLeftovers), for this child and
      // what it starts; root, which sets it, is exempt.
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
          syscall(SYS_prlimit64, 0, RLIMIT_NPROC, &process_limit, nullptr) !=
              0) {
        child_error = errno;
        _exit(127);
      }
      if (const int e = BecomeInVforkChild(uid, uid); e != 0) {
        child_error = e;
        _exit(127);
      }
    }
    // After the change of user, which clears it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The runner may have died before the prctl: then nobody would kill us.
    if (getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(program.c_str(), args.data(), envp.data());
    child_error = errno != 0 ? errno : ENOEXEC;
    _exit(127);
  }
  const int vfork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(null_fd);
  close(log_fd);
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv_[0], ": ",
                                            std::strerror(vfork_error)));
  }
  if (child_error != 0) {
    waitpid(pid, nullptr, 0);
    KillLeftovers().IgnoreError();  // The exec's error says more.
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot run ", program,
        as_uid ? absl::StrCat(" as uid ", uid, " (--bot_uids)") : "", ": ",
        std::strerror(child_error)));
  }
  pid_ = pid;
  started_ = absl::Now();
  ++starts_;
  return absl::OkStatus();
}

std::string BotProcess::Exited() {
  if (pid_ <= 0) return "";
  int status = 0;
  const pid_t reaped = waitpid(pid_, &status, WNOHANG);
  if (reaped == 0) return "";
  kill(-pid_, SIGKILL);  // Whatever it started goes with it.
  pid_ = -1;
  std::string how =
      reaped < 0            ? "lost"
      : WIFEXITED(status)   ? absl::StrCat("exit status ", WEXITSTATUS(status))
      : WIFSIGNALED(status) ? absl::StrCat("signal ", WTERMSIG(status))
                            : "stopped";
  if (absl::Status s = KillLeftovers(); !s.ok()) {
    absl::StrAppend(&how, "; ", s.message());
  }
  return how;
}

absl::Time BotProcess::NextStart(absl::Time now) {
  if (now - started_ >= settings_.backoff.healthy) failures_in_a_row_ = 0;
  if (failures_in_a_row_ >= settings_.backoff.max_restarts) {
    return absl::InfiniteFuture();
  }
  ++failures_in_a_row_;
  absl::Duration delay = settings_.backoff.initial;
  for (int i = 1; i < failures_in_a_row_ && delay < settings_.backoff.max;
       ++i) {
    delay *= 2;
  }
  return now + std::min(delay, settings_.backoff.max);
}

absl::Status BotProcess::Stop(int grace_ms) {
  if (pid_ <= 0) return absl::OkStatus();
  kill(-pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      kill(-pid_, SIGKILL);
      pid_ = -1;
      return KillLeftovers();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return KillLeftovers();
}

}  // namespace pyramid
