#include "referee/cli/library_log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/stubs/logging.h"
#include "grpc/support/log.h"

namespace pyramid {

void LineBudget::StartWindowIfDue(absl::Time now) {
  if (now - window_start_ >= window_) {
    window_start_ = now;
    used_ = 0;
  }
}

bool LineBudget::Allow(absl::Time now, int64_t* held_back) {
  StartWindowIfDue(now);
  if (used_ >= lines_) {
    ++held_back_;
    return false;
  }
  ++used_;
  *held_back = TakeHeldBack();
  return true;
}

int64_t LineBudget::Force(absl::Time now) {
  StartWindowIfDue(now);
  if (used_ < lines_) ++used_;
  return TakeHeldBack();
}

int64_t LineBudget::TakeHeldBack() {
  const int64_t held_back = held_back_;
  held_back_ = 0;
  return held_back;
}

namespace {

// Each library's places (file, line), each with its budget.
class Places {
 public:
  explicit Places(const char* library) : library_(library) {}

  // Whether a message of `file`:`line` may be written now (always if
  // `always`: one before the program aborts, never held back); if so,
  // first writes the line saying how many of its messages were held back.
  bool Allow(const char* file, int line, bool always)
      ABSL_LOCKS_EXCLUDED(mutex_) {
    int64_t held_back = 0;
    absl::MutexLock lock(&mutex_);
    auto [place, added] =
        budgets_.try_emplace(std::make_pair(std::string(file), line),
                             kLibraryLogLines, kLibraryLogWindow);
    LineBudget& budget = place->second;
    if (always) {
      held_back = budget.Force(absl::Now());
    } else if (!budget.Allow(absl::Now(), &held_back)) {
      return false;
    }
    SayHeldBack(place->first, held_back);
    return true;
  }

  void Flush() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    for (auto& [place, budget] : budgets_) {
      SayHeldBack(place, budget.TakeHeldBack());
    }
    fflush(stderr);
  }

 private:
  void SayHeldBack(const std::pair<std::string, int>& place,
                   int64_t held_back) const {
    if (held_back == 0) return;
    fprintf(stderr,
            "[%s] %lld more messages from %s:%d suppressed (at most %d per "
            "%lld s from one place)\n",
            library_, static_cast<long long>(held_back), place.first.c_str(),
            place.second, kLibraryLogLines,
            static_cast<long long>(absl::ToInt64Seconds(kLibraryLogWindow)));
  }

  const char* const library_;
  absl::Mutex mutex_;
  absl::flat_hash_map<std::pair<std::string, int>, LineBudget> budgets_
      ABSL_GUARDED_BY(mutex_);
};

Places& ProtobufPlaces() {
  static Places* places = new Places("libprotobuf");
  return *places;
}

Places& GrpcPlaces() {
  static Places* places = new Places("grpc");
  return *places;
}

void ProtobufLogHandler(google::protobuf::LogLevel level, const char* filename,
                        int line, const std::string& message) {
  static constexpr const char* kLevelNames[] = {"INFO", "WARNING", "ERROR",
                                                "FATAL"};
  const bool fatal = level >= google::protobuf::LOGLEVEL_FATAL;
  if (!ProtobufPlaces().Allow(filename, line, /*always=*/fatal)) return;
  // protobuf's own format (its DefaultLogHandler).
  fprintf(stderr, "[libprotobuf %s %s:%d] %s\n",
          kLevelNames[level < 0   ? 0
                      : level > 3 ? 3
                                  : level],
          filename, line, message.c_str());
  fflush(stderr);
}

void GrpcLogHandler(gpr_log_func_args* args) {
  if (!GrpcPlaces().Allow(args->file, args->line, /*always=*/false)) return;
  // gRPC's own format (gpr_default_log): "E1130 07:39:43.142364580   16681
  // file.cc:1501]" padded to 60 columns, then the message.
  std::string file = args->file;
  file.erase(0, file.find_last_of('/') + 1);
  const std::string prefix = absl::StrCat(
      gpr_log_severity_string(args->severity),
      absl::FormatTime("%m%d %H:%M:%E9S", absl::Now(), absl::LocalTimeZone()),
      " ", absl::StrFormat("%7ld", syscall(SYS_gettid)), " ", file, ":",
      args->line, "]");
  fprintf(stderr, "%-60s %s\n", prefix.c_str(), args->message);
  fflush(stderr);
}

}  // namespace

void LimitLibraryLogs() {
  google::protobuf::SetLogHandler(&ProtobufLogHandler);
  gpr_set_log_function(&GrpcLogHandler);
}

void FlushLibraryLogs() {
  ProtobufPlaces().Flush();
  GrpcPlaces().Flush();
}

}  // namespace pyramid
