// BotProcess on real processes: its restart policy (the delays double from
// the initial one, and after the allowed restarts NextStart says to give up
// while Exited() reports the exit once, so a supervisor says "giving up"
// once and nothing after); its log's cap; the orphans a child subreaper
// takes in; and, as root, a bot run as its own uid.
#include "tools/tournament/bot_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "tests/forked_child.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// The words of the line of /proc/PID/limits that starts with `name`.
std::vector<std::string> LimitLine(pid_t pid, const std::string& name) {
  absl::StatusOr<std::string> limits =
      ReadFileToString(absl::StrCat("/proc/", pid, "/limits"));
  if (!limits.ok()) return {};
  const size_t at = limits->find(name);
  if (at == std::string::npos) return {};
  return absl::StrSplit(limits->substr(at, limits->find('\n', at) - at), ' ',
                        absl::SkipEmpty());
}

// Waits until `bot` has exited; returns how Exited() described it ("" if
// it has not within 30 s: generous for a loaded machine, under ASan too).
std::string AwaitExit(BotProcess& bot) {
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  do {
    std::string how = bot.Exited();
    if (!how.empty()) return how;
    absl::SleepFor(absl::Milliseconds(10));
  } while (absl::Now() < give_up);
  return bot.Exited();
}

TEST(BotProcessTest, BacksOffThenGivesUpOnceOnABotThatExitsAtOnce) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  RestartBackoff backoff;
  backoff.initial = absl::Milliseconds(100);
  backoff.max = absl::Milliseconds(300);
  backoff.max_restarts = 3;
  BotSettings settings;
  settings.backoff = backoff;
  BotProcess bot("quitter", {"/bin/false"}, {}, dir.File("bot.log"), settings);
  ASSERT_TRUE(bot.Start().ok());
  const absl::Duration want[] = {absl::Milliseconds(100),
                                 absl::Milliseconds(200),
                                 absl::Milliseconds(300)};
  for (const absl::Duration delay : want) {
    EXPECT_EQ(AwaitExit(bot), "exit status 1");
    const absl::Time now = absl::Now();
    EXPECT_EQ(bot.NextStart(now), now + delay);
    ASSERT_TRUE(bot.Start().ok());
  }
  EXPECT_EQ(AwaitExit(bot), "exit status 1");
  EXPECT_EQ(bot.NextStart(absl::Now()), absl::InfiniteFuture());  // Give up.
  EXPECT_EQ(bot.Exited(), "");  // The exit is reported once, not again.
  EXPECT_EQ(bot.starts(), 4);
}

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  return text.ok() ? *text : "";
}

// The parent of process `pid` (from /proc/PID/stat), or -1.
pid_t ParentOf(pid_t pid) {
  const std::string stat = Read(absl::StrCat("/proc/", pid, "/stat"));
  const size_t close = stat.rfind(')');
  int ppid = -1;
  if (close == std::string::npos ||
      std::sscanf(stat.c_str() + close + 1, " %*c %d", &ppid) != 1) {
    return -1;
  }
  return ppid;
}

// The real uid of process `pid` (from /proc/PID/status), or -1.
int64_t UidOf(pid_t pid) {
  const std::string status = Read(absl::StrCat("/proc/", pid, "/status"));
  const size_t at = status.find("\nUid:");
  int64_t uid = -1;
  if (at == std::string::npos ||
      std::sscanf(status.c_str() + at + 5, "%ld", &uid) != 1) {
    return -1;
  }
  return uid;
}

// Whether a process `pid` exists (a zombie counts).
bool Exists(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// A bot that writes 100 MiB at once: its log keeps the cap, then one line
// with the count of the bytes dropped; the bot is neither blocked nor
// killed (it ends, status 0, as soon as it has written everything).
TEST(BotProcessTest, ItsLogKeepsTheCapAndSaysWhatWasDropped) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  BotSettings settings;
  settings.log_limit = 1 << 20;
  const std::string log = dir.File("bot.log");
  ASSERT_TRUE(WriteFileAtomically(log, "an earlier run's line\n").ok());
  {
    BotProcess bot(
        "talker", {"/bin/sh", "-c", "head -c 104857600 /dev/zero | tr '\\0' x"},
        {}, log, settings);
    const absl::Time start = absl::Now();
    ASSERT_TRUE(bot.Start().ok());
    EXPECT_EQ(AwaitExit(bot), "exit status 0");
    // A relay that blocked the bot would never end (AwaitExit gives up);
    // 30 s for a loaded machine (under ASan too), where 4 s was tight.
    EXPECT_LT(absl::Now() - start, absl::Seconds(30));
    bot.CloseLog();
  }
  const std::string text = Read(log);
  const std::string earlier = "an earlier run's line\n";
  ASSERT_EQ(text.substr(0, earlier.size()), earlier);
  EXPECT_EQ(text.substr(earlier.size(), 1 << 20), std::string(1 << 20, 'x'));
  EXPECT_EQ(text.substr(earlier.size() + (1 << 20)),
            "\ntournament: 103809024 more bytes of bot talker's output were "
            "dropped: its log keeps 1048576 bytes per run\n");
}

// The output of every run of the bot counts toward one cap.
TEST(BotProcessTest, ItsLogCapCoversEveryRunOfTheBot) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  BotSettings settings;
  settings.log_limit = 10;
  const std::string log = dir.File("bot.log");
  {
    BotProcess bot("thrice", {"/bin/echo", "1234"}, {}, log, settings);
    for (int run = 0; run < 3; ++run) {
      ASSERT_TRUE(bot.Start().ok());
      EXPECT_EQ(AwaitExit(bot), "exit status 0");
    }
  }
  EXPECT_EQ(Read(log),
            "1234\n1234\ntournament: 5 more bytes of bot thrice's output were "
            "dropped: its log keeps 10 bytes per run\n");
}

// Under the cap the log is the output alone.
TEST(BotProcessTest, ALogUnderItsCapIsTheOutputAlone) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  const std::string log = dir.File("bot.log");
  {
    BotProcess bot("quiet", {"/bin/echo", "hello"}, {}, log, {});
    ASSERT_TRUE(bot.Start().ok());
    EXPECT_EQ(AwaitExit(bot), "exit status 0");
  }
  EXPECT_EQ(Read(log), "hello\n");
}

// The descriptors of process `pid` (from /proc/PID/fd), sorted.
std::set<int> DescriptorsOf(pid_t pid) {
  std::set<int> fds;
  const std::string dir = absl::StrCat("/proc/", pid, "/fd");
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return fds;
  while (const dirent* entry = readdir(listing)) {
    int fd = 0;
    if (absl::SimpleAtoi(entry->d_name, &fd)) fds.insert(fd);
  }
  closedir(listing);
  return fds;
}

// A bot has standard input, output and error only: a descriptor of the
// runner's opened without O_CLOEXEC (as the match journal once was, read
// and written by every bot) does not reach it.
TEST(BotProcessTest, ABotInheritsNoDescriptorButItsStdio) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  const int leaked = open(dir.File("journal.jsonl").c_str(),
                          O_RDWR | O_CREAT | O_APPEND, 0644);
  ASSERT_GT(leaked, 2);
  ASSERT_EQ(fcntl(leaked, F_GETFD) & FD_CLOEXEC, 0);
  BotProcess bot("sleeper", {"/bin/sleep", "600"}, {}, dir.File("bot.log"), {});
  ASSERT_TRUE(bot.Start().ok());
  // The program may hold a file of its own a moment as it starts (sleep
  // reads its locale): waited out. One inherited would stay.
  std::set<int> fds = DescriptorsOf(bot.pid());
  for (int i = 0; i < 1000 && fds != std::set<int>{0, 1, 2}; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
    fds = DescriptorsOf(bot.pid());
  }
  EXPECT_EQ(fds, (std::set<int>{0, 1, 2}));
  EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
  close(leaked);
}

// A bot that starts a process in a session of its own (setsid) and ends:
// that process, its orphan, comes to a child subreaper, which kills it.
TEST(BotProcessTest, AChildSubreaperKillsTheOrphansABotLeaves) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(AdoptOrphans().ok());
  const std::string log = dir.File("bot.log");
  // It ends only once its orphan is in a session of its own (it has
  // written its pid): one still in the bot's process group when the bot
  // ends goes with the group (Exited), and would be no orphan.
  const std::string mark = dir.File("orphan.pid");
  BotProcess bot("leaver",
                 {"/bin/sh", "-c",
                  absl::StrCat("setsid /bin/sh -c 'echo $$ > ", mark,
                               "; exec sleep 600' & while [ ! -s ", mark,
                               " ]; do sleep 0.01; done; cat ", mark)},
                 {}, log, {});
  ASSERT_TRUE(bot.Start().ok());
  EXPECT_EQ(AwaitExit(bot), "exit status 0");
  int orphan = 0;
  for (int i = 0;
       i < 200 &&
       !absl::SimpleAtoi(absl::StripAsciiWhitespace(Read(log)), &orphan);
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_GT(orphan, 0);
  ASSERT_TRUE(Exists(orphan)) << "it left no process: nothing to test";
  EXPECT_EQ(ParentOf(orphan), getpid());  // Its parent, sh, has ended.
  const OrphanSweep sweep = KillOrphans({});
  EXPECT_EQ(sweep.killed, 1);
  EXPECT_EQ(sweep.left, std::vector<pid_t>());
  EXPECT_FALSE(Exists(orphan));  // Killed and reaped.
  EXPECT_EQ(KillOrphans({}).killed, 0);
}

// As root: a bot with BotSettings::uid runs as that uid and gid with no
// other group and no new privileges, reads its own token (its uid's, mode
// 0400) and not another's, cannot list the tokens directory (0711), and
// leaves no process of its uid behind when stopped, not even one in a
// session of its own. A program its uid may not run is refused by Start.
TEST(BotProcessTest, ABotRunAsItsOwnUidReadsOnlyItsOwnToken) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
  // Uids no one uses, different for tests run at the same time.
  const uid_t uid = 3000000 + static_cast<uid_t>(getpid() % 100000) * 2;
  const std::string tokens = dir.File("tokens");
  ASSERT_EQ(mkdir(tokens.c_str(), 0711), 0);
  const std::string own = tokens + "/own.token";
  const std::string other = tokens + "/other.token";
  for (const auto& [file, owner] : {std::pair{own, uid}, {other, uid + 1}}) {
    ASSERT_TRUE(
        WriteSecretFile(file, "secret-of-" + std::to_string(owner) + "\n")
            .ok());
    ASSERT_EQ(chown(file.c_str(), owner, owner), 0);
    ASSERT_EQ(chmod(file.c_str(), 0400), 0);
  }
  BotSettings settings;
  settings.uid = uid;
  const std::string log = dir.File("bot.log");
  BotProcess bot(
      "confined",
      {"/bin/sh", "-c",
       absl::StrCat("echo uid=$(id -u) gid=$(id -g) groups=$(id -G); "
                    "grep NoNewPrivs /proc/self/status; cat ",
                    own, "; cat ", other, " || echo other-refused; ls ", tokens,
                    " || echo unlisted; setsid sleep 600 & echo left=$!; "
                    "echo ready; exec sleep 600")},
      {}, log, settings);
  ASSERT_TRUE(bot.Start().ok());
  for (int i = 0; i < 500 && Read(log).find("ready") == std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  const std::string text = Read(log);
  EXPECT_NE(
      text.find(absl::StrCat("uid=", uid, " gid=", uid, " groups=", uid, "\n")),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("NoNewPrivs:\t1"), std::string::npos) << text;
  EXPECT_NE(text.find(absl::StrCat("secret-of-", uid, "\n")), std::string::npos)
      << text;
  EXPECT_EQ(text.find(absl::StrCat("secret-of-", uid + 1)), std::string::npos)
      << text;
  EXPECT_NE(text.find("other-refused"), std::string::npos) << text;
  EXPECT_NE(text.find("unlisted"), std::string::npos) << text;
  EXPECT_EQ(UidOf(bot.pid()), uid);
  // Its uid may have kDefaultBotProcessLimit processes at once.
  const std::string limits = Read(absl::StrCat("/proc/", bot.pid(), "/limits"));
  const size_t nproc = limits.find("Max processes");
  ASSERT_NE(nproc, std::string::npos) << limits;
  const std::vector<std::string> words =
      absl::StrSplit(limits.substr(nproc, limits.find('\n', nproc) - nproc),
                     ' ', absl::SkipEmpty());
  EXPECT_EQ(words, (std::vector<std::string>{"Max", "processes", "256", "256",
                                             "processes"}));
  // And kDefaultBotOpenFileLimit open files, soft and hard.
  EXPECT_EQ(LimitLine(bot.pid(), "Max open files"),
            (std::vector<std::string>{"Max", "open", "files", "1024", "1024",
                                      "files"}));
  int left = 0;
  const size_t at = text.find("left=");
  ASSERT_NE(at, std::string::npos) << text;
  ASSERT_TRUE(absl::SimpleAtoi(
      text.substr(at + 5, text.find('\n', at) - at - 5), &left));
  ASSERT_EQ(UidOf(left), uid);
  EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
  // Its parent was the bot's shell, not this process: someone else (init)
  // reaps it, so it may linger a moment as a zombie.
  for (int i = 0; i < 200 && UidOf(left) == uid &&
                  Read(absl::StrCat("/proc/", left, "/stat")).find(") Z") ==
                      std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  const std::string stat = Read(absl::StrCat("/proc/", left, "/stat"));
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos ||
              UidOf(left) != uid)
      << "the setsid'd process of its uid outlived it: " << stat;

  // A program that uid may not run.
  const std::string mine = dir.File("mine.sh");
  ASSERT_TRUE(WriteFileAtomically(mine, "#!/bin/sh\nexit 0\n").ok());
  ASSERT_EQ(chmod(mine.c_str(), 0700), 0);
  BotProcess refused("refused", {mine}, {}, dir.File("refused.log"), settings);
  const absl::Status started = refused.Start();
  EXPECT_EQ(started.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(started.message(),
            absl::StrCat("cannot run ", mine, " as uid ", uid,
                         " (--bot_uids): Permission denied"));
}

// As root, under a hard open-file limit below BotSettings::open_file_limit
// (which root without CAP_SYS_RESOURCE, as in a container, cannot raise):
// the bot with a uid starts with that hard limit, soft and hard, instead of
// failing to start with EPERM.
TEST(BotProcessTest, ABotRunAsItsOwnUidGetsAtMostTheRunnersHardLimit) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  const uid_t uid = 3000000 + static_cast<uid_t>(getpid() % 100000) * 2;
  const std::string log = dir.File("bot.log");
  // In a child: the lowered hard limit would stay with this process.
  ForkedChild child([&](int report) {
    const rlimit low = {512, 512};
    if (setrlimit(RLIMIT_NOFILE, &low) != 0) _exit(10);
    BotSettings settings;
    settings.uid = uid;
    BotProcess bot("low", {"/bin/sh", "-c", "echo ready; exec sleep 600"}, {},
                   log, settings);
    const absl::Status started = bot.Start();
    std::string said = started.ok() ? "" : started.ToString();
    for (int i = 0; started.ok() && i < 500 &&
                    Read(log).find("ready") == std::string::npos;
         ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    if (started.ok()) {
      said = absl::StrJoin(LimitLine(bot.pid(), "Max open files"), " ");
      if (!bot.Stop(/*grace_ms=*/0).ok()) said += " (not stopped)";
    }
    [[maybe_unused]] ssize_t written = write(report, said.data(), said.size());
  });
  ASSERT_TRUE(child.ok()) << std::strerror(errno);
  EXPECT_EQ(child.ReadToEnd(), "Max open files 512 512 files");
  EXPECT_EQ(child.Wait().exit_code, 0);
}

// The processes of real uid `uid` that run (zombies do not).
std::vector<pid_t> RunningOf(uid_t uid) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid) || UidOf(pid) != uid) continue;
    if (Read(absl::StrCat("/proc/", pid, "/stat")).find(") Z") ==
        std::string::npos) {
      pids.push_back(pid);
    }
  }
  closedir(proc);
  return pids;
}

// As root: a process of the uid that stops, or kills, every process it may
// signal, again and again (kill(-1, SIGSTOP), kill(-1, SIGKILL)), neither
// stops KillProcessesOf nor escapes it: it returns OK and nothing of the
// uid runs. (It once swept from a helper that took on the uid: the first
// stopped the helper, and the runner waiting for it, for good; the second
// killed it before its sweep, unnoticed.)
TEST(BotProcessTest, KillProcessesOfOutlastsProcessesThatSignalEveryone) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
  const uid_t uid = 3200000 + static_cast<uid_t>(getpid() % 100000);
  for (const std::string signal : {"STOP", "KILL"}) {
    SCOPED_TRACE(signal);
    BotSettings settings;
    settings.uid = uid;
    const std::string log = dir.File(signal + ".log");
    BotProcess bot(
        "hostile",
        {"/bin/sh", "-c",
         absl::StrCat("setsid sleep 600 & setsid sh -c 'echo looping; while "
                      ":; do kill -",
                      signal, " -1; done' & exec sleep 600")},
        {}, log, settings);
    ASSERT_TRUE(bot.Start().ok());
    for (int i = 0; i < 500 && Read(log).find("looping") == std::string::npos;
         ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_NE(Read(log).find("looping"), std::string::npos);
    absl::SleepFor(absl::Milliseconds(100));  // It loops.
    ASSERT_FALSE(RunningOf(uid).empty());
    const absl::Time start = absl::Now();
    EXPECT_TRUE(KillProcessesOf(uid).ok());
    EXPECT_LT(absl::Now() - start, absl::Seconds(5));
    EXPECT_EQ(RunningOf(uid), std::vector<pid_t>());
    EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
  }
}

// No bot is given the admin token or a token of someone else's from the
// runner's environment; a bot run as a uid of its own is given only the
// variables a program commonly needs, none that may hold a secret. The
// overrides (its own token file, the referee) are set either way.
TEST(BotProcessTest, ABotIsGivenNoSecretOfTheRunnersEnvironment) {
  std::vector<std::string> runner = {
      "PATH=/usr/bin:/bin",      "HOME=/root",
      "LC_ALL=C.UTF-8",          "PYRAMID_ADMIN_TOKEN=admin-secret",
      "PYRAMID_TOKEN=bot-token", "AWS_SECRET_ACCESS_KEY=cloud-secret",
      "PYRAMID_REFEREE=stale",   "NOT_A_VARIABLE"};
  std::vector<char*> runner_env;
  for (std::string& entry : runner) runner_env.push_back(entry.data());
  runner_env.push_back(nullptr);
  const std::map<std::string, std::string> overrides = {
      {"PYRAMID_REFEREE", "127.0.0.1:9"},
      {"PYRAMID_TOKEN_FILE", "/out/tokens/a.token"}};
  EXPECT_EQ(
      BotEnvironment(runner_env.data(), overrides, /*confined=*/false),
      (std::vector<std::string>{
          "AWS_SECRET_ACCESS_KEY=cloud-secret", "HOME=/root", "LC_ALL=C.UTF-8",
          "PATH=/usr/bin:/bin", "PYRAMID_REFEREE=127.0.0.1:9",
          "PYRAMID_TOKEN_FILE=/out/tokens/a.token"}));
  EXPECT_EQ(BotEnvironment(runner_env.data(), overrides, /*confined=*/true),
            (std::vector<std::string>{
                "HOME=/root", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin",
                "PYRAMID_REFEREE=127.0.0.1:9",
                "PYRAMID_TOKEN_FILE=/out/tokens/a.token"}));
}

// And a bot started so has that environment: the runner's admin token is
// not in it.
TEST(BotProcessTest, ABotStartedHasNoAdminTokenInItsEnvironment) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(setenv("PYRAMID_ADMIN_TOKEN", "admin-secret", 1), 0);
  const std::string log = dir.File("bot.log");
  BotProcess bot("plain",
                 {"/bin/sh", "-c",
                  "echo admin=${PYRAMID_ADMIN_TOKEN:-none} "
                  "referee=$PYRAMID_REFEREE; echo ready; exec sleep 600"},
                 {{"PYRAMID_REFEREE", "127.0.0.1:9"}}, log, {});
  const absl::Status started = bot.Start();
  unsetenv("PYRAMID_ADMIN_TOKEN");
  ASSERT_TRUE(started.ok()) << started;
  for (int i = 0; i < 500 && Read(log).find("ready") == std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_NE(Read(log).find("admin=none referee=127.0.0.1:9\n"),
            std::string::npos)
      << Read(log);
  EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
}

// The words of the "Max open files" line of a bot started without a uid
// with BotSettings::soft_open_file_limit `requested`, this process's soft
// limit being `soft_now` while it starts (then restored); none when it did
// not start.
std::vector<std::string> OpenFileLimitOfABot(rlim_t requested,
                                             rlim_t soft_now) {
  const TempDir dir("botproc");
  rlimit before;
  if (!dir.ok() || getrlimit(RLIMIT_NOFILE, &before) != 0) return {};
  rlimit changed = before;
  changed.rlim_cur = soft_now;
  if (setrlimit(RLIMIT_NOFILE, &changed) != 0) return {};
  const std::string log = dir.File("bot.log");
  BotSettings settings;
  settings.soft_open_file_limit = requested;
  BotProcess bot("plain", {"/bin/sh", "-c", "echo ready; exec sleep 600"}, {},
                 log, settings);
  const absl::Status started = bot.Start();
  if (setrlimit(RLIMIT_NOFILE, &before) != 0 || !started.ok()) {
    ADD_FAILURE() << started;
    return {};
  }
  for (int i = 0; i < 500 && Read(log).find("ready") == std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  std::vector<std::string> line = LimitLine(bot.pid(), "Max open files");
  EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
  return line;
}

// A limit as /proc/PID/limits writes it.
std::string LimitText(rlim_t limit) {
  return limit == RLIM_INFINITY ? "unlimited" : absl::StrCat(limit);
}

// Without a uid, a bot starts with the soft open-file limit it is given
// (the tournament's, from before its accept guard raised it), whatever this
// process's soft limit is now, and this process's hard limit; one above
// the hard limit is the hard limit.
TEST(BotProcessTest, ABotHasTheOpenFileLimitTheRunnerStartedWith) {
  rlimit now;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &now), 0);
  const std::string hard = LimitText(now.rlim_max);
  // Below this process's soft limit, which stays as it is; then below the
  // raised one, as the accept guard leaves it.
  const rlim_t requested = now.rlim_cur / 2;
  ASSERT_GT(requested, 0u);
  EXPECT_EQ(OpenFileLimitOfABot(requested, now.rlim_cur),
            (std::vector<std::string>{"Max", "open", "files",
                                      LimitText(requested), hard, "files"}));
  EXPECT_EQ(OpenFileLimitOfABot(requested, now.rlim_max),
            (std::vector<std::string>{"Max", "open", "files",
                                      LimitText(requested), hard, "files"}));
  if (now.rlim_max != RLIM_INFINITY) {
    EXPECT_EQ(OpenFileLimitOfABot(now.rlim_max + 1, requested),
              (std::vector<std::string>{"Max", "open", "files", hard, hard,
                                        "files"}));
  }
}

// Without a uid and without a soft open-file limit given, a bot starts
// with this process's soft limit as it starts, and its hard limit.
TEST(BotProcessTest, ABotGivenNoOpenFileLimitHasTheRunnersCurrentOne) {
  rlimit now;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &now), 0);
  const rlim_t lowered = now.rlim_cur / 2;
  ASSERT_GT(lowered, 0u);
  EXPECT_EQ(
      OpenFileLimitOfABot(0, lowered),
      (std::vector<std::string>{"Max", "open", "files", LimitText(lowered),
                                LimitText(now.rlim_max), "files"}));
}

// The System V IPC objects (table "shm", "msg" or "sem") whose uid or
// creator uid is `uid`, as "TABLE ID".
std::vector<std::string> IpcOf(uid_t uid, const std::string& table) {
  std::vector<std::string> found;
  const std::vector<std::string> lines =
      absl::StrSplit(Read("/proc/sysvipc/" + table), '\n', absl::SkipEmpty());
  if (lines.empty()) return found;
  const std::vector<std::string> header =
      absl::StrSplit(lines[0], ' ', absl::SkipEmpty());
  const auto uid_at = std::find(header.begin(), header.end(), "uid");
  const auto cuid_at = std::find(header.begin(), header.end(), "cuid");
  if (uid_at == header.end() || cuid_at == header.end()) return found;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields =
        absl::StrSplit(lines[i], ' ', absl::SkipEmpty());
    if (fields.size() < header.size()) continue;
    const std::string want = absl::StrCat(uid);
    if (fields[uid_at - header.begin()] == want ||
        fields[cuid_at - header.begin()] == want) {
      found.push_back(table + " " + fields[1]);
    }
  }
  return found;
}

// As root: the System V IPC objects a bot's uid made (created as it) or
// owns (given to it) are removed when its processes are killed; those of
// other users are left.
TEST(BotProcessTest, KillProcessesOfRemovesTheSysVIpcObjectsOfTheUid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  if (!FindProgram("ipcmk").ok()) GTEST_SKIP() << "needs ipcmk";
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
  const uid_t uid = 3400000 + static_cast<uid_t>(getpid() % 100000);
  // Made by the bot, which leaves them behind.
  BotSettings settings;
  settings.uid = uid;
  const std::string log = dir.File("bot.log");
  BotProcess bot("hoarder",
                 {"/bin/sh", "-c",
                  "ipcmk -M 1048576 && ipcmk -Q && ipcmk -S 1 && echo ready; "
                  "exec sleep 600"},
                 {}, log, settings);
  ASSERT_TRUE(bot.Start().ok());
  for (int i = 0; i < 500 && Read(log).find("ready") == std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_NE(Read(log).find("ready"), std::string::npos) << Read(log);
  // And root's, one given to the uid (after Start, whose sweep would
  // remove it) and one kept.
  const int given = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  const int kept = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  const int queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  ASSERT_GE(given, 0);
  ASSERT_GE(kept, 0);
  ASSERT_GE(queue, 0);
  shmid_ds shm;
  ASSERT_EQ(shmctl(given, IPC_STAT, &shm), 0);
  shm.shm_perm.uid = uid;
  ASSERT_EQ(shmctl(given, IPC_SET, &shm), 0);
  msqid_ds msg;
  ASSERT_EQ(msgctl(queue, IPC_STAT, &msg), 0);
  msg.msg_perm.uid = uid;
  ASSERT_EQ(msgctl(queue, IPC_SET, &msg), 0);
  EXPECT_EQ(IpcOf(uid, "shm").size(), 2u);
  EXPECT_EQ(IpcOf(uid, "msg").size(), 2u);
  EXPECT_EQ(IpcOf(uid, "sem").size(), 1u);
  EXPECT_TRUE(bot.Stop(/*grace_ms=*/0).ok());
  EXPECT_EQ(IpcOf(uid, "shm"), std::vector<std::string>());
  EXPECT_EQ(IpcOf(uid, "msg"), std::vector<std::string>());
  EXPECT_EQ(IpcOf(uid, "sem"), std::vector<std::string>());
  EXPECT_EQ(shmctl(kept, IPC_STAT, &shm), 0);  // Root's: still there.
  shmctl(kept, IPC_RMID, nullptr);
  shmctl(given, IPC_RMID, nullptr);
  msgctl(queue, IPC_RMID, nullptr);
}

// Refused for uid 0 and this process's own.
TEST(BotProcessTest, KillProcessesOfRefusesRootAndItself) {
  EXPECT_EQ(KillProcessesOf(0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(KillProcessesOf(geteuid()).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pyramid
