#include "referee/service/messages.h"

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
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

}  // namespace pyramid
