// A bot program run by the tournament: started once, restarted with
// exponential backoff if it dies, its output appended to a log file, stopped
// at the end.
//
// A bot never outlives its runner: it runs in a process group of its own
// (so the runner stops it and everything it started with one signal), and
// with PR_SET_PDEATHSIG(SIGKILL), so the kernel kills it when the runner
// dies, even by SIGKILL. The death signal is tied to the thread that started
// the bot: start and restart bots from threads that live as long as the
// tournament (the runner's main and supervisor threads do).
#ifndef PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
#define PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace pyramid {

// When to restart a bot that keeps dying: after its k-th restart it waits
// initial * 2^(k-1), at most `max`; a bot that ran at least `healthy` before
// dying starts again from `initial`. After `max_restarts` restarts in a row
// without a healthy run, the runner gives up on it.
struct RestartBackoff {
  absl::Duration initial = absl::Milliseconds(250);
  absl::Duration max = absl::Seconds(30);
  absl::Duration healthy = absl::Seconds(60);
  int max_restarts = 20;
};

// The file `program` names: itself when it has a slash, else the first
// executable of that name on PATH. NOT_FOUND, saying why ("cannot run X:
// ..."), when it names no executable file: checked before a tournament
// starts, where a failed exec would show only in the child (status 127),
// restarted again and again.
absl::StatusOr<std::string> FindProgram(const std::string& program);

class BotProcess {
 public:
  // `argv[0]` is the program (looked up on PATH when it has no slash).
  BotProcess(std::string name, std::vector<std::string> argv,
             std::map<std::string, std::string> env, std::string log_path,
             RestartBackoff backoff = {});
  ~BotProcess();  // Stops it.

  absl::Status Start();
  // If the process has exited, reaps it and returns a description of how
  // (e.g. "exit status 1", "signal 9"); empty while it runs, and also once
  // that exit has been reported (until the next Start).
  std::string Exited();
  // SIGTERM to its process group, then SIGKILL after `grace_ms`.
  void Stop(int grace_ms = 2000);

  // After Exited() reported an exit at `now`: when to restart it, or
  // InfiniteFuture when it has used up its restarts (give up on it).
  absl::Time NextStart(absl::Time now);

  const std::string& name() const { return name_; }
  int starts() const { return starts_; }
  pid_t pid() const { return pid_; }

 private:
  const std::string name_;
  const std::vector<std::string> argv_;
  const std::map<std::string, std::string> env_;
  const std::string log_path_;
  const RestartBackoff backoff_;
  pid_t pid_ = -1;
  int starts_ = 0;
  int failures_in_a_row_ = 0;  // Restarts since the last healthy run.
  absl::Time started_;         // Of the current or last run.
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
