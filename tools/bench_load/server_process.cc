#include "tools/bench_load/server_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pyramid::bench_load {
namespace {

using Clock = std::chrono::steady_clock;

// Raises `peak` to `value` when it is larger (other threads read it).
void Max(std::atomic<int64_t>& peak, int64_t value) {
  int64_t old = peak.load();
  while (value > old && !peak.compare_exchange_weak(old, value)) {
  }
}

}  // namespace

ProcStatus ReadStatus(pid_t pid) {
  ProcStatus status;
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      status.rss_kib = std::strtoll(line.c_str() + 6, nullptr, 10);
    } else if (line.rfind("VmHWM:", 0) == 0) {
      status.hwm_kib = std::strtoll(line.c_str() + 6, nullptr, 10);
    }
  }
  return status;
}

double CpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {  // Field 3 is the state.
    if (i == 14 || i == 15) ticks += std::strtod(field.c_str(), nullptr);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double SelfCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

absl::StatusOr<int> ServerProcess::Start(const ServeOptions& options,
                                         const std::string& admin_token) {
  dir_ = options.dir;
  std::vector<std::string> args = options.Args();
  args.insert(args.begin(), "bench_load");
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  setenv(kAdminTokenEnv, admin_token.c_str(), 1);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) return absl::InternalError("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // Never outlive the benchmark.
    if (getppid() != parent) _exit(1);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  unsetenv(kAdminTokenEnv);
  const std::filesystem::path port_file = std::filesystem::path(dir_) / "port";
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < give_up) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError("the server process exited at start");
    }
    std::ifstream in(port_file);
    int port = 0;
    if (in >> port && port > 0) return port;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return absl::DeadlineExceededError("the server did not start in 20 s");
}

absl::StatusOr<int> ServerProcess::Attach(const std::string& dir, pid_t pid) {
  dir_ = dir;
  attached_pid_ = pid;
  std::ifstream in(std::filesystem::path(dir) / "port");
  int port = 0;
  if (in >> port && port > 0) return port;
  return absl::NotFoundError("no port file in --attach_dir");
}

ServerProcess::Report ServerProcess::Ask() {
  std::lock_guard<std::mutex> lock(heap_mu_);
  const std::filesystem::path file = std::filesystem::path(dir_) / "heap";
  std::error_code ignored;
  std::filesystem::remove(file, ignored);
  kill(pid(), SIGUSR1);
  const auto give_up = Clock::now() + std::chrono::seconds(1);
  Report report;
  while (Clock::now() < give_up) {
    std::ifstream in(file);
    if (in >> report.heap_kib >> report.arena_kib >> report.lateness_count >>
        report.lateness_max_us >> report.lateness_p99_us >> report.syncs >>
        report.sync_wait_p99_us >> report.sync_wait_max_us >>
        report.sync_p99_us >> report.sync_max_us >> report.syncs_max_queued >>
        report.journal_commits >> report.journal_syncs >>
        report.journal_largest_group) {
      report.heap_kib /= 1024;
      report.arena_kib /= 1024;
      return report;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Report();
}

bool ServerProcess::Alive() {
  if (attached_pid_ > 0) return kill(attached_pid_, 0) == 0;
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == 0) return true;
  pid_ = -1;
  return false;
}

void ServerProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto give_up = Clock::now() + std::chrono::seconds(3);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (Clock::now() > give_up) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

void RssSampler::Loop() {
  auto next_heap = Clock::now();
  while (!stop_) {
    Max(peak_, ReadStatus(pid_).rss_kib);
    if (Clock::now() >= next_heap) {
      Max(peak_heap_, heap_kib_());
      next_heap = Clock::now() + std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace pyramid::bench_load
