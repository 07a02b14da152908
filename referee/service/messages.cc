#include "referee/service/messages.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "referee/files/line_budget.h"
#include "referee/files/stderr_line.h"

namespace pyramid {
namespace {

// Messages stderr did not take at once, not yet said.
std::atomic<int64_t> unwritten{0};

// Says the count of messages not written, if any, waiting as `wait` says:
// whether it was said (or there was none to say).
bool SayUnwritten(StderrWait wait) {
  const int64_t count = unwritten.exchange(0);
  if (count == 0) return true;
  if (WriteStderrLine(absl::StrCat("referee: ", count,
                                   count == 1 ? " message" : " messages",
                                   " not written: stderr did not take ",
                                   count == 1 ? "it" : "them", " at once\n"),
                      wait)) {
    return true;
  }
  unwritten += count;
  return false;
}

}  // namespace

void Say(const MessageSink& sink, std::string_view message) {
  if (sink) {
    sink(message);
    return;
  }
  // kIfNeeded: a stderr that /proc cannot open again (another user's pipe
  // or terminal) is written as before, waiting if it must, rather than
  // every message lost.
  if (!SayUnwritten(StderrWait::kIfNeeded)) {
    ++unwritten;
    return;
  }
  // One write, not one per part: two threads' lines do not interleave.
  std::string line = "referee: ";
  line.append(message);
  line.push_back('\n');
  if (!WriteStderrLine(line, StderrWait::kIfNeeded)) {
    ++unwritten;
  }
}

void FlushMessages() { SayUnwritten(StderrWait::kIfNeeded); }

MessageSink LimitedSink(MessageSink sink, int lines, absl::Duration window) {
  struct Budget {
    explicit Budget(int lines, absl::Duration window) : lines(lines, window) {}
    absl::Mutex mu;
    LineBudget lines ABSL_GUARDED_BY(mu);
  };
  auto budget = std::make_shared<Budget>(lines, window);
  return [sink = std::move(sink), budget, lines,
          window](std::string_view message) {
    int64_t held_back = 0;
    {
      absl::MutexLock lock(&budget->mu);
      if (!budget->lines.Allow(absl::Now(), &held_back)) return;
    }
    if (held_back > 0) {
      Say(sink, absl::StrCat(held_back, " more such ",
                             held_back == 1 ? "message" : "messages",
                             " not said (at most ", lines, " per ",
                             absl::FormatDuration(window), ")"));
    }
    Say(sink, message);
  };
}

}  // namespace pyramid
