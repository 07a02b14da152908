#include "referee/service/write_stall.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "absl/synchronization/mutex.h"

namespace pyramid {

WriteStallGuard::WriteStallGuard(absl::Duration timeout)
    : timeout_(timeout),
      // A check every quarter of the timeout; a check may run a little
      // early, which only delays a cancellation.
      checks_(timeout / 4, std::min(absl::Seconds(1), timeout / 16)) {}

// What the checks see of one call; outlives it (each pending check holds
// it).
struct WriteStall::State {
  State(WriteStallGuard* guard, grpc::ServerContextBase* context)
      : guard(guard), context(context) {}

  WriteStallGuard* const guard;
  // When what is in flight went in flight (SteadyNanos()); 0: nothing is.
  std::atomic<int64_t> busy_since{0};
  // A check is posted and has not yet decided to post none.
  std::atomic<bool> check_pending{false};
  absl::Mutex mu;
  // The call's, until Done (then null).
  grpc::ServerContextBase* context ABSL_GUARDED_BY(mu);
  // A check is calling context->TryCancel() (without `mu`): Done waits
  // until it is false, so that the context outlives the call.
  bool cancelling ABSL_GUARDED_BY(mu) = false;
};

namespace {

// The monotonic clock, in nanoseconds, never 0 (which means idle): a wall
// clock step (a VM resumed, NTP) must not make a write look stalled.
int64_t SteadyNanos() {
  return std::max<int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count(),
      1);
}

}  // namespace

void WriteStall::Arm(WriteStallGuard* guard, grpc::ServerContextBase* context) {
  if (guard == nullptr) return;
  state_ = std::make_shared<State>(guard, context);
}

void WriteStall::StartArmed() {
  int64_t idle = 0;
  const int64_t now = SteadyNanos();
  if (!state_->busy_since.compare_exchange_strong(idle, now)) return;
  if (!state_->check_pending.exchange(true)) Post(state_);
}

void WriteStall::Stop() {
  if (state_ != nullptr) state_->busy_since.store(0);
}

void WriteStall::Done() {
  if (state_ == nullptr) return;
  absl::MutexLock lock(&state_->mu);
  // A check's TryCancel under way uses the context, which lasts until the
  // call's OnDone returns: wait for it.
  state_->mu.Await(absl::Condition(
      +[](bool* cancelling) { return !*cancelling; }, &state_->cancelling));
  state_->context = nullptr;
}

void WriteStall::Post(const std::shared_ptr<State>& state) {
  state->guard->checks_.Post([state] { Check(state); });
}

void WriteStall::Check(const std::shared_ptr<State>& state) {
  grpc::ServerContextBase* context = nullptr;
  {
    absl::MutexLock lock(&state->mu);
    if (state->context == nullptr) return;  // Done: no check posts again.
    const int64_t since = state->busy_since.load();
    if (since == 0) {
      // Idle: the next Start posts the next check. One that came between
      // the load above and this store saw a check pending and posted none:
      // this check takes its place.
      state->check_pending.store(false);
      if (state->busy_since.load() != 0 &&
          !state->check_pending.exchange(true)) {
        Post(state);
      }
      return;
    }
    if (absl::Nanoseconds(SteadyNanos() - since) < state->guard->timeout()) {
      Post(state);
      return;
    }
    context = state->context;
    state->cancelling = true;
  }
  // Without `mu`, so that whatever TryCancel runs inline may call Start,
  // Stop or what takes the call's locks; the context stays valid meanwhile
  // because Done, after which gRPC frees it, waits for `cancelling` to
  // clear. What is in flight then ends (not ok), and the call with it; no
  // check is posted after this one (the call is over).
  context->TryCancel();
  absl::MutexLock lock(&state->mu);
  state->cancelling = false;
}

}  // namespace pyramid
