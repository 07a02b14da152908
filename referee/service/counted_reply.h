// A unary call's reactor that counts among its address's calls in progress
// (PeerCounts) until it is done: the referee's unary calls
// (ServiceLimits::max_calls_per_peer) and the health service's Check
// (HealthService::LimitChecksPerPeer). A call in progress holds its answer
// and what gRPC keeps of the call (its request too, unless the service
// releases it) until the client takes the answer: one that takes nothing
// holds them until its write stalls for the WriteStallGuard's timeout
// (UnaryReply), and counts for its address all that while.
#ifndef PYRAMID_REFEREE_SERVICE_COUNTED_REPLY_H_
#define PYRAMID_REFEREE_SERVICE_COUNTED_REPLY_H_

#include <utility>

#include "grpcpp/grpcpp.h"
#include "referee/service/peer_counts.h"
#include "referee/service/write_stall.h"

namespace pyramid {

// Made by the code that counted the call, with the slot it filled (empty:
// a call counted nowhere, e.g. one refused, or a token holder's), before
// the call is answered; UnaryReply::Reply finishes the call, once, and the
// reactor deletes itself when the call is done, giving the slot back.
class CountedReply final : public UnaryReply {
 public:
  // `guard`: null, never cancels.
  CountedReply(grpc::CallbackServerContext* context, WriteStallGuard* guard,
               PeerSlot slot)
      : UnaryReply(context, guard), slot_(std::move(slot)) {}

 private:
  ~CountedReply() override = default;
  PeerSlot slot_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_COUNTED_REPLY_H_
