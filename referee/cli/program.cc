#include "referee/cli/program.h"

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "referee/cli/allocator.h"
#include "referee/core/log_format.h"

namespace pyramid {
namespace {

// Our flags, not Abseil's own: the flags defined outside Abseil's sources.
bool OursFile(absl::string_view file) {
  return !absl::StrContains(file, "absl/");
}

// Abseil's own flags whose values it reads its own way (--help=SUBSTRING,
// --flagfile, ...): left to its parser.
bool AbseilsOwn(absl::string_view name) {
  for (absl::string_view own :
       {"help", "helpfull", "helpshort", "helppackage", "helpon", "helpmatch",
        "version", "only_check_args", "flagfile", "fromenv", "tryfromenv",
        "undefok"}) {
    if (name == own) return true;
  }
  return false;
}

// Checks every flag on the command line before Abseil's parser does, which
// exits 1 on a mistake: an unknown flag, or a value its type does not take,
// is a usage error here, status 2, as for every program's own checks.
void CheckFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") return;  // The rest are positional.
    if (arg.size() < 2 || arg[0] != '-') continue;
    absl::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<absl::string_view> value;
    if (const size_t equals = name.find('='); equals != name.npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    if (AbseilsOwn(name)) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no") && !value) {
      // --noNAME: a boolean flag set false.
      absl::CommandLineFlag* negated =
          absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) continue;
    }
    if (flag == nullptr || flag->IsRetired()) {
      UsageError(argv[0], absl::StrCat("unknown flag --", name));
    }
    if (!value) {
      if (flag->IsOfType<bool>()) continue;
      if (i + 1 == argc) {
        UsageError(argv[0], absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    // Parsed into the flag now, and again by Abseil's parser after.
    if (std::string error; !flag->ParseFrom(*value, &error)) {
      UsageError(argv[0], absl::StrCat("--", name, ": ", error));
    }
    // A text flag with a default (a path, an address, a game) names
    // nothing when empty: as a value left out, not a file "" to create.
    if (value->empty() && flag->IsOfType<std::string>() &&
        !flag->DefaultValue().empty()) {
      UsageError(argv[0], absl::StrCat("--", name, " needs a value (default ",
                                       flag->DefaultValue(), ")"));
    }
  }
}

}  // namespace

std::string VersionLine(std::string_view program) {
#ifdef NDEBUG
  constexpr const char* kBuild = "optimized build";
#else
  constexpr const char* kBuild = "debug build";
#endif
  // clang says __has_feature(address_sanitizer), GCC __SANITIZE_ADDRESS__.
  bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__)
  sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  sanitized = true;
#endif
#endif
  return absl::StrCat(std::string(program),
                      " (Pyramid referee): log format version ",
                      log_format::kFormatVersion, "; ", kBuild,
                      sanitized ? " with AddressSanitizer" : "", ", ",
                      std::string(AllocatorName()), "\n");
}

std::vector<char*> InitProgram(int argc, char** argv, const char* usage) {
  TuneAllocator();
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::FlagsUsageConfig config;
  config.contains_help_flags = OursFile;
  config.contains_helpshort_flags = OursFile;
  // Abseil's own said "Debug build (NDEBUG not #defined)" of every build
  // (the system Abseil's).
  const std::string program = std::filesystem::path(argv[0]).filename();
  config.version_string = [program] { return VersionLine(program); };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  CheckFlags(argc, argv);
  std::vector<char*> positional = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage,
      absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  // --help and its kind: the usage was asked for, printed, and that is a
  // success (Abseil's own handling exits 1).
  if (absl::flags_internal::HandleUsageFlags(
          std::cout, absl::ProgramUsageMessage()) != -1) {
    std::exit(0);
  }
  return positional;
}

void UsageError(std::string_view program, std::string_view message) {
  std::string name(program);
  name.erase(0, name.find_last_of('/') + 1);
  std::cerr << name << ": " << message << " (see " << name << " --help)\n";
  std::exit(2);
}

void InitFlagsOnlyProgram(int argc, char** argv, const char* usage) {
  const std::vector<char*> rest = InitProgram(argc, argv, usage);
  if (rest.size() <= 1) return;
  // "PROGRAM: ...", as its other usage errors (it once said "PROGRAM takes
  // ...", the one line without the colon).
  UsageError(rest[0], absl::StrCat("takes no positional arguments (got \"",
                                   rest[1], "\")"));
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
