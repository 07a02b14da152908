#include "referee/cli/library_log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/stubs/logging.h"
#include "grpc/support/log.h"
#include "referee/files/stderr_line.h"

namespace pyramid {

namespace {

// Each library's places (file, line), each with its budget.
class Places {
 public:
  explicit Places(const char* library) : library_(library) {}

  // Writes `text`, a message of `file`:`line` (one line), if the place's
  // budget allows it now (always if `always`: one before the program
  // aborts, never held back), after the count of the place's messages held
  // back since its last line. Without waiting for stderr (WriteStderrLine;
  // a message of `always` waits where it must): what stderr does not take
  // at once is counted as held back, said with the place's next line.
  void Write(const char* file, int line, bool always, std::string_view text)
      ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    auto [place, added] =
        budgets_.try_emplace(std::make_pair(std::string(file), line),
                             kLibraryLogLines, kLibraryLogWindow);
    LineBudget& budget = place->second;
    int64_t held_back = 0;
    if (always) {
      held_back = budget.Force(absl::Now());
    } else if (!budget.Allow(absl::Now(), &held_back)) {
      return;
    }
    const StderrWait wait = always ? StderrWait::kIfNeeded : StderrWait::kNever;
    if (!SayHeldBack(place->first, held_back, wait)) {
      budget.HoldBack(held_back);
      // A message before an abort is tried whatever became of the count.
      if (!always) {
        budget.HoldBack(1);
        return;
      }
    }
    if (!WriteStderrLine(text, wait) && !always) budget.HoldBack(1);
  }

  void Flush() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    for (auto& [place, budget] : budgets_) {
      const int64_t held_back = budget.TakeHeldBack();
      if (!SayHeldBack(place, held_back, StderrWait::kIfNeeded)) {
        budget.HoldBack(held_back);
      }
    }
  }

 private:
  // Says the count of `place`'s messages held back, if any: whether it was
  // said (or there was none to say).
  bool SayHeldBack(const std::pair<std::string, int>& place, int64_t held_back,
                   StderrWait wait) const {
    if (held_back == 0) return true;
    return WriteStderrLine(
        absl::StrFormat("[%s] %d more messages from %s:%d suppressed (at most "
                        "%d per %d s from one place, and those stderr did "
                        "not take at once)\n",
                        library_, held_back, place.first, place.second,
                        kLibraryLogLines,
                        absl::ToInt64Seconds(kLibraryLogWindow)),
        wait);
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
  // protobuf's own format (its DefaultLogHandler).
  ProtobufPlaces().Write(
      filename, line, /*always=*/level >= google::protobuf::LOGLEVEL_FATAL,
      absl::StrCat("[libprotobuf ",
                   kLevelNames[level < 0   ? 0
                               : level > 3 ? 3
                                           : level],
                   " ", filename, ":", line, "] ", message, "\n"));
}

void GrpcLogHandler(gpr_log_func_args* args) {
  // gRPC's own format (gpr_default_log): "E1130 07:39:43.142364580   16681
  // file.cc:1501]" padded to 60 columns, then the message.
  std::string file = args->file;
  file.erase(0, file.find_last_of('/') + 1);
  const std::string prefix = absl::StrCat(
      gpr_log_severity_string(args->severity),
      absl::FormatTime("%m%d %H:%M:%E9S", absl::Now(), absl::LocalTimeZone()),
      " ", absl::StrFormat("%7ld", syscall(SYS_gettid)), " ", file, ":",
      args->line, "]");
  GrpcPlaces().Write(args->file, args->line, /*always=*/false,
                     absl::StrFormat("%-60s %s\n", prefix, args->message));
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
