#include "referee/cli/program.h"

#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "referee/cli/allocator.h"

namespace pyramid {
namespace {

// Our flags, not Abseil's own: the flags defined outside Abseil's sources.
bool OursFile(absl::string_view file) {
  return !absl::StrContains(file, "absl/");
}

}  // namespace

std::vector<char*> InitProgram(int argc, char** argv, const char* usage) {
  TuneAllocator();
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::FlagsUsageConfig config;
  config.contains_help_flags = OursFile;
  config.contains_helpshort_flags = OursFile;
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  return absl::ParseCommandLine(argc, argv);
}

void InitFlagsOnlyProgram(int argc, char** argv, const char* usage) {
  const std::vector<char*> rest = InitProgram(argc, argv, usage);
  if (rest.size() <= 1) return;
  std::string name = rest[0];
  name.erase(0, name.find_last_of('/') + 1);
  std::cerr << name << " takes no positional arguments (got \"" << rest[1]
            << "\")\n";
  std::exit(2);
}

void RaiseFileLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace pyramid
