#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "referee/core/log_sink.h"
#include "tools/tournament/runner_impl.h"

namespace pyramid {
namespace runner_internal {

namespace {

// The bot's command with the placeholders filled in (or the connection
// flags appended when it names none).
std::vector<std::string> BotArgv(const v1::TournamentBot& bot,
                                 const std::string& referee,
                                 const std::string& token_file) {
  std::vector<std::string> argv;
  bool placeholders = false;
  for (std::string arg : bot.command()) {
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{
             {"{referee}", referee},
             {"{token_file}", token_file},
             {"{key_file}", bot.key_file()}}) {
      for (size_t at; (at = arg.find(name)) != std::string::npos;) {
        arg.replace(at, name.size(), value);
        placeholders = placeholders || name != "{key_file}";
      }
    }
    argv.push_back(std::move(arg));
  }
  if (!placeholders) {
    argv.push_back("--referee=" + referee);
    argv.push_back("--token_file=" + token_file);
  }
  return argv;
}

// The pids of `bots` that run now.
std::set<pid_t> Pids(const std::vector<std::unique_ptr<BotProcess>>& bots) {
  std::set<pid_t> pids;
  for (const auto& bot : bots) {
    if (bot->pid() > 0) pids.insert(bot->pid());
  }
  return pids;
}

// With --bot_uids: makes `token_file` the bot's own (uid and gid `uid`,
// mode 0400) and checks that the bot can read it.
absl::Status GiveToken(const std::string& bot, uid_t uid,
                       const std::string& token_file) {
  if (chown(token_file.c_str(), uid, uid) != 0 ||
      chmod(token_file.c_str(), 0400) != 0) {
    return absl::InternalError(absl::StrCat("cannot give ", token_file,
                                            " to uid ", uid, ": ",
                                            std::strerror(errno)));
  }
  if (absl::Status s = CheckAccessAs(uid, uid, token_file, R_OK); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bot ", bot, " runs as uid ", uid, " (--bot_uids) and cannot read ",
        token_file, ": ", s.message(),
        "; every directory above the output directory must let other users "
        "enter it (chmod o+x)"));
  }
  return absl::OkStatus();
}

// Stops each of `bots` that runs (BotProcess::Stop); a line for each
// failure to kill what it left.
std::vector<std::string> StopEach(
    std::vector<std::unique_ptr<BotProcess>>& bots) {
  std::vector<std::string> failures;
  for (auto& bot : bots) {
    if (absl::Status s = bot->Stop(); !s.ok()) {
      failures.push_back(absl::StrCat("bot ", bot->name(), ": ", s.message()));
    }
  }
  return failures;
}

}  // namespace

absl::Status Runner::StartBots() {
  const fs::path tokens = out_ / "tokens";
  if (options_.bot_uids.has_value()) {
    if (geteuid() != 0) {
      return absl::InvalidArgumentError(
          "--bot_uids needs the runner to run as root");
    }
    // Each bot reaches its own token by name; none lists the others. And
    // no bot reads the others' logs, where a bot that prints its hand or
    // its plans as it plays would tell them to its opponents.
    for (const auto& [dir, mode] :
         {std::pair{tokens, 0711}, {out_ / "bots", 0700}}) {
      if (chmod(dir.c_str(), mode) != 0) {
        return absl::InternalError(absl::StrCat("cannot chmod ", dir.string(),
                                                ": ", std::strerror(errno)));
      }
    }
  }
  if (options_.adopt_orphans) {
    if (absl::Status s = AdoptOrphans(); !s.ok()) return s;
  }
  for (int i = 0; i < t_.bots_size(); ++i) {
    const v1::TournamentBot& bot = t_.bots(i);
    v1::RegisterBotRequest request;
    request.set_name(bot.name());
    // Read by Prepare, before anything was made.
    if (!bot_public_keys_[i].empty()) {
      request.set_public_key(bot_public_keys_[i]);
    }
    absl::StatusOr<v1::RegisterBotResponse> registered =
        link_->RegisterBot(request);
    if (!registered.ok()) return registered.status();
    bot_ids_.push_back(registered->bot_id());
    const fs::path token_file = tokens / (bot.name() + ".token");
    if (absl::Status s = WriteSecretFile(token_file.string(),
                                         registered->bot_token() + "\n");
        !s.ok()) {
      return s;
    }
    BotSettings settings;
    settings.log_limit = options_.bot_log_limit;
    settings.soft_open_file_limit = options_.bot_soft_open_file_limit;
    if (options_.bot_uids.has_value()) {
      settings.uid = *options_.bot_uids + static_cast<uid_t>(i);
      // Before the token is the uid's: a process of the uid left from
      // before (a runner killed by SIGKILL) must not get to read it.
      if (absl::Status s = KillProcessesOf(*settings.uid); !s.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("bot ", bot.name(), " cannot start: ", s.message()));
      }
      if (absl::Status s =
              GiveToken(bot.name(), *settings.uid, token_file.string());
          !s.ok()) {
        return s;
      }
    }
    auto process = std::make_unique<BotProcess>(
        bot.name(), BotArgv(bot, link_->address(), token_file.string()),
        std::map<std::string, std::string>{
            {"PYRAMID_REFEREE", link_->address()},
            {"PYRAMID_TOKEN_FILE", token_file.string()}},
        (out_ / "bots" / (bot.name() + ".log")).string(), settings);
    if (absl::Status s = process->Start(); !s.ok()) return s;
    bots_.push_back(std::move(process));
  }
  supervisor_ = std::thread([this] { Supervise(); });
  return absl::OkStatus();
}

bool Runner::CutShort() { return interrupted_.load() && !NothingLeftToPlay(); }

bool Runner::NothingLeftToPlay() {
  // With the SPRT decided, only the matches started before are left.
  uint32_t left_below = scheduled_;
  if (sprt_decided_.load()) {
    absl::MutexLock lock(&flight_mu_);
    left_below = std::min(started_below_, scheduled_);
  }
  absl::MutexLock lock(&results_mu_);
  uint32_t done = 0;
  for (const auto& [index, result] : results_) done += index < left_below;
  return done >= left_below;
}

void Runner::Supervise() {
  std::vector<absl::Time> next_start(bots_.size(), absl::InfinitePast());
  for (int tick = 0; !stopping_.load(); ++tick) {
    // Orphans of the bots that ended (about once a second).
    if (options_.adopt_orphans && tick % 20 == 0) ReapOrphans(Pids(bots_));
    const absl::Time now = absl::Now();
    for (size_t i = 0; i < bots_.size() && !stopping_.load(); ++i) {
      BotProcess& bot = *bots_[i];
      if (const std::string how = bot.Exited(); !how.empty()) {
        v1::TournamentBotEvent ended;
        ended.set_bot(bot.name());
        ended.set_ended(how);
        RecordBotEvent(std::move(ended));
        next_start[i] = bot.NextStart(now);
        const std::string line =
            next_start[i] == absl::InfiniteFuture()
                ? absl::StrCat("bot ", bot.name(), " ended (", how,
                               "); giving up on it after ", bot.starts() - 1,
                               bot.starts() == 2 ? " restart" : " restarts")
                : absl::StrCat("bot ", bot.name(), " ended (", how,
                               "); restarting in ",
                               absl::FormatDuration(next_start[i] - now));
        bot.NoteInLog(absl::StrCat("tournament: ", line, "\n"));
        Note(line);
      } else if (next_start[i] != absl::InfinitePast() &&
                 next_start[i] != absl::InfiniteFuture() &&
                 now >= next_start[i]) {
        next_start[i] = absl::InfinitePast();
        if (absl::Status s = bot.Start(); !s.ok()) {
          next_start[i] = absl::InfiniteFuture();
          Note(absl::StrCat("bot ", bot.name(), ": ", s.message(),
                            "; giving up on it"));
        } else {
          v1::TournamentBotEvent restarted;
          restarted.set_bot(bot.name());
          restarted.set_restarted(true);
          RecordBotEvent(std::move(restarted));
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // A restart said ("restarting in ...") that the end or interruption of
  // the tournament came first: it will not happen in this run, and
  // `restarts` does not count it.
  for (size_t i = 0; i < bots_.size(); ++i) {
    if (next_start[i] != absl::InfinitePast() &&
        next_start[i] != absl::InfiniteFuture()) {
      Note(absl::StrCat("bot ", bots_[i]->name(), ": not restarted, ",
                        interrupted_.load() ? "the tournament was interrupted"
                                            : "the tournament is over"));
    }
  }
  // Here, not after this thread ends: a bot this thread restarted has the
  // parent-death signal of this thread (PR_SET_PDEATHSIG follows the
  // thread), and would die by SIGKILL as it ends, without its SIGTERM and
  // grace.
  for (const std::string& failure : StopEach(bots_)) Note(failure);
}

absl::Status Runner::OpenBotJournal() {
  const std::string path = (out_ / "bots.jsonl").string();
  bot_journal_existed_ = fs::exists(path);
  absl::StatusOr<std::vector<v1::TournamentBotEvent>> events =
      MatchJournal::Read<v1::TournamentBotEvent>(path, "bot event");
  if (!events.ok()) {
    return absl::Status(
        events.status().code(),
        absl::StrCat(events.status().message(),
                     " (remove it, and the restarts of the runs before are "
                     "not counted)"));
  }
  absl::StatusOr<std::unique_ptr<MatchJournal>> journal =
      MatchJournal::OpenForAppend(path);
  if (!journal.ok()) return journal.status();
  absl::MutexLock lock(&bot_events_mu_);
  bot_events_ = *std::move(events);
  bot_journal_ = *std::move(journal);
  return absl::OkStatus();
}

void Runner::RecordBotEvent(v1::TournamentBotEvent event) {
  std::string failure;
  {
    absl::MutexLock lock(&bot_events_mu_);
    if (bot_journal_ != nullptr && !bot_journal_failed_) {
      if (absl::Status s = bot_journal_->Append(event); !s.ok()) {
        bot_journal_failed_ = true;
        failure = std::string(s.message());
      }
    }
    bot_events_.push_back(std::move(event));
  }
  if (!failure.empty()) {
    Note(absl::StrCat(failure,
                      ": the bots' ends and restarts from now on are counted "
                      "in this run's report only"));
  }
}

void Runner::FillRestarts(std::vector<v1::TournamentStanding>& standings) {
  std::map<std::string, uint32_t> restarts;
  std::map<std::string, std::vector<std::string>> ends;
  if (!bot_journal_existed_ && bots_.empty()) restarts = EarlierRestarts();
  {
    absl::MutexLock lock(&bot_events_mu_);
    for (const v1::TournamentBotEvent& event : bot_events_) {
      if (event.restarted()) ++restarts[event.bot()];
      if (!event.ended().empty()) ends[event.bot()].push_back(event.ended());
    }
  }
  for (v1::TournamentStanding& s : standings) {
    s.set_restarts(restarts[s.bot()]);
    for (std::string& how : ends[s.bot()]) s.add_ends(std::move(how));
  }
}

void Runner::StopBots() {
  stopping_ = true;
  // The supervisor stops the bots on its way out; those StartBots started
  // before it failed are stopped here.
  if (supervisor_.joinable()) supervisor_.join();
  for (const std::string& failure : StopEach(bots_)) Note(failure);
  if (options_.adopt_orphans) {
    const OrphanSweep sweep = KillOrphans(Pids(bots_));
    if (const int killed = sweep.killed - static_cast<int>(sweep.left.size());
        killed > 0) {
      Note(absl::StrCat("stopped ", killed,
                        killed == 1 ? " process" : " processes",
                        " the bots left running"));
    }
    if (!sweep.left.empty()) {
      Note(absl::StrCat(
          "could not stop ", sweep.left.size(),
          sweep.left.size() == 1 ? " process" : " processes",
          " the bots left running (pid ", absl::StrJoin(sweep.left, ", "),
          "): killed, still there after 5s (in uninterruptible sleep?)"));
    }
  }
  // Their output still in the pipes, and the note of what their logs'
  // caps dropped.
  for (auto& bot : bots_) bot->CloseLog();
  std::error_code ignored;
  fs::remove_all(out_ / "tokens", ignored);
}

}  // namespace runner_internal
}  // namespace pyramid
