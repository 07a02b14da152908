#include "tools/tournament/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
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

BotProcess::BotProcess(std::string name, std::vector<std::string> argv,
                       std::map<std::string, std::string> env,
                       std::string log_path, RestartBackoff backoff)
    : name_(std::move(name)),
      argv_(std::move(argv)),
      env_(std::move(env)),
      log_path_(std::move(log_path)),
      backoff_(backoff) {}

BotProcess::~BotProcess() { Stop(); }

namespace {

// This process's environment with `overrides` set, as KEY=VALUE strings
// sorted by key.
std::vector<std::string> Environment(
    const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos)
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : overrides) env[key] = value;
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  return env_strings;
}

}  // namespace

// Started with vfork, not fork: in a process that runs a gRPC server (the
// embedded referee), fork's atfork handlers disturb gRPC's in-flight streams;
// vfork runs none. Everything is prepared before vfork; the child makes only
// system calls (its own process group, the parent-death signal, stdio, exec).
absl::Status BotProcess::Start() {
  if (argv_.empty()) return absl::InvalidArgumentError("empty bot command");
  absl::StatusOr<std::string> found = FindProgram(argv_[0]);
  if (!found.ok()) return found.status();
  const std::string& program = *found;
  std::vector<char*> args;
  for (const std::string& arg : argv_) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  std::vector<std::string> env_strings = Environment(env_);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const int log_fd =
      open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open ", log_path_, ": ", std::strerror(errno)));
  }
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // No handler runs in the child.
  const pid_t pid = vfork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The runner may have died before the prctl: then nobody would kill us.
    if (getppid() != parent) _exit(127);
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(program.c_str(), args.data(), envp.data());
    _exit(127);
  }
  const int error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(log_fd);
  if (null_fd >= 0) close(null_fd);
  if (pid < 0) {
    return absl::InternalError(
        absl::StrCat("cannot run ", argv_[0], ": ", std::strerror(error)));
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
  if (reaped < 0) return "lost";
  if (WIFEXITED(status))
    return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("signal ", WTERMSIG(status));
  return "stopped";
}

absl::Time BotProcess::NextStart(absl::Time now) {
  if (now - started_ >= backoff_.healthy) failures_in_a_row_ = 0;
  if (failures_in_a_row_ >= backoff_.max_restarts) {
    return absl::InfiniteFuture();
  }
  ++failures_in_a_row_;
  absl::Duration delay = backoff_.initial;
  for (int i = 1; i < failures_in_a_row_ && delay < backoff_.max; ++i) {
    delay *= 2;
  }
  return now + std::min(delay, backoff_.max);
}

void BotProcess::Stop(int grace_ms) {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    if (pid_ <= 0) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      kill(-pid_, SIGKILL);
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace pyramid
