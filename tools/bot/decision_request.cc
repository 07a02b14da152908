#include "tools/bot/decision_request.h"

#include <utility>
#include <vector>

#include "referee/service/decision_request.h"

namespace pyramid {

v1::DecisionRequest DecisionRequestFor(const State& state,
                                       const std::string& game,
                                       const std::string& match_id,
                                       uint64_t decision_id, int seat) {
  const std::vector<int> acting = state.ActingSeats();
  return NewDecisionRequest(
      AskedDecision{.match_id = match_id,
                    .game = game,
                    .num_seats = state.num_seats(),
                    .decision_id = decision_id,
                    .acting_seats = acting,
                    .simultaneous = state.IsSimultaneous(),
                    .header_hash = {}},
      seat, state.ObservationFor(seat), state.ListsLegalActions(),
      state.LegalActions(seat));
}

}  // namespace pyramid
