#include "tools/tournament/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/algorithm/container.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "referee/files/io_loops.h"
#include "tools/tournament/bot_log_pump.h"
#include "tools/tournament/vfork_child.h"

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

void BotProcess::NoteInLog(const std::string& line) {
  if (log_ == nullptr || log_->closed()) return;
  // A failed write (the pump gone) loses the line, as the log would.
  (void)WriteAll(log_->write_fd(), line);
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

namespace {

// The open-file limit (RLIMIT_NOFILE) a bot starts with: with
// BotSettings::uid, open_file_limit soft and hard; else
// soft_open_file_limit (0: this process's soft limit) soft and this
// process's hard limit. Both under this process's hard limit, which only a
// process with CAP_SYS_RESOURCE could raise (root in a container may lack
// it). INTERNAL when this process's limit cannot be read.
absl::StatusOr<rlimit64> OpenFileLimitFor(const BotSettings& settings) {
  rlimit64 now;
  if (getrlimit64(RLIMIT_NOFILE, &now) != 0) {
    return absl::InternalError(absl::StrCat("cannot read the open-file limit: ",
                                            std::strerror(errno)));
  }
  if (settings.uid.has_value()) {
    const rlim64_t limit =
        std::min(static_cast<rlim64_t>(settings.open_file_limit), now.rlim_max);
    return rlimit64{limit, limit};
  }
  const rlim64_t soft =
      settings.soft_open_file_limit == 0
          ? now.rlim_cur
          : static_cast<rlim64_t>(settings.soft_open_file_limit);
  return rlimit64{std::min(soft, now.rlim_max), now.rlim_max};
}

// `strings` as execve takes them (its argv, its envp): pointers into
// `strings`, which must outlive them, then a null pointer.
std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// The descriptors a bot's child makes its standard input (/dev/null) and
// output and error (a copy of its log's pipe): both above 2 (AboveStdio),
// O_CLOEXEC copies that the parent closes after the vfork.
struct ChildStdio {
  int input = -1;
  int output = -1;
};
// INTERNAL when /dev/null cannot be opened or either copied (the bot would
// have the runner's standard input, or none); then none is left open.
absl::StatusOr<ChildStdio> OpenChildStdio(int log_write_fd) {
  const int opened_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int null_fd = opened_null >= 0 ? AboveStdio(opened_null) : -1;
  const int log_fd = null_fd >= 0 ? AboveStdio(log_write_fd) : -1;
  const int error = errno;
  if (opened_null >= 0) close(opened_null);
  if (null_fd < 0 || log_fd < 0) {
    for (const int fd : {null_fd, log_fd}) {
      if (fd >= 0) close(fd);
    }
    return absl::InternalError(
        absl::StrCat("cannot open /dev/null or copy the pipe to its log: ",
                     std::strerror(error)));
  }
  return ChildStdio{null_fd, log_fd};
}

// Everything a bot's vfork child uses, prepared before the vfork.
struct BotExec {
  const char* program;
  char* const* argv;
  char* const* envp;
  ChildStdio stdio;
  int max_fd;  // MaxFd()
  rlimit64 open_file_limit;
  bool as_uid;  // BotSettings::uid: then `uid` and `process_limit`.
  uid_t uid;
  rlimit64 process_limit;
  pid_t parent;  // The runner.
};

// The body of a bot's vfork child: its own process group, its stdio, its
// limits, its user, the parent-death signal, then the exec of the bot.
// Never returns: on failure, the errno goes to `error` (the parent's
// memory) and the child exits with status 127. System calls only
// (vfork_child.h).
[[noreturn]] void ExecBot(const BotExec& exec, volatile int& error) {
  // Everything that needs no change of user comes first: once the child
  // is the bot's uid, a process of that uid may signal it (and stopping
  // it would stop this thread, which vfork suspends until the exec).
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
  setpgid(0, 0);
  dup2(exec.stdio.input, STDIN_FILENO);
  dup2(exec.stdio.output, STDOUT_FILENO);
  dup2(exec.stdio.output, STDERR_FILENO);
  CloseAboveStdio(exec.max_fd);
  // Lowering it needs no privilege; with a uid, the hard limit too, as
  // root, before the change of user.
  if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &exec.open_file_limit,
              nullptr) != 0) {
    error = errno;
    _exit(127);
  }
  if (exec.as_uid) {
    // RLIMIT_NPROC counts the processes of the real uid the child is
    // about to take on (none now: KillLeftovers), for this child and
    // what it starts; root, which sets it, is exempt.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_prlimit64, 0, RLIMIT_NPROC, &exec.process_limit, nullptr) !=
            0) {
      error = errno;
      _exit(127);
    }
    if (const int e = BecomeInVforkChild(exec.uid, exec.uid); e != 0) {
      error = e;
      _exit(127);
    }
  }
  // After the change of user, which clears it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The runner may have died before the prctl: then nobody would kill us.
  if (getppid() != exec.parent) _exit(127);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(exec.program, exec.argv, exec.envp);
  error = errno != 0 ? errno : ENOEXEC;
  _exit(127);
}

}  // namespace

absl::Status BotProcess::OpenLog() {
  if (log_ == nullptr) {
    absl::StatusOr<std::unique_ptr<BotLogPump>> log =
        BotLogPump::Open(name_, log_path_, settings_.log_limit);
    if (!log.ok()) return log.status();
    log_ = *std::move(log);
  }
  if (log_->closed()) {
    return absl::FailedPreconditionError(
        absl::StrCat("bot ", name_, " cannot start: its log is closed"));
  }
  return absl::OkStatus();
}

// Started with vfork (vfork_child.h): everything is prepared before it, and
// the child (ExecBot) reports a failure through `child_error`.
absl::Status BotProcess::Start() {
  if (argv_.empty()) return absl::InvalidArgumentError("empty bot command");
  absl::StatusOr<std::string> found = FindProgram(argv_[0]);
  if (!found.ok()) return found.status();
  const std::string& program = *found;
  if (absl::Status s = OpenLog(); !s.ok()) return s;
  // What an earlier run of this uid left (also a runner killed by SIGKILL):
  // nothing of the uid may run when the child takes it on (ExecBot).
  if (absl::Status s = KillLeftovers(); !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("bot ", name_, " cannot start: ", s.message()));
  }
  const auto cannot_start = [this](const absl::Status& s) {
    return absl::InternalError(
        absl::StrCat("cannot start bot ", name_, ": ", s.message()));
  };
  const absl::StatusOr<rlimit64> open_file_limit = OpenFileLimitFor(settings_);
  if (!open_file_limit.ok()) return cannot_start(open_file_limit.status());
  const std::vector<char*> args = CStrings(argv_);
  const std::vector<std::string> env_strings =
      BotEnvironment(environ, env_, settings_.uid.has_value());
  const std::vector<char*> envp = CStrings(env_strings);
  const absl::StatusOr<ChildStdio> stdio = OpenChildStdio(log_->write_fd());
  if (!stdio.ok()) return cannot_start(stdio.status());
  const auto process_limit = static_cast<rlim64_t>(settings_.process_limit);
  const BotExec exec = {program.c_str(),
                        args.data(),
                        envp.data(),
                        *stdio,
                        MaxFd(),
                        *open_file_limit,
                        settings_.uid.has_value(),
                        settings_.uid.value_or(0),
                        {process_limit, process_limit},
                        getpid()};
  volatile int child_error = 0;
  const pid_t pid = VforkWithSignalsBlocked(
      [&exec, &child_error] { ExecBot(exec, child_error); });
  const int vfork_error = errno;
  close(stdio->input);
  close(stdio->output);
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv_[0], ": ",
                                            std::strerror(vfork_error)));
  }
  if (child_error != 0) {
    waitpid(pid, nullptr, 0);
    KillLeftovers().IgnoreError();  // The exec's error says more.
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot run ", program,
        exec.as_uid ? absl::StrCat(" as uid ", exec.uid, " (--bot_uids)") : "",
        ": ", std::strerror(child_error)));
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
