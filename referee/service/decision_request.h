// The DecisionRequest a seat receives (docs/protocol.md, "Decisions"), built
// in one place for every sender: the referee's MatchHost and the in-process
// arena (tools/bot/decision_request.h), so both send exactly the same
// message. Messages only: no rules engine, no gRPC.
#ifndef PYRAMID_REFEREE_SERVICE_DECISION_REQUEST_H_
#define PYRAMID_REFEREE_SERVICE_DECISION_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "pyramid/referee/v1/referee_service.pb.h"

namespace pyramid {

// What the referee asks in an open decision. The views must outlive the
// NewDecisionRequest call they are given to (the service builds one per
// request it sends, so it copies nothing here).
struct AskedDecision {
  std::string_view match_id;
  std::string_view game;
  int num_seats = 0;
  uint64_t decision_id = 0;
  absl::Span<const int> acting_seats;  // Ascending.
  bool simultaneous = false;
  // Decision 0: the hash of the log's header record, which the seats name
  // in their seed contributions (DecisionRequest.header_hash). Not sent in
  // any later decision.
  std::string_view header_hash;
};

// The request for `seat` (one of `asked.acting_seats`): its `observation`
// (never in the seed decision; left out when nullopt: the caller then says
// why, e.g. observation_in_result), and its `legal` actions when the game
// lists them (`listed`). No deadline; not committed.
referee::v1::DecisionRequest NewDecisionRequest(
    const AskedDecision& asked, int seat,
    std::optional<referee::v1::Observation> observation, bool listed,
    std::vector<referee::v1::Action> legal);

// The same request without its observation and its legal actions, built
// in `request`, which is empty and may live on an arena (where the service
// builds what it sends): the caller builds those in it, or says why there
// is no observation.
void FillDecisionRequest(const AskedDecision& asked, int seat, bool listed,
                         referee::v1::DecisionRequest& request);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DECISION_REQUEST_H_
