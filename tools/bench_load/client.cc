#include "tools/bench_load/client.h"

#include <utility>

#include "referee/crypto/bytes.h"

namespace pyramid::bench_load {
namespace {

// `when`, rounded up to a whole millisecond.
gpr_timespec CeilToMillisecond(gpr_timespec when) {
  constexpr int32_t kNanosPerMs = 1000000;
  const int32_t past = when.tv_nsec % kNanosPerMs;
  if (past == 0) return when;
  return gpr_time_add(when,
                      gpr_time_from_nanos(kNanosPerMs - past, GPR_TIMESPAN));
}

}  // namespace

std::string Worker::RandomBytes(size_t n) {
  if (random_.size() - random_used_ < n) {
    random_ = SystemRandomBytes(std::max(n, kRandomBuffer));
    random_used_ = 0;
  }
  std::string bytes = random_.substr(random_used_, n);
  random_used_ += n;
  return bytes;
}

void Worker::Loop() {
  void* tag = nullptr;
  bool ok = false;
  int events = 0;  // Since the deferred handlers last ran.
  while (true) {
    // With work deferred, only look for an event that is ready. Timers
    // wake the thread on whole milliseconds, each wake-up firing every
    // timer due by then (a seat's think time may end up to 1 ms late):
    // thousands of seats thinking would otherwise cost a wake-up each.
    const gpr_timespec deadline =
        !deferred_.empty() ? gpr_inf_past(GPR_CLOCK_MONOTONIC)
        : timers_.empty()  ? gpr_inf_future(GPR_CLOCK_MONOTONIC)
                           : CeilToMillisecond(timers_.top().when);
    const auto status = cq_.AsyncNext(&tag, &ok, deadline);
    if (status == grpc::CompletionQueue::SHUTDOWN) return;
    if (status == grpc::CompletionQueue::GOT_EVENT) {
      Tag* t = static_cast<Tag*>(tag);
      t->handler->OnEvent(t->kind, ok);
      ++events;
    }
    const gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
    while (!timers_.empty() && gpr_time_cmp(timers_.top().when, now) <= 0) {
      Tag* due = timers_.top().tag;
      timers_.pop();
      due->handler->OnEvent(due->kind, true);
      ++events;
    }
    if (status == grpc::CompletionQueue::TIMEOUT ||
        events >= kMaxEventsBeforeIdle) {
      events = 0;
      for (Handler* handler : std::exchange(deferred_, {})) {
        handler->OnIdle();
      }
    }
  }
}

Snapshot Take(const std::vector<std::unique_ptr<Worker>>& workers) {
  Snapshot s;
  for (const auto& w : workers) {
    s.sent += w->stats().sent.load(std::memory_order_relaxed);
    s.received += w->stats().received.load(std::memory_order_relaxed);
    s.wire += w->stats().wire.load(std::memory_order_relaxed);
    s.bytes += w->stats().bytes.load(std::memory_order_relaxed);
    s.sized += w->stats().sized.load(std::memory_order_relaxed);
    s.moves += w->stats().moves.load(std::memory_order_relaxed);
  }
  return s;
}

}  // namespace pyramid::bench_load
