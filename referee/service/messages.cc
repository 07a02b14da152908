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

namespace {

// LimitedSink's state, shared by the copies of the sink it returns: the
// budget, and what to say of the messages it held back.
class SinkBudget {
 public:
  SinkBudget(MessageSink sink, int lines, absl::Duration window)
      : sink_(std::move(sink)),
        lines_(lines),
        window_(window),
        budget_(lines, window) {}
  // The count of the messages held back since the last one given, if any:
  // nothing comes after them now.
  ~SinkBudget() {
    absl::MutexLock lock(&mu_);
    SayHeldBack(budget_.TakeHeldBack());
  }

  void Take(std::string_view message) {
    int64_t held_back = 0;
    {
      absl::MutexLock lock(&mu_);
      if (!budget_.Allow(absl::Now(), &held_back)) return;
    }
    SayHeldBack(held_back);
    Say(sink_, message);
  }

 private:
  void SayHeldBack(int64_t held_back) const {
    if (held_back == 0) return;
    Say(sink_, absl::StrCat(held_back, " more such ",
                            held_back == 1 ? "message" : "messages",
                            " not said (at most ", lines_, " per ",
                            absl::FormatDuration(window_), ")"));
  }

  const MessageSink sink_;
  const int lines_;
  const absl::Duration window_;
  absl::Mutex mu_;
  LineBudget budget_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

MessageSink LimitedSink(MessageSink sink, int lines, absl::Duration window) {
  auto budget = std::make_shared<SinkBudget>(std::move(sink), lines, window);
  return [budget](std::string_view message) { budget->Take(message); };
}

}  // namespace pyramid
