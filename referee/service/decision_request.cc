#include "referee/service/decision_request.h"

#include <utility>

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

v1::DecisionRequest NewDecisionRequest(
    const AskedDecision& asked, int seat,
    std::optional<v1::Observation> observation, bool listed,
    std::vector<v1::Action> legal) {
  v1::DecisionRequest request;
  FillDecisionRequest(asked, seat, listed, request);
  if (asked.decision_id != 0 && observation) {
    *request.mutable_observation() = *std::move(observation);
  }
  for (v1::Action& action : legal) {
    *request.add_legal_actions() = std::move(action);
  }
  return request;
}

void FillDecisionRequest(const AskedDecision& asked, int seat, bool listed,
                         v1::DecisionRequest& request) {
  request.set_match_id(asked.match_id.data(), asked.match_id.size());
  request.set_game(asked.game.data(), asked.game.size());
  request.set_seat(seat);
  request.set_num_seats(asked.num_seats);
  request.set_decision_id(asked.decision_id);
  for (int s : asked.acting_seats) request.add_acting_seats(s);
  request.set_simultaneous(asked.simultaneous);
  request.set_legal_actions_listed(listed);
  if (asked.decision_id == 0 && !asked.header_hash.empty()) {
    request.set_header_hash(asked.header_hash.data(), asked.header_hash.size());
  }
}

}  // namespace pyramid
