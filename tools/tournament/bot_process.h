// A bot program run by the tournament: started once, restarted with
// exponential backoff if it dies, its output appended to a log file (up to a
// cap), stopped at the end.
//
// A bot runs in a process group of its own (so the runner stops it and
// everything it started with one signal), and with PR_SET_PDEATHSIG(SIGKILL),
// so the kernel kills it when the runner dies, even by SIGKILL. The death
// signal is tied to the thread that started the bot: it comes (SIGKILL)
// when that thread ends. Start and restart bots from threads that live as
// long as the tournament, and Stop them before such a thread ends, for
// their SIGTERM and grace (the runner's main thread starts them; its
// supervisor thread restarts them and stops them all on its way out).
// Neither reaches a process the bot started that left its process group
// (setsid): see AdoptOrphans and BotSettings::uid.
#ifndef PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
#define PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/tournament/process_sweep.h"  // Its callers sweep with it.

namespace pyramid {

class BotLogPump;  // bot_log_pump.h

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

// How much of a bot's output its log keeps by default: 16 MiB per
// BotProcess (per bot per tournament run, across its restarts).
inline constexpr int64_t kDefaultBotLogLimit = int64_t{16} << 20;

// How many processes (threads included) a bot run as its own uid may have
// at once by default: RLIMIT_NPROC, counted per user, so that a fork bomb
// of that uid cannot take every pid of the host.
inline constexpr int kDefaultBotProcessLimit = 256;

// How many files (descriptors: sockets included) a bot run as its own uid
// may have open at once by default, in each of its processes
// (RLIMIT_NOFILE, soft and hard): with kDefaultBotProcessLimit, what one
// such bot can hold open, e.g. connections to the referee, is bounded by
// 256 x 1024.
inline constexpr int kDefaultBotOpenFileLimit = 1024;

// How a bot runs, besides its command.
struct BotSettings {
  RestartBackoff backoff;
  // Bytes of its output (standard output and error, read by the runner
  // through a pipe) written to its log, from the first Start on; what comes
  // after is read and dropped, so the bot is never blocked or killed for
  // it, and one line at the end (CloseLog) says how many bytes were
  // dropped. 0 keeps nothing but that line.
  int64_t log_limit = kDefaultBotLogLimit;
  // When set, the bot runs as this user id and group id (the same number),
  // with no supplementary groups and PR_SET_NO_NEW_PRIVS, and every process
  // of this uid is killed (KillProcessesOf) before each start (which fails
  // if that sweep does) and after each end. REQUIRED: the caller is root,
  // and the uid is not 0 and belongs to no one else's processes.
  std::optional<uid_t> uid;
  // With `uid`: the bot's RLIMIT_NPROC, the most processes and threads its
  // uid may have at once (its own, what it starts, their threads).
  int process_limit = kDefaultBotProcessLimit;
  // With `uid`: the bot's RLIMIT_NOFILE, soft and hard (so that it cannot
  // raise it), set before it takes on the uid; at most this process's hard
  // limit, which a process without CAP_SYS_RESOURCE cannot raise.
  int open_file_limit = kDefaultBotOpenFileLimit;
  // Without `uid`: the bot's soft RLIMIT_NOFILE, at most this process's
  // hard limit (read at each Start), which is the bot's hard one; 0: this
  // process's soft limit at that Start. The tournament program passes the
  // soft limit it had before its accept guard (accept_guard.h) raised it
  // to the hard one (RunOptions::bot_soft_open_file_limit), so that its
  // bots do not inherit the raised one.
  rlim_t soft_open_file_limit = 0;
};

// OK when a process running as `uid` and gid `gid`, with no supplementary
// groups, in this process's working directory, may access `path` with
// `mode` (as access(2): R_OK, X_OK...); else why not (PERMISSION_DENIED
// with the error). The caller must be root.
absl::Status CheckAccessAs(uid_t uid, gid_t gid, const std::string& path,
                           int mode);

// The file `program` names: itself when it has a slash, else the first
// executable of that name on PATH. NOT_FOUND, saying why ("cannot run X:
// ..."), when it names no executable file: checked before a tournament
// starts, where a failed exec would show only in the child (status 127),
// restarted again and again.
absl::StatusOr<std::string> FindProgram(const std::string& program);

// Variables of the runner's environment no bot is given: the admin token
// the runner may take from $PYRAMID_ADMIN_TOKEN (with which a bot could
// download a running match's log, seed and all, and so every hidden hand),
// and a seat or bot token, someone else's (a bot gets its own token file,
// $PYRAMID_TOKEN_FILE).
inline constexpr const char* kSecretsNeverGivenToBots[] = {
    "PYRAMID_ADMIN_TOKEN", "PYRAMID_TOKEN"};

// A bot's environment, as KEY=VALUE strings sorted by key: `runner_env`
// (the runner's, as `environ`) less kSecretsNeverGivenToBots, with
// `overrides` set (PYRAMID_REFEREE, PYRAMID_TOKEN_FILE). `confined` (a bot
// run as a uid of its own, BotSettings::uid) is given only HOME, LANG,
// LANGUAGE, LC_*, NODE_PATH, PATH, PYTHONPATH, TERM, TMPDIR and TZ of the
// runner's, since any other variable may hold a secret of the operator's
// (a cloud credential, another service's token); a bot that needs another
// sets it in its command (`/usr/bin/env NAME=VALUE PROGRAM ...`).
std::vector<std::string> BotEnvironment(
    char** runner_env, const std::map<std::string, std::string>& overrides,
    bool confined);

class BotProcess {
 public:
  // `argv[0]` is the program (looked up on PATH when it has no slash).
  BotProcess(std::string name, std::vector<std::string> argv,
             std::map<std::string, std::string> env, std::string log_path,
             BotSettings settings = {});
  ~BotProcess();  // Stops it and closes its log.

  // Starts it, its output going to the log through a pipe made at the first
  // start. An error when it could not be started, including when exec
  // failed (e.g. the program is not executable by BotSettings::uid).
  absl::Status Start();
  // If the process has exited, reaps it and returns a description of how
  // (e.g. "exit status 1", "signal 9", followed by "; " and the error when
  // its uid's processes could not all be killed); empty while it runs, and
  // also once that exit has been reported (until the next Start).
  std::string Exited();
  // SIGTERM to its process group, then SIGKILL after `grace_ms`; with
  // BotSettings::uid, then every process of that uid is killed, and an
  // error says what KillProcessesOf could not kill.
  absl::Status Stop(int grace_ms = 2000);
  // Writes `line` (its newline included) to its log through the pipe its
  // output takes, so after whatever it wrote before (and within the log's
  // cap, as its output): how the runner saw it end. Nothing before the
  // first Start or after CloseLog.
  void NoteInLog(const std::string& line);
  // After Stop: writes the output still in the pipe to the log (without
  // waiting for a process that still holds it), then the line saying how
  // many bytes past the cap were dropped, if any, and closes the log. No
  // Start after it. Idempotent.
  void CloseLog();

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
  const BotSettings settings_;
  std::unique_ptr<BotLogPump> log_;  // Made by the first Start.
  pid_t pid_ = -1;
  int starts_ = 0;
  int failures_in_a_row_ = 0;  // Restarts since the last healthy run.
  absl::Time started_;         // Of the current or last run.

  // Opens its log (at the first Start); FAILED_PRECONDITION once closed.
  absl::Status OpenLog();
  // Kills what is left of its processes after it ended (with
  // BotSettings::uid): KillProcessesOf's status.
  absl::Status KillLeftovers();
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_BOT_PROCESS_H_
