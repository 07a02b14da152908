#include "tools/tournament/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

extern "C" char** environ;

namespace pyramid {

BotProcess::BotProcess(std::string name, std::vector<std::string> argv,
                       std::map<std::string, std::string> env,
                       std::string log_path)
    : name_(std::move(name)),
      argv_(std::move(argv)),
      env_(std::move(env)),
      log_path_(std::move(log_path)) {}

BotProcess::~BotProcess() { Stop(); }

// Started with posix_spawn, not fork: in a process that runs a gRPC server
// (the embedded referee), fork's atfork handlers disturb gRPC's in-flight
// streams; posix_spawn runs none.
absl::Status BotProcess::Start() {
  if (argv_.empty()) return absl::InvalidArgumentError("empty bot command");
  std::vector<char*> args;
  for (const std::string& arg : argv_) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : env_) env[key] = value;
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, args[0], &actions, &attr, args.data(),
                                 envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv_[0], ": ",
                                            std::strerror(error)));
  }
  pid_ = pid;
  ++starts_;
  return absl::OkStatus();
}

std::string BotProcess::Exited() {
  if (pid_ <= 0) return "not running";
  int status = 0;
  const pid_t reaped = waitpid(pid_, &status, WNOHANG);
  if (reaped == 0) return "";
  pid_ = -1;
  if (reaped < 0) return "lost";
  if (WIFEXITED(status)) return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("signal ", WTERMSIG(status));
  return "stopped";
}

void BotProcess::Stop(int grace_ms) {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    if (!Exited().empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace pyramid
