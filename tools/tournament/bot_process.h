// A bot program run by the tournament: started once, restarted if it dies,
// its output appended to a log file, stopped at the end.
#ifndef PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
#define PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace pyramid {

class BotProcess {
 public:
  // `argv[0]` is the program (looked up on PATH when it has no slash).
  BotProcess(std::string name, std::vector<std::string> argv,
             std::map<std::string, std::string> env, std::string log_path);
  ~BotProcess();  // Stops it.

  absl::Status Start();
  // If the process has exited, reaps it and returns a description of how
  // (e.g. "exit status 1", "signal 9"); empty while it runs.
  std::string Exited();
  // SIGTERM, then SIGKILL after `grace_ms`.
  void Stop(int grace_ms = 2000);

  const std::string& name() const { return name_; }
  int starts() const { return starts_; }

 private:
  const std::string name_;
  const std::vector<std::string> argv_;
  const std::map<std::string, std::string> env_;
  const std::string log_path_;
  pid_t pid_ = -1;
  int starts_ = 0;
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
