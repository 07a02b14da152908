// Cancels calls whose client does not take what the server sends it. A
// client that never grants HTTP/2 flow-control window (or never reads) can
// keep a call's write, or its Finish behind that write, from ever
// completing: the call then never ends, and holds its memory and whatever
// place it counts in (a watcher's, a GetLog reader's) for as long as the
// client keeps its connection open. Every kind of call of the service
// (Play and Watch on the async API, GetLog, health Watch and unary calls on
// the callback API) watches its writes with a WriteStall. A call taken at
// its headers (one_request.h) watches the read of its one request alike:
// a request that never comes is something in flight that never completes.
//
// The contract:
// - A WriteStallGuard is shared by the calls of one timeout: it holds the
//   timeout and a runner (DelayedRunner) whose checks run every quarter of
//   it. It must outlive every call armed with it.
// - Each call has a WriteStall, armed (Arm) once with the guard and the
//   call's context before its first write; unarmed (no guard), every method
//   is a no-op. The call tells it when something it sends goes in flight
//   (Start: a write, or the Finish that carries its status and last
//   message) and when that is done (Stop: OnWriteDone).
// - A call with something in flight for `timeout` (since the Start that
//   began it) is cancelled (ServerContextBase::TryCancel, which fails the
//   write and leads the call to OnCancel and OnDone), within about a quarter
//   of `timeout` after. A call with nothing in flight is never cancelled,
//   however long it waits (a Watch or Play stream waiting for its next
//   event).
// - Time in flight is measured on the monotonic clock
//   (std::chrono::steady_clock), so that a wall clock step (a VM suspended
//   and resumed, NTP stepping it) does not make every write in flight look
//   stalled; the runner paces the checks on it too (DelayedRunner), so a
//   step neither makes them run late (a cancellation held back) nor early.
// - Cost: Start and Stop are a clock read and an atomic operation or two;
//   a Start posts a check only when none is pending for the call, and a
//   check posts the next only while something is in flight. A busy stream
//   posts one check per quarter timeout at most; an idle one none. Arm
//   allocates the call's shared state, once.
// - Done, from the call's OnDone (before its context goes), waits for a
//   TryCancel under way, after which no check touches the context. Its
//   TryCancel is made without any lock of this class, so that what gRPC runs
//   inline may call Start, Stop or take the call's own locks; gRPC never
//   runs OnDone within TryCancel (it runs it on its own threads once every
//   operation is done), else Done would wait on itself. Done is idempotent,
//   and the destructor calls it.
// - Start and Stop of one call are called one at a time (under the call's
//   lock, or from gRPC's callbacks of one operation); checks may run at any
//   time alongside.
#ifndef PYRAMID_REFEREE_SERVICE_WRITE_STALL_H_
#define PYRAMID_REFEREE_SERVICE_WRITE_STALL_H_

#include <memory>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/delayed_runner.h"

namespace pyramid {

class WriteStallGuard {
 public:
  // `timeout` must be positive.
  explicit WriteStallGuard(absl::Duration timeout);
  WriteStallGuard(const WriteStallGuard&) = delete;
  WriteStallGuard& operator=(const WriteStallGuard&) = delete;

  absl::Duration timeout() const { return timeout_; }

 private:
  friend class WriteStall;
  const absl::Duration timeout_;
  DelayedRunner checks_;
};

class WriteStall {
 public:
  WriteStall() = default;
  ~WriteStall() { Done(); }
  WriteStall(const WriteStall&) = delete;
  WriteStall& operator=(const WriteStall&) = delete;

  // Watches the writes of the call of `context` with `guard` (null: never
  // cancels). Once, before the call's first Start.
  void Arm(WriteStallGuard* guard, grpc::ServerContextBase* context);

  // Something the call sends is in flight from now (a no-op when something
  // already is).
  void Start() {
    if (state_ != nullptr) StartArmed();
  }
  // Nothing is in flight any more.
  void Stop();
  // The call is done (its OnDone): waits for a TryCancel under way.
  void Done();

 private:
  struct State;
  void StartArmed();
  // Posts the call's next check.
  static void Post(const std::shared_ptr<State>& state);
  // A check: cancels the call if what is in flight has been for the
  // timeout, else posts the next while something is in flight.
  static void Check(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;  // Null: unarmed.
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_WRITE_STALL_H_
